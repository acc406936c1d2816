package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// The reads behind the maintainers' pages: the audit log's filters and
// their choices.

func testAuditLogFilter(t *testing.T, s storage.Store) {
	ctx := context.Background()
	if actors, actions, err := s.AuditChoices(ctx); err != nil || len(actors) != 0 || len(actions) != 0 || actors == nil || actions == nil {
		t.Errorf("AuditChoices of an empty log = %q, %q, %v; want two empty, non-nil lists", actors, actions, err)
	}
	inTx(t, s, func(tx storage.Tx) error {
		for _, sub := range []registry.Submission{
			submission("sub_a1", "alpha", "1.0.0", 0), submission("sub_b1", "beta", "1.0.0", 1),
			submission("sub_x", "alpha-two", "1.0.0", 2),
		} {
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return err
			}
		}
		for i, e := range []registry.AuditEntry{
			{Actor: "carol", Action: "submission.approve", Target: "submission/sub_a1"},
			{Actor: "dave", Action: "addon.verify.grant", Target: "addon/alpha"},
			{Actor: "carol", Action: "submission.reject", Target: "submission/sub_b1"},
			{Actor: "system", Action: "token.create", Target: "token/tok_1"},
			{Actor: "dave", Action: "suppression.create", Target: "addon/alpha"},
			{Actor: "carol", Action: "submission.approve", Target: "submission/sub_x"},
			{Actor: "carol", Action: "addon.verify.grant", Target: "addon/alpha-two"},
			{Actor: "carol%", Action: "submission.approve", Target: "addon/alpha%"},
		} {
			e.ID, e.At = fmt.Sprintf("aud_%d", i), at(i)
			if err := tx.AppendAudit(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	tests := []struct {
		name string
		f    storage.AuditFilter
		want []string // IDs, newest first
	}{
		{"all", storage.AuditFilter{}, []string{"aud_7", "aud_6", "aud_5", "aud_4", "aud_3", "aud_2", "aud_1", "aud_0"}},
		{"actor", storage.AuditFilter{Actor: "dave"}, []string{"aud_4", "aud_1"}},
		{"actor is exact", storage.AuditFilter{Actor: "car"}, []string{}},
		{"actor is not a pattern", storage.AuditFilter{Actor: "carol%"}, []string{"aud_7"}},
		{"action", storage.AuditFilter{Action: "submission.approve"}, []string{"aud_7", "aud_5", "aud_0"}},
		{"action is exact", storage.AuditFilter{Action: "submission"}, []string{}},
		// The addon's own entries and its submissions', not another
		// addon's whose name it begins.
		{"addon", storage.AuditFilter{Addon: "alpha"}, []string{"aud_4", "aud_1", "aud_0"}},
		{"addon of submissions", storage.AuditFilter{Addon: "beta"}, []string{"aud_2"}},
		{"addon is not a pattern", storage.AuditFilter{Addon: "alpha%"}, []string{"aud_7"}},
		{"combined", storage.AuditFilter{Actor: "carol", Action: "submission.approve", Addon: "alpha"}, []string{"aud_0"}},
		{"no match", storage.AuditFilter{Addon: "gamma"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, next, err := s.AuditLog(ctx, tc.f, storage.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, auditIDs(got)); diff != "" || next != "" {
				t.Errorf("AuditLog(%+v) (-want +got):\n%s\nnext %q", tc.f, diff, next)
			}
		})
	}
	// A filtered list pages like the whole one.
	var got []string
	cursor := ""
	for range 5 {
		page, next, err := s.AuditLog(ctx, storage.AuditFilter{Actor: "carol"}, storage.Page{Cursor: cursor, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, auditIDs(page)...)
		if cursor = next; next == "" {
			break
		}
	}
	if diff := cmp.Diff([]string{"aud_6", "aud_5", "aud_2", "aud_0"}, got); diff != "" {
		t.Errorf("carol's entries, two a page (-want +got):\n%s", diff)
	}

	actors, actions, err := s.AuditChoices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"carol", "carol%", "dave", "system"}, actors); diff != "" {
		t.Errorf("AuditChoices actors (-want +got):\n%s", diff)
	}
	wantActions := []string{"addon.verify.grant", "submission.approve", "submission.reject", "suppression.create", "token.create"}
	if diff := cmp.Diff(wantActions, actions); diff != "" {
		t.Errorf("AuditChoices actions (-want +got):\n%s", diff)
	}
}

func auditIDs(es []registry.AuditEntry) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

// The review queue's orders: by age either way and by verdict, each
// paging without gaps or repeats.
func testSubmissionOrders(t *testing.T, s storage.Store) {
	ctx := context.Background()
	verdicts := map[string]registry.Verdict{
		"sub_0": registry.VerdictPass, "sub_1": registry.VerdictFail, "sub_2": registry.VerdictReview,
		"sub_3": registry.VerdictFail, "sub_4": registry.VerdictPass, "sub_5": registry.VerdictReview,
		"sub_6": registry.VerdictFail,
	}
	inTx(t, s, func(tx storage.Tx) error {
		// sub_5 and sub_6 share a time: the ID breaks the tie.
		for _, i := range []int{4, 1, 6, 0, 3, 5, 2} {
			sub := submission(fmt.Sprintf("sub_%d", i), "alpha", fmt.Sprintf("1.0.%d", i), min(i, 5))
			sub.Verdict = verdicts[sub.ID]
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return err
			}
		}
		return nil
	})
	tests := []struct {
		order storage.SubmissionOrder
		f     storage.SubmissionFilter
		want  []string
	}{
		{storage.OldestFirst, storage.SubmissionFilter{}, []string{"sub_0", "sub_1", "sub_2", "sub_3", "sub_4", "sub_5", "sub_6"}},
		{storage.NewestFirst, storage.SubmissionFilter{}, []string{"sub_6", "sub_5", "sub_4", "sub_3", "sub_2", "sub_1", "sub_0"}},
		{storage.WorstFirst, storage.SubmissionFilter{}, []string{"sub_1", "sub_3", "sub_6", "sub_2", "sub_5", "sub_0", "sub_4"}},
		{storage.WorstFirst, storage.SubmissionFilter{Verdict: registry.VerdictReview}, []string{"sub_2", "sub_5"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q %s", tc.order, tc.f.Verdict), func(t *testing.T) {
			tc.f.Order = tc.order
			for _, limit := range []int{1, 2, 3, 7} {
				var got, gotQueue []string
				cursor, queueCursor := "", ""
				for range 10 {
					page, next, err := s.Submissions(ctx, tc.f, storage.Page{Cursor: cursor, Limit: limit})
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ids(page, subID)...)
					queue, queueNext, err := s.ReviewQueue(ctx, tc.f, storage.Page{Cursor: queueCursor, Limit: limit})
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range queue {
						gotQueue = append(gotQueue, e.ID)
					}
					cursor, queueCursor = next, queueNext
					if next == "" {
						break
					}
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("Submissions, %d a page (-want +got):\n%s", limit, diff)
				}
				if diff := cmp.Diff(tc.want, gotQueue); diff != "" {
					t.Errorf("ReviewQueue, %d a page (-want +got):\n%s", limit, diff)
				}
			}
		})
	}
	_, _, err := s.Submissions(ctx, storage.SubmissionFilter{Order: "size"}, storage.Page{})
	wantErr(t, "Submissions(unknown order)", err, registry.ErrInvalid)
	_, _, err = s.ReviewQueue(ctx, storage.SubmissionFilter{Order: "size"}, storage.Page{})
	wantErr(t, "ReviewQueue(unknown order)", err, registry.ErrInvalid)
}

