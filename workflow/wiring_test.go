package workflow_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// rewired is fixture.Clean(name, version) with another command and every
// execution allowed: the wiring the verification did not look at.
func rewired(name, version string) []byte {
	m := strings.Replace(string(fixture.Clean(name, version)), `command = "/usr/local/bin/clean-server"`, `command = "/usr/local/bin/other-server"`, 1)
	return []byte(strings.Replace(m, `filesystem = "read_only"`, "filesystem = \"read_only\"\nexec = \"full\"", 1))
}

// redescribed is fixture.Clean(name, version) with another description only.
func redescribed(name, version string) []byte {
	return []byte(strings.Replace(string(fixture.Clean(name, version)), "A pinned local server.", "The same server, described anew.", 1))
}

// verify grants verified as alice then bob and fails the test unless the
// grant completes.
func (h *harness) verify(t *testing.T, name string) registry.Addon {
	t.Helper()
	ctx := context.Background()
	if out, err := h.svc.SetVerified(ctx, alice, name, true, "read the source"); err != nil || !out.Pending {
		t.Fatalf("first approval = %+v, %v; want pending", out, err)
	}
	out, err := h.svc.SetVerified(ctx, bob, name, true, "agreed")
	if err != nil || out.Pending {
		t.Fatalf("second approval = %+v, %v; want granted", out, err)
	}
	return out.Addon
}

// tiers returns the tier of each submission's stored report, checking that
// the report names the manifest's wiring.
func (h *harness) tiers(t *testing.T, subs ...registry.Submission) []registry.Tier {
	t.Helper()
	out := make([]registry.Tier, len(subs))
	for i, s := range subs {
		_, rep := h.report(t, s.ID)
		if want := wiringOf(t, s.Manifest); rep.WiringSHA256 != want {
			t.Errorf("report of %s@%s: wiring_sha256 %s, want %s", s.Addon, s.Version, rep.WiringSHA256, want)
		}
		out[i] = rep.Tier
	}
	return out
}

