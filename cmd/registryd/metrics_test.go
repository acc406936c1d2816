package main

import (
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/metrics/metricstest"
	"github.com/registryd/registryd/webhook"
)

// TestMetricsEndToEnd runs `registryd serve` on each store, works it as
// clients and GitHub would, and checks every metric family an operator's
// dashboard reads in what GET /metrics answers.
func TestMetricsEndToEnd(t *testing.T) {
	pools := map[string][]string{"sqlite": {"read", "write"}, "postgres": {"main"}}
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		const sha = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
		fake := githubfake.NewTest(t, "ghs_metrics")
		fake.AddPullRequest("Codertocat", "Hello-World", 2, githubfake.File{Filename: "addons/fs/lean-ctx-addon.toml", Status: "added"})
		fake.SetPullHead("Codertocat", "Hello-World", 2, "Codertocat", "Hello-World", sha)
		fake.PutFile("Codertocat", "Hello-World", sha, "addons/fs/lean-ctx-addon.toml", fixture.Clean("fs", "1.0.0"))
		env := b.Env(t)
		env["REGISTRYD_GITHUB_WEBHOOK_SECRET"] = "metrics-secret"
		env["REGISTRYD_GITHUB_TOKEN"] = "ghs_metrics"
		env["REGISTRYD_GITHUB_API_URL"] = fake.URL
		getenv := func(k string) string { return env[k] }
		srv := startServer(t, getenv)
		maint, _ := createToken(t, getenv, "maint", "maintainer")
		c := &client{t: t, base: srv.url}

		// A delivery that becomes a job, and one refused.
		body := webhookFixture(t, "pull_request.opened.1.json")
		const id = "5f1c7a42-0d5b-11f1-8a2b-1f2e3d4c5b6a"
		c.expect("POST", "/v1/webhooks/github", "", "application/json", string(body), map[string]string{
			webhook.EventHeader: "pull_request", webhook.DeliveryHeader: id,
			webhook.SignatureHeader: webhook.SignatureValue(body, []byte("metrics-secret"))}, http.StatusAccepted)
		c.expect("POST", "/v1/webhooks/github", "", "application/json", string(body), map[string]string{
			webhook.EventHeader: "pull_request", webhook.DeliveryHeader: id + "1",
			webhook.SignatureHeader: webhook.SignatureValue(body, []byte("wrong"))}, http.StatusUnauthorized)
		waitListed(t, c, maint, id)

		// The delivery made a pending submission; publish it and read
		// its badge and report like a website and an install client.
		var subs struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		}
		c.decode(c.expect("GET", "/v1/submissions?status=pending", maint, "", "", nil, http.StatusOK), &subs)
		if len(subs.Items) != 1 {
			t.Fatalf("pending submissions = %+v, want the delivery's one", subs.Items)
		}
		other, _ := createToken(t, getenv, "other", "maintainer")
		c.expect("POST", "/v1/submissions/"+subs.Items[0].ID+"/approve", other, "application/json", `{"reason":"ok"}`, nil, http.StatusOK)
		for range 2 {
			c.expect("GET", "/v1/addons/fs/badge.svg", "", "", "", nil, http.StatusOK)
			c.expect("GET", "/v1/addons/fs/report", "", "", "", nil, http.StatusOK)
		}

		fams := metricstest.Scrape(t, srv.url+"/metrics")
		// The read cache is on once the store hears of every change
		// (PostgreSQL's listener connects in the background); read until
		// a report and a badge are served from memory.
		deadline := time.Now().Add(patience)
		for {
			rh, _ := fams.Value("registryd_cache_lookups_total", map[string]string{"cache": "report", "result": "hit"})
			bh, _ := fams.Value("registryd_cache_lookups_total", map[string]string{"cache": "badge", "result": "hit"})
			if rh > 0 && bh > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no report or badge read was served from the cache within %v", patience)
			}
			c.expect("GET", "/v1/addons/fs/badge.svg", "", "", "", nil, http.StatusOK)
			c.expect("GET", "/v1/addons/fs/report", "", "", "", nil, http.StatusOK)
			fams = metricstest.Scrape(t, srv.url+"/metrics")
		}
		type check struct {
			family  string
			labels  map[string]string
			atLeast float64
		}
		checks := []check{
			{"registryd_http_requests_total", map[string]string{"method": "GET", "route": "/v1/addons/{name}/badge.svg", "status": "200"}, 2},
			{"registryd_http_requests_total", map[string]string{"method": "POST", "route": "/v1/webhooks/github", "status": "401"}, 1},
			{"registryd_http_request_duration_seconds", map[string]string{"method": "GET", "route": "/v1/addons/{name}/report", "status": "200"}, 2},
			{"registryd_webhook_deliveries_total", map[string]string{"event": "pull_request", "outcome": "queued"}, 1},
			{"registryd_webhook_deliveries_total", map[string]string{"event": "pull_request", "outcome": "unauthenticated"}, 1},
			{"registryd_jobs_runs_total", map[string]string{"outcome": "completed"}, 1},
			{"registryd_jobs_queued", map[string]string{"state": "available"}, 0},
			{"registryd_jobs_queued", map[string]string{"state": "retryable"}, 0},
			{"registryd_reassess_reports_total", nil, 0},
			{"registryd_reassess_running", nil, 0},
			{"registryd_cache_lookups_total", map[string]string{"cache": "badge", "result": "hit"}, 1},
			{"registryd_cache_lookups_total", map[string]string{"cache": "badge", "result": "miss"}, 1},
			{"registryd_cache_lookups_total", map[string]string{"cache": "report", "result": "miss"}, 1},
			{"registryd_cache_lookups_total", map[string]string{"cache": "report", "result": "hit"}, 1},
			{"registryd_build_info", map[string]string{"go_version": runtime.Version()}, 1},
			{"go_goroutines", nil, 1},
		}
		for _, p := range pools[b.Name] {
			checks = append(checks,
				check{"registryd_db_connections", map[string]string{"pool": p, "state": "idle"}, 0},
				check{"registryd_db_connections", map[string]string{"pool": p, "state": "in_use"}, 0},
				check{"registryd_db_connections_max", map[string]string{"pool": p}, 1})
		}
		for _, ck := range checks {
			v, ok := fams.Value(ck.family, ck.labels)
			if !ok || v < ck.atLeast {
				t.Errorf("%s%v = %v (present %v), want at least %v", ck.family, ck.labels, v, ok, ck.atLeast)
			}
		}
		fams.Labels(func(family, name, value string) {
			if name == "route" && strings.Contains(value, "/fs/") {
				t.Errorf("%s has a route label with a raw path: %q", family, value)
			}
		})
		srv.stop()
	})
}

