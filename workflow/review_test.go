package workflow_test

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/transparency"
	"github.com/registryd/registryd/workflow"
)

func TestDecide(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		pending := h.submit(t, fixture.Clean("decide", "1.0.0"))
		rejected := h.submit(t, fixture.Clean("decide", "0.9.0"))
		if _, err := h.svc.Reject(ctx, alice, rejected.ID, "superseded"); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name    string
			approve bool
			actor   workflow.Actor
			id      string
			reason  string
			want    error
		}{
			{"unknown submission", true, alice, "sub_nope", "", registry.ErrNotFound},
			{"empty id", true, alice, "", "", registry.ErrNotFound},
			{"submitter may not approve", true, sam, pending.ID, "", registry.ErrForbidden},
			{"anonymous", true, workflow.Actor{}, pending.ID, "", registry.ErrUnauthenticated},
			{"reject needs a reason", false, alice, pending.ID, "", registry.ErrInvalid},
			{"reason with escape", true, alice, pending.ID, "ok\x1b[2J", registry.ErrInvalid},
			{"reason too long", true, alice, pending.ID, strings.Repeat("a", workflow.MaxReasonBytes+1), registry.ErrInvalid},
			{"approve a rejected one", true, alice, rejected.ID, "", registry.ErrConflict},
			{"reject a rejected one", false, bob, rejected.ID, "again", registry.ErrConflict},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var err error
				if tt.approve {
					_, err = h.svc.Approve(ctx, tt.actor, tt.id, tt.reason)
				} else {
					_, err = h.svc.Reject(ctx, tt.actor, tt.id, tt.reason)
				}
				wantErr(t, "decide", err, tt.want)
			})
		}
		if s, _ := h.store.Submission(ctx, pending.ID); s.Status != registry.StatusPending {
			t.Fatalf("after refused decisions the submission is %s, want pending", s.Status)
		}

		h.clock.Advance(time.Hour)
		got, err := h.svc.Approve(ctx, bob, pending.ID, "reviewed the wiring")
		if err != nil {
			t.Fatal(err)
		}
		decided := start.Add(time.Hour)
		if got.Status != registry.StatusApproved || got.DecidedBy != "bob" || got.DecidedAt == nil || !got.DecidedAt.Equal(decided) || got.DecisionReason != "reviewed the wiring" {
			t.Errorf("approved = %+v; want approved by bob at %s with the reason", got, decided)
		}
		_, err = h.svc.Approve(ctx, alice, pending.ID, "")
		wantErr(t, "Approve twice", err, registry.ErrConflict)
		_, err = h.svc.Reject(ctx, alice, pending.ID, "too late")
		wantErr(t, "Reject an approved one", err, registry.ErrConflict)

		vs, _, err := h.store.Versions(ctx, "decide", storage.Page{})
		if err != nil || len(vs) != 1 || vs[0].SubmissionID != pending.ID || vs[0].PublishedBy != "bob" {
			t.Errorf("versions = %+v, %v; want 1.0.0 published by bob", vs, err)
		}
		a, err := h.store.Addon(ctx, "decide")
		if err != nil || a.LatestVersion != "1.0.0" || a.Description != "A pinned local server." || !a.CreatedAt.Equal(decided) {
			t.Errorf("addon = %+v, %v", a, err)
		}
		log, _, err := h.store.AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
		if err != nil {
			t.Fatal(err)
		}
		var actions []string
		for _, e := range log {
			actions = append(actions, e.Actor+" "+e.Action+" "+e.Target+" "+e.Reason)
		}
		want := []string{
			"bob submission.approve submission/" + pending.ID + " reviewed the wiring",
			"alice submission.reject submission/" + rejected.ID + " superseded",
		}
		if diff := cmp.Diff(want, actions); diff != "" {
			t.Errorf("audit log, newest first (-want +got):\n%s", diff)
		}
	})
}

func TestConcurrentApprove(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		sub := h.submit(t, fixture.Clean("twice", "1.0.0"))
		deciders := []workflow.Actor{alice, bob, alice, bob}
		errs := make([]error, len(deciders))
		var wg sync.WaitGroup
		for i, a := range deciders {
			wg.Go(func() {
				if i%2 == 0 {
					_, errs[i] = h.svc.Approve(ctx, a, sub.ID, "")
				} else {
					_, errs[i] = h.svc.Reject(ctx, a, sub.ID, "no")
				}
			})
		}
		wg.Wait()
		ok := 0
		for i, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errorsIsConflict(err):
				t.Errorf("decider %d: %v, want success or a conflict", i, err)
			}
		}
		if ok != 1 {
			t.Fatalf("%d decisions succeeded, want exactly 1", ok)
		}
		s, err := h.store.Submission(ctx, sub.ID)
		if err != nil {
			t.Fatal(err)
		}
		log, _, _ := h.store.AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
		if len(log) != 1 || log[0].Actor != s.DecidedBy {
			t.Errorf("audit log = %+v; want one entry by %s", log, s.DecidedBy)
		}
	})
}

