package loadtest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/addon"
)

func TestCheckTarget(t *testing.T) {
	tests := []struct {
		name        string
		url         string
		allowRemote bool
		wantErr     string // substring; "" for success
	}{
		{name: "ipv4 loopback", url: "http://127.0.0.1:8080/v1/addons/x/report"},
		{name: "other 127 address", url: "http://127.9.9.9:1/"},
		{name: "ipv6 loopback", url: "http://[::1]:8080/"},
		{name: "localhost", url: "https://localhost/"},
		{name: "LOCALHOST", url: "http://LOCALHOST:80/"},
		{name: "remote name refused", url: "http://example.org/", wantErr: `host "example.org" is not a loopback address`},
		{name: "private address refused", url: "http://10.0.0.1:8080/", wantErr: "is not a loopback address"},
		{name: "unspecified address refused", url: "http://0.0.0.0:8080/", wantErr: "is not a loopback address"},
		{name: "localhost lookalike refused", url: "http://localhost.example.org/", wantErr: "is not a loopback address"},
		{name: "remote allowed by flag", url: "http://example.org/", allowRemote: true},
		{name: "no scheme", url: "127.0.0.1:8080/x", wantErr: "url: must be an absolute http or https URL"},
		{name: "ftp", url: "ftp://127.0.0.1/", wantErr: "url: must be an absolute http or https URL"},
		{name: "no host", url: "http:///path", wantErr: "url: must be"},
		{name: "credentials", url: "http://u:p@127.0.0.1/", wantErr: "without credentials"},
		{name: "fragment", url: "http://127.0.0.1/#x", wantErr: "fragment"},
		{name: "empty", url: "", wantErr: "url: must be"},
		{name: "control character", url: "http://127.0.0.1\x1b[31m/", wantErr: "url: must be"},
		{name: "bidi override in host", url: "http://exa\u202emple.org/", wantErr: `host "exa\u202emple.org"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := CheckTarget(tt.url, tt.allowRemote)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckTarget(%q) error %v, want none", tt.url, err)
				}
				if u.String() != tt.url {
					t.Errorf("CheckTarget(%q) = %q, want the URL unchanged", tt.url, u)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckTarget(%q) = %v, want an error containing %q", tt.url, u, tt.wantErr)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantErr) {
				t.Errorf("CheckTarget(%q) error %q, want it to contain %q", tt.url, msg, tt.wantErr)
			}
			if !printableASCII(msg) {
				t.Errorf("CheckTarget(%q) error %q has characters outside printable ASCII", tt.url, msg)
			}
		})
	}
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

func TestValidate(t *testing.T) {
	good := Config{URL: "http://127.0.0.1:1/", Mode: ModeGet, Concurrency: 4, Duration: time.Second}
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr []string
	}{
		{name: "good", edit: func(*Config) {}},
		{name: "submit with token", edit: func(c *Config) { c.Mode, c.Token = ModeSubmit, "rgd_x" }},
		{name: "bounds at their maximum", edit: func(c *Config) {
			c.Concurrency, c.Duration, c.MaxRequests, c.RunID = MaxConcurrency, MaxDuration, MaxRequests, "abcdefgh01234567"
		}},
		{name: "unknown mode", edit: func(c *Config) { c.Mode = "delete" }, wantErr: []string{"mode: must be get, revalidate or submit"}},
		{name: "no mode", edit: func(c *Config) { c.Mode = "" }, wantErr: []string{"mode:"}},
		{name: "zero concurrency", edit: func(c *Config) { c.Concurrency = 0 }, wantErr: []string{"concurrency: must be from 1 to 512"}},
		{name: "too much concurrency", edit: func(c *Config) { c.Concurrency = MaxConcurrency + 1 }, wantErr: []string{"concurrency:"}},
		{name: "zero duration", edit: func(c *Config) { c.Duration = 0 }, wantErr: []string{"duration: must be above 0"}},
		{name: "negative duration", edit: func(c *Config) { c.Duration = -time.Second }, wantErr: []string{"duration:"}},
		{name: "too long", edit: func(c *Config) { c.Duration = MaxDuration + 1 }, wantErr: []string{"duration:"}},
		{name: "negative requests", edit: func(c *Config) { c.MaxRequests = -1 }, wantErr: []string{"requests:"}},
		{name: "too many requests", edit: func(c *Config) { c.MaxRequests = MaxRequests + 1 }, wantErr: []string{"requests:"}},
		{name: "token with a space", edit: func(c *Config) { c.Token = "a b" }, wantErr: []string{"token: must be printable ASCII"}},
		{name: "token with a newline", edit: func(c *Config) { c.Token = "a\nInjected: 1" }, wantErr: []string{"token:"}},
		{name: "submit without token", edit: func(c *Config) { c.Mode = ModeSubmit }, wantErr: []string{"token: submit needs a token"}},
		{name: "run id upper case", edit: func(c *Config) { c.RunID = "ABC" }, wantErr: []string{"run id:"}},
		{name: "run id too long", edit: func(c *Config) { c.RunID = strings.Repeat("a", 17) }, wantErr: []string{"run id:"}},
		{name: "remote url", edit: func(c *Config) { c.URL = "http://192.0.2.1/" }, wantErr: []string{"url: host"}},
		{name: "every field at once", edit: func(c *Config) {
			*c = Config{URL: "x", Mode: "y", Concurrency: -1, Duration: 0, MaxRequests: -1, Token: " ", RunID: "-"}
		}, wantErr: []string{"url:", "mode:", "concurrency:", "duration:", "requests:", "token:", "run id:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.edit(&c)
			_, err := c.Validate()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want errors %q", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// fixedReport serves body with a strong ETag, answering 304 to a matching
// If-None-Match, like registryd's report route.
func fixedReport(body string) http.HandlerFunc {
	etag := `"sha256-abc"`
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}
}

func TestRunGet(t *testing.T) {
	var served atomic.Int64
	h := fixedReport(`{"verdict":"pass"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("Authorization") != "Bearer rgd_tok" {
			http.Error(w, "unexpected headers", http.StatusBadRequest)
			return
		}
		served.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)

	res, err := Run(context.Background(), Config{URL: srv.URL + "/r", Mode: ModeGet, Concurrency: 4, Duration: time.Minute, MaxRequests: 300, Token: "rgd_tok"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Requests != 300 || res.Errors != 0 || len(res.ErrorSamples) != 0 {
		t.Errorf("requests %d errors %d %q, want 300 requests and no errors", res.Requests, res.Errors, res.ErrorSamples)
	}
	if got := served.Load(); got != 301 { // the priming request and the run
		t.Errorf("server saw %d requests, want 301", got)
	}
	if !(0 < res.P50 && res.P50 <= res.P90 && res.P90 <= res.P99 && res.P99 <= res.Max) {
		t.Errorf("quantiles p50 %v p90 %v p99 %v max %v, want 0 < p50 <= p90 <= p99 <= max", res.P50, res.P90, res.P99, res.Max)
	}
	if res.PerSecond() <= 0 || res.OK() != 300 {
		t.Errorf("PerSecond %v OK %d, want positive and 300", res.PerSecond(), res.OK())
	}
	if s := res.String(); !strings.Contains(s, "300 requests, 0 errors") {
		t.Errorf("String() = %q, want the counts", s)
	}
}

func TestRunRevalidate(t *testing.T) {
	var withTag, without atomic.Int64
	h := fixedReport(`{"verdict":"pass"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") != "" {
			withTag.Add(1)
		} else {
			without.Add(1)
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)

	res, err := Run(context.Background(), Config{URL: srv.URL, Mode: ModeRevalidate, Concurrency: 3, Duration: time.Minute, MaxRequests: 100})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Requests != 100 || res.Errors != 0 {
		t.Errorf("requests %d errors %d %q, want 100 and none", res.Requests, res.Errors, res.ErrorSamples)
	}
	if withTag.Load() != 100 || without.Load() != 1 {
		t.Errorf("server saw %d conditional and %d plain requests, want 100 and 1 (the priming GET)", withTag.Load(), without.Load())
	}
}

func TestRunSubmit(t *testing.T) {
	var (
		mu    sync.Mutex
		names = map[string]int{}
		bad   []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		m, err := addon.ParseTOML(b)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/toml" || r.Header.Get("Authorization") != "Bearer rgd_s":
			bad = append(bad, r.Method+" "+r.Header.Get("Content-Type"))
		case err != nil:
			bad = append(bad, err.Error())
		default:
			names[m.Addon.Name]++
		}
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(srv.Close)

	res, err := Run(context.Background(), Config{URL: srv.URL + "/v1/submissions", Mode: ModeSubmit, Concurrency: 5, Duration: time.Minute, MaxRequests: 50, Token: "rgd_s", RunID: "t1"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Requests != 50 || res.Errors != 0 {
		t.Errorf("requests %d errors %d %q, want 50 and none", res.Requests, res.Errors, res.ErrorSamples)
	}
	if len(bad) > 0 {
		t.Errorf("malformed submissions: %q", bad)
	}
	want := map[string]int{}
	for n := int64(1); n <= 50; n++ {
		want[SubmitName("t1", n)] = 1
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("submitted addon names (-want +got):\n%s", diff)
	}
}

func TestRunCountsFailures(t *testing.T) {
	tests := []struct {
		name    string
		mode    Mode
		handler func(n int64, w http.ResponseWriter, r *http.Request)
		want    []string // error samples, in any order
		errors  int64
	}{
		{
			name: "server errors",
			mode: ModeGet,
			handler: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n%4 == 0 {
					w.WriteHeader(http.StatusInternalServerError)
					return
				}
				io.WriteString(w, "body")
			},
			want:   []string{"status 500, want 200"},
			errors: 10,
		},
		{
			name: "a different body length",
			mode: ModeGet,
			handler: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n == 7 {
					io.WriteString(w, "truncated")
					return
				}
				io.WriteString(w, "the report")
			},
			want:   []string{"body of 9 bytes, want 10"},
			errors: 1,
		},
		{
			name: "redirects are not followed",
			mode: ModeRevalidate,
			handler: func(n int64, w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("If-None-Match") == "" {
					w.Header().Set("ETag", `"x"`)
					return
				}
				http.Redirect(w, r, "http://192.0.2.1/", http.StatusFound)
			},
			want:   []string{"status 302, want 304"},
			errors: 40,
		},
		{
			name: "a submission refused",
			mode: ModeSubmit,
			handler: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusUnprocessableEntity)
			},
			want:   []string{"status 422, want 201"},
			errors: 40,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tt.handler(n.Add(1), w, r)
			}))
			t.Cleanup(srv.Close)
			res, err := Run(context.Background(), Config{URL: srv.URL, Mode: tt.mode, Concurrency: 1, Duration: time.Minute, MaxRequests: 40, Token: "rgd_x"})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Requests != 40 || res.Errors != tt.errors {
				t.Errorf("requests %d errors %d, want 40 and %d", res.Requests, res.Errors, tt.errors)
			}
			if diff := cmp.Diff(tt.want, res.ErrorSamples); diff != "" {
				t.Errorf("error samples (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunPrimingFailures(t *testing.T) {
	tests := []struct {
		name    string
		mode    Mode
		handler http.HandlerFunc
		wantErr string
	}{
		{"not found", ModeGet, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, "priming request: status 404, want 200"},
		{"no etag", ModeRevalidate, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") }, "no usable ETag"},
		{"etag with a control character", ModeRevalidate, func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Etag"] = []string{"\"a\x01\""}
		}, "priming request:"},
		{"etag too long", ModeRevalidate, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"`+strings.Repeat("a", 300)+`"`)
		}, "no usable ETag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				tt.handler(w, r)
			}))
			t.Cleanup(srv.Close)
			_, err := Run(context.Background(), Config{URL: srv.URL, Mode: tt.mode, Concurrency: 2, Duration: time.Minute})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Run error %v, want one containing %q", err, tt.wantErr)
			}
			if got := n.Load(); got != 1 {
				t.Errorf("server saw %d requests, want only the priming one", got)
			}
		})
	}
}

