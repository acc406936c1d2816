package api

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/httprate"

	"github.com/registryd/registryd/clientip"
	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/workflow"
)

type ctxKey int

const (
	actorKey ctxKey = iota
	exchangeKey
)

// RequestIDHeader carries the request id both ways: a client may send one
// (1 to 64 characters of [A-Za-z0-9._-]); otherwise, or when it sends
// anything else, the server makes one. Every response and problem carries
// it, and so does every log line about the request.
const RequestIDHeader = "X-Request-Id"

// RequestIDFrom returns the request id of the request ctx belongs to, or ""
// outside the API's handler.
func RequestIDFrom(ctx context.Context) string { return requestIDFrom(ctx) }

func requestIDFrom(ctx context.Context) string { return problem.RequestID(ctx) }

// safeRequestID reports whether a client's request id may be echoed.
func safeRequestID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusRecorder remembers the status a handler wrote, for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// exchange is what the access log and the metrics learn about a request
// while it is handled: observe puts one in the context, and the handlers
// deeper in the chain fill it in.
//
// It is also the request's context below observe: it answers for itself
// (exchangeKey) and for the router's context (routeContextKey), and asks
// its parent for everything else. One allocation thus carries what the
// access log, the rate limits and the router keep per request, where
// separate context values would cost one each.
type exchange struct {
	context.Context
	route   *routeContext  // the router's, from server.routing
	rec     statusRecorder // the response, as the handlers write it
	client  string         // the client's address as logged (clientLabel)
	addrKey string         // the client's per-address rate limit key, once asked for

	actor, tokenID string // the authenticated caller, if any
	label          string // the route label when no API route matched
}

// Value answers for the exchange and the router's context, and asks the
// parent context for any other key.
func (x *exchange) Value(key any) any {
	switch key {
	case exchangeKey:
		return x
	case routeContextKey:
		return x.route
	}
	return x.Context.Value(key)
}

func exchangeFrom(ctx context.Context) *exchange {
	x, _ := ctx.Value(exchangeKey).(*exchange)
	return x
}

// Route labels of requests no API route claims.
const (
	routePages     = "(pages)"     // served by the web pages
	routeUnmatched = "(unmatched)" // a 404 or 405 problem
)

// maxLoggedPath bounds the path an access log line repeats.
const maxLoggedPath = 256

// Header values the hot reads send, shared by every response that sends
// them rather than made for each: a header's value slice is never
// modified in place, and these have no room to be appended to.
var (
	nosniff           = []string{"nosniff"}
	contentJSON       = []string{"application/json"}
	contentSVG        = []string{"image/svg+xml"}
	badgeCSP          = []string{"default-src 'none'; style-src 'unsafe-inline'"}
	cacheNoCache      = []string{"no-cache"}
	cachePublicReport = []string{publicReportCache}
)

// headerValue returns v as a header's values, shared when it is one of the
// above.
func headerValue(v string) []string {
	if v == publicReportCache {
		return cachePublicReport
	}
	return []string{v}
}

// observe assigns the request id, resolves the client (through trusted
// proxies), sets the headers every response carries, turns a panic into a
// 500 problem, counts the request in the metrics and logs one line per
// request. It wraps the router, whose context it provides: next routes
// the request.
func (s *server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(RequestIDHeader)
		if !safeRequestID(id) {
			id = newRequestID()
		}
		client := s.clients.Resolve(r)
		rctx := s.routing.get()
		ctx := problem.WithRequestID(r.Context(), id)
		ctx = clientip.WithClient(ctx, client)
		x := &exchange{Context: ctx, route: rctx, rec: statusRecorder{ResponseWriter: w}, client: clientLabel(client, r)}
		r = r.WithContext(x)
		h := w.Header()
		h[RequestIDHeader] = []string{id}
		h["X-Content-Type-Options"] = nosniff
		rec := &x.rec
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				err := errors.New("panic in handler")
				s.log.LogAttrs(r.Context(), slog.LevelError, "handler panicked", slog.String("request_id", id), slog.Any("panic", v))
				if rec.status == 0 {
					s.writeError(rec, r, err)
				}
			}
			elapsed := time.Since(start)
			route := rctx.RoutePattern()
			if route == "" {
				route = cmp.Or(x.label, routeUnmatched)
			}
			status := cmp.Or(rec.status, http.StatusOK)
			s.metrics.ObserveRequest(r.Method, route, status, elapsed)
			path := r.URL.Path
			if len(path) > maxLoggedPath {
				path = path[:maxLoggedPath] + "…"
			}
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("request_id", id), slog.String("method", r.Method), slog.String("path", path),
				slog.String("route", route), slog.Int("status", status), slog.String("client", x.client),
				slog.String("actor", x.actor), slog.String("token_id", x.tokenID),
				slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000))
			s.routing.put(rctx)
		}()
		next.ServeHTTP(rec, r)
	})
}

