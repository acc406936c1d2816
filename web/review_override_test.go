package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// TestFailingSubmissionTakesAnOverride: on a submission whose verdict is
// fail, rejecting is the first action; approving sits behind "Publish
// anyway", asks for a reason and a confirmation, and is refused without
// them.
func TestFailingSubmissionTakesAnOverride(t *testing.T) {
	e := newEnv(t)
	sub := e.submit(fixture.FailingManifest("risky-tool", "1.0.0"))
	b := e.browser()
	b.signIn("alice")
	path := "/review/submissions/" + sub.ID
	sp := b.get(path)
	body := sp.body
	reject, override, approve := strings.Index(body, `id="reject"`), strings.Index(body, `<details id="override">`), strings.Index(body, `id="approve"`)
	if !strings.Contains(body, `id="blocked"`) || !strings.Contains(body, "3 findings block publication") {
		t.Errorf("the page does not say what blocks publication")
	}
	if reject < 0 || override < 0 || approve < 0 || !(reject < override && override < approve) {
		t.Errorf("want reject first, then the override inside its <details>: reject %d, details %d, approve %d", reject, override, approve)
	}
	form := body[override:]
	form = form[:strings.Index(form, "</details>")]
	for _, want := range []string{`name="override" value="true" required`, `name="reason" required`, `class="secondary" type="submit" id="approve"`} {
		if !strings.Contains(form, want) {
			t.Errorf("the override form lacks %q:\n%s", want, form)
		}
	}
	if strings.Contains(body, "Approve and publish") {
		t.Error("a failing submission offers the plain approve button")
	}

	post := func(v url.Values) page {
		v.Set("csrf", sp.csrf(t))
		return b.post(path+"/approve", v, nil)
	}
	if p := post(url.Values{"reason": {"looks fine"}}); p.status != http.StatusConflict ||
		!strings.Contains(p.body, "blocks publication") || !strings.Contains(p.body, "pipe_to_shell at mcp.args[1]") {
		t.Errorf("approve without override: status %d, want 409 naming the findings\n%s", p.status, p.body)
	}
	if p := post(url.Values{"override": {"true"}}); p.status != http.StatusUnprocessableEntity {
		t.Errorf("override without reason: status %d, want 422", p.status)
	}
	if p := post(url.Values{"override": {"true"}, "reason": {"our installer, read line by line"}}); p.status != http.StatusSeeOther {
		t.Fatalf("override with reason: status %d\n%s", p.status, p.body)
	}
	log, _, err := e.store.AuditLog(context.Background(), storage.AuditFilter{}, storage.Page{})
	if err != nil || len(log) == 0 || log[0].Action != "submission.approve" || !strings.Contains(log[0].Detail, `"override":true`) ||
		log[0].Reason != "our installer, read line by line" {
		t.Errorf("audit log = %+v, %v", log, err)
	}
}

// TestOwnSubmissionNeedsAnotherMaintainer: alice's page refuses her own
// submission with a page saying why; bob approves it.
func TestOwnSubmissionNeedsAnotherMaintainer(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a, err := e.svc.Authenticate(ctx, e.tokens["alice"])
	if err != nil {
		t.Fatal(err)
	}
	sub, _, _, err := e.svc.Submit(ctx, a, []byte(cleanManifest), workflow.FormatTOML, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := "/review/submissions/" + sub.ID
	alice, bob := e.browser(), e.browser()
	alice.signIn("alice")
	bob.signIn("bob")
	p := alice.post(path+"/approve", url.Values{"csrf": {alice.get(path).csrf(t)}, "reason": {"mine"}}, nil)
	if p.status != http.StatusForbidden || !strings.Contains(p.body, "another maintainer must approve it") {
		t.Errorf("own approval: status %d\n%s", p.status, p.body)
	}
	if p := bob.post(path+"/approve", url.Values{"csrf": {bob.get(path).csrf(t)}, "reason": {"fine"}}, nil); p.status != http.StatusSeeOther {
		t.Errorf("bob's approval: status %d\n%s", p.status, p.body)
	}
}
