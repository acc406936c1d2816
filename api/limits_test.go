package api_test

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/badge"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
)

func TestBadges(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		e.publish(t, manifest("weather", "1.0.0"))
		tests := []struct {
			name, path string
			wantType   string
			want       []byte
		}{
			{"svg flat", "/v1/addons/weather/badge.svg", "image/svg+xml", badge.Render(badge.ForAddon(registry.TierCommunity, registry.VerdictPass, true, ""), badge.StyleFlat)},
			{"svg flat-square with label", "/v1/addons/weather/badge.svg?style=flat-square&label=mcp", "image/svg+xml", badge.Render(badge.ForAddon(registry.TierCommunity, registry.VerdictPass, true, "mcp"), badge.StyleFlatSquare)},
			{"endpoint json", "/v1/addons/weather/badge.json", "application/json", badge.Endpoint(badge.ForAddon(registry.TierCommunity, registry.VerdictPass, true, ""))},
			{"unknown addon svg", "/v1/addons/nope/badge.svg", "image/svg+xml", badge.Render(badge.ForAddon("", "", false, ""), badge.StyleFlat)},
			{"unknown addon json", "/v1/addons/nope/badge.json?label=x", "application/json", badge.Endpoint(badge.ForAddon("", "", false, "x"))},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(t, req{method: "GET", path: tt.path})
				if r.status != 200 || r.header.Get("Content-Type") != tt.wantType || !bytes.Equal(r.body, tt.want) {
					t.Fatalf("GET %s = %d %q\n%s\nwant 200 %q\n%s", tt.path, r.status, r.header.Get("Content-Type"), r.body, tt.wantType, tt.want)
				}
				etag := r.header.Get("ETag")
				if etag != badge.ETag(tt.want) || r.header.Get("Cache-Control") != "no-cache" {
					t.Errorf("ETag %q Cache-Control %q, want %q and no-cache", etag, r.header.Get("Cache-Control"), badge.ETag(tt.want))
				}
				if nm := e.do(t, req{method: "GET", path: tt.path, header: map[string]string{"If-None-Match": etag}}); nm.status != 304 {
					t.Errorf("If-None-Match = %d, want 304", nm.status)
				}
				if h := e.do(t, req{method: "HEAD", path: tt.path}); h.status != 200 || len(h.body) != 0 {
					t.Errorf("HEAD = %d with %d bytes", h.status, len(h.body))
				}
			})
		}
	})
}

