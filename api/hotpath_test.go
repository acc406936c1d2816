package api_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// countingReader counts the reads the report path may make.
type countingReader struct {
	storage.Reader
	calls atomic.Int64
}

func (c *countingReader) PublishedReport(ctx context.Context, addon, version string) (registry.Report, error) {
	c.calls.Add(1)
	return c.Reader.PublishedReport(ctx, addon, version)
}

func (c *countingReader) PublishedReportDigest(ctx context.Context, addon, version string) (string, error) {
	c.calls.Add(1)
	return c.Reader.PublishedReportDigest(ctx, addon, version)
}

func (c *countingReader) Addon(ctx context.Context, name string) (registry.Addon, error) {
	c.calls.Add(1)
	return c.Reader.Addon(ctx, name)
}

func (c *countingReader) Versions(ctx context.Context, addon string, p storage.Page) ([]registry.Version, string, error) {
	c.calls.Add(1)
	return c.Reader.Versions(ctx, addon, p)
}

// TestReportPathMakesOneQuery holds the install clients' hot path to one
// store read per request, whether it serves the bytes or a 304.
func TestReportPathMakesOneQuery(t *testing.T) {
	var counter *countingReader
	e := newEnv(t, fixture.SQLite, func(d *api.Deps) {
		counter = &countingReader{Reader: d.Reader}
		d.Reader = counter
	})
	e.publish(t, manifest("weather", "1.0.0"))
	etag := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"}).header.Get("ETag")
	tests := []struct {
		name   string
		q      req
		status int
	}{
		{"latest", req{method: "GET", path: "/v1/addons/weather/report"}, 200},
		{"pinned", req{method: "GET", path: "/v1/addons/weather/versions/1.0.0/report"}, 200},
		{"head", req{method: "HEAD", path: "/v1/addons/weather/report"}, 200},
		{"revalidated", req{method: "GET", path: "/v1/addons/weather/report", header: map[string]string{"If-None-Match": etag}}, 304},
		{"unknown", req{method: "GET", path: "/v1/addons/nope/report"}, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := counter.calls.Load()
			if r := e.do(t, tt.q); r.status != tt.status {
				t.Fatalf("status = %d, want %d", r.status, tt.status)
			}
			if got := counter.calls.Load() - before; got != 1 {
				t.Errorf("store reads = %d, want 1", got)
			}
		})
	}
	// A changed report costs the digest and the bytes: two reads.
	before := counter.calls.Load()
	if r := e.do(t, req{method: "GET", path: "/v1/addons/weather/report", header: map[string]string{"If-None-Match": `"sha256-0"`}}); r.status != http.StatusOK {
		t.Fatalf("stale revalidation = %d", r.status)
	}
	if got := counter.calls.Load() - before; got != 2 {
		t.Errorf("store reads for a stale revalidation = %d, want 2", got)
	}
}
