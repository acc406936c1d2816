package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/clientip"
	"github.com/registryd/registryd/internal/buildinfo"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/workflow"
)

// rawClient is a client that does not validate against the contract and
// does not ask for, nor undo, compression on its own.
func (e *env) rawClient() *http.Client {
	c := e.clientFrom("")
	tr := c.Transport.(*recorder).next.(*http.Transport).Clone()
	tr.DisableCompression = true
	e.t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestCORS: the public GETs may be read from any origin without
// credentials, a preflight is answered with what they allow, and the
// maintainers' endpoints say nothing to other origins.
func TestCORS(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		e.publish(t, manifest("weather", "1.0.0"))
		raw := e.rawClient()
		origin := map[string]string{"Origin": "https://elsewhere.example"}

		for _, path := range []string{"/v1/addons", "/v1/addons/weather", "/v1/addons/weather/versions", "/v1/addons/weather/report",
			"/v1/addons/weather/versions/1.0.0/report", "/v1/addons/weather/badge.svg", "/v1/addons/weather/badge.json", "/v1/rules", "/openapi.json",
			"/v0.1/servers"} {
			t.Run(path, func(t *testing.T) {
				r := e.do(t, req{method: "GET", path: path, header: origin})
				if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "*" || r.header.Get("Access-Control-Allow-Credentials") != "" {
					t.Errorf("GET with Origin = %d, Allow-Origin %q, Allow-Credentials %q; want 200, * and none",
						r.status, r.header.Get("Access-Control-Allow-Origin"), r.header.Get("Access-Control-Allow-Credentials"))
				}
				exposed := strings.ToLower(r.header.Get("Access-Control-Expose-Headers"))
				for _, h := range []string{"etag", "link", "retry-after"} {
					if !strings.Contains(exposed, h) {
						t.Errorf("Access-Control-Expose-Headers %q lacks %s", exposed, h)
					}
				}
				pre := e.doWith(t, raw, req{method: "OPTIONS", path: path, header: map[string]string{
					"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "if-none-match"}})
				if pre.status != http.StatusNoContent || pre.header.Get("Access-Control-Allow-Origin") != "*" ||
					!strings.Contains(pre.header.Get("Access-Control-Allow-Methods"), "GET") ||
					!strings.Contains(strings.ToLower(pre.header.Get("Access-Control-Allow-Headers")), "if-none-match") {
					t.Errorf("preflight = %d %v, want 204 allowing GET and If-None-Match from any origin", pre.status, pre.header)
				}
				if pre.header.Get("Access-Control-Allow-Credentials") != "" {
					t.Error("preflight allows credentials")
				}
				// A preflight for a write is not granted.
				post := e.doWith(t, raw, req{method: "OPTIONS", path: path, header: map[string]string{
					"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"}})
				if post.header.Get("Access-Control-Allow-Origin") != "" {
					t.Errorf("a preflight for POST is granted: %v", post.header)
				}
				// OPTIONS without a preflight says what the resource allows.
				opt := e.doWith(t, raw, req{method: "OPTIONS", path: path})
				if opt.status != http.StatusNoContent || opt.header.Get("Allow") != "GET, HEAD, OPTIONS" {
					t.Errorf("OPTIONS = %d Allow %q, want 204 GET, HEAD, OPTIONS", opt.status, opt.header.Get("Allow"))
				}
			})
		}
		for _, q := range []req{
			{method: "GET", path: "/v1/submissions", token: e.maintainer, header: origin},
			{method: "GET", path: "/v1/audit-log", token: e.maintainer, header: origin},
		} {
			if r := e.do(t, q); r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s %s from another origin = %d with Allow-Origin %q, want 200 without CORS", q.method, q.path, r.status, r.header.Get("Access-Control-Allow-Origin"))
			}
		}
		pre := e.doWith(t, raw, req{method: "OPTIONS", path: "/v1/submissions", header: map[string]string{
			"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"}})
		if pre.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight of a submission is granted: %d %v", pre.status, pre.header)
		}
	})
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return out
}

