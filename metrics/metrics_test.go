package metrics

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/buildinfo"
	"github.com/registryd/registryd/metrics/metricstest"
)

// scrape serves m's handler on a real listener and scrapes it.
func scrape(t *testing.T, m *Registry) metricstest.Families {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	return metricstest.Scrape(t, srv.URL)
}

func TestFamilies(t *testing.T) {
	m := New(buildinfo.Info{Version: "v1.2.3", Revision: "abc", Modified: true, GoVersion: "go1.26.8"})
	m.ObserveRequest("GET", "/v1/addons/{name}/report", 200, 3*time.Millisecond)
	m.ObserveRequest("GET", "/v1/addons/{name}/report", 200, 30*time.Millisecond)
	m.ObserveRequest("BREW", "(unmatched)", 405, time.Millisecond)
	m.BadgeCache(true)
	m.BadgeCache(false)
	m.BadgeCache(true)
	m.WatchReportCache(func() (uint64, uint64) { return 0, 1 })
	m.WebhookDelivery("pull_request", "queued")
	m.WebhookDelivery("\x1b[31mevil", "unauthenticated")
	m.JobRun("github_delivery", "completed")
	m.JobRun("github_delivery", "retry")
	m.Reassessed(100)
	m.Reassessed(42)
	m.Reassessing(true)
	m.WatchPools(func() []Pool { return []Pool{{Name: "main", InUse: 2, Idle: 3, Max: 10}} })
	m.WatchQueue(func(context.Context) (map[string]int, error) {
		return map[string]int{"available": 4, "running": 1}, nil
	})
	fams := scrape(t, m)

	tests := []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"registryd_http_requests_total", map[string]string{"method": "GET", "route": "/v1/addons/{name}/report", "status": "200"}, 2},
		{"registryd_http_requests_total", map[string]string{"method": "OTHER", "route": "(unmatched)", "status": "405"}, 1},
		{"registryd_http_request_duration_seconds", map[string]string{"method": "GET", "route": "/v1/addons/{name}/report", "status": "200"}, 2},
		{"registryd_cache_lookups_total", map[string]string{"cache": "badge", "result": "hit"}, 2},
		{"registryd_cache_lookups_total", map[string]string{"cache": "badge", "result": "miss"}, 1},
		{"registryd_cache_lookups_total", map[string]string{"cache": "report", "result": "miss"}, 1},
		{"registryd_cache_lookups_total", map[string]string{"cache": "report", "result": "hit"}, 0},
		{"registryd_webhook_deliveries_total", map[string]string{"event": "pull_request", "outcome": "queued"}, 1},
		{"registryd_webhook_deliveries_total", map[string]string{"event": "other", "outcome": "unauthenticated"}, 1},
		{"registryd_jobs_runs_total", map[string]string{"kind": "github_delivery", "outcome": "completed"}, 1},
		{"registryd_jobs_runs_total", map[string]string{"kind": "github_delivery", "outcome": "retry"}, 1},
		{"registryd_jobs_queued", map[string]string{"state": "available"}, 4},
		{"registryd_jobs_queued", map[string]string{"state": "running"}, 1},
		{"registryd_reassess_reports_total", nil, 142},
		{"registryd_reassess_running", nil, 1},
		{"registryd_db_connections", map[string]string{"pool": "main", "state": "in_use"}, 2},
		{"registryd_db_connections", map[string]string{"pool": "main", "state": "idle"}, 3},
		{"registryd_db_connections_max", map[string]string{"pool": "main"}, 10},
		{"registryd_build_info", map[string]string{"version": "v1.2.3", "revision": "abc", "modified": "true", "go_version": "go1.26.8"}, 1},
	}
	for _, tt := range tests {
		got, ok := fams.Value(tt.family, tt.labels)
		if !ok || got != tt.want {
			t.Errorf("%s%v = %v (present %v), want %v", tt.family, tt.labels, got, ok, tt.want)
		}
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if fams[name] == nil {
			t.Errorf("family %s missing: the runtime and process collectors are not registered", name)
		}
	}
	fams.Labels(func(family, name, value string) {
		if strings.ContainsAny(value, "\x1b") {
			t.Errorf("%s carries a raw client value in label %s=%q", family, name, value)
		}
	})
}

// TestQueueFailureSparesTheRest: a job queue that cannot be read fails its
// own family, and the scrape still carries every other one.
func TestQueueFailureSparesTheRest(t *testing.T) {
	m := New(buildinfo.Info{Version: buildinfo.Devel, GoVersion: "go1.26.8"})
	m.WatchQueue(func(context.Context) (map[string]int, error) { return nil, errors.New("database down") })
	m.ObserveRequest("GET", "/healthz", 200, time.Millisecond)
	fams := scrape(t, m)
	if _, ok := fams.Value("registryd_http_requests_total", map[string]string{"route": "/healthz"}); !ok {
		t.Error("a failing queue collector hid the request counter")
	}
	if _, ok := fams.Value("registryd_build_info", map[string]string{"revision": ""}); !ok {
		t.Error("build_info missing for a build without VCS information")
	}
}