func TestSetVerified(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		sub := h.publish(t, warned("trusty", "1.0.0"))
		before, _ := h.report(t, sub.ID)

		refusals := []struct {
			name     string
			actor    workflow.Actor
			addon    string
			verified bool
			reason   string
			want     error
		}{
			{"unknown addon", alice, "nope", true, "", registry.ErrNotFound},
			{"malformed addon", alice, "Nope!", true, "", registry.ErrInvalid},
			{"submitter", sam, "trusty", true, "", registry.ErrForbidden},
			{"warn finding blocks the grant", alice, "trusty", true, "", registry.ErrConflict},
			{"revoke when not verified", alice, "trusty", false, "why not", registry.ErrConflict},
			{"revoke needs a reason", alice, "trusty", false, "", registry.ErrInvalid},
		}
		for _, tt := range refusals {
			t.Run(tt.name, func(t *testing.T) {
				_, err := h.svc.SetVerified(ctx, tt.actor, tt.addon, tt.verified, tt.reason)
				wantErr(t, "SetVerified", err, tt.want)
			})
		}
		_, err := h.svc.SetVerified(ctx, alice, "trusty", true, "")
		if err == nil || !strings.Contains(err.Error(), "unpinned") || !strings.Contains(err.Error(), "mcp.args[1]") {
			t.Errorf("blocked grant error = %v; want it to name the finding and its path", err)
		}

		if _, err := h.svc.Suppress(ctx, alice, "trusty", unpinnedSuppression()); err != nil {
			t.Fatal(err)
		}
		suppressed, _ := h.report(t, sub.ID)

		out, err := h.svc.SetVerified(ctx, alice, "trusty", true, "known maintainer")
		if err != nil {
			t.Fatal(err)
		}
		if !out.Pending || out.Approval == nil || out.Approval.Maintainer != "alice" || out.Addon.Verified {
			t.Errorf("first grant = %+v; want pending, approved by alice, not yet verified", out)
		}
		if r, _ := h.report(t, sub.ID); !bytes.Equal(r.Bytes, suppressed.Bytes) {
			t.Errorf("a pending grant changed the report")
		}
		_, err = h.svc.SetVerified(ctx, alice, "trusty", true, "me again")
		wantErr(t, "the same maintainer twice", err, registry.ErrConflict)

		out, err = h.svc.SetVerified(ctx, bob, "trusty", true, "agreed")
		if err != nil {
			t.Fatal(err)
		}
		if out.Pending || !out.Addon.Verified || !cmp.Equal(out.Addon.VerifiedBy, []string{"alice", "bob"}) {
			t.Errorf("second grant = %+v; want verified by alice and bob", out)
		}
		verified, dec := h.report(t, sub.ID)
		if dec.Tier != registry.TierVerified || bytes.Equal(verified.Bytes, suppressed.Bytes) || verified.SHA256 == suppressed.SHA256 {
			t.Errorf("after the grant: tier %s, bytes changed %v; want verified and new bytes", dec.Tier, !bytes.Equal(verified.Bytes, suppressed.Bytes))
		}
		if _, err := h.store.VerifyApproval(ctx, "trusty"); !errorsIsNotFound(err) {
			t.Errorf("VerifyApproval after the grant = %v; want not found", err)
		}
		_, err = h.svc.SetVerified(ctx, alice, "trusty", true, "")
		wantErr(t, "grant when verified", err, registry.ErrConflict)

		out, err = h.svc.SetVerified(ctx, bob, "trusty", false, "maintainer went quiet")
		if err != nil {
			t.Fatal(err)
		}
		if out.Addon.Verified || out.Addon.VerifiedBy != nil {
			t.Errorf("after revoke = %+v; want not verified", out.Addon)
		}
		revoked, dec := h.report(t, sub.ID)
		if dec.Tier != registry.TierCommunity || !bytes.Equal(revoked.Bytes, suppressed.Bytes) {
			t.Errorf("after revoke: tier %s; want community and the bytes of before the grant", dec.Tier)
		}
		if bytes.Equal(before.Bytes, suppressed.Bytes) {
			t.Errorf("suppressing did not change the report")
		}
		log, _, _ := h.store.AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
		var actions []string
		for _, e := range log {
			actions = append(actions, e.Actor+" "+e.Action)
		}
		want := []string{"bob addon.verify.revoke", "bob addon.verify.grant", "alice addon.verify.approve", "alice suppression.create", "alice submission.approve"}
		if diff := cmp.Diff(want, actions); diff != "" {
			t.Errorf("audit log (-want +got):\n%s", diff)
		}
	})
}