// clientLabel is the client's address for the access log and the rate
// limits: the resolved address, or the raw peer address when it is not an
// IP.
func clientLabel(c clientip.Client, r *http.Request) string {
	if c.Addr.IsValid() {
		return c.Addr.String()
	}
	return r.RemoteAddr
}

// ActorFrom returns the authenticated caller of the request ctx belongs to,
// and false for an anonymous request.
func ActorFrom(ctx context.Context) (workflow.Actor, bool) {
	a, ok := ctx.Value(actorKey).(workflow.Actor)
	return a, ok
}

// WithActor returns a copy of ctx carrying a as the authenticated caller.
// The web pages use it for a maintainer signed in by session, so that
// RequireRole and the API's handlers see the same caller.
func WithActor(ctx context.Context, a workflow.Actor) context.Context {
	return context.WithValue(ctx, actorKey, a)
}

// bearer extracts the token of an `Authorization: Bearer <token>` header.
// It reports present=false when there is no Authorization header.
func bearer(r *http.Request) (token string, present bool, ok bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false, false
	}
	scheme, tok, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", true, false
	}
	tok = strings.TrimSpace(tok)
	if tok == "" || len(tok) > 256 {
		return "", true, false
	}
	return tok, true, true
}

// authenticate resolves a bearer token to its actor. A request without an
// Authorization header stays anonymous; one with an unknown, revoked or
// malformed token is refused with 401 whatever it asks for.
func (s *server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, present, ok := bearer(r)
		if !present {
			next.ServeHTTP(w, r)
			return
		}
		if !ok {
			s.writeError(w, r, &problem.Error{Status: http.StatusUnauthorized, Slug: "unauthenticated",
				Detail: "the Authorization header must be `Bearer <token>`",
				Header: http.Header{"Www-Authenticate": {`Bearer realm="registryd", error="invalid_request"`}}})
			return
		}
		a, err := s.wf.Authenticate(r.Context(), tok)
		if err != nil {
			if errors.Is(err, registry.ErrUnauthenticated) {
				err = &problem.Error{Status: http.StatusUnauthorized, Slug: "unauthenticated", Detail: "the token is unknown, revoked or expired",
					Header: http.Header{"Www-Authenticate": {`Bearer realm="registryd", error="invalid_token"`}}}
			}
			s.writeError(w, r, err)
			return
		}
		if x := exchangeFrom(r.Context()); x != nil {
			x.actor, x.tokenID = a.Name, a.TokenID
		}
		next.ServeHTTP(w, r.WithContext(WithActor(r.Context(), a)))
	})
}

// RequireRole returns middleware that lets a request through only when its
// caller (see ActorFrom) has at least role min: an anonymous caller gets a
// 401 problem, one with a lesser role a 403 problem. Problems carry the
// request id when the request went through the API's handler.
func RequireRole(min registry.Role) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := checkRole(r.Context(), min); err != nil {
				writeBareError(w, r, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// checkRole returns nil when the caller has at least role min, else a 401
// problem for an anonymous caller or a 403 problem for a lesser role.
func checkRole(ctx context.Context, min registry.Role) error {
	a, ok := ActorFrom(ctx)
	if !ok {
		return &problem.Error{Status: http.StatusUnauthorized, Slug: "unauthenticated", Detail: "this endpoint needs a bearer token",
			Header: http.Header{"Www-Authenticate": {`Bearer realm="registryd"`}}}
	}
	if !a.Role.AtLeast(min) {
		return &problem.Error{Status: http.StatusForbidden, Slug: "forbidden", Detail: "this endpoint needs the " + string(min) + " role"}
	}
	return nil
}

// writeBareError writes a problem outside a server (RequireRole is usable
// on its own); it logs nothing.
func writeBareError(w http.ResponseWriter, r *http.Request, err error) {
	(&server{log: slog.New(slog.DiscardHandler)}).writeError(w, r, err)
}

// limiters holds the rate limiters: per client address, one budget for
// the cacheable public reads (reports, badges, the API's documents and the
// pages' assets) and one for everything else, and one per token. A nil
// field is a limit that is off.
type limiters struct {
	general, cacheable *addressLimit
	byToken            *httprate.RateLimiter
}

// addressLimit is a per-address budget of perMinute requests a minute.
type addressLimit struct {
	l         *httprate.RateLimiter
	perMinute int
}

func newLimiters(general, cacheable int, s *server) limiters {
	onLimit := httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &problem.Error{Status: http.StatusTooManyRequests, Slug: "rate-limited",
			Detail: "too many requests; retry after the number of seconds in Retry-After"})
	})
	var l limiters
	if general > 0 {
		l.general = &addressLimit{l: httprate.NewRateLimiter(general, time.Minute, onLimit, limitHeaders), perMinute: general}
		l.byToken = httprate.NewRateLimiter(general, time.Minute, onLimit, limitHeaders)
	}
	if cacheable > 0 {
		l.cacheable = &addressLimit{l: httprate.NewRateLimiter(cacheable, time.Minute, onLimit, limitHeaders), perMinute: cacheable}
	}
	return l
}

// limitHeaders names the limiters' headers as they go on the wire,
// X-Ratelimit-Limit and so on: the limiter's own defaults (X-RateLimit-…)
// are the same headers, but net/http makes a canonical copy of such a
// name each time one is set, on every request.
var limitHeaders = httprate.WithResponseHeaders(httprate.ResponseHeaders{
	Limit:      "X-Ratelimit-Limit",
	Remaining:  "X-Ratelimit-Remaining",
	Increment:  "X-Ratelimit-Increment",
	Reset:      "X-Ratelimit-Reset",
	RetryAfter: "Retry-After",
})

// addressKey is the rate limit key of r's client: its address, IPv6 by
// /64, as resolved through the trusted proxies.
func addressKey(r *http.Request) string {
	x := exchangeFrom(r.Context())
	if x == nil {
		c, _ := clientip.FromContext(r.Context())
		return "addr:" + httprate.CanonicalizeIP(clientLabel(c, r))
	}
	if x.addrKey == "" {
		x.addrKey = "addr:" + httprate.CanonicalizeIP(x.client)
	}
	return x.addrKey
}

// limitByAddress returns middleware that applies budget to each client
// address; a nil budget lets every request through.
func limitByAddress(budget *addressLimit) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if budget == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if budget.l.RespondOnLimit(w, r, addressKey(r)) {
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// limitWebhook applies the general per-address limit to webhook
// deliveries, but charges only deliveries that fail authentication (401),
// arrive too slowly (408) or are too large (413): an address whose
// deliveries keep failing is limited like any other client, while GitHub's
// signed deliveries, which do not fail, never use up their address's
// allowance however many there are. A limited address is refused before
// the delivery's body is read.
func (s *server) limitWebhook(next http.Handler) http.Handler {
	budget := s.limiters.general
	if budget == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := addressKey(r)
		if _, rate, err := budget.l.Status(key); err == nil && int(math.Round(rate)) >= budget.perMinute {
			s.writeError(w, r, &problem.Error{Status: http.StatusTooManyRequests, Slug: "rate-limited",
				Detail: "too many failed deliveries from this address; retry after the number of seconds in Retry-After",
				Header: http.Header{"Retry-After": {strconv.Itoa(int(time.Minute.Seconds()))}}})
			return
		}
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		switch rec.status {
		case http.StatusUnauthorized, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge:
			budget.l.OnLimit(headerSink{}, r, key)
		}
	})
}

// headerSink is a ResponseWriter for the limiter's headers once the answer
// has been written: it keeps nothing.
type headerSink struct{}

func (headerSink) Header() http.Header         { return http.Header{} }
func (headerSink) Write(b []byte) (int, error) { return len(b), nil }
func (headerSink) WriteHeader(int)             {}

// limitByToken applies the per-token limit to authenticated requests.
func (s *server) limitByToken(next http.Handler) http.Handler {
	if s.limiters.byToken == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := ActorFrom(r.Context())
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if s.limiters.byToken.RespondOnLimit(w, r, "token:"+a.TokenID+"/"+a.Name) {
			return
		}
		next.ServeHTTP(w, r)
	})
}
