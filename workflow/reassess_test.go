package workflow_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/storage"
)

// staleReports rewrites the stored reports of ids as an older ruleset would
// have left them.
func staleReports(t *testing.T, h *harness, ids ...string) {
	t.Helper()
	err := h.store.InTx(context.Background(), func(tx storage.Tx) error {
		for _, id := range ids {
			b := []byte(`{"old":"` + id + `"}`)
			r := registry.Report{SubmissionID: id, Bytes: b, SHA256: report.SHA256(b), Ruleset: "2000.1.0"}
			if err := tx.PutReport(context.Background(), r, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReassess(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		subs := []registry.Submission{
			h.publish(t, warned("one", "1.0.0")),
			h.submit(t, fixture.Clean("two", "1.0.0")),
			h.publish(t, fixture.Clean("three", "1.0.0")),
		}
		if _, err := h.svc.Suppress(ctx, alice, "one", unpinnedSuppression()); err != nil {
			t.Fatal(err)
		}
		want := map[string][]byte{}
		for _, s := range subs {
			r, _ := h.report(t, s.ID)
			want[s.ID] = r.Bytes
		}
		if n, err := h.svc.Reassess(ctx, 10); err != nil || n != 0 {
			t.Fatalf("Reassess with nothing stale = %d, %v; want 0", n, err)
		}
		if _, err := h.svc.Reassess(ctx, 0); err == nil {
			t.Errorf("Reassess(0) succeeded, want an error")
		}
		staleReports(t, h, subs[0].ID, subs[1].ID, subs[2].ID)
		for i, wantN := range []int{2, 1, 0} {
			n, err := h.svc.Reassess(ctx, 2)
			if err != nil || n != wantN {
				t.Fatalf("Reassess call %d = %d, %v; want %d", i, n, err, wantN)
			}
		}
		for _, s := range subs {
			r, err := h.store.Report(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(r.Bytes, want[s.ID]) || r.Ruleset != assess.Ruleset {
				t.Errorf("report of %s after reassessment: ruleset %s, bytes equal %v; want %s and the bytes rendered before", s.ID, r.Ruleset, bytes.Equal(r.Bytes, want[s.ID]), assess.Ruleset)
			}
		}
		staleReports(t, h, subs[2].ID)
		if n, err := h.svc.ReassessAll(ctx, 100, nil); err != nil || n != 1 {
			t.Errorf("ReassessAll = %d, %v; want 1", n, err)
		}

		// A report a later ruleset made stays as it is.
		later := []byte(`{"later":true}`)
		err := h.store.InTx(ctx, func(tx storage.Tx) error {
			return tx.PutReport(ctx, registry.Report{SubmissionID: subs[1].ID, Bytes: later, SHA256: report.SHA256(later), Ruleset: "9999.1.0"}, nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := h.svc.ReassessAll(ctx, 100, nil); err != nil || n != 0 {
			t.Errorf("ReassessAll with a later ruleset's report = %d, %v; want 0", n, err)
		}
		if r, _ := h.store.Report(ctx, subs[1].ID); !bytes.Equal(r.Bytes, later) {
			t.Errorf("a later ruleset's report was rendered again by an older one")
		}
	})
}

func TestReassessSkipsUndecodable(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		good := h.submit(t, fixture.Clean("good", "1.0.0"))
		// A manifest stored under older, laxer rules that the current ones
		// refuse.
		bad := good
		bad.ID, bad.Addon = "sub_bad", "bad"
		bad.Manifest = bytes.Replace(fixture.Clean("bad", "1.0.0"), []byte("command"), []byte("comand"), 1)
		err := h.store.InTx(ctx, func(tx storage.Tx) error {
			if err := tx.CreateSubmission(ctx, bad); err != nil {
				return err
			}
			return tx.PutReport(ctx, registry.Report{SubmissionID: bad.ID, Bytes: []byte("{}"), SHA256: report.SHA256([]byte("{}")), Ruleset: "2000.1.0"}, nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		staleReports(t, h, bad.ID, good.ID)
		if n, err := h.svc.ReassessAll(ctx, 1, nil); err != nil || n != 1 {
			t.Fatalf("ReassessAll = %d, %v; want 1 (the decodable one)", n, err)
		}
		if r, _ := h.store.Report(ctx, good.ID); r.Ruleset != assess.Ruleset {
			t.Errorf("the decodable report was not reassessed")
		}
		if r, _ := h.store.Report(ctx, bad.ID); r.Ruleset == assess.Ruleset {
			t.Errorf("the undecodable report was replaced")
		}
	})
}
