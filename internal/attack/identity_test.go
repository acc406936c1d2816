package attack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/registryd/registryd/internal/fixture"
)

// identityClient is one server with sam (submitter), bob (maintainer) and
// the tokens each test gives alice.
func identityClient(t *testing.T, st Store) *wiringClient {
	s := Start(t, st, nil)
	return &wiringClient{t: t, s: s, sam: s.Token("sam", "submitter"), bob: s.Token("bob", "maintainer")}
}

// problem wants r to be an application/problem+json answer with status and
// returns it decoded.
func problem(t *testing.T, r Response, status int) map[string]any {
	t.Helper()
	if r.Status != status || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("status %d (%s), want %d problem+json: %s", r.Status, r.Header.Get("Content-Type"), status, r.Body)
	}
	var p map[string]any
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatalf("problem: %v: %s", err, r.Body)
	}
	return p
}

// fieldErrors returns the problem's errors as "path:line".
func fieldErrors(p map[string]any) []string {
	var out []string
	errs, _ := p["errors"].([]any)
	for _, e := range errs {
		m := e.(map[string]any)
		out = append(out, m["path"].(string)+":"+jsonNumber(m["line"]))
	}
	return out
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (c *wiringClient) submitStatus(token, manifest string) Response {
	c.t.Helper()
	return c.s.Do(Request{Method: "POST", Path: "/v1/submissions", Token: token, ContentType: "application/toml", Body: strings.NewReader(manifest)})
}

func (c *wiringClient) approveWith(token, id, body string) Response {
	c.t.Helper()
	return c.s.Do(Request{Method: "POST", Path: "/v1/submissions/" + id + "/approve", Token: token, ContentType: "application/json", Body: strings.NewReader(body)})
}

// TestAliceAndAliceAreOneMaintainer: tokens created as "alice" and "Alice"
// are one principal, so they cannot be the two maintainers that verified
// takes; a second person can.
func TestAliceAndAliceAreOneMaintainer(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		c := identityClient(t, st)
		lower, upper := c.s.Token("alice", "maintainer"), c.s.Token("Alice", "maintainer")
		fullWidth := c.s.Token("ＡＬＩＣＥ", "maintainer")
		c.approve(c.bob, c.submit(c.sam, notesManifest("notes", "1.0.0", "Reads your notes.", notesWiring)))

		c.verify(lower, "notes", http.StatusAccepted)
		for _, tok := range []string{upper, fullWidth, lower} {
			p := problem(t, c.s.Do(Request{Method: "PUT", Path: "/v1/addons/notes/verified", Token: tok, ContentType: "application/json",
				Body: strings.NewReader(`{"verified":true,"reason":"me again"}`)}), http.StatusConflict)
			if !strings.Contains(p["detail"].(string), "a second, different maintainer must confirm it") {
				t.Errorf("detail %q", p["detail"])
			}
		}
		if _, msg := c.badge("notes"); msg == "verified" {
			t.Fatal("one person made the addon verified")
		}
		if out := c.verify(c.bob, "notes", http.StatusOK); out["status"] != "granted" {
			t.Errorf("bob's confirmation: %v", out["status"])
		}
		by := c.json(Request{Path: "/v1/addons/notes"}, http.StatusOK)["addon"].(map[string]any)["verified_by"]
		if got := jsonNumber(by); got != `["alice","bob"]` {
			t.Errorf("verified_by = %s, want alice and bob", got)
		}
		out, _, code := c.s.Run("token", "list")
		if code != 0 || strings.Count(out, " alice ") < 3 {
			t.Errorf("token list does not show the three tokens of principal alice:\n%s", out)
		}
	})
}

// TestNoSelfApproval: a maintainer submits with one token and approves
// with another of the same principal.
func TestNoSelfApproval(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		c := identityClient(t, st)
		alice := c.s.Token("alice", "maintainer")
		ci := c.s.Token("release-bot", "submitter", "--principal", "Alice")
		for i, submitter := range []string{alice, ci} {
			id := c.submit(submitter, notesManifest("notes", fmt.Sprintf("1.%d.0", i), "Reads your notes.", notesWiring))
			p := problem(t, c.approveWith(alice, id, `{"reason":"mine, looks fine"}`), http.StatusForbidden)
			if !strings.Contains(p["detail"].(string), "cannot approve their own submission") {
				t.Errorf("detail %q does not say why", p["detail"])
			}
			if sub := c.json(Request{Path: "/v1/submissions/" + id, Token: c.bob}, http.StatusOK)["submission"].(map[string]any); sub["status"] != "pending" {
				t.Errorf("the refused approval left the submission %v", sub["status"])
			}
			c.approve(c.bob, id)
		}
	})
}