func TestRunRefusesUnreachableAndStops(t *testing.T) {
	t.Run("connection refused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		_, err := Run(context.Background(), Config{URL: url, Mode: ModeGet, Concurrency: 1, Duration: time.Second})
		if err == nil || !strings.Contains(err.Error(), "priming request") {
			t.Fatalf("Run against a closed port: %v, want a priming error", err)
		}
	})
	t.Run("duration ends the run", func(t *testing.T) {
		srv := httptest.NewServer(fixedReport("{}"))
		t.Cleanup(srv.Close)
		res, err := Run(context.Background(), Config{URL: srv.URL, Mode: ModeGet, Concurrency: 2, Duration: 100 * time.Millisecond})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.Requests == 0 || res.Errors != 0 || res.Elapsed < 100*time.Millisecond {
			t.Errorf("requests %d errors %d elapsed %v, want some, none, and at least the duration", res.Requests, res.Errors, res.Elapsed)
		}
	})
	t.Run("the deadline lets requests in flight finish", func(t *testing.T) {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) > 1 { // the priming request answers at once
				time.Sleep(300 * time.Millisecond)
			}
			io.WriteString(w, "{}")
		}))
		t.Cleanup(srv.Close)
		res, err := Run(context.Background(), Config{URL: srv.URL, Mode: ModeGet, Concurrency: 3, Duration: 50 * time.Millisecond})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.Requests != 3 || res.Errors != 0 {
			t.Errorf("requests %d errors %d %q, want the 3 in flight at the deadline, completed", res.Requests, res.Errors, res.ErrorSamples)
		}
	})
	t.Run("cancel ends the run", func(t *testing.T) {
		srv := httptest.NewServer(fixedReport("{}"))
		t.Cleanup(srv.Close)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		res, err := Run(ctx, Config{URL: srv.URL, Mode: ModeGet, Concurrency: 2, Duration: MaxDuration})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.Errors != 0 {
			t.Errorf("errors %d %q: requests aborted by the caller must not count", res.Errors, res.ErrorSamples)
		}
	})
}

