// Package api is registryd's REST API: the review workflow's writes, the
// published registry's reads, the canonical reports install clients fetch,
// trust badges, and the OpenAPI 3.1 document that describes all of them
// (GET /openapi.json).
//
// Every handler returns an error; one adapter turns it into an RFC 9457
// problem (application/problem+json) through one table of domain errors. A
// 5xx never carries the internal error to the client. Writes go through the
// workflow service; reads go straight to a storage.Reader.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/registryd/registryd/clientip"
	"github.com/registryd/registryd/internal/buildinfo"
	"github.com/registryd/registryd/listing"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/readcache"
	"github.com/registryd/registryd/workflow"
)

// Workflow is the part of the review workflow the API calls. The concrete
// *workflow.Service satisfies it.
type Workflow interface {
	Submit(ctx context.Context, a workflow.Actor, manifest []byte, f workflow.Format, origin *registry.GitHubOrigin) (registry.Submission, registry.Report, bool, error)
	Approve(ctx context.Context, a workflow.Actor, submissionID, reason string) (registry.Submission, error)
	ApproveOverride(ctx context.Context, a workflow.Actor, submissionID, reason string) (registry.Submission, error)
	Reject(ctx context.Context, a workflow.Actor, submissionID, reason string) (registry.Submission, error)
	SetVerified(ctx context.Context, a workflow.Actor, addon string, verified bool, reason string) (workflow.VerifyOutcome, error)
	Suppress(ctx context.Context, a workflow.Actor, addon string, sp registry.Suppression) (registry.Suppression, error)
	Unsuppress(ctx context.Context, a workflow.Actor, addon, suppressionID string) error
	Authenticate(ctx context.Context, secret string) (workflow.Actor, error)
}

// DefaultMaxBodyBytes bounds a request body when Deps.MaxBodyBytes is zero.
// It leaves room for a manifest at its own bound in its JSON form.
const DefaultMaxBodyBytes = 512 << 10

// Deps is everything the API needs. Reader and Workflow are required; every
// other field may be left zero.
type Deps struct {
	// Reader serves every read. When it also has a Changes method
	// returning its *readcache.Tracker (the stores do), badges and the
	// registry's pages are answered from memory until what they show
	// changes.
	Reader storage.Reader
	// Workflow performs every write and authenticates tokens.
	Workflow Workflow
	// Logger receives one line per request and every 5xx error. Nil
	// discards.
	Logger *slog.Logger
	// Ready reports whether the service can serve (store reachable,
	// migrations applied); GET /readyz calls it. Nil means always ready.
	Ready func(ctx context.Context) error
	// MaxBodyBytes bounds request bodies; zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// RateLimit is the number of requests a minute allowed per client
	// address and, separately, per API token, for everything but the
	// cacheable public reads. Zero or less disables it.
	RateLimit int
	// CacheableRateLimit is the number of requests a minute allowed per
	// client address for the cacheable public reads: reports, badges,
	// /openapi.json, /v1/rules and the pages' static assets. They spend
	// this budget and not RateLimit's, so that an image proxy fetching
	// badges cannot use up a client's writes. Zero or less disables it.
	CacheableRateLimit int
	// Clients resolves a request's client address and scheme; nil trusts
	// no proxy, so that the peer address is the client.
	Clients *clientip.Resolver
	// Build is the running build, which GET /healthz reports.
	Build buildinfo.Info
	// Metrics receives the API's measurements; nil discards them.
	Metrics Metrics
	// MetricsHandler, when non-nil, serves GET /metrics.
	MetricsHandler http.Handler
	// Webhook, when non-nil, is mounted at POST /v1/webhooks/github. It is
	// not authenticated here (it verifies its own signatures), and only the
	// deliveries it refuses as unauthenticated (401), too slow (408) or too
	// large (413) count against their address's rate limit.
	Webhook http.Handler
	// Deliveries, when non-nil, serves GET /v1/webhooks/deliveries (and the
	// paths below it) to maintainers.
	Deliveries http.Handler
	// Web, when non-nil, serves every path outside /v1/ that no API route
	// claims (the HTML pages).
	Web http.Handler
	// PublicURL is the externally visible base URL ("https://registry.example")
	// used in the links the API returns; empty gives relative links.
	PublicURL string
}

