package workflow_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
	"github.com/registryd/registryd/transparency"
	"github.com/registryd/registryd/workflow"
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

// registryState is every submission, report and findings projection, and
// addon of a store, for comparing a store before and after re-assessment.
type registryState struct {
	subs     map[string]registry.Submission
	reports  map[string]registry.Report
	findings map[string][]registry.StoredFinding
	addons   map[string]registry.Addon
}

func snapshot(t *testing.T, s storage.Store) registryState {
	t.Helper()
	ctx := context.Background()
	st := registryState{subs: map[string]registry.Submission{}, reports: map[string]registry.Report{},
		findings: map[string][]registry.StoredFinding{}, addons: map[string]registry.Addon{}}
	for p := (storage.Page{Limit: storage.MaxLimit}); ; {
		subs, next, err := s.Submissions(ctx, storage.SubmissionFilter{}, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, sub := range subs {
			st.subs[sub.ID] = sub
			if st.reports[sub.ID], err = s.Report(ctx, sub.ID); err != nil {
				t.Fatal(err)
			}
			if st.findings[sub.ID], err = s.Findings(ctx, sub.ID); err != nil {
				t.Fatal(err)
			}
		}
		if next == "" {
			break
		}
		p.Cursor = next
	}
	for p := (storage.Page{Limit: storage.MaxLimit}); ; {
		as, next, err := s.Addons(ctx, storage.AddonFilter{IncludeRemoved: true}, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			st.addons[a.Name] = a
		}
		if next == "" {
			break
		}
		p.Cursor = next
	}
	return st
}

// corpus plays history and adds addons in every state a report depends on
// (published with several versions, pending, failing, rejected, suppressed
// until a later date), n of them, and returns how many submissions it made
// in all.
func corpus(t *testing.T, h *harness, n int) int {
	t.Helper()
	ctx := context.Background()
	count := len(history(t, h))
	for i := range n {
		name := fmt.Sprintf("addon-%03d", i)
		switch i % 5 {
		case 0:
			h.publish(t, warned(name, "1.0.0"))
			h.publish(t, fixture.Clean(name, "1.1.0"))
			count++
		case 1:
			h.publish(t, warned(name, "2.0.0"))
			sp := unpinnedSuppression()
			sp.ExpiresAt = ptrTime(start.Add(365 * 24 * time.Hour))
			if _, err := h.svc.Suppress(ctx, alice, name, sp); err != nil {
				t.Fatal(err)
			}
		case 2:
			h.submit(t, []byte(fixture.FailingManifest(name, "0.1.0")))
		case 3:
			sub := h.submit(t, warned(name, "0.2.0"))
			if _, err := h.svc.Reject(ctx, alice, sub.ID, "pin the package"); err != nil {
				t.Fatal(err)
			}
		case 4:
			h.publish(t, fixture.Clean(name, "1.0.0"))
			h.submit(t, warned(name, "1.0.1"))
			count++
		}
		count++
		h.clock.Advance(time.Second)
	}
	return count
}

func ptrTime(t time.Time) *time.Time { return &t }

// TestReassessAllMatchesOneByOne holds the batched re-assessment to the
// bytes the one-by-one renderings of publication, suppression, tier
// changes and removal stored: every report marked stale is rendered once,
// byte for byte as before, with the same findings, and a submission or
// addon whose recorded verdict disagrees with its report is set right.
func TestReassessAllMatchesOneByOne(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		total := corpus(t, h, 23)
		want := snapshot(t, h.store)
		if len(want.reports) != total {
			t.Fatalf("the corpus has %d reports, want %d", len(want.reports), total)
		}

		// Recorded verdicts a report no longer agrees with.
		var wrongSub registry.Submission
		for _, sub := range want.subs {
			if sub.Verdict == registry.VerdictReview {
				wrongSub = sub
				break
			}
		}
		err := h.store.InTx(ctx, func(tx storage.Tx) error {
			bad := wrongSub
			bad.Verdict, bad.Risk = registry.VerdictPass, registry.LevelNone
			if err := tx.UpdateSubmission(ctx, bad); err != nil {
				return err
			}
			a := want.addons["addon-001"]
			a.LatestVerdict = registry.VerdictFail
			return tx.PutAddon(ctx, a)
		})
		if err != nil {
			t.Fatal(err)
		}

		marked, err := h.svc.MarkAllStale(ctx)
		if err != nil || marked != total {
			t.Fatalf("MarkAllStale = %d, %v; want %d", marked, err, total)
		}
		if n, err := h.svc.StaleCount(ctx); err != nil || n != total {
			t.Errorf("StaleCount = %d, %v; want %d", n, err, total)
		}
		h.clock.Advance(time.Minute)
		var told int
		n, err := h.svc.ReassessAll(ctx, 4, func(n int) {
			if n <= 0 || n > 4 {
				t.Errorf("progress told %d, want 1 to 4", n)
			}
			told += n
		})
		if err != nil || n != total || told != total {
			t.Fatalf("ReassessAll = %d, %v (progress told %d); want %d", n, err, told, total)
		}
		if n, err := h.svc.StaleCount(ctx); err != nil || n != 0 {
			t.Errorf("StaleCount after = %d, %v; want 0", n, err)
		}
		got := snapshot(t, h.store)
		if diff := cmp.Diff(want.reports, got.reports); diff != "" {
			t.Errorf("reports (-one by one +batched):\n%s", diff)
		}
		if diff := cmp.Diff(want.findings, got.findings, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("findings (-one by one +batched):\n%s", diff)
		}
		if diff := cmp.Diff(want.addons, got.addons); diff != "" {
			t.Errorf("addons (-before +after):\n%s", diff)
		}
		fixed := got.subs[wrongSub.ID]
		if fixed.Verdict != wrongSub.Verdict || fixed.Risk != wrongSub.Risk || !fixed.UpdatedAt.Equal(h.clock.Now()) {
			t.Errorf("submission with a wrong verdict: %s, %s at %s; want %s, %s at %s",
				fixed.Verdict, fixed.Risk, fixed.UpdatedAt, wrongSub.Verdict, wrongSub.Risk, h.clock.Now())
		}
		got.subs[wrongSub.ID] = wrongSub
		if diff := cmp.Diff(want.subs, got.subs); diff != "" {
			t.Errorf("submissions (-before +after):\n%s", diff)
		}
		if n, err := h.svc.ReassessAll(ctx, 4, nil); err != nil || n != 0 {
			t.Errorf("a second ReassessAll = %d, %v; want 0", n, err)
		}
	})
}

