package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/workflow"
)

// verifyClean grants verified to clean-tool as alice and bob.
func (e *env) verifyClean() {
	e.t.Helper()
	for _, name := range []string{"alice", "bob"} {
		if _, err := e.svc.SetVerified(context.Background(), workflow.Actor{Name: name, Role: registry.RoleMaintainer}, "clean-tool", true, "audited"); err != nil {
			e.t.Fatalf("SetVerified as %s: %v", name, err)
		}
	}
}

func TestWiringChangesOnTheSubmissionPage(t *testing.T) {
	e := newEnv(t)
	e.publish(cleanManifest)
	e.verifyClean()
	rewired := strings.NewReplacer(
		`version = "1.0.0"`, `version = "2.0.0"`,
		`command = "clean-mcp"`, `command = "clean-mcp-next"`,
		`args = ["serve"]`, `args = ["serve", "--title=<b>next</b>"]`,
		`network = "none"`, "network = \"none\"\nexec = \"full\"",
	).Replace(cleanManifest) + "\n[mcp.env]\nX_PAYLOAD = \"<iframe src=javascript:alert(4)>\"\n"
	sub := e.submit(rewired)
	alice := e.browser()
	alice.signIn("alice")

	p := alice.get("/review/submissions/" + sub.ID)
	if p.status != http.StatusOK {
		t.Fatalf("submission page: status %d", p.status)
	}
	wiring := p.body[strings.Index(p.body, `<section id="wiring">`):]
	wiring = wiring[:strings.Index(wiring, "</section>")]
	for _, want := range []string{
		"compared below with the latest published version 1.0.0",
		`<td><code>capabilities.exec</code></td><td>changed</td><td><code>none</code></td><td><code>full</code></td>`,
		`<td><code>mcp.command</code></td><td>changed</td><td><code>clean-mcp</code></td><td><code>clean-mcp-next</code></td>`,
		`<td><code>mcp.args</code></td><td>changed</td><td><code>[&#34;serve&#34;]</code></td><td><code>[&#34;serve&#34;,&#34;--title=&lt;b&gt;next&lt;/b&gt;&#34;]</code></td>`,
		`<td><code>mcp.env.X_PAYLOAD</code></td><td>added</td><td><code></code></td><td><code>&lt;iframe src=javascript:alert(4)&gt;</code></td>`,
		"published, this version is community until two maintainers verify its wiring",
	} {
		if !strings.Contains(wiring, want) {
			t.Errorf("the wiring section lacks %q:\n%s", want, wiring)
		}
	}
	if strings.Index(p.body, `id="wiring"`) > strings.Index(p.body, `id="approve"`) {
		t.Error("the wiring changes come after the approve button")
	}
	for _, raw := range rawPayloads {
		if strings.Contains(p.body, raw) {
			t.Errorf("page carries raw payload %q", raw)
		}
	}

	if _, err := e.svc.Approve(context.Background(), workflow.Actor{Name: "alice", Role: registry.RoleMaintainer}, sub.ID, "one maintainer"); err != nil {
		t.Fatal(err)
	}
	pub := e.browser().get("/addons/clean-tool")
	for _, want := range []string{
		`id="tier">community<`,
		"addon: community · pass",
		"(versions 1.0.0).",
		"The latest version 2.0.0 changes the wiring",
		"is community until two maintainers verify it again",
		"<td>1.0.0</td><td>",
	} {
		if !strings.Contains(pub.body, want) {
			t.Errorf("the addon page lacks %q", want)
		}
	}
}

func TestSameWiringOnTheSubmissionPage(t *testing.T) {
	e := newEnv(t)
	e.publish(cleanManifest)
	e.verifyClean()
	sub := e.submit(strings.NewReplacer(`version = "1.0.0"`, `version = "1.1.0"`,
		"Reads files and answers questions.", "Reads files.").Replace(cleanManifest))
	alice := e.browser()
	alice.signIn("alice")
	p := alice.get("/review/submissions/" + sub.ID)
	for _, want := range []string{`id="wiring-same">Same wiring as 1.0.0`, "published, this version is verified too"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("submission page lacks %q", want)
		}
	}
	if strings.Contains(p.body, `id="wiring-changes"`) {
		t.Error("a description change shows wiring changes")
	}
	if _, err := e.svc.Approve(context.Background(), workflow.Actor{Name: "bob", Role: registry.RoleMaintainer}, sub.ID, "ok"); err != nil {
		t.Fatal(err)
	}
	pub := e.browser().get("/addons/clean-tool")
	if !strings.Contains(pub.body, `id="tier">verified<`) || !strings.Contains(pub.body, "(versions 1.1.0, 1.0.0).") || strings.Contains(pub.body, `id="wiring-changed"`) {
		t.Errorf("the addon page after a description change does not say verified for both versions")
	}
}