// Metrics receives what the API measures. Implementations must be safe
// for concurrent use.
type Metrics interface {
	// ObserveRequest records one answered request: its method, the route
	// template it matched (never the raw path), its status and how long it
	// took.
	ObserveRequest(method, route string, status int, elapsed time.Duration)
	// BadgeCache records a lookup of the badge cache: hit when the whole
	// answer came from memory.
	BadgeCache(hit bool)
}

type noMetrics struct{}

func (noMetrics) ObserveRequest(string, string, int, time.Duration) {}
func (noMetrics) BadgeCache(bool)                                   {}

// server holds the dependencies of the handlers.
type server struct {
	reader   storage.Reader
	wf       Workflow
	log      *slog.Logger
	ready    func(ctx context.Context) error
	maxBody  int64
	public   string
	ns       string // the namespace of server names (see namespace)
	limiters limiters
	clients  *clientip.Resolver
	metrics  Metrics
	// changes tells when the published reads and the log change; badges,
	// lists and inclusion proofs keep whole answers against it.
	changes *readcache.Tracker
	badges  *readcache.Cache[badgeKey, renderedBadge]
	lists   *readcache.Cache[string, listing.Answer] // GET /v1/addons by query
	proofs  *readcache.Cache[proofKey, renderedProof]
	tiles   *tileCache    // the log's tiles and bundles (tiles.go)
	routing routeContexts // the router's per-request contexts (observe)
	deps    Deps
	// keysBody and keysETag are GET /v1/keys's answer.
	keysBody []byte
	keysETag string
}

// New returns the API's handler. It panics if d.Reader or d.Workflow is nil,
// which is a wiring mistake, not a runtime condition. The handler is safe
// for concurrent use.
func New(d Deps) http.Handler { return newServer(d).routes() }

// newServer returns the server New routes to.
func newServer(d Deps) *server {
	if d.Reader == nil || d.Workflow == nil {
		panic("api.New: Reader and Workflow are required")
	}
	s := &server{
		reader:  d.Reader,
		wf:      d.Workflow,
		log:     d.Logger,
		ready:   d.Ready,
		maxBody: d.MaxBodyBytes,
		public:  trimSlash(d.PublicURL),
		ns:      namespace(d.PublicURL),
		clients: d.Clients,
		metrics: d.Metrics,
		changes: trackerOf(d.Reader),
		deps:    d,
	}
	s.badges = readcache.NewCache[badgeKey, renderedBadge](s.changes, maxCachedBadges)
	s.lists = readcache.NewCache[string, listing.Answer](s.changes, maxCachedLists)
	s.proofs = readcache.NewCache[proofKey, renderedProof](s.changes, maxCachedProofs)
	s.tiles = newTileCache(maxCachedTileBytes)
	if s.metrics == nil {
		s.metrics = noMetrics{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	if s.ready == nil {
		s.ready = func(context.Context) error { return nil }
	}
	s.limiters = newLimiters(d.RateLimit, d.CacheableRateLimit, s)
	s.keysBody, s.keysETag = keysDocument(d.Reader.SigningKeys())
	return s
}

// The timeouts NewHTTPServer sets.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 30 * time.Second
	WriteTimeout      = 60 * time.Second
	IdleTimeout       = 120 * time.Second
	MaxHeaderBytes    = 64 << 10
)

// NewHTTPServer returns an http.Server for h listening on addr with every
// timeout set (ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout)
// and request headers bounded by MaxHeaderBytes. logger, when non-nil,
// receives the server's own errors.
func NewHTTPServer(addr string, h http.Handler, logger *slog.Logger) *http.Server {
	srv := &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
	if logger != nil {
		srv.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	}
	return srv
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