// TestCompression: large bodies are gzipped for clients that ask, with an
// ETag of their own that revalidates; the same resource is byte-exact for
// clients that do not ask; reports, badges and small bodies are never
// compressed.
func TestCompression(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		for i := range 8 {
			e.publish(t, manifest("weather"+strconv.Itoa(i), "1.0.0"))
		}
		raw := e.rawClient()
		gz := map[string]string{"Accept-Encoding": "gzip"}
		for _, path := range []string{"/v1/addons", "/openapi.json", "/v1/rules"} {
			t.Run(path, func(t *testing.T) {
				plain := e.doWith(t, raw, req{method: "GET", path: path})
				zipped := e.doWith(t, raw, req{method: "GET", path: path, header: gz})
				if plain.header.Get("Content-Encoding") != "" || len(plain.body) < 1024 {
					t.Fatalf("without Accept-Encoding: Content-Encoding %q, %d bytes; want none and a body over 1 KiB",
						plain.header.Get("Content-Encoding"), len(plain.body))
				}
				if zipped.header.Get("Content-Encoding") != "gzip" || !strings.Contains(vary(zipped), "Accept-Encoding") {
					t.Fatalf("with Accept-Encoding: gzip: Content-Encoding %q, Vary %q; want gzip and Accept-Encoding",
						zipped.header.Get("Content-Encoding"), vary(zipped))
				}
				if got := gunzip(t, zipped.body); !bytes.Equal(got, plain.body) {
					t.Errorf("the gzipped body does not inflate to the plain one")
				}
				if !strings.Contains(vary(plain), "Accept-Encoding") {
					t.Errorf("the plain answer's Vary %q lacks Accept-Encoding, so a cache could serve it gzipped", vary(plain))
				}
				if path == "/v1/rules" {
					return // no ETag
				}
				pe, ze := plain.header.Get("ETag"), zipped.header.Get("ETag")
				sum := sha256Sum(plain.body)
				if want := `"sha256-` + hex.EncodeToString(sum[:]) + `"`; pe != want {
					t.Errorf("plain ETag %s, want %s", pe, want)
				}
				if want := strings.TrimSuffix(pe, `"`) + `-gzip"`; ze != want {
					t.Errorf("gzip ETag %s, want %s", ze, want)
				}
				nm := e.doWith(t, raw, req{method: "GET", path: path, header: map[string]string{"Accept-Encoding": "gzip", "If-None-Match": ze}})
				if nm.status != http.StatusNotModified || nm.header.Get("ETag") != ze {
					t.Errorf("If-None-Match with the gzip ETag = %d, ETag %s; want 304 with %s", nm.status, nm.header.Get("ETag"), ze)
				}
				if nm := e.doWith(t, raw, req{method: "GET", path: path, header: map[string]string{"If-None-Match": pe}}); nm.status != http.StatusNotModified || nm.header.Get("ETag") != pe {
					t.Errorf("If-None-Match with the plain ETag = %d, ETag %s; want 304 with %s", nm.status, nm.header.Get("ETag"), pe)
				}
				// The gzip tag names the gzip representation: a client that
				// no longer accepts gzip gets the plain one in full.
				if r := e.doWith(t, raw, req{method: "GET", path: path, header: map[string]string{"If-None-Match": ze}}); r.status != 200 || !bytes.Equal(r.body, plain.body) {
					t.Errorf("the gzip ETag without Accept-Encoding = %d, want 200 with the plain body", r.status)
				}
			})
		}
		for _, path := range []string{"/v1/addons/weather0/report", "/v1/addons/weather0/badge.svg", "/healthz", "/v1/addons?limit=1&q=nothing"} {
			plain := e.doWith(t, raw, req{method: "GET", path: path})
			zipped := e.doWith(t, raw, req{method: "GET", path: path, header: gz})
			if zipped.header.Get("Content-Encoding") != "" || !bytes.Equal(zipped.body, plain.body) || zipped.header.Get("ETag") != plain.header.Get("ETag") {
				t.Errorf("%s with Accept-Encoding: gzip: Content-Encoding %q, same bytes %v, ETag %q vs %q; want the stored bytes as they are",
					path, zipped.header.Get("Content-Encoding"), bytes.Equal(zipped.body, plain.body), zipped.header.Get("ETag"), plain.header.Get("ETag"))
			}
		}
		// The contract client (Go's transport asks for gzip and inflates
		// transparently) sees the gzip tag, which the document allows.
		if r := e.do(t, req{method: "GET", path: "/v1/addons"}); r.status != 200 {
			t.Errorf("GET /v1/addons through the contract = %d", r.status)
		}
	})
}