func (h *harness) addon(t *testing.T, name string) registry.Addon {
	t.Helper()
	a, err := h.store.Addon(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (h *harness) listedVerified(t *testing.T) []string {
	t.Helper()
	as, _, err := h.store.Addons(context.Background(), storage.AddonFilter{Tier: registry.TierVerified}, storage.Page{})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, a := range as {
		names = append(names, a.Name)
	}
	return names
}

const (
	verified  = registry.TierVerified
	community = registry.TierCommunity
)

// TestVerifiedIsBoundToTheWiring: a grant covers the wiring two
// maintainers verified. A version with the same wiring is verified at
// once; one that changes it is community, and so is the addon while it is
// the latest, until two maintainers verify again.
func TestVerifiedIsBoundToTheWiring(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		v1 := h.publish(t, fixture.Clean("demo", "1.0.0"))
		a := h.verify(t, "demo")
		if a.Tier() != verified || a.VerifiedWiring != wiringOf(t, v1.Manifest) || a.LatestWiring != a.VerifiedWiring {
			t.Fatalf("after the grant: tier %s, verified wiring %q, latest wiring %q", a.Tier(), a.VerifiedWiring, a.LatestWiring)
		}

		h.clock.Advance(time.Minute)
		v11 := h.publish(t, redescribed("demo", "1.1.0"))
		if got := h.addon(t, "demo").Tier(); got != verified {
			t.Errorf("after a version that changes only the description: tier %s, want verified", got)
		}
		if diff := cmp.Diff([]registry.Tier{verified, verified}, h.tiers(t, v1, v11)); diff != "" {
			t.Errorf("report tiers (-want +got):\n%s", diff)
		}

		h.clock.Advance(time.Minute)
		v2 := h.submit(t, rewired("demo", "2.0.0"))
		if diff := cmp.Diff([]registry.Tier{community}, h.tiers(t, v2)); diff != "" {
			t.Errorf("a pending version that changes the wiring (-want +got):\n%s", diff)
		}
		if _, err := h.svc.Approve(context.Background(), alice, v2.ID, "one maintainer"); err != nil {
			t.Fatal(err)
		}
		a = h.addon(t, "demo")
		if a.Tier() != community || !a.Verified || a.LatestWiring != wiringOf(t, v2.Manifest) {
			t.Errorf("after publishing a new wiring: tier %s, grant %v, latest wiring %q", a.Tier(), a.Verified, a.LatestWiring)
		}
		if diff := cmp.Diff([]registry.Tier{verified, verified, community}, h.tiers(t, v1, v11, v2)); diff != "" {
			t.Errorf("report tiers after a new wiring (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{}, h.listedVerified(t)); diff != "" {
			t.Errorf("verified addons (-want +got):\n%s", diff)
		}

		// Two maintainers verify the new wiring; the grant moves to it.
		h.verify(t, "demo")
		if diff := cmp.Diff([]registry.Tier{community, community, verified}, h.tiers(t, v1, v11, v2)); diff != "" {
			t.Errorf("report tiers after verifying the new wiring (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"demo"}, h.listedVerified(t)); diff != "" {
			t.Errorf("verified addons (-want +got):\n%s", diff)
		}
	})
}

// TestVerifyApprovalOfAnOldWiring: a first approval approves the wiring
// that was latest when it was given; a second maintainer cannot complete it
// once another wiring is the latest.
func TestVerifyApprovalOfAnOldWiring(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		h.publish(t, fixture.Clean("demo", "1.0.0"))
		if out, err := h.svc.SetVerified(ctx, alice, "demo", true, "read 1.0.0"); err != nil || !out.Pending {
			t.Fatalf("first approval = %+v, %v", out, err)
		}
		v2 := h.publish(t, rewired("demo", "2.0.0"))
		out, err := h.svc.SetVerified(ctx, bob, "demo", true, "agreed")
		if err != nil || !out.Pending || out.Approval == nil || out.Approval.Maintainer != "bob" || out.Approval.WiringSHA256 != wiringOf(t, v2.Manifest) {
			t.Fatalf("second approval after a new wiring = %+v, %v; want bob's approval of 2.0.0's wiring, pending", out, err)
		}
		if a := h.addon(t, "demo"); a.Verified {
			t.Fatalf("the addon was verified by one approval of each wiring")
		}
		out, err = h.svc.SetVerified(ctx, alice, "demo", true, "read 2.0.0 too")
		if err != nil || out.Pending || out.Addon.VerifiedWiring != wiringOf(t, v2.Manifest) {
			t.Fatalf("alice confirming bob's approval = %+v, %v; want the grant of 2.0.0's wiring", out, err)
		}
		_, err = h.svc.SetVerified(ctx, bob, "demo", true, "again")
		wantErr(t, "verify a verified wiring", err, registry.ErrConflict)
	})
}