// TestDialRefusesRemote checks the connection-level guard: a name that
// resolves, or a redirect that points, elsewhere than loopback is refused
// before any packet leaves. 192.0.2.1 is TEST-NET-1, never routed.
func TestDialRefusesRemote(t *testing.T) {
	c := newClient(1, false)
	_, err := c.Get("http://192.0.2.1:9/")
	if !errors.Is(err, errNotLoopback) {
		t.Fatalf("Get(192.0.2.1) error %v, want errNotLoopback", err)
	}
	srv := httptest.NewServer(fixedReport("{}"))
	t.Cleanup(srv.Close)
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("Get(loopback): %v", err)
	}
	resp.Body.Close()
}

func TestSubmitManifest(t *testing.T) {
	for _, tt := range []struct {
		run string
		n   int64
	}{{"a", 1}, {"0123456789abcdef", MaxRequests}, {"deadbeef", 42}} {
		b := SubmitManifest(tt.run, tt.n)
		m, err := addon.ParseTOML(b)
		if err != nil {
			t.Fatalf("SubmitManifest(%q, %d) does not parse: %v", tt.run, tt.n, err)
		}
		if got, want := m.Addon.Name, SubmitName(tt.run, tt.n); got != want {
			t.Errorf("SubmitManifest(%q, %d) name = %q, want %q", tt.run, tt.n, got, want)
		}
	}
	if id := randomRunID(); len(id) != 8 || !lowerAlnum(id) {
		t.Errorf("randomRunID() = %q, want 8 lower-case hex digits", id)
	}
}

// VaryQuery spells one query many ways, each meaning the same to a server.
func TestVaryQuery(t *testing.T) {
	const raw = "http://127.0.0.1:8080/v1/addons?limit=30&q=otel+tr%C3%A9cing"
	want, _ := url.Parse(raw)
	seen := map[string]bool{}
	for n := range int64(3000) {
		v := VaryQuery(raw, n)
		if seen[v] {
			t.Fatalf("variant %d repeats %q", n, v)
		}
		seen[v] = true
		u, err := url.Parse(v)
		if err != nil {
			t.Fatalf("variant %d %q: %v", n, v, err)
		}
		if u.Path != want.Path || !reflect.DeepEqual(u.Query(), want.Query()) {
			t.Fatalf("variant %d %q means %v %v, want %v %v", n, v, u.Path, u.Query(), want.Path, want.Query())
		}
	}
	if v := VaryQuery("http://127.0.0.1/v1/rules", 7); v != "http://127.0.0.1/v1/rules" {
		t.Errorf("no query: got %q", v)
	}
}