func TestRevokePendingApproval(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		h.publish(t, fixture.Clean("half", "1.0.0"))
		if out, err := h.svc.SetVerified(ctx, alice, "half", true, ""); err != nil || !out.Pending {
			t.Fatalf("first grant = %+v, %v", out, err)
		}
		if _, err := h.svc.SetVerified(ctx, bob, "half", false, "not so fast"); err != nil {
			t.Fatal(err)
		}
		// The approval is gone: bob's grant starts a new one instead of
		// completing alice's.
		out, err := h.svc.SetVerified(ctx, bob, "half", true, "")
		if err != nil || !out.Pending {
			t.Errorf("grant after revoke = %+v, %v; want a new pending approval", out, err)
		}
	})
}

func TestSuppress(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		sub := h.publish(t, warned("quiet", "1.0.0"))
		pendingSub := h.submit(t, warned("quiet", "1.1.0"))
		orig, dec := h.report(t, sub.ID)
		if dec.Verdict != registry.VerdictReview {
			t.Fatalf("verdict before = %s, want review", dec.Verdict)
		}
		past := start.Add(-time.Minute)
		refusals := []struct {
			name  string
			actor workflow.Actor
			addon string
			sp    registry.Suppression
			want  error
			paths []string
		}{
			{"submitter", sam, "quiet", unpinnedSuppression(), registry.ErrForbidden, nil},
			{"unknown addon", alice, "nope", unpinnedSuppression(), registry.ErrNotFound, nil},
			{"unknown code", alice, "quiet", registry.Suppression{Code: "no_such_rule", Reason: registry.ReasonMitigated}, registry.ErrInvalid, []string{"code"}},
			{"empty code", alice, "quiet", registry.Suppression{Reason: registry.ReasonMitigated}, registry.ErrInvalid, []string{"code"}},
			{"bad reason", alice, "quiet", registry.Suppression{Code: "unpinned", Reason: "because"}, registry.ErrInvalid, []string{"reason"}},
			{"path with a space", alice, "quiet", registry.Suppression{Code: "unpinned", Path: "mcp args", Reason: registry.ReasonMitigated}, registry.ErrInvalid, []string{"path"}},
			{"note with bidi", alice, "quiet", registry.Suppression{Code: "unpinned", Reason: registry.ReasonMitigated, Note: "fine\u202e"}, registry.ErrInvalid, []string{"note"}},
			{"expired already", alice, "quiet", registry.Suppression{Code: "unpinned", Reason: registry.ReasonMitigated, ExpiresAt: &past}, registry.ErrInvalid, []string{"expires_at"}},
			{"everything wrong", alice, "Q!", registry.Suppression{Code: "X", Reason: "", Note: "\x00"}, registry.ErrInvalid, []string{"addon", "code", "reason", "note"}},
		}
		for _, tt := range refusals {
			t.Run(tt.name, func(t *testing.T) {
				_, err := h.svc.Suppress(ctx, tt.actor, tt.addon, tt.sp)
				wantErr(t, "Suppress", err, tt.want)
				if tt.paths != nil {
					if diff := cmp.Diff(tt.paths, fieldPaths(err)); diff != "" {
						t.Errorf("field paths (-want +got):\n%s", diff)
					}
				}
			})
		}
		if r, _ := h.report(t, sub.ID); !bytes.Equal(r.Bytes, orig.Bytes) {
			t.Fatal("a refused suppression changed the report")
		}

		sp, err := h.svc.Suppress(ctx, alice, "quiet", unpinnedSuppression())
		if err != nil {
			t.Fatal(err)
		}
		if sp.ID == "" || sp.Author != "alice" || sp.Addon != "quiet" || !sp.CreatedAt.Equal(start) {
			t.Errorf("suppression = %+v", sp)
		}
		for _, id := range []string{sub.ID, pendingSub.ID} {
			r, dec := h.report(t, id)
			if bytes.Equal(r.Bytes, orig.Bytes) && id == sub.ID {
				t.Errorf("report of %s unchanged by the suppression", id)
			}
			if dec.Verdict != registry.VerdictPass || dec.Counts.Suppressed != 1 || dec.Findings[0].Suppressed == nil {
				t.Errorf("report of %s = verdict %s counts %+v; want pass with one suppressed", id, dec.Verdict, dec.Counts)
			}
			fs, _ := h.store.Findings(ctx, id)
			if len(fs) != 1 || !fs[0].Suppressed {
				t.Errorf("findings of %s = %+v; want one suppressed", id, fs)
			}
			s, _ := h.store.Submission(ctx, id)
			if s.Verdict != registry.VerdictPass || s.Risk != registry.LevelNone {
				t.Errorf("submission %s verdict %s risk %s; want pass, none", id, s.Verdict, s.Risk)
			}
		}
		if a, _ := h.store.Addon(ctx, "quiet"); a.LatestVerdict != registry.VerdictPass {
			t.Errorf("addon latest verdict = %s, want pass", a.LatestVerdict)
		}
		_, err = h.svc.Suppress(ctx, bob, "quiet", unpinnedSuppression())
		wantErr(t, "the same suppression twice", err, registry.ErrConflict)

		wantErr(t, "Unsuppress unknown", h.svc.Unsuppress(ctx, alice, "quiet", "sup_nope"), registry.ErrNotFound)
		wantErr(t, "Unsuppress by a submitter", h.svc.Unsuppress(ctx, sam, "quiet", sp.ID), registry.ErrForbidden)
		if err := h.svc.Unsuppress(ctx, bob, "quiet", sp.ID); err != nil {
			t.Fatal(err)
		}
		if r, _ := h.report(t, sub.ID); !bytes.Equal(r.Bytes, orig.Bytes) {
			t.Errorf("after Unsuppress the report differs from the original")
		}
		if s, _ := h.store.Submission(ctx, sub.ID); s.Verdict != registry.VerdictReview {
			t.Errorf("verdict after Unsuppress = %s, want review", s.Verdict)
		}
	})
}