// The review queue counts each submission's unsuppressed findings by
// level and names the version it updates: the one published last before
// it was decided, or before now while it is pending.
func testReviewQueue(t *testing.T, s storage.Store) {
	ctx := context.Background()
	decided := func(sub registry.Submission, status registry.SubmissionStatus, i int) registry.Submission {
		sub.Status, sub.DecidedBy, sub.DecidedAt = status, "carol", ptr(at(i))
		return sub
	}
	inTx(t, s, func(tx storage.Tx) error {
		subs := []registry.Submission{
			decided(submission("sub_a0", "alpha", "0.9.0", 0), registry.StatusRejected, 2),
			decided(submission("sub_a1", "alpha", "1.0.0", 0), registry.StatusApproved, 1),
			decided(submission("sub_a2", "alpha", "1.1.0", 2), registry.StatusApproved, 3),
			submission("sub_a3", "alpha", "1.2.0", 4),
			submission("sub_b1", "beta", "1.0.0", 5),
			submission("sub_c1", "alpha-two", "1.0.0", 6),
		}
		for _, sub := range subs {
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return err
			}
		}
		for _, v := range []registry.Version{
			{Addon: "alpha", Version: "1.0.0", SubmissionID: "sub_a1", PublishedAt: at(1)},
			{Addon: "alpha", Version: "1.1.0", SubmissionID: "sub_a2", PublishedAt: at(3)},
		} {
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		f := func(l registry.Level, code string, suppressed bool) registry.StoredFinding {
			return registry.StoredFinding{Finding: registry.Finding{Level: l, Code: code, Message: code, Path: "mcp.args[0]"}, Suppressed: suppressed}
		}
		return tx.PutReport(ctx, report("sub_a3", "r1", `{"a3":1}`), []registry.StoredFinding{
			f(registry.LevelDanger, "shell_exec", false), f(registry.LevelDanger, "fetch_exec", true),
			f(registry.LevelWarn, "unpinned", false), f(registry.LevelInfo, "child_env", false),
			f(registry.LevelInfo, "remote_endpoint", false), f(registry.LevelInfo, "request_headers", false),
		})
	})
	got, next, err := s.ReviewQueue(ctx, storage.SubmissionFilter{}, storage.Page{})
	if err != nil || next != "" {
		t.Fatalf("ReviewQueue: next %q, %v", next, err)
	}
	type summary struct {
		ID                 string
		Danger, Warn, Info int
		Updates            string
	}
	var sums []summary
	for _, e := range got {
		sums = append(sums, summary{e.ID, e.Danger, e.Warn, e.Info, e.Updates})
	}
	want := []summary{
		{ID: "sub_a0", Updates: "1.0.0"}, // rejected after 1.0.0 was published
		{ID: "sub_a1"},                   // the first version: updates nothing
		{ID: "sub_a2", Updates: "1.0.0"},
		{ID: "sub_a3", Danger: 1, Warn: 1, Info: 3, Updates: "1.1.0"}, // pending: the latest until now
		{ID: "sub_b1"},
		{ID: "sub_c1"}, // alpha-two is another addon than alpha
	}
	if diff := cmp.Diff(want, sums); diff != "" {
		t.Errorf("ReviewQueue summaries (-want +got):\n%s", diff)
	}
	// The entries are the submissions Submissions returns.
	subs, _, err := s.Submissions(ctx, storage.SubmissionFilter{}, storage.Page{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range subs {
		if diff := cmp.Diff(subs[i], got[i].Submission, opts); diff != "" {
			t.Errorf("ReviewQueue's submission %s differs from Submissions' (-want +got):\n%s", subs[i].ID, diff)
		}
	}
}

// The registry's index: recently updated first, paging without gaps or
// repeats, and the count of what a filter matches.
func testAddonOrderAndCount(t *testing.T, s storage.Store) {
	ctx := context.Background()
	specs := []struct {
		name    string
		verdict registry.Verdict
		updated int
		removed bool
	}{
		{"alpha", registry.VerdictPass, 3, false},
		{"beta", registry.VerdictReview, 1, false},
		{"delta", registry.VerdictPass, 3, false}, // ties with alpha: the name breaks it
		{"gamma", registry.VerdictFail, 0, false},
		{"omega", registry.VerdictPass, 9, true},
		{"zeta", registry.VerdictPass, 5, false},
	}
	inTx(t, s, func(tx storage.Tx) error {
		for _, sp := range specs {
			a := addon(sp.name, sp.updated)
			a.LatestVerdict, a.Removed = sp.verdict, sp.removed
			if err := tx.PutAddon(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})
	tests := []struct {
		f    storage.AddonFilter
		want []string
	}{
		{storage.AddonFilter{Order: storage.RecentlyUpdated}, []string{"zeta", "delta", "alpha", "beta", "gamma"}},
		{storage.AddonFilter{Order: storage.RecentlyUpdated, IncludeRemoved: true}, []string{"omega", "zeta", "delta", "alpha", "beta", "gamma"}},
		{storage.AddonFilter{Order: storage.RecentlyUpdated, Verdict: registry.VerdictPass}, []string{"zeta", "delta", "alpha"}},
		{storage.AddonFilter{Order: storage.RecentlyUpdated, Query: "ta"}, []string{"zeta", "delta", "beta"}},
		{storage.AddonFilter{}, []string{"alpha", "beta", "delta", "gamma", "zeta"}},
		{storage.AddonFilter{Verdict: registry.VerdictFail}, []string{"gamma"}},
		{storage.AddonFilter{Query: "nothing"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%+v", tc.f), func(t *testing.T) {
			for _, limit := range []int{1, 2, 5} {
				got := []string{}
				cursor := ""
				for range 10 {
					page, next, err := s.Addons(ctx, tc.f, storage.Page{Cursor: cursor, Limit: limit})
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ids(page, addonName)...)
					if cursor = next; next == "" {
						break
					}
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("Addons, %d a page (-want +got):\n%s", limit, diff)
				}
			}
			for _, max := range []int{0, 1, len(tc.want) - 1, len(tc.want), 100} {
				if max < 0 {
					continue
				}
				n, more, err := s.CountAddons(ctx, tc.f, max)
				wantN, wantMore := min(len(tc.want), max), len(tc.want) > max
				if err != nil || n != wantN || more != wantMore {
					t.Errorf("CountAddons(max %d) = %d, %v, %v; want %d, %v", max, n, more, err, wantN, wantMore)
				}
			}
		})
	}
	_, _, err := s.Addons(ctx, storage.AddonFilter{Order: "size"}, storage.Page{})
	wantErr(t, "Addons(unknown order)", err, registry.ErrInvalid)
	_, _, err = s.CountAddons(ctx, storage.AddonFilter{Tier: "gold"}, 10)
	wantErr(t, "CountAddons(unknown tier)", err, registry.ErrInvalid)
	if n, more, err := s.CountAddons(ctx, storage.AddonFilter{}, -1); n != 0 || !more || err != nil {
		t.Errorf("CountAddons(max -1) = %d, %v, %v; want 0, true, nil", n, more, err)
	}
}
