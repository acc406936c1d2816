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
