package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/clientip"
	"github.com/registryd/registryd/registry"
)

func TestRegistryPageSearchesAndFilters(t *testing.T) {
	e := newEnv(t)
	e.publish(cleanManifest)
	e.publish(unpinnedManifest)
	b := e.browser()

	tests := []struct {
		query      string
		want, dont []string
	}{
		{"/", []string{"Clean Tool", "loose-tool"}, nil},
		{"/?q=clean", []string{"Clean Tool"}, []string{"loose-tool"}},
		{"/?verdict=review", []string{"loose-tool"}, []string{"Clean Tool"}},
		{"/?verdict=pass", []string{"Clean Tool"}, []string{"loose-tool"}},
		{"/?tier=verified", []string{"No addon matches"}, []string{"Clean Tool", "loose-tool"}},
		// Unknown filter values are ignored, not echoed.
		{"/?tier=%3Cb%3E&verdict=no-such-verdict-q9", []string{"Clean Tool", "loose-tool"}, []string{"<b>", "no-such-verdict-q9"}},
		// A malformed cursor starts over rather than failing. (A query
		// that is not valid percent-encoding is refused before any page:
		// see TestPagesRefuseAmbiguousQueries.)
		{"/?cursor=%25%25%25", []string{"Clean Tool"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := b.get(tt.query)
			if p.status != http.StatusOK {
				t.Fatalf("status %d, want 200", p.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, d := range tt.dont {
				if strings.Contains(p.body, d) {
					t.Errorf("page has %q", d)
				}
			}
		})
	}
}

func TestAddonPage(t *testing.T) {
	e := newEnv(t)
	e.publish(cleanManifest)
	p := e.browser().get("/addons/clean-tool")
	if p.status != http.StatusOK {
		t.Fatalf("status %d", p.status)
	}
	for _, want := range []string{
		`<h1>Clean Tool`,
		`src="/v1/addons/clean-tool/badge.svg"`,
		`[![addon: community · pass](` + e.srv.URL + `/v1/addons/clean-tool/badge.svg)](` + e.srv.URL + `/addons/clean-tool)`,
		`href="https://example.org/clean"`,
		`id="verdict">pass<`,
		`<span>network</span><span>none</span><span>not used</span>`,
		`1.0.0`,
		`/v1/addons/clean-tool/versions/1.0.0/report`,
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("addon page lacks %q", want)
		}
	}
	// Anonymous visitors see no maintainer controls.
	if strings.Contains(p.body, "Grant verified") {
		t.Error("anonymous page shows maintainer controls")
	}
	for _, path := range []string{"/addons/nope", "/addons/%3Cscript%3E", "/no/such/page"} {
		if p := e.browser().get(path); p.status != http.StatusNotFound || strings.Contains(p.body, "<script>") {
			t.Errorf("GET %s: status %d (want 404), or it echoed markup", path, p.status)
		}
	}
}

func TestFindingsGroupedWithFixes(t *testing.T) {
	e := newEnv(t)
	e.publish(unpinnedManifest)
	p := e.browser().get("/addons/loose-tool")
	for _, want := range []string{`<h3 class="level-warn">Warnings (1)</h3>`, `<code>unpinned</code>`, "Fix: "} {
		if !strings.Contains(p.body, want) {
			t.Errorf("addon page lacks %q", want)
		}
	}
}

const hostileManifest = `[addon]
name = "hostile"
version = "6.6.6"
display_name = "<script>alert('name')</script>"
description = "<img src=x onerror=alert(1)> \"quoted\" & <b>bold</b>"
homepage = "javascript:alert(document.cookie)"

[mcp]
command = "node"
args = ["-e", "</script><script>alert(2)</script>", "\"><svg onload=alert(3)>"]

[mcp.env]
X_PAYLOAD = "<iframe src=javascript:alert(4)>"
`

// Payloads that must never reach a page as markup.
var rawPayloads = []string{"<script>alert", "<img src=x", "<svg onload", "<iframe", `href="javascript:`, "<b>bold"}

func TestHostileManifestRendersAsText(t *testing.T) {
	e := newEnv(t)
	sub := e.publish(hostileManifest)
	b := e.browser()
	b.signIn("alice")
	for _, path := range []string{"/", "/addons/hostile", "/review?status=all", "/review/submissions/" + sub.ID} {
		t.Run(path, func(t *testing.T) {
			p := b.get(path)
			if p.status != http.StatusOK {
				t.Fatalf("status %d", p.status)
			}
			for _, raw := range rawPayloads {
				if strings.Contains(p.body, raw) {
					t.Errorf("page carries raw payload %q", raw)
				}
			}
			if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
				t.Errorf("Content-Security-Policy = %q, want scripts forbidden", csp)
			}
		})
	}
	p := b.get("/addons/hostile")
	if !strings.Contains(p.body, "&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;") {
		t.Error("the display name is not shown as escaped text")
	}
	if !strings.Contains(p.body, "not a secure link, not followed") {
		t.Error("a javascript: homepage is not shown as an unfollowed link")
	}
	sp := b.get("/review/submissions/" + sub.ID)
	if !strings.Contains(sp.body, "&lt;iframe src=javascript:alert(4)&gt;") {
		t.Error("the manifest source is not shown as escaped text")
	}
	if !strings.Contains(sp.body, `class="marked marked-danger"`) {
		t.Error("the line of the danger finding is not marked")
	}
}