// TestReassessAllReplicas runs ReassessAll on two stores opened on one
// database at once, as two replicas starting after a ruleset change do:
// together they render every stale report exactly once.
func TestReassessAllReplicas(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		ctx := context.Background()
		cfg := b.Config(t)
		// Replicas sign with one key.
		key, err := storage.Ephemeral()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Signing = storage.Signing{Signers: []*transparency.Signer{key}}
		c := &clock{now: start}
		svcs := make([]*workflow.Service, 2)
		stores := make([]storage.Store, 2)
		for i := range svcs {
			stores[i] = fixture.Open(t, cfg)
			svcs[i] = workflow.New(stores[i], workflow.Options{Now: c.Now, NewID: (&ids{}).New})
		}
		h := &harness{store: stores[0], svc: svcs[0], clock: c}
		total := corpus(t, h, 60)
		want := snapshot(t, h.store)
		stale := make([]string, 0, total)
		for id := range want.subs {
			stale = append(stale, id)
		}
		staleReports(t, h, stale...)
		// The store signs the grown tree shortly after an append: a
		// checkpoint of the whole log, signed now, gives its size.
		if _, err := h.store.RefreshCheckpoint(ctx, 0); err != nil {
			t.Fatal(err)
		}
		cp, err := h.store.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		logSize := cp.Size

		var wg sync.WaitGroup
		counts := make([]int, len(svcs))
		errs := make([]error, len(svcs))
		for i, svc := range svcs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[i], errs[i] = svc.ReassessAll(ctx, 5, nil)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
		}
		if counts[0]+counts[1] != total {
			t.Errorf("the replicas rendered %d + %d reports, want %d in all (each once)", counts[0], counts[1], total)
		}
		t.Logf("replica 0 rendered %d, replica 1 %d", counts[0], counts[1])
		got := snapshot(t, stores[1])
		if diff := cmp.Diff(want.reports, got.reports); diff != "" {
			t.Errorf("reports (-before +after):\n%s", diff)
		}
		// Each published version's report was signed and logged once
		// more, in both replicas' batches together.
		published := 0
		for _, sub := range got.subs {
			if sub.Status == registry.StatusApproved {
				published++
				checkLogged(t, stores[1], sub, got.reports[sub.ID])
			}
		}
		if _, err := stores[1].RefreshCheckpoint(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if cp, err := stores[1].Checkpoint(ctx); err != nil || cp.Size != logSize+uint64(published) {
			t.Errorf("log size after = %d, %v; want %d + %d published reports", cp.Size, err, logSize, published)
		}
	})
}