var metricsOn = regexp.MustCompile(`metrics on (http://[0-9.:]+)/metrics`)

// TestMetricsListener: with REGISTRYD_METRICS_ADDR the metrics move to a
// listener of their own, which serves nothing else, and the main listener
// no longer serves them.
func TestMetricsListener(t *testing.T) {
	env := map[string]string{"REGISTRYD_DATA_DIR": t.TempDir(), "REGISTRYD_METRICS_ADDR": "127.0.0.1:0"}
	srv := startServer(t, func(k string) string { return env[k] })
	c := &client{t: t, base: srv.url}
	c.expect("GET", "/metrics", "", "", "", nil, http.StatusNotFound)
	m := metricsOn.FindStringSubmatch(srv.log())
	if m == nil {
		t.Fatalf("the log does not say where the metrics are:\n%s", srv.log())
	}
	fams := metricstest.Scrape(t, m[1]+"/metrics")
	if _, ok := fams.Value("registryd_build_info", nil); !ok {
		t.Error("the metrics listener does not serve registryd_build_info")
	}
	mc := &client{t: t, base: m[1]}
	mc.expect("GET", "/v1/addons", "", "", "", nil, http.StatusNotFound)
	mc.expect("POST", "/metrics", "", "", "", nil, http.StatusMethodNotAllowed)
	srv.stop()
}