func TestExpireSuppressions(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		sub := h.publish(t, warned("temp", "1.0.0"))
		h.publish(t, warned("lasting", "1.0.0"))
		orig, _ := h.report(t, sub.ID)
		sp := unpinnedSuppression()
		expiry := start.Add(time.Hour)
		sp.ExpiresAt = &expiry
		if _, err := h.svc.Suppress(ctx, alice, "temp", sp); err != nil {
			t.Fatal(err)
		}
		if _, err := h.svc.Suppress(ctx, alice, "lasting", unpinnedSuppression()); err != nil {
			t.Fatal(err)
		}
		suppressed, _ := h.report(t, sub.ID)

		steps := []struct {
			advance time.Duration
			want    int
			bytes   []byte
		}{
			{0, 0, suppressed.Bytes},
			{59 * time.Minute, 0, suppressed.Bytes},
			{time.Minute, 1, orig.Bytes}, // expiry is exclusive: at the instant it no longer applies
			{time.Hour, 0, orig.Bytes},
		}
		for i, st := range steps {
			h.clock.Advance(st.advance)
			n, err := h.svc.ExpireSuppressions(ctx)
			if err != nil || n != st.want {
				t.Fatalf("step %d: ExpireSuppressions = %d, %v; want %d", i, n, err, st.want)
			}
			if r, _ := h.report(t, sub.ID); !bytes.Equal(r.Bytes, st.bytes) {
				t.Errorf("step %d: report bytes are not the expected ones", i)
			}
		}
		// Two replicas sweeping at once: each expiry happens once.
		expiry2 := h.clock.Now().Add(time.Minute)
		sp.ExpiresAt = &expiry2
		if _, err := h.svc.Suppress(ctx, alice, "temp", sp); err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(time.Hour)
		other := workflow.New(h.store, workflow.Options{Now: h.clock.Now})
		counts := make([]int, 2)
		var wg sync.WaitGroup
		for i, svc := range []*workflow.Service{h.svc, other} {
			wg.Go(func() {
				var err error
				if counts[i], err = svc.ExpireSuppressions(ctx); err != nil {
					t.Errorf("replica %d: ExpireSuppressions: %v", i, err)
				}
			})
		}
		wg.Wait()
		if counts[0]+counts[1] != 1 {
			t.Errorf("replicas expired %v suppressions, want 1 in all", counts)
		}
		if r, _ := h.report(t, sub.ID); !bytes.Equal(r.Bytes, orig.Bytes) {
			t.Errorf("after the concurrent sweep the report is not the unsuppressed one")
		}
		if sps, _ := h.store.Suppressions(ctx, "temp"); len(sps) != 0 {
			t.Errorf("suppressions of temp after expiry = %+v, want none", sps)
		}
		if sps, _ := h.store.Suppressions(ctx, "lasting"); len(sps) != 1 {
			t.Errorf("suppressions of lasting = %+v, want one", sps)
		}
		log, _, _ := h.store.AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
		if len(log) == 0 || log[0].Action != "suppression.expire" || log[0].Actor != workflow.SystemActor {
			t.Errorf("newest audit entry = %+v; want suppression.expire by %s", log[0], workflow.SystemActor)
		}
	})
}