// TestFailingVerdictNeedsOverride: a maintainer approves a submission
// whose verdict is fail as if it were any other.
func TestFailingVerdictNeedsOverride(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		c := identityClient(t, st)
		alice := c.s.Token("alice", "maintainer")
		id := c.submit(c.sam, fixture.FailingManifest("fetcher", "1.0.0"))

		p := problem(t, c.approveWith(alice, id, `{"reason":"looks fine"}`), http.StatusConflict)
		var blocking []string
		for _, f := range p["blocking"].([]any) {
			m := f.(map[string]any)
			blocking = append(blocking, m["code"].(string)+"@"+m["path"].(string))
		}
		if got := strings.Join(blocking, " "); got != "fetch_exec@mcp.args[1] pipe_to_shell@mcp.args[1] shell_exec@mcp.args[1]" {
			t.Errorf("blocking findings %q", got)
		}
		if r := c.s.Do(Request{Path: "/v1/addons/fetcher/report"}); r.Status != http.StatusNotFound {
			t.Fatalf("the refused approval published the addon: %d", r.Status)
		}
		p = problem(t, c.approveWith(alice, id, `{"override":true}`), http.StatusUnprocessableEntity)
		if got := strings.Join(fieldErrors(p), " "); got != "reason:0" {
			t.Errorf("override without a reason: errors %q", got)
		}
		if r := c.approveWith(alice, id, `{"override":true,"reason":"our own installer, read line by line"}`); r.Status != http.StatusOK {
			t.Fatalf("override with a reason: %d %s", r.Status, r.Body)
		}
		top := c.json(Request{Path: "/v1/audit-log", Token: c.bob}, http.StatusOK)["items"].([]any)[0].(map[string]any)
		detail, _ := top["detail"].(map[string]any)
		if top["action"] != "submission.approve" || top["actor"] != "alice" || top["reason"] != "our own installer, read line by line" ||
			detail["override"] != true || len(detail["overridden"].([]any)) != 3 {
			t.Errorf("audit entry %v", top)
		}
	})
}

// TestVersionPathTraversal: a version that is a path walks the report URL
// to another resource.
func TestVersionPathTraversal(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		c := identityClient(t, st)
		p := problem(t, c.submitStatus(c.sam, notesManifest("notes", "../../../v1/audit-log?x=", "Reads your notes.", notesWiring)),
			http.StatusUnprocessableEntity)
		if got := strings.Join(fieldErrors(p), " "); got != "addon.version:3" {
			t.Errorf("errors %q, want addon.version at line 3", got)
		}
		if items := c.json(Request{Path: "/v1/submissions", Token: c.bob}, http.StatusOK)["items"].([]any); len(items) != 0 {
			t.Errorf("the refused manifest is in the queue: %v", items)
		}
	})
}

// TestMissingVersion: a manifest without a version is accepted as version
// "", and passes the offline audit.
func TestMissingVersion(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		c := identityClient(t, st)
		manifest := "# no version\n[addon]\nname = \"notes\"\ndescription = \"Reads your notes.\"\n\n" + notesWiring
		p := problem(t, c.submitStatus(c.sam, manifest), http.StatusUnprocessableEntity)
		if got := strings.Join(fieldErrors(p), " "); got != "addon.version:2" {
			t.Errorf("errors %q, want addon.version at the [addon] line, 2", got)
		}
		file := filepath.Join(t.TempDir(), "lean-ctx-addon.toml")
		if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := c.s.Run("audit", file)
		if code != 2 || !strings.Contains(stderr, file+":2: refused: addon.version: is required") {
			t.Errorf("registryd audit: exit %d, stderr %q; want 2 naming addon.version at line 2", code, stderr)
		}
	})
}

// TestBuildMetadataIsNotANewVersion: 1.0.0+b after 1.0.0+a would be a
// second, different 1.0.0.
func TestBuildMetadataIsNotANewVersion(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		c := identityClient(t, st)
		waiting := c.submit(c.sam, notesManifest("notes", "1.0.0+b", "Reads your notes.", rewiredNotes))
		c.approve(c.bob, c.submit(c.sam, notesManifest("notes", "1.0.0+a", "Reads your notes.", notesWiring)))

		p := problem(t, c.submitStatus(c.sam, notesManifest("notes", "1.0.0+c", "Reads your notes.", rewiredNotes)), http.StatusConflict)
		if !strings.Contains(p["detail"].(string), `already published as "1.0.0+a"`) {
			t.Errorf("detail %q", p["detail"])
		}
		problem(t, c.approveWith(c.bob, waiting, `{"reason":"other build"}`), http.StatusConflict)

		items := c.json(Request{Path: "/v1/addons/notes/versions"}, http.StatusOK)["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("versions %v, want 1.0.0+a alone", items)
		}
		v := items[0].(map[string]any)
		rep := c.report(strings.TrimPrefix(v["report_url"].(string), c.s.URL))
		if v["version"] != "1.0.0+a" || rep["addon"].(map[string]any)["version"] != "1.0.0+a" {
			t.Errorf("version %v, report of %v; want 1.0.0+a", v["version"], rep["addon"])
		}
	})
}
