package loadtest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/internal/loadtest"
	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// The comparison's knobs, read from the environment. REGISTRYD_LOAD=1 turns
// it on; without it the test skips, so `go test ./...` stays fast.
const (
	envOn          = "REGISTRYD_LOAD"
	envDuration    = "REGISTRYD_LOAD_DURATION"    // per measurement; default 5s
	envConcurrency = "REGISTRYD_LOAD_CONCURRENCY" // default 16
	envRounds      = "REGISTRYD_LOAD_ROUNDS"      // default 3
	envModes       = "REGISTRYD_LOAD_MODES"       // comma-separated subset of get,revalidate,submit,badge,badge-json,list
	envOfficial    = "REGISTRYD_LOAD_OFFICIAL"    // base URL of an MCP Registry, loaded next to the list
	envLog         = "REGISTRYD_LOAD_LOG"         // "text" (default: formatted, then discarded) or "off"
	envOut         = "REGISTRYD_LOAD_OUT"         // file to write the Markdown tables to
)

// endpoint is one server under load.
type endpoint struct {
	name   string // "ceiling", "sqlite", "postgres"
	base   string // http://127.0.0.1:port
	report string // path of the seeded report
	token  string // submitter token ("" for the ceiling)
	// backends, for PostgreSQL, reads the CPU time its database server
	// spends on registryd's connections; nil for the others.
	backends *backends
}

// measurement is one kind of load at one set of endpoints.
type measurement struct {
	name    string // "get", "revalidate", "submit", "badge", "list"
	mode    loadtest.Mode
	targets []endpoint
}

// The reads measured besides the report: a badge (SVG, and shields.io's
// endpoint JSON), and the first page of the registry (with enough addons
// published to fill it), which an MCP Registry given by envOfficial
// answers next to registryd.
const (
	badgeMode    = "badge"
	badgeJSON    = "badge-json"
	listMode     = "list"
	listPath     = "/v1/addons?limit=30"
	officialPath = "/v0/servers?limit=30"
	listAddons   = 40
)

