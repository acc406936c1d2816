package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && !testing.Short() && os.Getenv("API_SKIP_COVERAGE") == "" {
		if c, err := loadContract(); err == nil && len(c.seen) > 0 {
			if missing := c.uncovered(); len(missing) > 0 && runAll() {
				os.Stderr.WriteString("OpenAPI operations no test exercised:\n  " + strings.Join(missing, "\n  ") + "\n")
				code = 1
			}
		}
	}
	os.Exit(code)
}

// runAll reports whether the whole suite ran (no -run filter), which the
// coverage check needs to be meaningful.
func runAll() bool {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.run") || strings.HasPrefix(a, "-test.skip") {
			return false
		}
	}
	return true
}

// env is one registryd API on a real listener over a real store and the
// real workflow, with a token per role.
type env struct {
	t      testing.TB
	store  storage.Store
	wf     *workflow.Service
	srv    *httptest.Server
	client *http.Client
	now    atomic.Pointer[time.Time]

	submitter, submitter2, maintainer, maintainer2, admin, revoked string
	submitterTok                                                   registry.Token
}

type envOption func(*api.Deps)

func newEnv(t testing.TB, b fixture.Backend, opts ...envOption) *env {
	t.Helper()
	e := &env{t: t, store: b.Open(t)}
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	e.now.Store(&start)
	// The clock moves one second per reading, so that the audit log's
	// order (by time) is the order of the actions.
	var tick sync.Mutex
	e.wf = workflow.New(e.store, workflow.Options{Now: func() time.Time {
		tick.Lock()
		defer tick.Unlock()
		next := e.now.Load().Add(time.Second)
		e.now.Store(&next)
		return next
	}})
	ctx := context.Background()
	mk := func(name string, role registry.Role) (string, registry.Token) {
		secret, tok, err := e.wf.CreateToken(ctx, name, role)
		if err != nil {
			t.Fatalf("CreateToken(%q): %v", name, err)
		}
		return secret, tok
	}
	e.submitter, e.submitterTok = mk("alice", registry.RoleSubmitter)
	e.submitter2, _ = mk("bob", registry.RoleSubmitter)
	e.maintainer, _ = mk("carol", registry.RoleMaintainer)
	e.maintainer2, _ = mk("dave", registry.RoleMaintainer)
	e.admin, _ = mk("erin", registry.RoleAdmin)
	var rtok registry.Token
	e.revoked, rtok = mk("mallory", registry.RoleMaintainer)
	if err := e.wf.RevokeToken(ctx, rtok.ID); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	d := api.Deps{
		Reader:   e.store,
		Workflow: e.wf,
		Ready:    func(ctx context.Context) error { return e.store.Ping(ctx) },
	}
	for _, o := range opts {
		o(&d)
	}
	e.srv = httptest.NewServer(api.New(d))
	t.Cleanup(e.srv.Close)
	e.client = e.clientFrom("")
	return e
}

// clientFrom returns a client whose connections come from the loopback
// address local ("" for the default), validating every response against
// the OpenAPI document.
func (e *env) clientFrom(local string) *http.Client {
	c, err := loadContract()
	if err != nil {
		e.t.Fatal(err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if local != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		tr.DialContext = d.DialContext
	}
	e.t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: &recorder{t: e.t, c: c, next: tr}}
}

// resp is a response read whole.
type resp struct {
	status int
	header http.Header
	body   []byte
}

// problem decodes a problem body.
func (r resp) problem(t testing.TB) api.Problem {
	t.Helper()
	var p api.Problem
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, want application/problem+json (status %d, body %s)", ct, r.status, r.body)
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("decode problem: %v\n%s", err, r.body)
	}
	return p
}

// json decodes a JSON body into a generic map.
func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("decode body: %v\n%s", err, r.body)
	}
	return m
}

// req describes one request.
type req struct {
	method, path, token, ctype string
	body                       []byte
	header                     map[string]string
	// undocumented marks a request whose route the OpenAPI document cannot
	// list (an unknown path, a wrong method): only its problem body is
	// checked against the Problem schema.
	undocumented bool
}

func (e *env) do(t testing.TB, q req) resp {
	t.Helper()
	return e.doWith(t, e.client, q)
}

func (e *env) doWith(t testing.TB, c *http.Client, q req) resp {
	t.Helper()
	var body io.Reader
	if q.body != nil {
		body = bytes.NewReader(q.body)
	}
	ctx := context.Background()
	if q.undocumented {
		ctx = context.WithValue(ctx, undocumentedKey{}, true)
	}
	r, err := http.NewRequestWithContext(ctx, q.method, e.srv.URL+q.path, body)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if q.token != "" {
		r.Header.Set("Authorization", "Bearer "+q.token)
	}
	if q.ctype != "" {
		r.Header.Set("Content-Type", q.ctype)
	}
	for k, v := range q.header {
		r.Header.Set(k, v)
	}
	res, err := c.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", q.method, q.path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp{status: res.StatusCode, header: res.Header, body: b}
}

// jsonBody encodes v.
func jsonBody(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// submit posts a TOML manifest as token and wants status.
func (e *env) submit(t testing.TB, token, manifest string, want int) map[string]any {
	t.Helper()
	r := e.do(t, req{method: "POST", path: "/v1/submissions", token: token, ctype: "application/toml", body: []byte(manifest)})
	if r.status != want {
		t.Fatalf("POST /v1/submissions = %d, want %d\n%s", r.status, want, r.body)
	}
	return r.json(t)
}

// submissionID returns the id of a submission response.
func submissionID(t testing.TB, m map[string]any) string {
	t.Helper()
	sub, ok := m["submission"].(map[string]any)
	if !ok {
		t.Fatalf("no submission in %v", m)
	}
	return sub["id"].(string)
}

// approve approves id as token and wants status.
func (e *env) approve(t testing.TB, token, id string, want int) resp {
	t.Helper()
	r := e.do(t, req{method: "POST", path: "/v1/submissions/" + id + "/approve", token: token, ctype: "application/json", body: []byte(`{"reason":"reviewed"}`)})
	if r.status != want {
		t.Fatalf("approve %s = %d, want %d\n%s", id, r.status, want, r.body)
	}
	return r
}

// publish submits and approves a manifest, returning the submission id.
func (e *env) publish(t testing.TB, manifest string) string {
	t.Helper()
	id := submissionID(t, e.submit(t, e.submitter, manifest, http.StatusCreated))
	e.approve(t, e.maintainer, id, http.StatusOK)
	e.settleLog(t)
	return id
}

// settleLog signs the log's whole tree now if its checkpoint does not
// cover it yet, as the store's signer does shortly after every append, so
// that what a test reads next (proofs, the checkpoint, their ETags) comes
// from one signed tree instead of racing that signature.
func (e *env) settleLog(t testing.TB) {
	t.Helper()
	if _, err := e.store.RefreshCheckpoint(context.Background(), time.Duration(math.MaxInt64)); err != nil {
		t.Fatal(err)
	}
}

// manifest returns a valid TOML manifest of name@version; extra lines go
// into [mcp].
func manifest(name, version string, mcpExtra ...string) string {
	return `[addon]
name = "` + name + `"
display_name = "` + strings.ToUpper(name[:1]) + name[1:] + `"
version = "` + version + `"
description = "A test addon for ` + name + `."
author = "Test Author"
license = "MIT"

[mcp]
command = "` + name + `-server"
args = ["--stdio"]
` + strings.Join(mcpExtra, "\n") + "\n"
}

var errUnready = errors.New("database is down: password=hunter2 at 10.0.0.5")

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }
