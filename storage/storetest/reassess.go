package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/transparency"
)

// seedStale stores submissions sub_0… of addons alpha (published, with
// two suppressions), beta (published, none) and gamma (never published),
// in creation order, with reports made by the given rulesets, and a
// submission with no report at all.
func seedStale(t *testing.T, s storage.Store, rulesets ...string) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error {
		for _, name := range []string{"alpha", "beta"} {
			if err := tx.PutAddon(ctx, addon(name, 0)); err != nil {
				return err
			}
		}
		for _, sp := range []registry.Suppression{
			{ID: "sup_2", Addon: "alpha", Code: "shell_meta", Path: "mcp.args[0]", Reason: registry.ReasonFalsePositive, CreatedAt: at(0)},
			{ID: "sup_1", Addon: "alpha", Code: "child_env", Path: "mcp.env.HOME", Reason: registry.ReasonAcceptedRisk, ExpiresAt: ptr(at(9)), CreatedAt: at(1)},
			{ID: "sup_3", Addon: "other", Code: "child_env", Path: "mcp.env.HOME", Reason: registry.ReasonMitigated, CreatedAt: at(2)},
		} {
			if err := tx.CreateSuppression(ctx, sp); err != nil {
				return err
			}
		}
		names := []string{"alpha", "beta", "gamma"}
		for i, rs := range rulesets {
			id := fmt.Sprintf("sub_%d", i)
			if err := tx.CreateSubmission(ctx, submission(id, names[i%3], fmt.Sprint(i), i)); err != nil {
				return err
			}
			if err := tx.PutReport(ctx, report(id, rs, `{}`), nil); err != nil {
				return err
			}
		}
		// A submission without a report is not stale.
		return tx.CreateSubmission(ctx, submission("sub_norep", "alpha", "x", 99))
	})
}

// claimIDs returns the submission IDs of a batch.
func claimIDs(b storage.StaleBatch) []string {
	out := []string{}
	for _, r := range b.Reports {
		out = append(out, r.Submission.ID)
	}
	return out
}

func testClaimStaleReports(t *testing.T, s storage.Store) {
	ctx := context.Background()
	seedStale(t, s, "old", "new", "old", "older", "new", "old")
	tests := []struct {
		name  string
		after storage.Cursor
		limit int
		want  []string
	}{
		{"all", storage.Cursor{}, 10, []string{"sub_0", "sub_2", "sub_3", "sub_5"}},
		{"limit", storage.Cursor{}, 2, []string{"sub_0", "sub_2"}},
		{"after a stale one", storage.Cursor{At: at(2), Key: "sub_2"}, 10, []string{"sub_3", "sub_5"}},
		{"after a current one", storage.Cursor{At: at(4), Key: "sub_4"}, 1, []string{"sub_5"}},
		{"after the last", storage.Cursor{At: at(5), Key: "sub_5"}, 10, []string{}},
		{"zero limit", storage.Cursor{}, 0, []string{}},
	}
	for _, tc := range tests {
		// Nothing is held, so a claim that would wait claims the same.
		for _, wait := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/wait=%v", tc.name, wait), func(t *testing.T) {
				var got storage.StaleBatch
				inTx(t, s, func(tx storage.Tx) error {
					var err error
					got, err = tx.ClaimStaleReports(ctx, "new", tc.after, tc.limit, wait)
					return err
				})
				if diff := cmp.Diff(tc.want, claimIDs(got)); diff != "" {
					t.Errorf("claimed (-want +got):\n%s", diff)
				}
				if len(got.Reports) > 0 {
					last := got.Reports[len(got.Reports)-1].Submission
					if want := (storage.Cursor{At: last.CreatedAt, Key: last.ID}); got.Next != want {
						t.Errorf("Next = %+v, want the last report's %+v", got.Next, want)
					}
				}
				if got.Addons == nil || got.Suppressions == nil || got.Busy == nil || len(got.Busy) != 0 {
					t.Errorf("Addons, Suppressions, Busy = %v, %v, %v; want non-nil maps, nothing busy", got.Addons, got.Suppressions, got.Busy)
				}
			})
		}
	}

	var b storage.StaleBatch
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		b, err = tx.ClaimStaleReports(ctx, "new", storage.Cursor{}, 10, false)
		return err
	})
	// What a renderer needs: the whole submission, the ruleset of its
	// report, its addon and the addon's suppressions in their order.
	if diff := cmp.Diff(normSubmission(submission("sub_3", "alpha", "3", 3)), b.Reports[2].Submission, opts); diff != "" {
		t.Errorf("claimed submission (-want +got):\n%s", diff)
	}
	if got := []string{b.Reports[0].Ruleset, b.Reports[2].Ruleset}; !cmp.Equal(got, []string{"old", "older"}) {
		t.Errorf("rulesets = %v, want [old older]", got)
	}
	if diff := cmp.Diff(map[string]registry.Addon{"alpha": normAddon(addon("alpha", 0))}, b.Addons, opts); diff != "" {
		t.Errorf("Addons (-want +got; beta has only current reports, gamma does not exist):\n%s", diff)
	}
	want, err := s.Suppressions(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]registry.Suppression{"alpha": want}, b.Suppressions); diff != "" {
		t.Errorf("Suppressions (-want +got):\n%s", diff)
	}

	// A report stored under the current ruleset is claimed no more.
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReport(ctx, report("sub_0", "new", `{}`), nil) })
	inTx(t, s, func(tx storage.Tx) error {
		b, err := tx.ClaimStaleReports(ctx, "new", storage.Cursor{}, 1, false)
		if diff := cmp.Diff([]string{"sub_2"}, claimIDs(b)); diff != "" {
			t.Errorf("claimed after a re-render (-want +got):\n%s", diff)
		}
		return err
	})
	if n, err := s.CountStaleReports(ctx, "new"); err != nil || n != 3 {
		t.Errorf("CountStaleReports = %d, %v; want 3", n, err)
	}

	// With every report current nothing is claimed or counted (found
	// through the indexes alone); a report of a ruleset that sorts before
	// the current one is stale again, as is every report marked stale.
	claim := func(want ...string) {
		t.Helper()
		want = append([]string{}, want...)
		inTx(t, s, func(tx storage.Tx) error {
			b, err := tx.ClaimStaleReports(ctx, "new", storage.Cursor{}, 10, false)
			if diff := cmp.Diff(want, claimIDs(b)); diff != "" {
				t.Errorf("claimed (-want +got):\n%s", diff)
			}
			return err
		})
		if n, err := s.CountStaleReports(ctx, "new"); err != nil || n != len(want) {
			t.Errorf("CountStaleReports = %d, %v; want %d", n, err, len(want))
		}
	}
	inTx(t, s, func(tx storage.Tx) error {
		for _, id := range []string{"sub_2", "sub_3", "sub_5"} {
			if err := tx.PutReport(ctx, report(id, "new", `{}`), nil); err != nil {
				return err
			}
		}
		return nil
	})
	claim()
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReport(ctx, report("sub_4", "a-earlier", `{}`), nil) })
	claim("sub_4")
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReport(ctx, report("sub_4", "new", `{}`), nil) })
	claim()
	inTx(t, s, func(tx storage.Tx) error {
		_, err := tx.MarkReportsStale(ctx)
		return err
	})
	claim("sub_0", "sub_1", "sub_2", "sub_3", "sub_4", "sub_5")
}

func testMarkReportsStale(t *testing.T, s storage.Store) {
	ctx := context.Background()
	seedStale(t, s, "new", "new", "old")
	var n int
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		n, err = tx.MarkReportsStale(ctx)
		return err
	})
	if n != 3 {
		t.Errorf("MarkReportsStale = %d, want 3", n)
	}
	if n, err := s.CountStaleReports(ctx, "new"); err != nil || n != 3 {
		t.Errorf("CountStaleReports after marking = %d, %v; want 3", n, err)
	}
	// Marking leaves the bytes alone; storing a report clears its mark,
	// through either write.
	if r, err := s.Report(ctx, "sub_1"); err != nil || r.Ruleset != "new" || string(r.Bytes) != "{}" {
		t.Errorf("report after marking = %+v, %v; want it unchanged", r, err)
	}
	inTx(t, s, func(tx storage.Tx) error {
		if err := tx.PutReport(ctx, report("sub_0", "new", `{"a":1}`), nil); err != nil {
			return err
		}
		return tx.PutReports(ctx, []storage.ReportWrite{{Report: report("sub_2", "new", `{"a":2}`)}})
	})
	inTx(t, s, func(tx storage.Tx) error {
		b, err := tx.ClaimStaleReports(ctx, "new", storage.Cursor{}, 10, false)
		if diff := cmp.Diff([]string{"sub_1"}, claimIDs(b)); diff != "" {
			t.Errorf("claimed after storing two marked reports (-want +got):\n%s", diff)
		}
		return err
	})
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		n, err = tx.MarkReportsStale(ctx)
		return err
	})
	if n != 2 {
		t.Errorf("MarkReportsStale with one already marked = %d, want 2", n)
	}
}

func testPutReports(t *testing.T, s storage.Store) {
	ctx := context.Background()
	const n = 600 // more than one statement's rows
	inTx(t, s, func(tx storage.Tx) error {
		for i := range n {
			id := fmt.Sprintf("sub_%03d", i)
			if err := tx.CreateSubmission(ctx, submission(id, "alpha", fmt.Sprint(i), i)); err != nil {
				return err
			}
			if err := tx.PutReport(ctx, report(id, "old", `{"old":true}`), []registry.StoredFinding{
				{SubmissionID: id, Finding: registry.Finding{Level: registry.LevelInfo, Code: "old", Message: "m", Path: "p"}},
			}); err != nil {
				return err
			}
		}
		return nil
	})
	ws := make([]storage.ReportWrite, n)
	for i := range ws {
		id := fmt.Sprintf("sub_%03d", i)
		ws[i].Report = report(id, "new", fmt.Sprintf(`{"n":%d}`, i))
		// Each report has i%3 findings: none, one, two.
		for j := range i % 3 {
			ws[i].Findings = append(ws[i].Findings, registry.StoredFinding{SubmissionID: id,
				Finding: registry.Finding{Level: registry.LevelWarn, Code: fmt.Sprintf("c%d", j), Message: "m", Path: "mcp.args[0]"},
				Line:    j, Suppressed: j == 1})
		}
	}
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReports(ctx, ws) })
	for _, i := range []int{0, 1, 2, 250, 599} {
		w := ws[i]
		got, err := s.Report(ctx, w.Report.SubmissionID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(w.Report, got); diff != "" {
			t.Errorf("Report %d (-want +got):\n%s", i, diff)
		}
		fs, err := s.Findings(ctx, w.Report.SubmissionID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(w.Findings, fs, opts); diff != "" {
			t.Errorf("Findings %d (-want +got):\n%s", i, diff)
		}
	}

	// A refused batch writes nothing.
	bad := []storage.ReportWrite{{Report: report("sub_000", "newer", `{}`)}, {Report: report("sub_000", "newer", `{}`)}}
	err := s.InTx(ctx, func(tx storage.Tx) error { return tx.PutReports(ctx, bad) })
	wantErr(t, "PutReports(one submission twice)", err, registry.ErrInvalid)
	wrong := report("sub_001", "newer", `{}`)
	wrong.SHA256 = report("x", "", `{"x":1}`).SHA256
	err = s.InTx(ctx, func(tx storage.Tx) error {
		return tx.PutReports(ctx, []storage.ReportWrite{{Report: report("sub_000", "newer", `{}`)}, {Report: wrong}})
	})
	wantErr(t, "PutReports(wrong sha256)", err, registry.ErrInvalid)
	err = s.InTx(ctx, func(tx storage.Tx) error {
		return tx.PutReports(ctx, []storage.ReportWrite{{Report: report("sub_000", "newer", `{}`)}, {Report: report("sub_missing", "newer", `{}`)}})
	})
	wantErr(t, "PutReports(missing submission)", err, registry.ErrNotFound)
	if got, _ := s.Report(ctx, "sub_000"); got.Ruleset != "new" {
		t.Errorf("a refused PutReports changed a report: ruleset %q, want new", got.Ruleset)
	}
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReports(ctx, nil) })
}

func testSetVerdicts(t *testing.T, s storage.Store) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error {
		for i, name := range []string{"alpha", "beta"} {
			if err := tx.PutAddon(ctx, addon(name, i)); err != nil {
				return err
			}
			if err := tx.CreateSubmission(ctx, submission(fmt.Sprintf("sub_%d", i), name, "1.0.0", i)); err != nil {
				return err
			}
		}
		return nil
	})
	inTx(t, s, func(tx storage.Tx) error {
		if err := tx.SetVerdicts(ctx, at(7), []storage.VerdictWrite{
			{ID: "sub_1", Verdict: registry.VerdictFail, Risk: registry.LevelDanger, Wiring: wiring("new")},
		}); err != nil {
			return err
		}
		return tx.SetLatestVerdicts(ctx, map[string]registry.Verdict{"beta": registry.VerdictFail})
	})
	want := submission("sub_1", "beta", "1.0.0", 1)
	want.Verdict, want.Risk, want.WiringSHA256, want.UpdatedAt = registry.VerdictFail, registry.LevelDanger, wiring("new"), at(7)
	if got, err := s.Submission(ctx, "sub_1"); err != nil || !cmp.Equal(normSubmission(want), got, opts) {
		t.Errorf("after SetVerdicts: %v, diff (-want +got):\n%s", err, cmp.Diff(normSubmission(want), got, opts))
	}
	if got, _ := s.Submission(ctx, "sub_0"); got.Verdict != registry.VerdictReview {
		t.Errorf("SetVerdicts changed another submission: verdict %s", got.Verdict)
	}
	wantA := addon("beta", 1)
	wantA.LatestVerdict = registry.VerdictFail
	if got, err := s.Addon(ctx, "beta"); err != nil || !cmp.Equal(normAddon(wantA), got, opts) {
		t.Errorf("after SetLatestVerdicts: %v, diff (-want +got):\n%s", err, cmp.Diff(normAddon(wantA), got, opts))
	}
	if got, _ := s.Addon(ctx, "alpha"); got.LatestVerdict != registry.VerdictPass {
		t.Errorf("SetLatestVerdicts changed another addon: %s", got.LatestVerdict)
	}
	err := s.InTx(ctx, func(tx storage.Tx) error {
		return tx.SetVerdicts(ctx, at(8), []storage.VerdictWrite{{ID: "sub_0", Verdict: registry.VerdictPass}, {ID: "sub_missing"}})
	})
	wantErr(t, "SetVerdicts(missing submission)", err, registry.ErrNotFound)
	err = s.InTx(ctx, func(tx storage.Tx) error {
		return tx.SetLatestVerdicts(ctx, map[string]registry.Verdict{"missing": registry.VerdictPass})
	})
	wantErr(t, "SetLatestVerdicts(missing addon)", err, registry.ErrNotFound)
	if got, _ := s.Submission(ctx, "sub_0"); got.Verdict != registry.VerdictReview {
		t.Errorf("a refused SetVerdicts changed a submission: verdict %s", got.Verdict)
	}
}

// testLogPutReports: PutReports signs and logs published versions' reports
// as PutReport does, in the transaction's one append: a leaf for each
// published report whose bytes changed, none for one stored again with the
// same bytes, and no envelope or leaf for an unpublished submission's.
func testLogPutReports(t *testing.T, s storage.Store) {
	ctx := context.Background()
	st := newLogState()
	st.add(publishN(t, s, "alpha", 0, 5)...)
	verifyLog(t, s, st, 5)
	inTx(t, s, func(tx storage.Tx) error {
		return tx.CreateSubmission(ctx, submission("sub_pending", "alpha", "2.0.0", 9))
	})

	var ws []storage.ReportWrite
	for i := range 4 {
		ws = append(ws, storage.ReportWrite{Report: report(fmt.Sprintf("sub_alpha_%d", i), "r2", fmt.Sprintf(`{"r2":%d}`, i))})
	}
	same, err := s.Report(ctx, "sub_alpha_4")
	if err != nil {
		t.Fatal(err)
	}
	ws = append(ws, storage.ReportWrite{Report: same}, storage.ReportWrite{Report: report("sub_pending", "r2", `{"pending":true}`)})
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReports(ctx, ws) })
	for _, w := range ws[:4] {
		l := st.leaves["alpha@1.0."+w.Report.SubmissionID[len("sub_alpha_"):]]
		l.ReportSHA256 = w.Report.SHA256
		st.add(l)
	}
	verifyLog(t, s, st, 9)

	for _, w := range ws[:5] {
		version := "1.0." + w.Report.SubmissionID[len("sub_alpha_"):]
		env, err := s.PublishedEnvelope(ctx, "alpha", version)
		if err != nil {
			t.Fatalf("PublishedEnvelope(alpha@%s): %v", version, err)
		}
		payload, _, err := transparency.OpenEnvelope(env.Bytes, s.SigningKeys()...)
		if err != nil || string(payload) != string(w.Report.Bytes) {
			t.Errorf("envelope of alpha@%s holds %q, %v; want %q", version, payload, err, w.Report.Bytes)
		}
	}
	if _, err := s.PublishedEnvelope(ctx, "alpha", "2.0.0"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("PublishedEnvelope of an unpublished version = %v, want ErrNotFound", err)
	}
}
