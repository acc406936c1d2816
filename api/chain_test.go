package api_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
)

// TestHotReadWireHeaders holds the hot reads to the header lines they
// send, names spelled as on the wire, with both rate limits on: a report,
// its 304, and a badge as SVG and as JSON, on each store, read twice (the
// second time from memory).
func TestHotReadWireHeaders(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		e := newEnv(t, b, func(d *api.Deps) { d.RateLimit, d.CacheableRateLimit = 1000, 1000 })
		e.publish(t, manifest("weather", "1.0.0"))
		etag := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"}).header.Get("ETag")
		limits := []string{"X-Ratelimit-Limit: 1000", "X-Ratelimit-Remaining", "X-Ratelimit-Reset"}
		common := append([]string{"Connection: close", "Date", "Vary: Origin", "X-Content-Type-Options: nosniff", "X-Request-Id"}, limits...)
		for _, c := range []struct {
			path, inm string
			status    string
			want      []string
		}{
			{"/v1/addons/weather/report", "", "200 OK", []string{"Cache-Control: public, no-cache", "Content-Length", "Content-Type: application/json", "Etag: " + etag}},
			{"/v1/addons/weather/report", etag, "304 Not Modified", []string{"Cache-Control: public, no-cache", "Etag: " + etag}},
			{"/v1/addons/weather/badge.svg", "", "200 OK", []string{"Cache-Control: no-cache", "Content-Length",
				"Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'", "Content-Type: image/svg+xml", "Etag"}},
			{"/v1/addons/weather/badge.json", "", "200 OK", []string{"Cache-Control: no-cache", "Content-Length", "Content-Type: application/json", "Etag"}},
		} {
			want := slices.Sorted(slices.Values(append(slices.Clone(common), c.want...)))
			for range 2 {
				status, lines := rawGet(t, e.srv.URL, c.path, c.inm)
				if status != c.status {
					t.Fatalf("GET %s (If-None-Match %q) = %s, want %s", c.path, c.inm, status, c.status)
				}
				// Values that differ per request are compared by name only.
				got := make([]string, len(lines))
				for i, l := range lines {
					got[i] = l
					name, value, _ := strings.Cut(l, ": ")
					if !slices.Contains(want, l) && slices.Contains(want, name) {
						got[i] = name
					}
					if name == "Etag" && !strings.HasPrefix(value, `"sha256-`) {
						t.Errorf("GET %s: ETag %q is not a strong sha256 tag", c.path, value)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("GET %s (If-None-Match %q) sent the header lines\n%s\nwant\n%s", c.path, c.inm, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		}
	})
}

// rawGet sends one GET over a new connection and returns the status and
// the header lines exactly as the server wrote them.
func rawGet(t *testing.T, base, path, inm string) (string, []string) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nConnection: close\r\n"
	if inm != "" {
		r += "If-None-Match: " + inm + "\r\n"
	}
	if _, err := io.WriteString(conn, r+"\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	first, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	status := strings.TrimPrefix(strings.TrimSpace(first), "HTTP/1.1 ")
	var lines []string
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		l = strings.TrimRight(l, "\r\n")
		if l == "" {
			return status, lines
		}
		lines = append(lines, l)
	}
}

// TestPanicAnswered: a handler that panics gets its request a 500 problem
// with the request's id, and the access log its line, with the route
// label the handler set; the next request on the same server is answered
// as usual.
func TestPanicAnswered(t *testing.T) {
	var logs syncBuffer
	e := newEnv(t, fixture.SQLite, func(d *api.Deps) {
		d.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
		d.Web = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	})
	// A page, which the API's contract does not describe: a plain client.
	r, err := http.NewRequest(http.MethodGet, e.srv.URL+"/boom", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set(api.RequestIDHeader, "panic-1")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusInternalServerError || resp.Header.Get(api.RequestIDHeader) != "panic-1" ||
		!strings.Contains(resp.Header.Get("Content-Type"), "problem+json") || !strings.Contains(string(body), `"request_id":"panic-1"`) {
		t.Fatalf("a panicking handler's answer = %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if strings.Contains(string(body), "boom") {
		t.Errorf("the 500 carries the panic's value: %s", body)
	}
	var logged bool
	for _, l := range logs.lines() {
		var x struct{ Msg, RequestID, Route string }
		var raw map[string]any
		if err := json.Unmarshal([]byte(l), &raw); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		x.Msg, _ = raw["msg"].(string)
		x.RequestID, _ = raw["request_id"].(string)
		x.Route, _ = raw["route"].(string)
		if x.Msg == "request" && x.RequestID == "panic-1" {
			logged = true
			if x.Route != "(pages)" || raw["status"] != float64(500) {
				t.Errorf("access log line of the panic = %s", l)
			}
		}
	}
	if !logged {
		t.Errorf("no access log line for the panicking request:\n%s", strings.Join(logs.lines(), "\n"))
	}
	e.publish(t, manifest("weather", "1.0.0"))
	if got := e.do(t, req{method: "GET", path: "/v1/addons/weather/report"}); got.status != http.StatusOK {
		t.Errorf("GET a report after the panic = %d", got.status)
	}
}