func TestRemove(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		sub := h.publish(t, fixture.Clean("gone", "1.0.0"))
		next := h.submit(t, fixture.Clean("gone", "1.1.0"))
		if _, err := h.svc.SetVerified(ctx, alice, "gone", true, ""); err != nil {
			t.Fatal(err)
		}
		wantErr(t, "Remove by a submitter", h.svc.Remove(ctx, sam, "gone", "x"), registry.ErrForbidden)
		wantErr(t, "Remove without a reason", h.svc.Remove(ctx, alice, "gone", ""), registry.ErrInvalid)
		wantErr(t, "Remove unknown", h.svc.Remove(ctx, alice, "nope", "x"), registry.ErrNotFound)
		if err := h.svc.Remove(ctx, alice, "gone", "malware reported"); err != nil {
			t.Fatal(err)
		}
		wantErr(t, "Remove twice", h.svc.Remove(ctx, alice, "gone", "again"), registry.ErrConflict)
		for _, id := range []string{sub.ID, next.ID} {
			if _, dec := h.report(t, id); !dec.Removed || dec.Verdict != registry.VerdictFail {
				t.Errorf("report of %s: removed %v verdict %s; want removed, fail", id, dec.Removed, dec.Verdict)
			}
		}
		if _, err := h.store.VerifyApproval(ctx, "gone"); !errorsIsNotFound(err) {
			t.Errorf("pending approval survived removal: %v", err)
		}
		_, err := h.svc.Approve(ctx, alice, next.ID, "")
		wantErr(t, "Approve for a removed addon", err, registry.ErrConflict)
		_, err = h.svc.SetVerified(ctx, bob, "gone", true, "")
		wantErr(t, "grant on a removed addon", err, registry.ErrConflict)
		// A new submission renders as removed too.
		sub3, rep, _, err := h.svc.Submit(ctx, sam, fixture.Clean("gone", "2.0.0"), workflow.FormatTOML, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, dec := h.report(t, sub3.ID); !dec.Removed || len(rep.Bytes) == 0 {
			t.Errorf("a new submission of a removed addon is not marked removed")
		}
	})
}

func TestTokens(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		for _, tt := range []struct {
			name  string
			tname string
			role  registry.Role
			paths []string
		}{
			{"empty name", "", registry.RoleAdmin, []string{"name"}},
			{"name with space", "a b", registry.RoleAdmin, []string{"name"}},
			{"name with escape", "a\x1b", registry.RoleAdmin, []string{"name"}},
			{"name too long", strings.Repeat("a", workflow.MaxTokenNameBytes+1), registry.RoleAdmin, []string{"name"}},
			{"unknown role", "ok", "root", []string{"role"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, _, err := h.svc.CreateToken(ctx, tt.tname, tt.role)
				wantErr(t, "CreateToken", err, registry.ErrInvalid)
				if diff := cmp.Diff(tt.paths, fieldPaths(err)); diff != "" {
					t.Errorf("field paths (-want +got):\n%s", diff)
				}
			})
		}
		secret, tok, err := h.svc.CreateToken(ctx, "carol@example", registry.RoleMaintainer)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, workflow.TokenPrefix) || bytes.Contains(tok.Hash, []byte(secret)) || len(tok.Hash) != 32 {
			t.Errorf("secret %q / hash %x: want a prefixed secret and its 32-byte hash", secret[:6], tok.Hash)
		}
		a, err := h.svc.Authenticate(ctx, secret)
		if diff := cmp.Diff(workflow.Actor{Name: "carol@example", TokenID: tok.ID, Role: registry.RoleMaintainer, Principal: tok.Principal.ID}, a); err != nil || diff != "" || tok.Principal.ID == "" {
			t.Errorf("Authenticate = %v (-want +got):\n%s", err, diff)
		}
		for _, bad := range []string{"", "rgd_", secret + "x", strings.ToUpper(secret), "Bearer " + secret, workflow.TokenPrefix + strings.Repeat("A", 43)} {
			if _, err := h.svc.Authenticate(ctx, bad); !errorsIsUnauthenticated(err) {
				t.Errorf("Authenticate(%.10q…) = %v, want unauthenticated", bad, err)
			}
		}
		wantErr(t, "RevokeToken unknown", h.svc.RevokeToken(ctx, "tok_nope"), registry.ErrNotFound)
		if err := h.svc.RevokeToken(ctx, tok.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := h.svc.Authenticate(ctx, secret); !errorsIsUnauthenticated(err) {
			t.Errorf("Authenticate after revoke = %v, want unauthenticated", err)
		}
		toks, err := h.store.Tokens(ctx)
		if err != nil || len(toks) != 1 || toks[0].RevokedAt == nil {
			t.Errorf("Tokens = %+v, %v; want one revoked", toks, err)
		}
	})
}