// TestListConventions: every list page carries a strong ETag (304 on
// If-None-Match) and a Link to the next page, and a cursor only continues
// the walk it came from.
func TestListConventions(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		for i := range 5 {
			e.publish(t, manifest("weather"+strconv.Itoa(i), "1.0.0"))
		}
		type page struct {
			Items []json.RawMessage `json:"items"`
			Next  *string           `json:"next_cursor"`
		}
		tests := []struct {
			name, path, token, other string
		}{
			{"addons", "/v1/addons?limit=2&tier=community", "", "/v1/addons?limit=2&tier=verified"},
			{"versions", "/v1/addons/weather0/versions?limit=1", "", "/v1/addons/weather1/versions?limit=1"},
			{"submissions", "/v1/submissions?limit=2&status=approved", e.maintainer, "/v1/submissions?limit=2&status=pending"},
			{"audit log", "/v1/audit-log?limit=2", e.maintainer, "/v1/addons?limit=2"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if tt.name == "versions" {
					e.publish(t, manifest("weather0", "1.1.0"))
				}
				var seen []json.RawMessage
				path := tt.path
				var firstCursor string
				for pages := 0; ; pages++ {
					r := e.do(t, req{method: "GET", path: path, token: tt.token})
					if r.status != 200 {
						t.Fatalf("GET %s = %d\n%s", path, r.status, r.body)
					}
					etag := r.header.Get("ETag")
					if !strings.HasPrefix(etag, `"sha256-`) {
						t.Fatalf("ETag %q, want a strong sha256 tag", etag)
					}
					if nm := e.do(t, req{method: "GET", path: path, token: tt.token, header: map[string]string{"If-None-Match": etag}}); nm.status != http.StatusNotModified {
						t.Errorf("If-None-Match = %d, want 304", nm.status)
					}
					var p page
					if err := json.Unmarshal(r.body, &p); err != nil {
						t.Fatal(err)
					}
					seen = append(seen, p.Items...)
					link := r.header.Get("Link")
					if p.Next == nil {
						if link != "" {
							t.Errorf("last page carries Link %q", link)
						}
						break
					}
					if firstCursor == "" {
						firstCursor = *p.Next
					}
					u, err := url.Parse(strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`))
					if err != nil || !strings.HasSuffix(link, `>; rel="next"`) || u.Query().Get("cursor") != *p.Next {
						t.Fatalf("Link %q does not lead to the next cursor %q", link, *p.Next)
					}
					for k, v := range mustQuery(t, tt.path) {
						if u.Query().Get(k) != v[0] {
							t.Errorf("Link %q drops %s=%s", link, k, v[0])
						}
					}
					path = u.RequestURI()
					if pages > 10 {
						t.Fatal("no end to the pages")
					}
				}
				if len(seen) < 2 {
					t.Fatalf("walked %d items, want at least two pages' worth", len(seen))
				}
				if firstCursor == "" {
					t.Fatal("one page only")
				}
				// The cursor with other filters, or on another list.
				r := e.do(t, req{method: "GET", path: tt.other + "&cursor=" + url.QueryEscape(firstCursor), token: tt.token})
				p := wantProblem(t, r, http.StatusBadRequest, "bad-request")
				if len(p.Errors) != 1 || p.Errors[0].Path != "cursor" {
					t.Errorf("problem errors %+v, want one naming cursor", p.Errors)
				}
				// A changed limit keeps the walk.
				if r := e.do(t, req{method: "GET", path: withLimit(tt.path, 3) + "&cursor=" + url.QueryEscape(firstCursor), token: tt.token}); r.status != 200 {
					t.Errorf("the cursor with another limit = %d, want 200\n%s", r.status, r.body)
				}
			})
		}
		// A submitter's cursor is its own.
		for i := range 3 {
			e.submit(t, e.submitter, manifest("queue"+strconv.Itoa(i), "1.0.0"), http.StatusCreated)
		}
		r := e.do(t, req{method: "GET", path: "/v1/submissions?limit=1", token: e.submitter})
		var p page
		if err := json.Unmarshal(r.body, &p); err != nil || p.Next == nil {
			t.Fatalf("submitter's first page: %v, next %v", err, p.Next)
		}
		wantProblem(t, e.do(t, req{method: "GET", path: "/v1/submissions?limit=1&cursor=" + url.QueryEscape(*p.Next), token: e.submitter2}), http.StatusBadRequest, "bad-request")
	})
}

func mustQuery(t *testing.T, path string) url.Values {
	t.Helper()
	u, err := url.Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Del("limit")
	return q
}

// withLimit returns path with its limit set to n.
func withLimit(path string, n int) string {
	u, _ := url.Parse(path)
	q := u.Query()
	q.Set("limit", strconv.Itoa(n))
	u.RawQuery = q.Encode()
	return u.RequestURI()
}

// TestTrustedProxies: a forwarding header is believed only from a trusted
// proxy, and then every client behind it has its own rate-limit budget and
// its own address in the access log.
func TestTrustedProxies(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		const limit = 3
		trusted, err := clientip.ParsePrefixes("127.0.0.9")
		if err != nil {
			t.Fatal(err)
		}
		clients, err := clientip.New(trusted, clientip.XForwardedFor)
		if err != nil {
			t.Fatal(err)
		}
		var logs syncBuffer
		e := newEnv(t, b, func(d *api.Deps) {
			d.RateLimit, d.Clients = limit, clients
			d.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
		})
		proxy := e.clientFrom("127.0.0.9")
		from := func(addr string) map[string]string {
			return map[string]string{"X-Forwarded-For": "203.0.113.77, " + addr}
		}
		for i := range limit {
			if r := e.doWith(t, proxy, req{method: "GET", path: "/v1/addons", header: from("198.51.100.1")}); r.status != 200 {
				t.Fatalf("client 1 request %d = %d", i+1, r.status)
			}
		}
		wantProblem(t, e.doWith(t, proxy, req{method: "GET", path: "/v1/addons", header: from("198.51.100.1")}), http.StatusTooManyRequests, "rate-limited")
		if r := e.doWith(t, proxy, req{method: "GET", path: "/v1/addons", header: from("198.51.100.2")}); r.status != 200 {
			t.Errorf("another client behind the same proxy = %d, want 200: they must not share a budget", r.status)
		}
		// An untrusted peer cannot pick its address: its forwarding header
		// is ignored, so changing it does not buy a fresh budget.
		direct := e.clientFrom("127.0.0.10")
		for i := range limit {
			if r := e.doWith(t, direct, req{method: "GET", path: "/v1/addons", header: from("198.51.100." + strconv.Itoa(10+i))}); r.status != 200 {
				t.Fatalf("direct request %d = %d", i+1, r.status)
			}
		}
		wantProblem(t, e.doWith(t, direct, req{method: "GET", path: "/v1/addons", header: from("198.51.100.99")}), http.StatusTooManyRequests, "rate-limited")

		clientsLogged := map[string]bool{}
		for _, line := range logs.lines() {
			var l struct {
				Msg, Client string
			}
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "request" {
				clientsLogged[l.Client] = true
			}
		}
		for _, want := range []string{"198.51.100.1", "198.51.100.2", "127.0.0.10"} {
			if !clientsLogged[want] {
				t.Errorf("access log names clients %v, want %s among them", clientsLogged, want)
			}
		}
		for _, spoofed := range []string{"198.51.100.10", "203.0.113.77"} {
			if clientsLogged[spoofed] {
				t.Errorf("access log believes the forged address %s", spoofed)
			}
		}
	})
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimSpace(s.buf.String()), "\n")
}

// TestAccessLog: one line per request with its path, route template,
// status, caller and duration in milliseconds, and no secret.
func TestAccessLog(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		var logs syncBuffer
		e := newEnv(t, b, func(d *api.Deps) { d.Logger = slog.New(slog.NewJSONHandler(&logs, nil)) })
		e.do(t, req{method: "GET", path: "/v1/audit-log?limit=1", token: e.maintainer, header: map[string]string{api.RequestIDHeader: "log-test-1"}})
		e.do(t, req{method: "GET", path: "/v1/addons/nope", header: map[string]string{api.RequestIDHeader: "log-test-2"}})
		type line struct {
			Msg, RequestID, Method, Path, Route, Actor, TokenID, Client string
			Status                                                      int
			DurationMS                                                  *float64
		}
		got := map[string]line{}
		for _, l := range logs.lines() {
			var raw map[string]any
			if err := json.Unmarshal([]byte(l), &raw); err != nil {
				t.Fatalf("log line %q: %v", l, err)
			}
			if strings.Contains(l, e.maintainer) {
				t.Errorf("log line carries a token secret: %s", l)
			}
			if raw["msg"] != "request" {
				continue
			}
			var x line
			x.RequestID, _ = raw["request_id"].(string)
			x.Method, _ = raw["method"].(string)
			x.Path, _ = raw["path"].(string)
			x.Route, _ = raw["route"].(string)
			x.Actor, _ = raw["actor"].(string)
			x.TokenID, _ = raw["token_id"].(string)
			x.Client, _ = raw["client"].(string)
			if s, ok := raw["status"].(float64); ok {
				x.Status = int(s)
			}
			if d, ok := raw["duration_ms"].(float64); ok {
				x.DurationMS = &d
			}
			got[x.RequestID] = x
		}
		a := got["log-test-1"]
		if a.Path != "/v1/audit-log" || a.Route != "/v1/audit-log" || a.Status != 200 || a.Actor != "carol" || a.TokenID == "" || a.Client != "127.0.0.1" || a.DurationMS == nil || *a.DurationMS < 0 {
			t.Errorf("access log of an authenticated request = %+v", a)
		}
		n := got["log-test-2"]
		if n.Path != "/v1/addons/nope" || n.Route != "/v1/addons/{name}" || n.Status != 404 || n.Actor != "" || n.DurationMS == nil {
			t.Errorf("access log of an anonymous 404 = %+v", n)
		}
	})
}

// TestHealthzNamesTheBuild: /healthz says which build answers.
func TestHealthzNamesTheBuild(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		build := buildinfo.Info{Version: "v1.2.3", Revision: "0123abcd", Time: "2026-11-30T12:00:00Z", Modified: true, GoVersion: "go1.26.8"}
		e := newEnv(t, b, func(d *api.Deps) { d.Build = build })
		r := e.do(t, req{method: "GET", path: "/healthz"})
		var got struct {
			Status string         `json:"status"`
			Build  buildinfo.Info `json:"build"`
		}
		if err := json.Unmarshal(r.body, &got); err != nil || got.Status != "ok" || got.Build != build {
			t.Errorf("GET /healthz = %d %s, want ok and %+v", r.status, r.body, build)
		}
	})
}

// TestMetricsRoute: GET /metrics is served when a handler is given, and
// the API reports each request under its route template, never its path.
func TestMetricsRoute(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		var rec routeRecorder
		e := newEnv(t, b, func(d *api.Deps) {
			d.Metrics = &rec
			d.MetricsHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				io.WriteString(w, "# metrics\n")
			})
		})
		e.publish(t, manifest("weather", "1.0.0"))
		if r := e.do(t, req{method: "GET", path: "/metrics"}); r.status != 200 || string(r.body) != "# metrics\n" {
			t.Errorf("GET /metrics = %d %q", r.status, r.body)
		}
		// Badges are kept once the store hears of every change (PostgreSQL's
		// listener connects in the background, and the notification of
		// the publication may come after the first read): read until one
		// is served from memory.
		deadline := time.Now().Add(10 * time.Second)
		for hits, _ := rec.badges(); hits == 0; hits, _ = rec.badges() {
			if time.Now().After(deadline) {
				t.Fatal("no badge was served from memory within 10 s")
			}
			e.do(t, req{method: "GET", path: "/v1/addons/weather/badge.svg"})
		}
		e.do(t, req{method: "GET", path: "/v1/nope/" + strings.Repeat("x", 40), undocumented: true})
		for _, want := range []string{"GET /v1/addons/{name}/badge.svg 200", "GET /metrics 200", "POST /v1/submissions 201", "GET (unmatched) 404"} {
			if !rec.has(want) {
				t.Errorf("metrics saw %v, want %q among them", rec.all(), want)
			}
		}
		for _, r := range rec.all() {
			if strings.Contains(r, "xxxx") || strings.Contains(r, "/weather") {
				t.Errorf("a metric label carries a raw path: %q", r)
			}
		}
		if hits, misses := rec.badges(); hits != 1 || misses < 1 {
			t.Errorf("badge cache hits %d misses %d, want 1 and at least 1", hits, misses)
		}
	})
}

type routeRecorder struct {
	mu           sync.Mutex
	seen         []string
	hits, misses int
}

func (r *routeRecorder) ObserveRequest(method, route string, status int, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, method+" "+route+" "+strconv.Itoa(status))
}

func (r *routeRecorder) BadgeCache(hit bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if hit {
		r.hits++
	} else {
		r.misses++
	}
}

func (r *routeRecorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

func (r *routeRecorder) has(s string) bool {
	for _, x := range r.all() {
		if x == s {
			return true
		}
	}
	return false
}

func (r *routeRecorder) badges() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits, r.misses
}

// vary returns every Vary value of r, joined.
func vary(r resp) string { return strings.Join(r.header.Values("Vary"), ", ") }

// TestExpiredToken: a token that has expired is refused on every route, as
// a revoked one is, and the answer says it may be expired.
func TestExpiredToken(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b)
		secret, _, err := e.wf.IssueToken(context.Background(), workflow.NewToken{Principal: "erik", Name: "erik", Role: registry.RoleMaintainer, TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if r := e.do(t, req{method: "GET", path: "/v1/audit-log", token: secret}); r.status != 200 {
			t.Fatalf("before expiry = %d, want 200", r.status)
		}
		later := e.now.Load().Add(time.Hour)
		e.now.Store(&later)
		for _, q := range []req{
			{method: "GET", path: "/v1/audit-log", token: secret},
			{method: "GET", path: "/v1/addons", token: secret},
			{method: "POST", path: "/v1/submissions", token: secret, ctype: "application/toml", body: []byte(manifest("x", "1.0.0"))},
		} {
			p := wantProblem(t, e.do(t, q), http.StatusUnauthorized, "unauthenticated")
			if !strings.Contains(p.Detail, "expired") {
				t.Errorf("%s %s: detail %q does not mention expiry", q.method, q.path, p.Detail)
			}
		}
	})
}