func TestSignInSessionsAndForgery(t *testing.T) {
	e := newEnv(t)
	b := e.browser()

	// Anonymous visitors are sent to sign in.
	if p := b.get("/review"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/signin" {
		t.Fatalf("GET /review anonymous: status %d location %q", p.status, p.header.Get("Location"))
	}
	form := b.get("/signin")
	token := form.csrf(t)

	tests := []struct {
		name   string
		form   url.Values
		header http.Header
		status int
	}{
		{"no form token", url.Values{"token": {e.tokens["alice"]}}, nil, http.StatusForbidden},
		{"wrong form token", url.Values{"csrf": {"AAAA"}, "token": {e.tokens["alice"]}}, nil, http.StatusForbidden},
		{"cross-site", url.Values{"csrf": {token}, "token": {e.tokens["alice"]}}, http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"unknown token", url.Values{"csrf": {token}, "token": {"rgd_nope"}}, nil, http.StatusUnauthorized},
		{"empty token", url.Values{"csrf": {token}, "token": {""}}, nil, http.StatusUnprocessableEntity},
		{"submitter", url.Values{"csrf": {token}, "token": {e.tokens["sam"]}}, nil, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := b.post("/signin", tt.form, tt.header)
			if p.status != tt.status {
				t.Fatalf("status %d, want %d", p.status, tt.status)
			}
			if strings.Contains(p.body, e.tokens["alice"]) || strings.Contains(p.body, e.tokens["sam"]) {
				t.Error("the page echoes a token")
			}
		})
	}

	// A good sign-in sets a strict, HttpOnly session cookie.
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/signin", strings.NewReader(url.Values{"csrf": {token}, "token": {e.tokens["alice"]}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range b.c.Jar.Cookies(req.URL) {
		req.AddCookie(c)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "registryd_session" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Secure {
		t.Fatalf("session cookie = %+v, want HttpOnly, SameSite=Strict, not Secure over plain HTTP", session)
	}
	b.c.Jar.SetCookies(req.URL, []*http.Cookie{session})
	if p := b.get("/review"); p.status != http.StatusOK || !strings.Contains(p.body, "alice (maintainer)") {
		t.Fatalf("GET /review signed in: status %d", p.status)
	}

	// Signing out ends the session on the server: the old cookie, replayed,
	// no longer opens the queue.
	out := b.get("/review")
	if p := b.post("/signout", url.Values{"csrf": {out.csrf(t)}}, nil); p.status != http.StatusSeeOther {
		t.Fatalf("sign out: status %d", p.status)
	}
	replay := e.browser()
	replay.c.Jar.SetCookies(req.URL, []*http.Cookie{{Name: "registryd_session", Value: session.Value}})
	if p := replay.get("/review"); p.status != http.StatusSeeOther {
		t.Fatalf("replayed session after sign-out: status %d, want a redirect to sign in", p.status)
	}
}