// checkLogged checks that a published submission's current leaf, proved
// against the signed checkpoint the proof carries, names its report, and
// that the report's envelope holds its bytes.
func checkLogged(t *testing.T, s storage.Store, sub registry.Submission, r registry.Report) {
	t.Helper()
	ctx := context.Background()
	p, err := s.InclusionProof(ctx, sub.Addon, sub.Version)
	if err != nil {
		t.Fatalf("InclusionProof(%s@%s): %v", sub.Addon, sub.Version, err)
	}
	leaf, err := transparency.ParseLeaf(p.Leaf)
	if err != nil || leaf.ReportSHA256 != r.SHA256 {
		t.Errorf("leaf of %s@%s = %+v, %v; want report %s", sub.Addon, sub.Version, leaf, err, r.SHA256)
	}
	keys := s.SigningKeys()
	cp, _, err := transparency.OpenCheckpoint(p.Checkpoint, keys[0].Name(), keys...)
	if err != nil {
		t.Fatalf("checkpoint of the proof of %s@%s: %v", sub.Addon, sub.Version, err)
	}
	if err := transparency.VerifyInclusion(p.Leaf, p.LeafIndex, p.TreeSize, p.Hashes, cp.Hash); err != nil || p.TreeSize != cp.Size {
		t.Errorf("inclusion of %s@%s in the tree of size %d (its checkpoint's %d): %v", sub.Addon, sub.Version, p.TreeSize, cp.Size, err)
	}
	env, err := s.PublishedEnvelope(ctx, sub.Addon, sub.Version)
	if err != nil {
		t.Fatalf("PublishedEnvelope(%s@%s): %v", sub.Addon, sub.Version, err)
	}
	if payload, _, err := transparency.OpenEnvelope(env.Bytes, s.SigningKeys()...); err != nil || !bytes.Equal(payload, r.Bytes) {
		t.Errorf("envelope of %s@%s does not hold its report: %v", sub.Addon, sub.Version, err)
	}
}

// TestReassessAllWaitsForHeldReports: a stale report that another
// transaction holds without rendering it (a replica signing envelopes, a
// decision on another version) is rendered once that transaction ends,
// however long it holds it. ReassessAll waits for the report's lock, not
// for a while, and returns only when no stale report it can render is
// left.
func TestReassessAllWaitsForHeldReports(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, fixture.Postgres)
	total := corpus(t, h, 10)
	want := snapshot(t, h.store)
	ids := make([]string, 0, total)
	for id := range want.subs {
		ids = append(ids, id)
	}
	staleReports(t, h, ids...)
	held := ids[0]

	pool := h.store.(*postgres.Store).Pool()
	holder, holderPID := holdRows(t, pool, `SELECT 1 FROM reports WHERE submission_id = $1 FOR UPDATE`, held)

	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := h.svc.ReassessAll(ctx, 4, nil)
		done <- result{n, err}
	}()
	// Once ReassessAll waits for the held report's lock, the holder ends.
	deadline := time.Now().Add(2 * time.Minute)
	for waiting := false; !waiting; {
		select {
		case r := <-done:
			left, _ := h.svc.StaleCount(ctx)
			t.Fatalf("ReassessAll returned %d, %v while another transaction held a stale report, leaving %d stale; want it to wait for that transaction", r.n, r.err, left)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("ReassessAll neither waited for the held report nor returned within 2 minutes")
		}
		err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND $1 = ANY(pg_blocking_pids(pid)))`, holderPID).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := holder.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.n != total {
		t.Errorf("ReassessAll = %d, %v; want %d", r.n, r.err, total)
	}
	if left, err := h.svc.StaleCount(ctx); err != nil || left != 0 {
		t.Errorf("stale reports left = %d, %v; want 0", left, err)
	}
	got := snapshot(t, h.store)
	if diff := cmp.Diff(want.reports, got.reports); diff != "" {
		t.Errorf("reports (-before +after):\n%s", diff)
	}
}
