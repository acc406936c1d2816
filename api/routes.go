package api

import (
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
)

// routes is the whole API in one table. This is the only file that knows the
// router library.
//
// Every request is observed (request id, client address, metrics, access
// log) and has its query checked before routing. After routing, each group
// applies its own chain: the probes only authenticate; the cacheable public
// reads (reports, badges, the API's documents, the pages' assets) are open
// to other origins and spend their own per-address budget; the other
// public reads are open to other origins and spend the general budgets;
// everything else spends the general budgets. Each per-address limit comes
// before authentication, so that a flood of bad tokens is limited before
// it costs a token lookup.
func (s *server) routes() http.Handler {
	r := chi.NewRouter()

	general := chi.Chain(limitByAddress(s.limiters.general), s.authenticate, s.limitByToken)
	cacheable := chi.Chain(crossOrigin, limitByAddress(s.limiters.cacheable), s.authenticate)
	public := append(chi.Chain(crossOrigin), general...)

	r.NotFound(general.HandlerFunc(compress(http.HandlerFunc(s.notFound)).ServeHTTP).ServeHTTP)
	r.MethodNotAllowed(general.HandlerFunc(s.handle(func(w http.ResponseWriter, req *http.Request) error {
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions} {
			if r.Match(chi.NewRouteContext(), m, req.URL.Path) {
				allow = append(allow, m)
			}
		}
		return problem.MethodNotAllowed(strings.Join(allow, ", "))
	})).ServeHTTP)

	submitter := RequireRole(registry.RoleSubmitter)
	maintainer := RequireRole(registry.RoleMaintainer)

	r.Group(func(r chi.Router) {
		r.Use(s.authenticate)
		r.Get("/healthz", s.handle(s.healthz))
		r.Get("/readyz", s.handle(s.readyz))
	})

	r.Group(func(r chi.Router) {
		r.Use(cacheable...)
		r.Get("/openapi.json", compress(s.handle(s.openAPI)).ServeHTTP)
		r.Head("/openapi.json", compress(s.handle(s.openAPI)).ServeHTTP)
		r.Options("/openapi.json", options)
		r.Get("/v1/rules", compress(s.handle(s.rules)).ServeHTTP)
		r.Options("/v1/rules", options)

		r.Get("/v1/addons/{name}/versions/{version}/report", s.publishedReport(false))
		r.Head("/v1/addons/{name}/versions/{version}/report", s.publishedReport(false))
		r.Options("/v1/addons/{name}/versions/{version}/report", options)
		r.Get("/v1/addons/{name}/report", s.publishedReport(true))
		r.Head("/v1/addons/{name}/report", s.publishedReport(true))
		r.Options("/v1/addons/{name}/report", options)
		r.Get("/v1/addons/{name}/versions/{version}/manifest", s.handle(s.publishedManifest))
		r.Head("/v1/addons/{name}/versions/{version}/manifest", s.handle(s.publishedManifest))
		r.Options("/v1/addons/{name}/versions/{version}/manifest", options)
		r.Get("/v1/reports/sha256/{sha256}", s.handle(s.reportByManifest))
		r.Head("/v1/reports/sha256/{sha256}", s.handle(s.reportByManifest))
		r.Options("/v1/reports/sha256/{sha256}", options)
		r.Get("/v1/reports/sha256/{sha256}/report.dsse", s.handle(s.envelopeByManifest))
		r.Head("/v1/reports/sha256/{sha256}/report.dsse", s.handle(s.envelopeByManifest))
		r.Options("/v1/reports/sha256/{sha256}/report.dsse", options)
		r.Get("/v1/reports/sha256/{sha256}/proof", s.handle(s.proofByManifest))
		r.Head("/v1/reports/sha256/{sha256}/proof", s.handle(s.proofByManifest))
		r.Options("/v1/reports/sha256/{sha256}/proof", options)
		// What install clients verify (docs/trust.md).
		r.Get("/v1/keys", s.handle(s.keys))
		r.Head("/v1/keys", s.handle(s.keys))
		r.Options("/v1/keys", options)
		r.Get("/v1/addons/{name}/versions/{version}/report.dsse", s.publishedEnvelope(false))
		r.Head("/v1/addons/{name}/versions/{version}/report.dsse", s.publishedEnvelope(false))
		r.Options("/v1/addons/{name}/versions/{version}/report.dsse", options)
		r.Get("/v1/addons/{name}/report.dsse", s.publishedEnvelope(true))
		r.Head("/v1/addons/{name}/report.dsse", s.publishedEnvelope(true))
		r.Options("/v1/addons/{name}/report.dsse", options)
		r.Get("/v1/addons/{name}/versions/{version}/proof", s.proof(false))
		r.Head("/v1/addons/{name}/versions/{version}/proof", s.proof(false))
		r.Options("/v1/addons/{name}/versions/{version}/proof", options)
		r.Get("/v1/addons/{name}/proof", s.proof(true))
		r.Head("/v1/addons/{name}/proof", s.proof(true))
		r.Options("/v1/addons/{name}/proof", options)
		r.Get("/v1/log/checkpoint", s.handle(s.checkpoint))
		r.Head("/v1/log/checkpoint", s.handle(s.checkpoint))
		r.Options("/v1/log/checkpoint", options)
		r.Get("/v1/log/consistency", s.handle(s.consistency))
		r.Head("/v1/log/consistency", s.handle(s.consistency))
		r.Options("/v1/log/consistency", options)
		// The log as C2SP tlog-tiles (tiles.go); bundles of text entries
		// compress, tiles of hashes do not.
		r.Get(entriesPrefix+"*", compress(s.handle(s.logTile)).ServeHTTP)
		r.Head(entriesPrefix+"*", compress(s.handle(s.logTile)).ServeHTTP)
		r.Options(entriesPrefix+"*", options)
		r.Get(tilePrefix+"*", s.handle(s.logTile))
		r.Head(tilePrefix+"*", s.handle(s.logTile))
		r.Options(tilePrefix+"*", options)

		r.Get("/v1/addons/{name}/badge.svg", s.handle(s.badgeOf(false)))
		r.Head("/v1/addons/{name}/badge.svg", s.handle(s.badgeOf(false)))
		r.Options("/v1/addons/{name}/badge.svg", options)
		r.Get("/v1/addons/{name}/badge.json", s.handle(s.badgeOf(true)))
		r.Head("/v1/addons/{name}/badge.json", s.handle(s.badgeOf(true)))
		r.Options("/v1/addons/{name}/badge.json", options)

		if s.deps.Web != nil {
			r.Get(StaticPath+"*", s.pages)
			r.Head(StaticPath+"*", s.pages)
		}
	})

	r.Group(func(r chi.Router) {
		r.Use(public...)
		r.Use(compress)
		r.Get("/v1/addons", s.handle(s.listAddons))
		r.Options("/v1/addons", options)
		r.Get("/v1/addons/{name}", s.handle(s.getAddon))
		r.Options("/v1/addons/{name}", options)
		r.Get("/v1/addons/{name}/versions", s.handle(s.listVersions))
		r.Options("/v1/addons/{name}/versions", options)

		// The MCP Registry's read API, for MCP tooling pointed at registryd.
		r.Get("/v0.1/servers", s.handleMCP(s.listServers))
		r.Options("/v0.1/servers", options)
		r.Get("/v0.1/servers/{serverName}/versions", s.handleMCP(s.listServerVersions))
		r.Options("/v0.1/servers/{serverName}/versions", options)
		r.Get("/v0.1/servers/{serverName}/versions/{version}", s.handleMCP(s.getServerVersion))
		r.Options("/v0.1/servers/{serverName}/versions/{version}", options)
	})

	r.Group(func(r chi.Router) {
		r.Use(general...)
		r.Use(compress)
		r.With(submitter).Post("/v1/submissions", s.handle(s.createSubmission))
		r.With(submitter).Get("/v1/submissions", s.handle(s.listSubmissions))
		r.With(submitter).Get("/v1/submissions/{id}", s.handle(s.getSubmission))
		r.With(submitter).Get("/v1/submissions/{id}/report", s.handle(s.submissionReport))
		r.With(submitter).Head("/v1/submissions/{id}/report", s.handle(s.submissionReport))
		r.With(maintainer).Post("/v1/submissions/{id}/approve", s.handle(s.decide(true)))
		r.With(maintainer).Post("/v1/submissions/{id}/reject", s.handle(s.decide(false)))

		r.With(maintainer).Put("/v1/addons/{name}/verified", s.handle(s.setVerified))
		r.With(maintainer).Post("/v1/addons/{name}/suppressions", s.handle(s.createSuppression))
		r.With(maintainer).Delete("/v1/addons/{name}/suppressions/{id}", s.handle(s.deleteSuppression))

		r.With(maintainer).Get("/v1/audit-log", s.handle(s.auditLog))

		if s.deps.Deliveries != nil {
			r.With(maintainer).Get("/v1/webhooks/deliveries", s.deps.Deliveries.ServeHTTP)
			r.With(maintainer).Get("/v1/webhooks/deliveries/*", s.deps.Deliveries.ServeHTTP)
		}
	})

	if s.deps.MetricsHandler != nil {
		// Prometheus's handler negotiates its own compression.
		r.With(general...).Get("/metrics", s.deps.MetricsHandler.ServeHTTP)
	}
	if s.deps.Webhook != nil {
		r.With(s.limitWebhook, s.authenticate, s.limitByToken).Post(webhookPath, s.deps.Webhook.ServeHTTP)
	}
	s.routing.routes = r
	return s.observe(s.strictQuery(r))
}