// TestApproveWritesReportOnce: approving a pending submission renders its
// report anew and stores it once, signed — not stored and then written
// again with its envelope. A trigger the test adds counts the writes to
// the report's row.
func TestApproveWritesReportOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		exec := countReportWrites(t, h.store)
		sub := h.submit(t, warned("counted", "1.0.0"))
		writes := func() int {
			t.Helper()
			var n int
			if err := exec(`SELECT count(*) FROM report_writes WHERE submission_id = '` + sub.ID + `'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := writes()
		if _, err := h.svc.Approve(ctx, alice, sub.ID, "fine"); err != nil {
			t.Fatal(err)
		}
		if n := writes() - before; n != 1 {
			t.Errorf("approving wrote the report's row %d times, want once", n)
		}
		env, err := h.store.PublishedEnvelope(ctx, "counted", "1.0.0")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := h.store.Report(ctx, sub.ID)
		if err != nil {
			t.Fatal(err)
		}
		payload, _, err := transparency.OpenEnvelope(env.Bytes, h.store.SigningKeys()...)
		if err != nil || !bytes.Equal(payload, rep.Bytes) {
			t.Errorf("the envelope does not sign the stored report (%v)", err)
		}
		p, err := h.store.InclusionProof(ctx, "counted", "1.0.0")
		if err != nil {
			t.Fatal(err)
		}
		if want := (transparency.Leaf{Addon: "counted", Version: "1.0.0", ManifestSHA256: sub.ManifestSHA256, ReportSHA256: rep.SHA256}).Marshal(); !bytes.Equal(p.Leaf, want) {
			t.Errorf("the logged leaf is\n%s\nwant\n%s", p.Leaf, want)
		}
	})
}

// countReportWrites adds to s's database a table report_writes and a
// trigger that adds a row to it for every row written to reports
// (inserted or updated), and returns a way to query that database.
func countReportWrites(t *testing.T, s storage.Store) func(q string) interface{ Scan(...any) error } {
	t.Helper()
	ctx := context.Background()
	switch db := s.(type) {
	case interface{ DB() *sql.DB }:
		for _, q := range []string{
			`CREATE TABLE report_writes (submission_id TEXT)`,
			`CREATE TRIGGER report_writes_insert AFTER INSERT ON reports BEGIN INSERT INTO report_writes VALUES (NEW.submission_id); END`,
			`CREATE TRIGGER report_writes_update AFTER UPDATE ON reports BEGIN INSERT INTO report_writes VALUES (NEW.submission_id); END`,
		} {
			if _, err := db.DB().ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		return func(q string) interface{ Scan(...any) error } { return db.DB().QueryRowContext(ctx, q) }
	case interface{ Pool() *pgxpool.Pool }:
		for _, q := range []string{
			`CREATE TABLE report_writes (submission_id text)`,
			`CREATE FUNCTION report_write() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN INSERT INTO report_writes VALUES (NEW.submission_id); RETURN NULL; END $$`,
			`CREATE TRIGGER report_writes AFTER INSERT OR UPDATE ON reports FOR EACH ROW EXECUTE FUNCTION report_write()`,
		} {
			if _, err := db.Pool().Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		return func(q string) interface{ Scan(...any) error } { return db.Pool().QueryRow(ctx, q) }
	}
	t.Fatalf("a store of type %T is neither SQLite nor PostgreSQL", s)
	return nil
}