// TestReassessBindsOldGrants: a grant recorded before wiring digests
// existed covers the wiring of the version that was latest when it was
// made, not a later one.
func TestReassessBindsOldGrants(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		v1 := h.publish(t, fixture.Clean("demo", "1.0.0"))
		h.clock.Advance(time.Minute)
		h.verify(t, "demo")
		h.clock.Advance(time.Minute)
		v2 := h.publish(t, rewired("demo", "2.0.0"))
		h.clock.Advance(time.Minute)
		v3 := h.submit(t, rewired("demo", "3.0.0"))

		// The database as it was before migration 00006 and the ruleset
		// that came with it: no wiring digests anywhere, old reports.
		err := h.store.InTx(ctx, func(tx storage.Tx) error {
			a, err := tx.Addon(ctx, "demo")
			if err != nil {
				return err
			}
			a.LatestWiring, a.VerifiedWiring = "", ""
			if err := tx.PutAddon(ctx, a); err != nil {
				return err
			}
			for _, id := range []string{v1.ID, v2.ID, v3.ID} {
				s, err := tx.Submission(ctx, id)
				if err != nil {
					return err
				}
				s.WiringSHA256 = ""
				if err := tx.UpdateSubmission(ctx, s); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		staleReports(t, h, v1.ID, v2.ID, v3.ID)
		if a := h.addon(t, "demo"); a.Tier() != community {
			t.Errorf("an old grant before the re-assessment: tier %s, want community", a.Tier())
		}

		// In batches of two, progress hears of each batch as it commits.
		var batches []int
		if n, err := h.svc.ReassessAll(ctx, 2, func(n int) { batches = append(batches, n) }); err != nil || n != 3 {
			t.Fatalf("ReassessAll = %d, %v; want 3", n, err)
		}
		if want := []int{2, 1}; !slices.Equal(batches, want) {
			t.Errorf("progress heard of batches %v, want %v", batches, want)
		}
		a := h.addon(t, "demo")
		if a.VerifiedWiring != wiringOf(t, v1.Manifest) || a.LatestWiring != wiringOf(t, v2.Manifest) || a.Tier() != community {
			t.Errorf("after the re-assessment: verified wiring %q (1.0.0's is %q), latest %q, tier %s; want 1.0.0's wiring verified, the addon community",
				a.VerifiedWiring, wiringOf(t, v1.Manifest), a.LatestWiring, a.Tier())
		}
		for _, s := range []registry.Submission{v1, v2, v3} {
			got, err := h.store.Submission(ctx, s.ID)
			if err != nil || got.WiringSHA256 != wiringOf(t, s.Manifest) {
				t.Errorf("submission %s@%s after the re-assessment: wiring %q, %v", s.Addon, s.Version, got.WiringSHA256, err)
			}
		}
		if diff := cmp.Diff([]registry.Tier{verified, community, community}, h.tiers(t, v1, v2, v3)); diff != "" {
			t.Errorf("report tiers (-want +got):\n%s", diff)
		}
	})
}

func TestCompareWiring(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		first := h.submit(t, fixture.Clean("demo", "1.0.0"))
		d, err := workflow.CompareWiring(ctx, h.store, first)
		if err != nil || d.Base != nil || len(d.Changes) != 0 || d.Wiring != wiringOf(t, first.Manifest) || d.Tier != community {
			t.Fatalf("a first version: %+v, %v; want no base, no changes", d, err)
		}
		v1, err := h.svc.Approve(ctx, alice, first.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if d, err := workflow.CompareWiring(ctx, h.store, v1); err != nil || d.Base != nil {
			t.Errorf("the latest version itself: %+v, %v; want no base", d, err)
		}
		h.verify(t, "demo")

		same := h.submit(t, redescribed("demo", "1.1.0"))
		d, err = workflow.CompareWiring(ctx, h.store, same)
		if err != nil || d.Base == nil || d.Base.Version != "1.0.0" || d.Base.WiringSHA256 != d.Wiring || len(d.Changes) != 0 || d.Tier != verified || d.VerifiedWiring != d.Wiring {
			t.Errorf("a version that keeps the wiring: %+v, %v", d, err)
		}

		changed := h.submit(t, rewired("demo", "2.0.0"))
		d, err = workflow.CompareWiring(ctx, h.store, changed)
		if err != nil {
			t.Fatal(err)
		}
		want := []addon.WiringChange{
			{Field: "capabilities.exec", Kind: addon.WiringChanged, Old: "none", New: "full"},
			{Field: "mcp.command", Kind: addon.WiringChanged, Old: "/usr/local/bin/clean-server", New: "/usr/local/bin/other-server"},
		}
		if diff := cmp.Diff(want, d.Changes); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
		if d.Base == nil || d.Base.Version != "1.0.0" || d.Tier != community || d.VerifiedWiring != wiringOf(t, v1.Manifest) {
			t.Errorf("a version that changes the wiring: base %+v, tier %s, verified wiring %q", d.Base, d.Tier, d.VerifiedWiring)
		}

		broken := changed
		broken.Manifest = []byte("[addon\n")
		_, err = workflow.CompareWiring(ctx, h.store, broken)
		wantErr(t, "CompareWiring of a manifest that does not decode", err, registry.ErrInvalid)
	})
}
