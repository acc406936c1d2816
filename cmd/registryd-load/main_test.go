package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// report serves a report at /r with an ETag, like registryd, and counts the
// submissions posted to /v1/submissions with the right token.
type report struct {
	submissions atomic.Int64
}

func (rp *report) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/r" && r.Header.Get("If-None-Match") == `"sha256-1"`:
		w.WriteHeader(http.StatusNotModified)
	case r.URL.Path == "/r":
		w.Header().Set("ETag", `"sha256-1"`)
		io.WriteString(w, `{"verdict":"pass"}`)
	case r.URL.Path == "/v1/submissions" && r.Header.Get("Authorization") == "Bearer rgd_env":
		rp.submissions.Add(1)
		w.WriteHeader(http.StatusCreated)
	case r.URL.Path == "/boom":
		w.WriteHeader(http.StatusServiceUnavailable)
	default:
		http.NotFound(w, r)
	}
}

func TestRun(t *testing.T) {
	rp := &report{}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	env := map[string]string{"REGISTRYD_LOAD_TOKEN": "rgd_env"}
	getenv := func(k string) string { return env[k] }

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    []string
		wantErr    []string
		notWantErr string
	}{
		{
			name:    "get",
			args:    []string{"-url", srv.URL + "/", "-path", "/r", "-requests", "50", "-concurrency", "2"},
			wantOut: []string{"mode         get\n", "requests     50\n", "errors       0\n", "requests/s   ", "p50          ", "p99          ", "max          "},
		},
		{
			name:    "revalidate",
			args:    []string{"-url", srv.URL, "-mode", "revalidate", "-path", "/r", "-requests", "20"},
			wantOut: []string{"mode         revalidate\n", "requests     20\n", "errors       0\n"},
		},
		{
			name:    "submit with the token from the environment",
			args:    []string{"-url", srv.URL, "-mode", "submit", "-requests", "10", "-run-id", "abc"},
			wantOut: []string{"mode         submit\n", "/v1/submissions", "requests     10\n", "errors       0\n"},
		},
		{
			name:     "a run with errors exits 3 and shows them",
			args:     []string{"-url", srv.URL, "-mode", "submit", "-token", "rgd_other", "-requests", "5"},
			wantCode: 3,
			wantOut:  []string{"errors       5\n", "error        status 404, want 201\n"},
		},
		{
			name:     "a target that fails the priming request exits 1",
			args:     []string{"-url", srv.URL, "-path", "/boom"},
			wantCode: 1,
			wantErr:  []string{"registryd-load: priming request: status 503, want 200"},
		},
		{
			name:     "get needs a path",
			args:     []string{"-url", srv.URL},
			wantCode: 2,
			wantErr:  []string{"path: get needs the path of a report"},
		},
		{
			name:     "a remote target is refused",
			args:     []string{"-url", "http://registry.example.org", "-path", "/r"},
			wantCode: 2,
			wantErr:  []string{`url: host "registry.example.org" is not a loopback address`},
		},
		{
			name:     "a path with a control character",
			args:     []string{"-url", srv.URL, "-path", "/r\x1b[2J"},
			wantCode: 2,
			wantErr:  []string{"path: must start with / and be printable ASCII"},
		},
		{
			name:     "several bad flags are all named",
			args:     []string{"-url", srv.URL, "-path", "/r", "-mode", "put", "-concurrency", "0", "-duration", "1h"},
			wantCode: 2,
			wantErr:  []string{"mode:", "concurrency:", "duration:"},
		},
		{
			name:       "an unexpected argument is quoted safely",
			args:       []string{"-path", "/r", "extra\x07"},
			wantCode:   2,
			wantErr:    []string{`unexpected argument "extra\a"`},
			notWantErr: "\x07",
		},
		{
			name:     "seed says what is wrong with its flags",
			args:     []string{"seed", "-addons", "0"},
			wantCode: 2,
			wantErr:  []string{"registryd-load seed: addons: must be from 1 to 10,000,000"},
		},
		{
			name:     "scale says why it could not start",
			args:     []string{"scale", "-url", srv.URL, "-duration", "1ms"},
			wantCode: 1,
			wantErr:  []string{"registryd-load scale: "},
		},
		{
			name:     "an unknown flag",
			args:     []string{"-bogus"},
			wantCode: 2,
			wantErr:  []string{"flag provided but not defined: -bogus"},
		},
		{
			name:    "help",
			args:    []string{"-h"},
			wantErr: []string{"Usage: registryd-load [flags]", "-allow-remote"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, getenv, &out, &errOut)
			if got := exitCode(err); got != tt.wantCode {
				t.Fatalf("exit code %d (%v), want %d\nstdout:\n%s\nstderr:\n%s", got, err, tt.wantCode, out.String(), errOut.String())
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut.String())
				}
			}
			if tt.notWantErr != "" && strings.Contains(errOut.String(), tt.notWantErr) {
				t.Errorf("stderr echoes %q:\n%s", tt.notWantErr, errOut.String())
			}
		})
	}
	if got := rp.submissions.Load(); got != 10 {
		t.Errorf("server counted %d authenticated submissions, want 10", got)
	}
}
