package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/web"
	"github.com/registryd/registryd/workflow"
)

// env is a running registryd: the real API with the pages mounted, over a
// real SQLite store, on a real listener.
type env struct {
	t      *testing.T
	srv    *httptest.Server
	store  storage.Store
	svc    *workflow.Service
	clock  *clock
	tokens map[string]string // name → secret
}

// clock is an env's time, for the workflow and the pages alike. It starts
// at the real time and moves a millisecond each time it is read, so that
// what happens in order has times in that order, and further when a test
// advances it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

// Advance moves the clock d forward.
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newEnv starts an env; each option may change the pages' dependencies
// before they start.
func newEnv(t *testing.T, options ...func(*web.Deps)) *env {
	t.Helper()
	return newEnvWith(t, nil, options...)
}

// newEnvWith is newEnv where apiOption, when not nil, may also change the
// API's dependencies.
func newEnvWith(t *testing.T, apiOption func(*api.Deps), options ...func(*web.Deps)) *env {
	t.Helper()
	st := fixture.SQLite.Open(t)
	clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
	svc := workflow.New(st, workflow.Options{Now: clk.Now})
	deps := web.Deps{Reader: st, Workflow: svc, Sessions: st, Now: clk.Now}
	for _, o := range options {
		o(&deps)
	}
	pages := web.New(deps)
	ad := api.Deps{Reader: st, Workflow: svc, Web: pages}
	if apiOption != nil {
		apiOption(&ad)
	}
	h := api.New(ad)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	e := &env{t: t, srv: srv, store: st, svc: svc, clock: clk, tokens: map[string]string{}}
	for _, tk := range []struct {
		name string
		role registry.Role
	}{{"alice", registry.RoleMaintainer}, {"bob", registry.RoleMaintainer}, {"sam", registry.RoleSubmitter}} {
		e.tokens[tk.name] = fixture.Token(t, svc, tk.name, tk.role)
	}
	return e
}

// submit submits a manifest as sam and returns the submission.
func (e *env) submit(manifest string) registry.Submission {
	e.t.Helper()
	sub, _, _, err := e.svc.Submit(context.Background(), workflow.Actor{Name: "sam", Role: registry.RoleSubmitter}, []byte(manifest), workflow.Format("toml"), nil)
	if err != nil {
		e.t.Fatalf("submit: %v", err)
	}
	return sub
}

// publish submits and approves a manifest, overriding a failing verdict
// (the hostile manifests of the tests fail, and the pages must show them).
func (e *env) publish(manifest string) registry.Submission {
	e.t.Helper()
	sub := e.submit(manifest)
	if _, err := e.svc.ApproveOverride(context.Background(), workflow.Actor{Name: "alice", Role: registry.RoleMaintainer}, sub.ID, "looks fine"); err != nil {
		e.t.Fatalf("approve: %v", err)
	}
	return sub
}

// browser is an HTTP client with a cookie jar that does not follow
// redirects, so tests see each answer.
type browser struct {
	t *testing.T
	e *env
	c *http.Client
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: e.t, e: e, c: &http.Client{
		Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}
}

type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) get(path string) page {
	b.t.Helper()
	return b.do(http.MethodGet, path, nil, nil)
}

func (b *browser) post(path string, form url.Values, hdr http.Header) page {
	b.t.Helper()
	return b.do(http.MethodPost, path, form, hdr)
}

func (b *browser) do(method, path string, form url.Values, hdr http.Header) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.e.srv.URL+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return page{status: resp.StatusCode, header: resp.Header, body: string(data)}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([A-Za-z0-9_-]+)"`)

// csrf returns the form token on a page.
func (p page) csrf(t *testing.T) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no csrf field on the page:\n%s", p.body)
	}
	return m[1]
}

// signIn signs b in with the named token.
func (b *browser) signIn(name string) {
	b.t.Helper()
	form := b.get("/signin")
	p := b.post("/signin", url.Values{"csrf": {form.csrf(b.t)}, "token": {b.e.tokens[name]}}, nil)
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/review" {
		b.t.Fatalf("sign in as %s: status %d, location %q, body:\n%s", name, p.status, p.header.Get("Location"), p.body)
	}
}

const cleanManifest = `[addon]
name = "clean-tool"
display_name = "Clean Tool"
version = "1.0.0"
description = "Reads files and answers questions."
homepage = "https://example.org/clean"

[mcp]
command = "clean-mcp"
args = ["serve"]
sha256 = "0000000000000000000000000000000000000000000000000000000000000000"

[capabilities]
network = "none"
`

const unpinnedManifest = `[addon]
name = "loose-tool"
version = "0.3.0"
description = "Runs from npm."

[mcp]
command = "npx"
args = ["-y", "loose-tool"]
`
