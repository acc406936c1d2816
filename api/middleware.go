package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/httprate"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/workflow"
)

type ctxKey int

const actorKey ctxKey = iota

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

// observe assigns the request id, sets the headers every response carries,
// turns a panic into a 500 problem and logs one line per request.
func (s *server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(RequestIDHeader)
		if !safeRequestID(id) {
			id = newRequestID()
		}
		r = r.WithContext(problem.WithRequestID(r.Context(), id))
		h := w.Header()
		h.Set(RequestIDHeader, id)
		h.Set("X-Content-Type-Options", "nosniff")
		rec := &statusRecorder{ResponseWriter: w}
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
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("request_id", id), slog.String("method", r.Method), slog.String("route", routePattern(r)),
				slog.Int("status", rec.status), slog.Duration("duration", time.Since(start)))
		}()
		next.ServeHTTP(rec, r)
	})
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
				err = &problem.Error{Status: http.StatusUnauthorized, Slug: "unauthenticated", Detail: "the token is unknown or revoked",
					Header: http.Header{"Www-Authenticate": {`Bearer realm="registryd", error="invalid_token"`}}}
			}
			s.writeError(w, r, err)
			return
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

// limiters holds the two rate limiters: per client address and per token,
// each allowing perMinute requests a minute.
type limiters struct {
	byAddress *httprate.RateLimiter
	byToken   *httprate.RateLimiter
	perMinute int
}

func newLimiters(perMinute int, s *server) *limiters {
	if perMinute <= 0 {
		return nil
	}
	onLimit := httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, &problem.Error{Status: http.StatusTooManyRequests, Slug: "rate-limited",
			Detail: "too many requests; retry after the number of seconds in Retry-After"})
	})
	return &limiters{
		byAddress: httprate.NewRateLimiter(perMinute, time.Minute, onLimit),
		byToken:   httprate.NewRateLimiter(perMinute, time.Minute, onLimit),
		perMinute: perMinute,
	}
}

// unlimited names the paths no limiter applies to: the probes.
func unlimited(path string) bool {
	return path == "/healthz" || path == "/readyz"
}

// webhookPath is GitHub's delivery endpoint, which limitByAddress treats
// apart.
const webhookPath = "/v1/webhooks/github"

// limitByAddress applies the per-address limit, keyed by the connection's
// peer address (IPv6 by /64).
func (s *server) limitByAddress(next http.Handler) http.Handler {
	if s.limiters == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unlimited(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		key := "addr:" + httprate.CanonicalizeIP(host)
		if r.URL.Path == webhookPath {
			s.limitWebhook(next, w, r, key)
			return
		}
		if s.limiters.byAddress.RespondOnLimit(w, r, key) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limitWebhook applies the per-address limit to a webhook delivery, but
// charges only deliveries that fail authentication (401), arrive too slowly
// (408) or are too large (413): an address whose deliveries keep failing is
// limited like any other client, while GitHub's signed deliveries, which do
// not fail, never use up their address's allowance however many there are.
// A limited address is refused before the delivery's body is read.
func (s *server) limitWebhook(next http.Handler, w http.ResponseWriter, r *http.Request, key string) {
	l := s.limiters.byAddress
	if _, rate, err := l.Status(key); err == nil && int(math.Round(rate)) >= s.limiters.perMinute {
		s.writeError(w, r, &problem.Error{Status: http.StatusTooManyRequests, Slug: "rate-limited",
			Detail: "too many failed deliveries from this address; retry after the number of seconds in Retry-After",
			Header: http.Header{"Retry-After": {strconv.Itoa(int(time.Minute.Seconds()))}}})
		return
	}
	rec := &statusRecorder{ResponseWriter: w}
	next.ServeHTTP(rec, r)
	switch rec.status {
	case http.StatusUnauthorized, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge:
		l.OnLimit(headerSink{}, r, key)
	}
}

// headerSink is a ResponseWriter for the limiter's headers once the answer
// has been written: it keeps nothing.
type headerSink struct{}

func (headerSink) Header() http.Header         { return http.Header{} }
func (headerSink) Write(b []byte) (int, error) { return len(b), nil }
func (headerSink) WriteHeader(int)             {}

// limitByToken applies the per-token limit to authenticated requests.
func (s *server) limitByToken(next http.Handler) http.Handler {
	if s.limiters == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := ActorFrom(r.Context())
		if !ok || unlimited(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		if s.limiters.byToken.RespondOnLimit(w, r, "token:"+a.TokenID+"/"+a.Name) {
			return
		}
		next.ServeHTTP(w, r)
	})
}