// routeContext is the router's per-request context: the route matched and
// its parameters.
type routeContext = chi.Context

// routeContextKey is the context key the router finds its context under.
// When a request's context already has one (observe provides it), the
// router uses it rather than copying the request to add its own.
var routeContextKey any = chi.RouteCtxKey

// routeContexts hands out the router's contexts and takes them back for
// reuse, as the router does with those it makes itself. Its zero value is
// ready once routes is set.
type routeContexts struct {
	routes chi.Routes
	pool   sync.Pool
}

func (p *routeContexts) get() *routeContext {
	rc, _ := p.pool.Get().(*routeContext)
	if rc == nil {
		rc = chi.NewRouteContext()
	}
	rc.Routes = p.routes
	return rc
}

// put takes rc back once the request is answered: as with the router's
// own, a handler must not keep it past its return.
func (p *routeContexts) put(rc *routeContext) {
	rc.Reset()
	p.pool.Put(rc)
}

// webhookPath is GitHub's delivery endpoint.
const webhookPath = "/v1/webhooks/github"

// StaticPath is where the web pages keep their static assets; the API
// routes it to Deps.Web among the cacheable reads.
const StaticPath = "/static/"

// notFound answers paths no route claims: a problem under /v1/ and for
// the API's own documents, the web pages (when there are any) elsewhere.
func (s *server) notFound(w http.ResponseWriter, r *http.Request) {
	if s.deps.Web != nil && !strings.HasPrefix(r.URL.Path, "/v1/") && r.URL.Path != "/v1" && !strings.HasPrefix(r.URL.Path, "/v0.1/") {
		s.pages(w, r)
		return
	}
	s.writeError(w, r, problem.NotFound("no such resource"))
}

// pages serves a web page (or asset), labelling the request for the
// metrics and the access log.
func (s *server) pages(w http.ResponseWriter, r *http.Request) {
	if x := exchangeFrom(r.Context()); x != nil {
		x.label = routePages
	}
	s.deps.Web.ServeHTTP(w, r)
}

// param returns the path parameter name of r's route, unescaped. The
// router matches the escaped path when the request has one (a segment with
// %2F stays one segment), and then hands back parameters still escaped; a
// parameter that does not unescape is returned as it is, and the handler's
// own check refuses it.
func param(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if r.URL.RawPath == "" {
		return v
	}
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// routePattern returns the route template r matched ("/v1/addons/{name}"),
// or "" before routing or when none matched.
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		return rc.RoutePattern()
	}
	return ""
}
