package workflow_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
)

// history plays one registry history and returns every report's bytes and
// digest by submission ID.
func history(t *testing.T, h *harness) map[string]string {
	t.Helper()
	ctx := context.Background()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	a1 := h.publish(t, warned("alpha", "1.0.0"))
	h.clock.Advance(time.Minute)
	a2 := h.submit(t, warned("alpha", "1.1.0"))
	b1 := h.publish(t, fixture.Clean("beta", "0.1.0"))
	c1 := h.publish(t, fixture.Clean("gamma", "3.0.0"))
	_, err := h.svc.Suppress(ctx, alice, "alpha", unpinnedSuppression())
	check(err)
	_, err = h.svc.SetVerified(ctx, alice, "alpha", true, "first")
	check(err)
	_, err = h.svc.SetVerified(ctx, bob, "alpha", true, "second")
	check(err)
	_, err = h.svc.SetVerified(ctx, alice, "beta", true, "first")
	check(err)
	_, err = h.svc.SetVerified(ctx, bob, "beta", true, "second")
	check(err)
	check(h.svc.Remove(ctx, bob, "gamma", "withdrawn by its author"))
	_, err = h.svc.Reject(ctx, alice, a2.ID, "bump the version")
	check(err)
	out := map[string]string{}
	for _, s := range []registry.Submission{a1, a2, b1, c1} {
		r, _ := h.report(t, s.ID)
		out[s.ID] = fmt.Sprintf("%s %s", r.SHA256, r.Bytes)
	}
	return out
}

func TestReportBytesAcrossStores(t *testing.T) {
	var first map[string]string
	var firstName string
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			got := history(t, newHarness(t, b))
			if first == nil {
				first, firstName = got, b.Name
				return
			}
			if diff := cmp.Diff(first, got); diff != "" {
				t.Errorf("reports differ from the %s store's (-%s +%s):\n%s", firstName, firstName, b.Name, diff)
			}
		})
	}
	if len(first) != 4 {
		t.Errorf("history rendered %d reports, want 4", len(first))
	}
}
