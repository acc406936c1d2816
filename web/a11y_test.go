package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/browsertest"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/web"
	"github.com/registryd/registryd/workflow"
)

// seeded is a registry with one of everything a page can show, and the
// paths of its pages.
type seeded struct {
	public     []string // pages anyone sees
	maintainer []string // pages a signed-in maintainer sees (the public ones too)
	pendingID  string   // a pending update of clean-tool that passes
	failingID  string   // a pending submission whose verdict is fail
}

// seed publishes and submits what the pages show: a verified-pending addon
// with an update waiting, an addon with a suppressed finding, a hostile
// addon, a failing submission, a rejected one, and the audit entries all
// that leaves.
func (e *env) seed() seeded {
	e.t.Helper()
	ctx := context.Background()
	alice := workflow.Actor{Name: "alice", Role: registry.RoleMaintainer}
	e.publish(cleanManifest)
	e.clock.Advance(50 * time.Hour)
	loose := e.publish(unpinnedManifest)
	e.clock.Advance(3 * time.Hour)
	e.publish(hostileManifest)
	if _, err := e.svc.Suppress(ctx, alice, "loose-tool", registry.Suppression{
		Code: "unpinned", Path: "mcp.args[1]", Reason: registry.ReasonAcceptedRisk, Note: "pinned by the lock file",
	}); err != nil {
		e.t.Fatalf("suppress: %v", err)
	}
	if _, err := e.svc.SetVerified(ctx, alice, "clean-tool", true, "audited the source"); err != nil {
		e.t.Fatalf("first verification: %v", err)
	}
	e.clock.Advance(20 * time.Hour)
	pending := e.submit(strings.Replace(cleanManifest, `version = "1.0.0"`, `version = "1.1.0"`, 1))
	e.clock.Advance(4 * time.Hour)
	rejected := e.submit(fixture.FailingManifest("piped", "0.0.9"))
	if _, err := e.svc.Reject(ctx, alice, rejected.ID, "pipes a download into a shell"); err != nil {
		e.t.Fatalf("reject: %v", err)
	}
	failing := e.submit(fixture.FailingManifest("piped", "0.1.0"))
	e.clock.Advance(25 * time.Minute)
	s := seeded{
		public: []string{
			"/", "/?q=tool", "/?tier=verified&verdict=fail", "/addons/clean-tool", "/addons/loose-tool",
			"/addons/hostile", "/signin", "/no-such-page",
		},
		pendingID: pending.ID,
		failingID: failing.ID,
	}
	s.maintainer = append([]string{
		"/review", "/review?status=all", "/review/submissions/" + pending.ID, "/review/submissions/" + failing.ID,
		"/review/submissions/" + loose.ID, "/review/submissions/" + rejected.ID, "/review/audit-log",
	}, s.public...)
	return s
}

// Every page, public and maintainer, with every disclosure open, has no
// serious or critical accessibility violation that axe-core finds. With
// REGISTRYD_SCREENSHOT_DIR set, the test also takes the README's pictures
// (docs/img) of the pages as served.
func TestBrowserAccessibility(t *testing.T) {
	e := newEnv(t, func(d *web.Deps) {
		d.PublicURL = "https://registry.example"
		d.VerifierKeys = []string{testVerifierKey}
	})
	s := e.seed()
	b := e.tab(1024, 768)
	check := func(path, shot string) {
		t.Helper()
		b.open(path)
		if shot != "" {
			saveShot(t, b, shot)
		}
		for _, state := range []string{"as served", "with every <details> open"} {
			if state != "as served" {
				eval[int](b, `document.querySelectorAll('details').forEach(d => d.open = true), 0`)
			}
			for _, v := range browsertest.Axe(t, b.ctx) {
				t.Errorf("%s, %s: %s", path, state, v)
			}
		}
	}
	shots := map[string]string{"/": "registry.png", "/addons/loose-tool": "addon-page.png"}
	for _, p := range s.public {
		check(p, shots[p])
	}
	b.signIn("alice")
	shots = map[string]string{
		"/review": "review-queue.png", "/review/submissions/" + s.failingID: "submission.png", "/review/audit-log": "audit-log.png",
	}
	for _, p := range s.maintainer {
		check(p, shots[p])
	}
}