func TestRevokedTokenEndsSession(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("bob")
	toks, err := e.store.Tokens(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range toks {
		if tk.Name == "bob" {
			if err := e.svc.RevokeToken(context.Background(), tk.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if p := b.get("/review"); p.status != http.StatusSeeOther {
		t.Fatalf("GET /review after revocation: status %d, want redirect", p.status)
	}
}

func TestMaintainerFormsDriveTheWorkflow(t *testing.T) {
	e := newEnv(t)
	pending := e.submit(cleanManifest)
	alice, bob := e.browser(), e.browser()
	alice.signIn("alice")
	bob.signIn("bob")

	q := alice.get("/review")
	if !strings.Contains(q.body, "/review/submissions/"+pending.ID) {
		t.Fatalf("the queue does not list the pending submission")
	}
	sp := alice.get("/review/submissions/" + pending.ID)
	// A reason is required.
	if p := alice.post("/review/submissions/"+pending.ID+"/approve", url.Values{"csrf": {sp.csrf(t)}}, nil); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("approve without reason: status %d", p.status)
	}
	if p := alice.post("/review/submissions/"+pending.ID+"/approve", url.Values{"csrf": {sp.csrf(t)}, "reason": {"pinned binary"}}, nil); p.status != http.StatusSeeOther {
		t.Fatalf("approve: status %d\n%s", p.status, p.body)
	}
	// Deciding twice is a conflict, shown as a page.
	if p := bob.post("/review/submissions/"+pending.ID+"/reject", url.Values{"csrf": {bob.get("/review").csrf(t)}, "reason": {"late"}}, nil); p.status != http.StatusConflict {
		t.Fatalf("second decision: status %d", p.status)
	}

	// Verification takes two maintainers; the page shows the pending first
	// approval in between.
	verify := func(b *browser) page {
		ap := b.get("/addons/clean-tool")
		return b.post("/review/addons/clean-tool/verified", url.Values{"csrf": {ap.csrf(t)}, "verified": {"true"}, "reason": {"audited"}}, nil)
	}
	if p := verify(alice); p.status != http.StatusSeeOther {
		t.Fatalf("first grant: status %d\n%s", p.status, p.body)
	}
	if p := bob.get("/addons/clean-tool"); !strings.Contains(p.body, "first approval by alice") {
		t.Fatalf("the addon page does not show the pending approval")
	}
	if p := verify(alice); p.status != http.StatusConflict {
		t.Fatalf("same maintainer twice: status %d", p.status)
	}
	if p := verify(bob); p.status != http.StatusSeeOther {
		t.Fatalf("second grant: status %d", p.status)
	}
	pub := e.browser().get("/addons/clean-tool")
	if !strings.Contains(pub.body, `id="tier">verified<`) || !strings.Contains(pub.body, "addon: verified") {
		t.Fatalf("the public page does not show verified")
	}
	badgeSVG := e.browser().get("/v1/addons/clean-tool/badge.svg")
	if !strings.Contains(badgeSVG.body, ">verified<") {
		t.Fatalf("the badge does not say verified:\n%s", badgeSVG.body)
	}

	// Revoking takes one maintainer.
	ap := bob.get("/addons/clean-tool")
	if p := bob.post("/review/addons/clean-tool/verified", url.Values{"csrf": {ap.csrf(t)}, "verified": {"false"}, "reason": {"re-audit"}}, nil); p.status != http.StatusSeeOther {
		t.Fatalf("revoke: status %d", p.status)
	}
	if p := e.browser().get("/addons/clean-tool"); !strings.Contains(p.body, `id="tier">community<`) {
		t.Fatal("revocation did not take effect at once")
	}
	// The audit log lists every action.
	log := alice.get("/review/audit-log")
	for _, action := range []string{"submission.approve", "bob"} {
		if !strings.Contains(log.body, action) {
			t.Errorf("audit log lacks %q", action)
		}
	}
}

func TestSuppressFromTheSubmissionPage(t *testing.T) {
	e := newEnv(t)
	sub := e.publish(unpinnedManifest)
	b := e.browser()
	b.signIn("alice")
	sp := b.get("/review/submissions/" + sub.ID)
	if !strings.Contains(sp.body, `action="/review/addons/loose-tool/suppressions"`) {
		t.Fatal("no suppress form on the submission page")
	}
	// Bad reason → refused, nothing stored.
	if p := b.post("/review/addons/loose-tool/suppressions", url.Values{"csrf": {sp.csrf(t)}, "code": {"unpinned"}, "path": {"mcp.args[1]"}, "reason": {"because"}}, nil); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("bad reason: status %d", p.status)
	}
	rep, err := e.store.PublishedReport(context.Background(), "loose-tool", "")
	if err != nil {
		t.Fatal(err)
	}
	var path string
	for _, f := range mustFindings(t, e, sub.ID) {
		if f.Code == "unpinned" {
			path = f.Path
		}
	}
	p := b.post("/review/addons/loose-tool/suppressions", url.Values{"csrf": {sp.csrf(t)}, "code": {"unpinned"}, "path": {path}, "reason": {"accepted_risk"}, "note": {"tracking upstream"}}, nil)
	if p.status != http.StatusSeeOther {
		t.Fatalf("suppress: status %d\n%s", p.status, p.body)
	}
	after, err := e.store.PublishedReport(context.Background(), "loose-tool", "")
	if err != nil {
		t.Fatal(err)
	}
	if after.SHA256 == rep.SHA256 {
		t.Fatal("suppressing did not re-render the report")
	}
	if ap := b.get("/addons/loose-tool"); !strings.Contains(ap.body, "suppressed: accepted risk") || !strings.Contains(ap.body, `id="verdict">pass<`) {
		t.Fatal("the addon page does not show the suppressed finding and the new verdict")
	}
}

func mustFindings(t *testing.T, e *env, id string) []registry.StoredFinding {
	t.Helper()
	fs, err := e.store.Findings(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestSecureCookiesBehindProxies: cookies are Secure when the visitor came
// over HTTPS, which a plain connection learns only from a trusted proxy:
// anyone else's X-Forwarded-Proto is not believed.
func TestSecureCookiesBehindProxies(t *testing.T) {
	loopback, err := clientip.ParsePrefixes("127.0.0.0/8, ::1")
	if err != nil {
		t.Fatal(err)
	}
	behind, err := clientip.New(loopback, clientip.XForwardedFor)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		clients *clientip.Resolver
		header  http.Header
		secure  bool
	}{
		{"no proxy trusted, plain HTTP", nil, nil, false},
		{"no proxy trusted, forged X-Forwarded-Proto", nil, http.Header{"X-Forwarded-Proto": {"https"}}, false},
		{"trusted proxy says https", behind, http.Header{"X-Forwarded-Proto": {"https"}, "X-Forwarded-For": {"198.51.100.1"}}, true},
		{"trusted proxy says http", behind, http.Header{"X-Forwarded-Proto": {"http"}}, false},
		{"trusted proxy says nothing", behind, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnvWith(t, func(d *api.Deps) { d.Clients = tt.clients })
			p := e.browser().do(http.MethodGet, "/signin", nil, tt.header)
			var csrf *http.Cookie
			for _, c := range (&http.Response{Header: p.header}).Cookies() {
				if c.Name == "registryd_csrf" {
					csrf = c
				}
			}
			if csrf == nil {
				t.Fatalf("GET /signin set no CSRF cookie (status %d)", p.status)
			}
			if csrf.Secure != tt.secure {
				t.Errorf("CSRF cookie Secure = %v, want %v", csrf.Secure, tt.secure)
			}
		})
	}
}
