package api

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
)

// routes is the whole API in one table. This is the only file that knows the
// router library.
func (s *server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(s.observe, s.limitByAddress, s.strictQuery, s.authenticate, s.limitByToken)
	r.NotFound(s.notFound)
	r.MethodNotAllowed(s.handle(func(w http.ResponseWriter, req *http.Request) error {
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete} {
			if r.Match(chi.NewRouteContext(), m, req.URL.Path) {
				allow = append(allow, m)
			}
		}
		return problem.MethodNotAllowed(strings.Join(allow, ", "))
	}))

	submitter := RequireRole(registry.RoleSubmitter)
	maintainer := RequireRole(registry.RoleMaintainer)

	r.Get("/healthz", s.handle(s.healthz))
	r.Get("/readyz", s.handle(s.readyz))
	r.Get("/openapi.json", s.handle(s.openAPI))
	r.Head("/openapi.json", s.handle(s.openAPI))

	r.With(submitter).Post("/v1/submissions", s.handle(s.createSubmission))
	r.With(submitter).Get("/v1/submissions", s.handle(s.listSubmissions))
	r.With(submitter).Get("/v1/submissions/{id}", s.handle(s.getSubmission))
	r.With(submitter).Get("/v1/submissions/{id}/report", s.handle(s.submissionReport))
	r.With(submitter).Head("/v1/submissions/{id}/report", s.handle(s.submissionReport))
	r.With(maintainer).Post("/v1/submissions/{id}/approve", s.handle(s.decide(true)))
	r.With(maintainer).Post("/v1/submissions/{id}/reject", s.handle(s.decide(false)))

	r.Get("/v1/addons", s.handle(s.listAddons))
	r.Get("/v1/addons/{name}", s.handle(s.getAddon))
	r.Get("/v1/addons/{name}/versions", s.handle(s.listVersions))
	r.Get("/v1/addons/{name}/versions/{version}/report", s.publishedReport(false))
	r.Head("/v1/addons/{name}/versions/{version}/report", s.publishedReport(false))
	r.Get("/v1/addons/{name}/report", s.publishedReport(true))
	r.Head("/v1/addons/{name}/report", s.publishedReport(true))
	r.Get("/v1/addons/{name}/badge.svg", s.handle(s.badgeOf(false)))
	r.Head("/v1/addons/{name}/badge.svg", s.handle(s.badgeOf(false)))
	r.Get("/v1/addons/{name}/badge.json", s.handle(s.badgeOf(true)))
	r.Head("/v1/addons/{name}/badge.json", s.handle(s.badgeOf(true)))
	r.With(maintainer).Put("/v1/addons/{name}/verified", s.handle(s.setVerified))
	r.With(maintainer).Post("/v1/addons/{name}/suppressions", s.handle(s.createSuppression))
	r.With(maintainer).Delete("/v1/addons/{name}/suppressions/{id}", s.handle(s.deleteSuppression))

	r.Get("/v0.1/servers", s.handleMCP(s.listServers))
	r.Get("/v0.1/servers/{serverName}/versions", s.handleMCP(s.listServerVersions))
	r.Get("/v0.1/servers/{serverName}/versions/{version}", s.handleMCP(s.getServerVersion))

	r.Get("/v1/rules", s.handle(s.rules))
	r.With(maintainer).Get("/v1/audit-log", s.handle(s.auditLog))

	if s.deps.Webhook != nil {
		r.Post("/v1/webhooks/github", s.deps.Webhook.ServeHTTP)
	}
	if s.deps.Deliveries != nil {
		r.With(maintainer).Get("/v1/webhooks/deliveries", s.deps.Deliveries.ServeHTTP)
		r.With(maintainer).Get("/v1/webhooks/deliveries/*", s.deps.Deliveries.ServeHTTP)
	}
	return r
}

// notFound answers paths no route claims: a problem under /v1/ and for
// the API's own documents, the web pages (when there are any) elsewhere.
func (s *server) notFound(w http.ResponseWriter, r *http.Request) {
	if s.deps.Web != nil && !strings.HasPrefix(r.URL.Path, "/v1/") && r.URL.Path != "/v1" && !strings.HasPrefix(r.URL.Path, "/v0.1/") {
		s.deps.Web.ServeHTTP(w, r)
		return
	}
	s.writeError(w, r, problem.NotFound("no such resource"))
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
