package mcpimport_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/mcpimport"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/serverjson"
	"github.com/registryd/registryd/storage"
)

// TestImportRecorded imports the recorded MCP Registry two servers a page:
// three versions become pending submissions, the nuget one is skipped
// saying why, and a second run asks only for what changed since and
// creates nothing.
func TestImportRecorded(t *testing.T) {
	eachStore(t, func(t *testing.T, st storage.Store) {
		ctx := context.Background()
		up, reqs := recordedUpstream(t)
		im, _ := importer(st, up.URL, 2)
		var progress []mcpimport.Progress
		im.Progress = func(p mcpimport.Progress) { progress = append(progress, p) }
		sum, err := im.Run(ctx, mcpimport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Seen != 4 || sum.Created != 3 || sum.Existing != 0 || sum.Skipped != 1 {
			t.Errorf("first run: %+v", sum.Progress)
		}
		if len(sum.Skips) != 1 || sum.Skips[0].Name != "io.github.domdomegg/time-mcp-nuget" || !strings.Contains(sum.Skips[0].Reason, "nuget") {
			t.Errorf("skips = %+v, want the nuget server", sum.Skips)
		}
		if len(progress) != 3 || progress[2].Seen != 4 {
			t.Errorf("progress = %+v, want one report a page (three pages)", progress)
		}
		subs, _, err := st.Submissions(ctx, storage.SubmissionFilter{Source: registry.SourceMCPRegistry}, storage.Page{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range subs {
			if s.Status != registry.StatusPending || s.Upstream == nil || s.Upstream.URL != up.URL || s.Addon != serverjson.AddonName(s.Upstream.Name) {
				t.Errorf("submission %+v", s)
			}
			got = append(got, s.Upstream.Name+"@"+s.Upstream.Version)
		}
		sort.Strings(got)
		want := []string{"io.github.domdomegg/airtable-mcp-server@1.7.2", "io.github.domdomegg/airtable-mcp-server@1.7.3", "io.github.domdomegg/time-mcp-pypi@1.0.6"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("imported (-want +got):\n%s", diff)
		}
		mark, err := st.UpstreamSync(ctx, up.URL)
		wantMark := time.Date(2026, 11, 30, 23, 2, 26, 434676000, time.UTC)
		if err != nil || !mark.HighWater.Equal(wantMark) {
			t.Errorf("high-water mark = %v, %v; want %v", mark.HighWater, err, wantMark)
		}

		sum, err = im.Run(ctx, mcpimport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Seen != 4 || sum.Created != 0 || sum.Existing != 3 || sum.Skipped != 1 {
			t.Errorf("second run: %+v", sum.Progress)
		}
		all := reqs.all()
		last := all[len(all)-1]
		if got := last.Get("updated_since"); got != wantMark.Format(time.RFC3339Nano) {
			t.Errorf("second run asked updated_since=%q, want the high-water mark %s", got, wantMark.Format(time.RFC3339Nano))
		}
		// A search does not move the mark.
		if _, err := im.Run(ctx, mcpimport.Options{Search: "airtable", Since: &time.Time{}}); err != nil {
			t.Fatal(err)
		}
		if all := reqs.all(); all[len(all)-1].Get("search") != "airtable" {
			t.Errorf("the search was not asked: %v", all[len(all)-1])
		}
	})
}

// TestImportIncremental: a second run asks for what changed since the
// first and imports only the new versions.
func TestImportIncremental(t *testing.T) {
	eachStore(t, func(t *testing.T, st storage.Store) {
		ctx := context.Background()
		g := newGenerated(250)
		up := httptest.NewServer(g)
		t.Cleanup(up.Close)
		im, _ := importer(st, up.URL, 100)
		sum, err := im.Run(ctx, mcpimport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Seen != 250 || sum.Created != 225 || sum.Skipped != 25 {
			t.Errorf("first run: %+v (skips %v)", sum.Progress, sum.Skips[:min(3, len(sum.Skips))])
		}
		g.bump(3, "1.1.0", genBase.Add(time.Hour))
		g.bump(7, "2.0.0", genBase.Add(2*time.Hour))
		sum, err = im.Run(ctx, mcpimport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Seen != 2 || sum.Created != 2 {
			t.Errorf("second run: %+v, want the two new versions only (%v)", sum.Progress, sum.Skips)
		}
		sum, err = im.Run(ctx, mcpimport.Options{})
		if err != nil || sum.Seen != 0 {
			t.Errorf("third run: %+v, %v; want nothing", sum.Progress, err)
		}
	})
}

// TestImportTenThousand imports 10,000 generated servers.
func TestImportTenThousand(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 10,000 servers")
	}
	st := fixture.SQLite.Open(t)
	up := httptest.NewServer(newGenerated(10000))
	t.Cleanup(up.Close)
	im, _ := importer(st, up.URL, 100)
	sum, err := im.Run(context.Background(), mcpimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Seen != 10000 || sum.Created != 9000 || sum.Skipped != 1000 {
		t.Errorf("run: %+v", sum.Progress)
	}
	t.Logf("imported %d servers in %v: %.0f servers/s", sum.Seen, sum.Elapsed, sum.Rate())
}

// BenchmarkImport imports 10,000 generated servers per iteration into a
// fresh store of each kind and reports servers/s.
func BenchmarkImport(b *testing.B) {
	up := httptest.NewServer(newGenerated(10000))
	defer up.Close()
	for _, st := range fixture.Backends() {
		b.Run(st.Name, func(b *testing.B) {
			var seen int
			var elapsed time.Duration
			for b.Loop() {
				b.StopTimer()
				im, _ := importer(st.Open(b), up.URL, 100)
				b.StartTimer()
				start := time.Now()
				sum, err := im.Run(context.Background(), mcpimport.Options{})
				if err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
				seen += sum.Seen
			}
			b.ReportMetric(float64(seen)/elapsed.Seconds(), "servers/s")
		})
	}
}

// TestRetry: 429 waits as long as Retry-After says, a 5xx backs off, and
// the page arrives; a 404 is final at once, and so is a body that is not a
// page.
func TestRetry(t *testing.T) {
	var calls atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusBadGateway)
		case 3:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Write([]byte(`{"servers":[],"metadata":{"count":0}}`))
		}
	}))
	defer up.Close()
	w := &waits{}
	c := &mcpimport.Client{BaseURL: up.URL, Wait: w.wait}
	if _, err := c.Page(context.Background(), mcpimport.Query{}, ""); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{7 * time.Second, 500 * time.Millisecond, time.Second}, w.d); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}

	for name, h := range map[string]http.HandlerFunc{
		"404":      func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) },
		"not JSON": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) },
	} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); h(w, r) }))
		c := &mcpimport.Client{BaseURL: srv.URL, Wait: (&waits{}).wait}
		if _, err := c.Page(context.Background(), mcpimport.Query{}, ""); err == nil || n.Load() != 1 {
			t.Errorf("%s: err %v after %d requests, want an error after one", name, err, n.Load())
		}
		srv.Close()
	}

	// Retries are bounded.
	var n atomic.Int32
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer down.Close()
	c = &mcpimport.Client{BaseURL: down.URL, Wait: (&waits{}).wait, MaxAttempts: 3}
	var se *mcpimport.StatusError
	if _, err := c.Page(context.Background(), mcpimport.Query{}, ""); !errors.As(err, &se) || se.Status != 500 || n.Load() != 3 {
		t.Errorf("err %v after %d requests, want a 500 after 3", err, n.Load())
	}
}