func TestRateLimits(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		const limit, cacheable = 5, 8
		e := newEnv(t, b, func(d *api.Deps) { d.RateLimit, d.CacheableRateLimit = limit, cacheable })
		e.publish(t, manifest("weather", "1.0.0"))
		// Per client address: the sixth anonymous request from one address
		// is refused; another address is not affected.
		a1 := e.clientFrom("127.0.0.2")
		for i := range limit {
			if r := e.doWith(t, a1, req{method: "GET", path: "/v1/addons"}); r.status != 200 {
				t.Fatalf("request %d = %d, want 200", i+1, r.status)
			}
		}
		r := e.doWith(t, a1, req{method: "GET", path: "/v1/addons"})
		wantProblem(t, r, http.StatusTooManyRequests, "rate-limited")
		if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s <= 0 {
			t.Errorf("Retry-After = %q, want a positive number of seconds", r.header.Get("Retry-After"))
		}
		// The web pages share the general budget.
		wantProblem(t, e.doWith(t, a1, req{method: "GET", path: "/v1/nope", undocumented: true}), http.StatusTooManyRequests, "rate-limited")
		if r := e.doWith(t, e.clientFrom("127.0.0.3"), req{method: "GET", path: "/v1/addons"}); r.status != 200 {
			t.Errorf("other address = %d, want 200", r.status)
		}
		// Probes are never limited.
		if r := e.doWith(t, a1, req{method: "GET", path: "/healthz"}); r.status != 200 {
			t.Errorf("healthz from a limited address = %d, want 200", r.status)
		}

		// The cacheable reads spend a budget of their own: the address
		// that used up the general one still reads reports, badges and
		// the rules, up to the larger budget, which in turn leaves its
		// general budget alone.
		cacheablePaths := []string{"/v1/addons/weather/report", "/v1/addons/weather/badge.svg", "/v1/rules", "/openapi.json",
			"/v1/addons/weather/versions/1.0.0/report", "/v1/addons/weather/badge.json"}
		a2 := e.clientFrom("127.0.0.4")
		for i := range cacheable {
			if r := e.doWith(t, a2, req{method: "GET", path: cacheablePaths[i%len(cacheablePaths)]}); r.status != 200 {
				t.Fatalf("cacheable request %d = %d, want 200", i+1, r.status)
			}
		}
		wantProblem(t, e.doWith(t, a2, req{method: "GET", path: "/v1/addons/weather/badge.svg"}), http.StatusTooManyRequests, "rate-limited")
		if r := e.doWith(t, a2, req{method: "GET", path: "/v1/addons"}); r.status != 200 {
			t.Errorf("a general request after the cacheable budget is spent = %d, want 200", r.status)
		}
		if r := e.doWith(t, a1, req{method: "GET", path: "/v1/addons/weather/report"}); r.status != 200 {
			t.Errorf("a report for an address whose general budget is spent = %d, want 200", r.status)
		}

		// Per token: one token spread over several addresses is limited as
		// a whole, while an anonymous caller at a fresh address is not.
		for i := range limit {
			c := e.clientFrom("127.0.1." + strconv.Itoa(i+1))
			if r := e.doWith(t, c, req{method: "GET", path: "/v1/audit-log", token: e.maintainer2}); r.status != 200 {
				t.Fatalf("token request %d = %d, want 200", i+1, r.status)
			}
		}
		wantProblem(t, e.doWith(t, e.clientFrom("127.0.1.99"), req{method: "GET", path: "/v1/audit-log", token: e.maintainer2}), 429, "rate-limited")
		if r := e.doWith(t, e.clientFrom("127.0.1.100"), req{method: "GET", path: "/v1/addons"}); r.status != 200 {
			t.Errorf("anonymous at a fresh address = %d, want 200", r.status)
		}
	})
}

func TestMounts(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		mark := func(name string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				who := "anonymous"
				if a, ok := api.ActorFrom(r.Context()); ok {
					who = a.Name
				}
				w.Header().Set("Content-Type", "text/plain")
				w.Write([]byte(name + " " + who + " " + r.URL.Path))
			})
		}
		e := newEnv(t, b, func(d *api.Deps) {
			d.Webhook = mark("webhook")
			d.Deliveries = mark("deliveries")
			d.Web = mark("web")
		})
		// These routes belong to other handlers and to no OpenAPI operation.
		plain := e.clientFrom("")
		plain.Transport = plain.Transport.(*recorder).next
		tests := []struct {
			name   string
			q      req
			status int
			body   string
		}{
			{"webhook", req{method: "POST", path: "/v1/webhooks/github", body: []byte("{}")}, 200, "webhook anonymous /v1/webhooks/github"},
			{"deliveries as maintainer", req{method: "GET", path: "/v1/webhooks/deliveries", token: e.maintainer}, 200, "deliveries carol /v1/webhooks/deliveries"},
			{"delivery as maintainer", req{method: "GET", path: "/v1/webhooks/deliveries/abc", token: e.maintainer}, 200, "deliveries carol /v1/webhooks/deliveries/abc"},
			{"deliveries as submitter", req{method: "GET", path: "/v1/webhooks/deliveries", token: e.submitter}, 403, ""},
			{"deliveries anonymous", req{method: "GET", path: "/v1/webhooks/deliveries"}, 401, ""},
			{"web root", req{method: "GET", path: "/"}, 200, "web anonymous /"},
			{"web page with token", req{method: "GET", path: "/addons/weather", token: e.maintainer}, 200, "web carol /addons/weather"},
			{"unknown api path stays a problem", req{method: "GET", path: "/v1/nope"}, 404, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.doWith(t, plain, tt.q)
				if r.status != tt.status {
					t.Fatalf("status = %d, want %d\n%s", r.status, tt.status, r.body)
				}
				if tt.body != "" && string(r.body) != tt.body {
					t.Errorf("body = %q, want %q", r.body, tt.body)
				}
				if tt.body == "" && !strings.Contains(r.header.Get("Content-Type"), "problem+json") {
					t.Errorf("Content-Type = %q, want a problem", r.header.Get("Content-Type"))
				}
			})
		}
	})
}
