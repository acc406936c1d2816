package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/registryd/registryd/internal/buildinfo"
)

// scrape fetches m's handler over a real listener and parses the text
// format.
func scrape(t *testing.T, m *Registry) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("scrape = %d\n%s", resp.StatusCode, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse the scrape: %v", err)
	}
	return fams
}

// value returns the value of the series of family name whose labels
// include want, and whether there is one.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
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
		got, ok := value(fams, tt.family, tt.labels)
		if !ok || got != tt.want {
			t.Errorf("%s%v = %v (present %v), want %v", tt.family, tt.labels, got, ok, tt.want)
		}
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if fams[name] == nil {
			t.Errorf("family %s missing: the runtime and process collectors are not registered", name)
		}
	}
	for name, f := range fams {
		for _, s := range f.Metric {
			for _, l := range s.Label {
				if strings.ContainsAny(l.GetValue(), "\x1b") {
					t.Errorf("%s carries a raw client value in label %s=%q", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
}

// TestQueueFailureSparesTheRest: a job queue that cannot be read fails its
// own family, and the scrape still carries every other one.
func TestQueueFailureSparesTheRest(t *testing.T) {
	m := New(buildinfo.Info{Version: buildinfo.Devel, GoVersion: "go1.26.8"})
	m.WatchQueue(func(context.Context) (map[string]int, error) { return nil, errors.New("database down") })
	m.ObserveRequest("GET", "/healthz", 200, time.Millisecond)
	fams := scrape(t, m)
	if _, ok := value(fams, "registryd_http_requests_total", map[string]string{"route": "/healthz"}); !ok {
		t.Error("a failing queue collector hid the request counter")
	}
	if _, ok := value(fams, "registryd_build_info", map[string]string{"revision": ""}); !ok {
		t.Error("build_info missing for a build without VCS information")
	}
}