// TestCompare measures, in one run and with the same load generator,
// concurrency and duration: report GETs on a bare net/http handler writing
// the same bytes and headers from memory (the ceiling), on registryd over
// SQLite and on registryd over PostgreSQL; 304 revalidations on the same
// three; and POST /v1/submissions on both stores. Every measurement is
// repeated in interleaved rounds (the order rotates each round) and the
// medians are reported, with each store's ratio to the ceiling.
//
// It fails on any request error or when the two stores serve different
// report bytes; it never fails on speed, which it reports.
func TestCompare(t *testing.T) {
	if os.Getenv(envOn) != "1" {
		t.Skipf("set %s=1 to run the load comparison (see docs/benchmarks.md)", envOn)
	}
	dur := envDurationOr(t, envDuration, 5*time.Second)
	conc := envIntOr(t, envConcurrency, 16)
	rounds := envIntOr(t, envRounds, 3)
	modes := map[string]bool{"get": true, "revalidate": true, "submit": true, badgeMode: true, badgeJSON: true, listMode: true}
	if v := os.Getenv(envModes); v != "" {
		clear(modes)
		for m := range strings.SplitSeq(v, ",") {
			if !loadtest.Mode(m).Valid() && m != badgeMode && m != badgeJSON && m != listMode {
				t.Fatalf("%s: %q is not one of get, revalidate, submit, badge, badge-json, list", envModes, m)
			}
			modes[m] = true
		}
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv(envLog) == "off" {
		logger = nil
	}

	extra := 0
	if modes[listMode] {
		extra = listAddons
	}
	sq := startRegistryd(t, "sqlite", fixture.SQLite.Open(t), logger, extra)
	pgURL := pgtest.NewDatabase(t)
	pg := startRegistryd(t, "postgres", fixture.Open(t, storage.Config{DatabaseURL: pgURL}), logger, extra)
	pg.backends = newBackends(t, pgURL)
	body, hdr200 := fetch(t, sq, "")
	pgBody, _ := fetch(t, pg, "")
	if !bytes.Equal(body, pgBody) {
		t.Fatalf("the stores serve different report bytes:\nsqlite:   %s\npostgres: %s", body, pgBody)
	}
	_, hdr304 := fetch(t, sq, hdr200.Get("ETag"))
	ceil := startCeiling(t, body, hdr200, hdr304)
	ceil.report = sq.report
	cBody, _ := fetch(t, ceil, "")
	if !bytes.Equal(cBody, body) {
		t.Fatalf("the ceiling serves other bytes than registryd")
	}

	var plan []measurement
	if modes["get"] {
		plan = append(plan, measurement{"get", loadtest.ModeGet, []endpoint{ceil, sq, pg}})
	}
	if modes["revalidate"] {
		plan = append(plan, measurement{"revalidate", loadtest.ModeRevalidate, []endpoint{ceil, sq, pg}})
	}
	if modes["submit"] {
		plan = append(plan, measurement{"submit", loadtest.ModeSubmit, []endpoint{sq, pg}})
	}
	// The other reads, each with a ceiling of its own: the same bytes and
	// headers from memory.
	for _, r := range []struct{ mode, path string }{
		{badgeMode, "/v1/addons/" + loadtest.SubmitName("seed", 1) + "/badge.svg"},
		{badgeJSON, "/v1/addons/" + loadtest.SubmitName("seed", 1) + "/badge.json"},
		{listMode, listPath},
	} {
		if !modes[r.mode] {
			continue
		}
		at := func(e endpoint) endpoint { e.report = r.path; return e }
		targets := []endpoint{at(sq), at(pg)}
		b, h200 := fetch(t, targets[0], "")
		if pb, _ := fetch(t, targets[1], ""); r.mode != listMode && !bytes.Equal(b, pb) {
			t.Fatalf("the stores serve different badges:\nsqlite:   %s\npostgres: %s", b, pb)
		}
		_, h304 := fetch(t, targets[0], h200.Get("ETag"))
		c := startCeiling(t, b, h200, h304)
		c.report = r.path
		targets = append([]endpoint{c}, targets...)
		if off := os.Getenv(envOfficial); off != "" && r.mode == listMode {
			o := endpoint{name: "official", base: strings.TrimRight(off, "/"), report: officialPath}
			fetch(t, o, "")
			targets = append(targets, o)
		}
		plan = append(plan, measurement{r.mode, loadtest.ModeGet, targets})
	}

	ctx := t.Context()
	runOne := func(m loadtest.Mode, e endpoint, d time.Duration, runID string) sample {
		c := loadtest.Config{URL: e.base + e.report, Mode: m, Concurrency: conc, Duration: d, RunID: runID}
		if m == loadtest.ModeSubmit {
			c.URL, c.Token = e.base+"/v1/submissions", e.token
		}
		db0 := e.backends.cpu(t)
		cpu0 := processCPU(t)
		res, err := loadtest.Run(ctx, c)
		cpu := processCPU(t) - cpu0
		db1 := e.backends.cpu(t)
		if err != nil {
			t.Fatalf("%s %s: %v", m, e.name, err)
		}
		if res.Errors > 0 {
			t.Errorf("%s %s: %d errors of %d requests: %q", m, e.name, res.Errors, res.Requests, res.ErrorSamples)
		}
		s := sample{Result: res, dbCPUPerRequest: -1}
		if res.Requests > 0 {
			s.cpuPerRequest = cpu / time.Duration(res.Requests)
			if db0 != nil && db1 != nil {
				s.dbCPUPerRequest = loadtest.Spent(db0, db1) / time.Duration(res.Requests)
			}
		}
		return s
	}

	// A short warm-up of every pair: connections, caches, the JIT-free but
	// allocation-hungry first seconds of each pool.
	for _, m := range plan {
		for _, e := range m.targets {
			res := runOne(m.mode, e, min(dur, time.Second), "w"+e.name[:1])
			t.Logf("warm-up %-10s %-8s %s", m.name, e.name, res.Result)
		}
	}
	results := map[string][]sample{}
	for r := range rounds {
		for _, m := range plan {
			for i := range m.targets {
				e := m.targets[(i+r)%len(m.targets)]
				res := runOne(m.mode, e, dur, "r"+strconv.Itoa(r)+e.name[:1])
				results[key(m.name, e.name)] = append(results[key(m.name, e.name)], res)
				t.Logf("round %d %-10s %-8s %s, process CPU %s/request, database CPU %s/request", r+1, m.name, e.name, res.Result, res.cpuPerRequest, res.dbCPUPerRequest)
			}
		}
	}

	doc := summary(plan, results, conc, dur, rounds, len(body), logger != nil)
	t.Log("\n" + doc)
	if out := os.Getenv(envOut); out != "" {
		if err := os.WriteFile(out, []byte(doc), 0o644); err != nil {
			t.Errorf("write %s: %v", out, err)
		}
	}
}

// sample is one measurement: the load run's result and the CPU time this
// process (load generator and server together; not PostgreSQL's own
// processes) spent per request during it. On a shared machine CPU time per
// request varies far less than requests a second.
type sample struct {
	loadtest.Result
	cpuPerRequest time.Duration
	// dbCPUPerRequest is the PostgreSQL backends' CPU time per request,
	// or -1 when not measured (other servers, or backends out of reach).
	dbCPUPerRequest time.Duration
}

// processCPU returns the user and system CPU time this process has used.
func processCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func key(measurement, target string) string { return measurement + "/" + target }

// summary renders the medians as Markdown: per mode, each target's
// requests/s, its ratio to the ceiling (the median of the per-round
// ratios, since rounds are where the machine's noise varies), and the
// median latency quantiles.
func summary(plan []measurement, results map[string][]sample, conc int, dur time.Duration, rounds, reportBytes int, logging bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "GOMAXPROCS %d, %s/%s, %s; concurrency %d, %s per measurement, %d interleaved rounds, medians; report %d bytes; request log %s\n\n",
		runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version(), conc, dur, rounds, reportBytes,
		map[bool]string{true: "formatted (text) and discarded", false: "off"}[logging])
	for _, m := range plan {
		fmt.Fprintf(&b, "%s:\n\n", title(m.name))
		b.WriteString("| target | req/s | vs ceiling | p50 | p90 | p99 | max | CPU/req | + database CPU/req | req/s per round |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		ceil := results[key(m.name, "ceiling")]
		for _, e := range m.targets {
			rs := results[key(m.name, e.name)]
			ratio := "—"
			if len(ceil) == len(rs) && e.name != "ceiling" {
				rat := make([]float64, len(rs))
				for i := range rs {
					rat[i] = rs[i].PerSecond() / ceil[i].PerSecond()
				}
				ratio = strconv.FormatFloat(median(rat), 'f', 2, 64)
			}
			var per []string
			for _, r := range rs {
				per = append(per, strconv.FormatFloat(r.PerSecond(), 'f', 0, 64))
			}
			cpu := median(each(rs, func(r sample) float64 { return float64(r.cpuPerRequest) }))
			db := "—"
			if v := median(each(rs, func(r sample) float64 { return float64(r.dbCPUPerRequest) })); v >= 0 {
				db = strconv.FormatFloat(v/float64(time.Microsecond), 'f', 0, 64) + " µs"
			}
			fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %s | %s | %s | %.0f µs | %s | %s |\n", e.name,
				median(each(rs, func(r sample) float64 { return r.PerSecond() })), ratio,
				ms(rs, func(r sample) time.Duration { return r.P50 }),
				ms(rs, func(r sample) time.Duration { return r.P90 }),
				ms(rs, func(r sample) time.Duration { return r.P99 }),
				ms(rs, func(r sample) time.Duration { return r.Max }),
				cpu/float64(time.Microsecond), db, strings.Join(per, ", "))
		}
		if off := results[key(m.name, "official")]; len(off) > 0 {
			for _, e := range m.targets {
				rs := results[key(m.name, e.name)]
				if e.name == "official" || e.name == "ceiling" || len(rs) != len(off) {
					continue
				}
				rat := make([]float64, len(rs))
				for i := range rs {
					rat[i] = rs[i].PerSecond() / off[i].PerSecond()
				}
				fmt.Fprintf(&b, "\n%s vs official: %.1fx (median of the per-round ratios)\n", e.name, median(rat))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func title(m string) string {
	switch m {
	case "get":
		return "Report GET (200, full body)"
	case "revalidate":
		return "Report revalidation (If-None-Match, 304)"
	case badgeMode:
		return "Badge GET (badge.svg, 200)"
	case badgeJSON:
		return "Badge GET (badge.json, 200)"
	case listMode:
		return "List GET (" + listPath + "; official: " + officialPath + ")"
	}
	return "POST /v1/submissions (201, a new addon each)"
}

func each(rs []sample, f func(sample) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func ms(rs []sample, f func(sample) time.Duration) string {
	v := median(each(rs, func(r sample) float64 { return float64(f(r)) }))
	return strconv.FormatFloat(v/float64(time.Millisecond), 'f', 2, 64) + " ms"
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func envIntOr(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s: must be a whole number above 0", name)
	}
	return n
}

func envDurationOr(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > loadtest.MaxDuration {
		t.Fatalf("%s: must be a duration such as 5s, above 0 and at most %s", name, loadtest.MaxDuration)
	}
	return d
}

// serve starts h on a loopback listener with registryd's server settings
// and returns its base URL. The server's goroutines, and the connection
// goroutines they start, carry the profiler label server=name, so that a
// CPU profile of the run (go test -cpuprofile) splits by server:
// go tool pprof -tagfocus=server=sqlite.
func serve(t *testing.T, name string, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := api.NewHTTPServer(ln.Addr().String(), h, nil)
	go pprof.Do(context.Background(), pprof.Labels("server", name), func(context.Context) { srv.Serve(ln) })
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}

// startRegistryd serves registryd's API over st with rate limiting off,
// publishes one addon and extra others and makes a submitter token.
func startRegistryd(t *testing.T, name string, st storage.Store, logger *slog.Logger, extra int) endpoint {
	t.Helper()
	ctx := context.Background()
	wf := workflow.New(st, workflow.Options{Logger: logger})
	maint := workflow.Actor{Name: "load-maintainer", Role: registry.RoleMaintainer}
	for i := int64(1); i <= int64(1+extra); i++ {
		if _, _, err := wf.Publish(ctx, maint, loadtest.SubmitManifest("seed", i), workflow.FormatTOML, nil); err != nil {
			t.Fatalf("%s: publish seed addon %d: %v", name, i, err)
		}
	}
	secret, _, err := wf.CreateToken(ctx, "load-submitter", registry.RoleSubmitter)
	if err != nil {
		t.Fatalf("%s: create token: %v", name, err)
	}
	h := api.New(api.Deps{Reader: st, Workflow: wf, Logger: logger, Ready: st.Ping})
	return endpoint{
		name:   name,
		base:   serve(t, name, h),
		report: "/v1/addons/" + loadtest.SubmitName("seed", 1) + "/report",
		token:  secret,
	}
}

// startCeiling serves the bare handler: the report's bytes from memory
// with the headers registryd sends, 304 on a matching If-None-Match. It
// does no routing, no store query and no middleware: nothing a server
// could do less of and still serve the same response.
func startCeiling(t *testing.T, body []byte, hdr200, hdr304 http.Header) endpoint {
	t.Helper()
	etag := hdr200.Get("ETag")
	h200, h304 := wireHeaders(hdr200), wireHeaders(hdr304)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Header.Get("If-None-Match") == etag {
			maps(h, h304)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		maps(h, h200)
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	})
	return endpoint{name: "ceiling", base: serve(t, "ceiling", h)}
}

// wireHeaders keeps the headers a handler sets (net/http adds Date).
func wireHeaders(h http.Header) http.Header {
	out := h.Clone()
	out.Del("Date")
	return out
}

func maps(dst, src http.Header) {
	for k, v := range src {
		dst[k] = v
	}
}

// fetch GETs e's report, conditionally when etag is set, and returns its
// body and headers; it fails t unless the status is 200 (or 304 for a
// conditional GET).
func fetch(t *testing.T, e endpoint, etag string) ([]byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.base+e.report, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := http.StatusOK
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
		want = http.StatusNotModified
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s report: %v", e.name, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s report: %v", e.name, err)
	}
	if resp.StatusCode != want {
		t.Fatalf("GET %s report = %d, want %d: %s", e.name, resp.StatusCode, want, b)
	}
	return b, resp.Header
}

// backends reads the CPU time of the PostgreSQL server processes that
// serve one database (loadtest.Backends); a nil *backends gives no figure.
type backends struct{ b *loadtest.Backends }

// newBackends finds the backends of url's database.
func newBackends(t *testing.T, url string) *backends {
	t.Helper()
	b, err := loadtest.NewBackends(url)
	if err != nil {
		t.Fatal(err)
	}
	return &backends{b}
}

// cpu returns the CPU time so far of each backend serving the database,
// by process id, or nil when any of them cannot be read (the server is not
// on this machine). A nil b gives nil.
func (b *backends) cpu(t *testing.T) map[int]time.Duration {
	t.Helper()
	if b == nil {
		return nil
	}
	m, err := b.b.CPU()
	if err != nil {
		t.Logf("backend CPU left out: %v", err)
		return nil
	}
	return m
}