// TestBadDocuments: a document that does not decode, a deleted one and a
// manifest registryd refuses are skipped, and the run goes on.
func TestBadDocuments(t *testing.T) {
	st := fixture.SQLite.Open(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"servers":[
{"server":{"name":"io.x/not-decodable","version":1}},
{"server":{"name":"io.x/deleted","description":"d","version":"1.0.0","packages":[{"registryType":"npm","identifier":"d","version":"1.0.0","transport":{"type":"stdio"}}]},"_meta":{"io.modelcontextprotocol.registry/official":{"status":"deleted"}}},
{"server":{"name":"io.x/not-semver","description":"d","version":"v1","packages":[{"registryType":"npm","identifier":"d","version":"1.0.0","transport":{"type":"stdio"}}]}},
{"server":{"name":"io.x/hostile","description":"\u001b[2J","version":"1.0.0","packages":[{"registryType":"npm","identifier":"d","version":"1.0.0","transport":{"type":"stdio"}}]}},
{"server":{"name":"io.x/fine","description":"Fine.","version":"1.0.0","packages":[{"registryType":"npm","identifier":"fine","version":"1.0.0","transport":{"type":"stdio"}}]}}
],"metadata":{"count":5}}`))
	}))
	defer up.Close()
	im, _ := importer(st, up.URL, 100)
	sum, err := im.Run(context.Background(), mcpimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Seen != 5 || sum.Created != 1 || sum.Skipped != 4 {
		t.Errorf("run: %+v", sum.Progress)
	}
	for _, s := range sum.Skips {
		if strings.ContainsRune(s.Reason, '\x1b') || strings.ContainsRune(s.Name, '\x1b') {
			t.Errorf("skip echoes a control character: %+v", s)
		}
	}
	reasons := map[string]string{}
	for _, s := range sum.Skips {
		reasons[s.Name] = s.Reason
	}
	for name, want := range map[string]string{"io.x/deleted": "deleted upstream", "io.x/not-semver": "addon.version", "io.x/hostile": "addon.description", "io.x/not-decodable": "does not decode"} {
		if !strings.Contains(reasons[name], want) {
			t.Errorf("%s: reason %q, want it to mention %q", name, reasons[name], want)
		}
	}
}
