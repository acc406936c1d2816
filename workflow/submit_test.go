package workflow_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

func TestSubmitRefusals(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		gh := &registry.GitHubOrigin{Repo: "acme/addons", PR: 7, CommitID: "0123abc", Path: "x/lean-ctx-addon.toml", Author: "octo"}
		tests := []struct {
			name      string
			actor     workflow.Actor
			manifest  []byte
			format    workflow.Format
			origin    *registry.GitHubOrigin
			want      error
			wantPaths []string
		}{
			{"typo key", sam, bytes.Replace(fixture.Clean("a", "1.0.0"), []byte("command"), []byte("comand"), 1), workflow.FormatTOML, nil, registry.ErrInvalid, []string{"mcp.comand"}},
			{"not toml", sam, []byte("[addon\nname="), workflow.FormatTOML, nil, registry.ErrInvalid, nil},
			{"json given as toml", sam, []byte(`{"addon":{"name":"a","version":"1.0.0"}}`), workflow.FormatTOML, nil, registry.ErrInvalid, nil},
			{"unknown format", sam, fixture.Clean("a", "1.0.0"), workflow.Format("yaml"), nil, registry.ErrInvalid, []string{"format"}},
			{"too large", sam, bytes.Repeat([]byte("#"), addon.MaxManifestBytes+1), workflow.FormatTOML, nil, registry.ErrTooLarge, nil},
			{"bidi in a field", sam, bytes.Replace(fixture.Clean("a", "1.0.0"), []byte("A pinned"), []byte("A \u202epinned"), 1), workflow.FormatTOML, nil, registry.ErrInvalid, []string{"addon.description"}},
			{"no actor", workflow.Actor{}, fixture.Clean("a", "1.0.0"), workflow.FormatTOML, nil, registry.ErrUnauthenticated, nil},
			{"no role", workflow.Actor{Name: "x"}, fixture.Clean("a", "1.0.0"), workflow.FormatTOML, nil, registry.ErrForbidden, nil},
			{"github origin without login", workflow.Actor{}, fixture.Clean("a", "1.0.0"), workflow.FormatTOML, gh, registry.ErrUnauthenticated, nil},
			{"github origin with control in repo", workflow.Actor{Name: "octo"}, fixture.Clean("a", "1.0.0"), workflow.FormatTOML,
				&registry.GitHubOrigin{Repo: "acme/\x1b[31maddons"}, registry.ErrInvalid, []string{"github.repo"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, _, created, err := h.svc.Submit(ctx, tt.actor, tt.manifest, tt.format, tt.origin)
				wantErr(t, "Submit", err, tt.want)
				if created {
					t.Errorf("created = true on a refusal")
				}
				if tt.wantPaths != nil {
					if diff := cmp.Diff(tt.wantPaths, fieldPaths(err)); diff != "" {
						t.Errorf("field paths (-want +got):\n%s", diff)
					}
				}
				if strings.ContainsAny(err.Error(), "\x1b\u202e") {
					t.Errorf("error echoes an unsafe character: %q", err.Error())
				}
			})
		}
		subs, _, err := h.store.Submissions(ctx, storage.SubmissionFilter{}, storage.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if len(subs) != 0 {
			t.Errorf("refused submissions stored %d rows, want 0", len(subs))
		}
	})
}

func TestSubmit(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		m := warned("demo", "1.0.0")
		sub, rep, created, err := h.svc.Submit(ctx, sam, m, workflow.FormatTOML, nil)
		if err != nil || !created {
			t.Fatalf("Submit = created %v, err %v; want created", created, err)
		}
		want := registry.Submission{
			ID: sub.ID, Addon: "demo", Version: "1.0.0", Manifest: m, ManifestSHA256: sub.ManifestSHA256, Format: "toml",
			Source: registry.SourceREST, Submitter: "sam", SubmitterToken: "tok_sam", Status: registry.StatusPending,
			Verdict: registry.VerdictReview, Risk: registry.LevelWarn, WiringSHA256: wiringOf(t, m),
			CreatedAt: start, UpdatedAt: start,
		}
		if diff := cmp.Diff(want, sub); diff != "" {
			t.Errorf("submission (-want +got):\n%s", diff)
		}
		stored, err := h.store.Submission(ctx, sub.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, stored); diff != "" {
			t.Errorf("stored submission (-want +got):\n%s", diff)
		}
		got, dec := h.report(t, sub.ID)
		if !bytes.Equal(got.Bytes, rep.Bytes) || got.SHA256 != rep.SHA256 {
			t.Errorf("stored report differs from the returned one")
		}
		if dec.Verdict != registry.VerdictReview || dec.Tier != registry.TierCommunity || len(dec.Findings) != 1 || dec.Findings[0].Code != "unpinned" {
			t.Errorf("report = verdict %s tier %s findings %+v; want review, community, one unpinned", dec.Verdict, dec.Tier, dec.Findings)
		}
		fs, err := h.store.Findings(ctx, sub.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 1 || fs[0].Code != "unpinned" || fs[0].Path != "mcp.args[1]" || fs[0].Line == 0 || fs[0].Suppressed {
			t.Errorf("findings = %+v; want one counted unpinned at mcp.args[1] with its line", fs)
		}

		// The same bytes again while pending: the same submission, nothing new.
		again, rep2, created, err := h.svc.Submit(ctx, sam, m, workflow.FormatTOML, nil)
		if err != nil || created || again.ID != sub.ID || !bytes.Equal(rep2.Bytes, rep.Bytes) {
			t.Errorf("resubmit pending = id %s created %v err %v; want id %s, not created", again.ID, created, err, sub.ID)
		}

		// Another submitter's identical bytes are queued on their own: a
		// pending submission is shown only to its submitter.
		eve := workflow.Actor{Name: "eve", TokenID: "tok_eve", Role: registry.RoleSubmitter}
		evesSub, _, created, err := h.svc.Submit(ctx, eve, m, workflow.FormatTOML, nil)
		if err != nil || !created || evesSub.ID == sub.ID || evesSub.Submitter != "eve" {
			t.Errorf("identical bytes by another submitter = %s by %s, created %v, err %v; want a new submission", evesSub.ID, evesSub.Submitter, created, err)
		}
		if _, err := h.svc.Reject(ctx, alice, evesSub.ID, "duplicate"); err != nil {
			t.Fatal(err)
		}

		// Published: identical bytes give the published submission back,
		// other bytes conflict.
		if _, err := h.svc.Approve(ctx, alice, sub.ID, ""); err != nil {
			t.Fatal(err)
		}
		again, rep2, created, err = h.svc.Submit(ctx, eve, m, workflow.FormatTOML, nil)
		if err != nil || created || again.ID != sub.ID || again.Status != registry.StatusApproved || !bytes.Equal(rep2.Bytes, rep.Bytes) {
			t.Errorf("resubmit published = id %s status %s created %v err %v; want %s approved, not created", again.ID, again.Status, created, err, sub.ID)
		}
		_, _, created, err = h.svc.Submit(ctx, sam, fixture.Clean("demo", "1.0.0"), workflow.FormatTOML, nil)
		wantErr(t, "Submit(other bytes, published version)", err, registry.ErrConflict)
		if created {
			t.Error("created = true on a conflict")
		}
		subs, _, err := h.store.Submissions(ctx, storage.SubmissionFilter{}, storage.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if len(subs) != 2 {
			t.Errorf("%d submissions stored, want 2 (sam's and eve's)", len(subs))
		}
	})
}

func TestSubmitJSONAndGitHub(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		m := []byte(`{"addon":{"name":"jsonic","version":"0.1.0"},"mcp":{"command":"/opt/jsonic","sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}}`)
		gh := &registry.GitHubOrigin{Repo: "acme/addons", PR: 12, CommitID: "0123456789abcdef0123456789abcdef01234567", Path: "jsonic/lean-ctx-addon.json", Author: "octo"}
		sub, _, created, err := h.svc.Submit(ctx, workflow.Actor{Name: "octo"}, m, workflow.FormatJSON, gh)
		if err != nil || !created {
			t.Fatalf("Submit = %v, created %v", err, created)
		}
		stored, err := h.store.Submission(ctx, sub.ID)
		if err != nil {
			t.Fatal(err)
		}
		if stored.Source != registry.SourceGitHub || stored.Format != "json" || stored.SubmitterToken != "" {
			t.Errorf("stored = source %s format %s token %q; want github, json, no token", stored.Source, stored.Format, stored.SubmitterToken)
		}
		if diff := cmp.Diff(gh, stored.GitHub); diff != "" {
			t.Errorf("GitHub origin (-want +got):\n%s", diff)
		}
	})
}

func TestPublish(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		gh := &registry.GitHubOrigin{Repo: "acme/addons", CommitID: "feedface", Path: "pushed/lean-ctx-addon.toml", Author: "octo"}
		pusher := workflow.Actor{Name: "octo"}
		m := fixture.Clean("pushed", "2.0.0")

		_, _, err := h.svc.Publish(ctx, sam, m, workflow.FormatTOML, nil)
		wantErr(t, "Publish by a submitter", err, registry.ErrForbidden)

		sub, rep, err := h.svc.Publish(ctx, pusher, m, workflow.FormatTOML, gh)
		if err != nil {
			t.Fatal(err)
		}
		if sub.Status != registry.StatusApproved || sub.DecidedBy != "octo" || sub.DecidedAt == nil {
			t.Errorf("published submission = %+v; want approved by octo", sub)
		}
		pub, err := h.store.PublishedReport(ctx, "pushed", "")
		if err != nil || !bytes.Equal(pub.Bytes, rep.Bytes) {
			t.Errorf("PublishedReport = %v; want the published report", err)
		}
		a, err := h.store.Addon(ctx, "pushed")
		if err != nil || a.LatestVersion != "2.0.0" || a.LatestVerdict != registry.VerdictPass {
			t.Errorf("addon = %+v, %v; want latest 2.0.0 pass", a, err)
		}
		again, _, err := h.svc.Publish(ctx, pusher, m, workflow.FormatTOML, gh)
		if err != nil || again.ID != sub.ID {
			t.Errorf("re-publish = %s, %v; want %s", again.ID, err, sub.ID)
		}
		_, _, err = h.svc.Publish(ctx, pusher, warned("pushed", "2.0.0"), workflow.FormatTOML, gh)
		wantErr(t, "Publish(other bytes)", err, registry.ErrConflict)

		// An older version published later does not become the latest.
		if _, _, err := h.svc.Publish(ctx, alice, fixture.Clean("pushed", "1.9.9"), workflow.FormatTOML, nil); err != nil {
			t.Fatal(err)
		}
		if a, _ := h.store.Addon(ctx, "pushed"); a.LatestVersion != "2.0.0" {
			t.Errorf("latest after publishing 1.9.9 = %s, want 2.0.0", a.LatestVersion)
		}
		log, _, err := h.store.AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
		if err != nil {
			t.Fatal(err)
		}
		if len(log) != 2 || log[0].Action != "submission.publish" || log[1].Actor != "octo" {
			t.Errorf("audit log = %+v; want two submission.publish entries, the first by octo", log)
		}
		// The merged pull request's pending submission is the one published.
		prOrigin := &registry.GitHubOrigin{Repo: "acme/addons", PR: 9, CommitID: "abc123", Path: "merged/lean-ctx-addon.toml", Author: "octo"}
		prSub, _, _, err := h.svc.Submit(ctx, workflow.Actor{Name: "octo"}, fixture.Clean("merged", "1.0.0"), workflow.FormatTOML, prOrigin)
		if err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(time.Minute)
		merged, _, err := h.svc.Publish(ctx, workflow.Actor{Name: "merger"}, fixture.Clean("merged", "1.0.0"), workflow.FormatTOML, gh)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := h.store.Submission(ctx, prSub.ID)
		if err != nil {
			t.Fatal(err)
		}
		if merged.ID != prSub.ID || stored.Status != registry.StatusApproved || stored.DecidedBy != "merger" || stored.Submitter != "octo" || stored.GitHub == nil || stored.GitHub.PR != 9 {
			t.Errorf("publish after the PR = %s, stored %+v; want %s approved by merger, still octo's PR 9", merged.ID, stored, prSub.ID)
		}
		pending, _, err := h.store.Submissions(ctx, storage.SubmissionFilter{Addon: "merged", Status: registry.StatusPending}, storage.Page{})
		if err != nil || len(pending) != 0 {
			t.Errorf("pending submissions of merged = %d, %v; want none", len(pending), err)
		}
		if v, err := h.store.PublishedReport(ctx, "merged", "1.0.0"); err != nil || v.SubmissionID != prSub.ID {
			t.Errorf("published report of merged@1.0.0 = %+v, %v; want %s's", v.SubmissionID, err, prSub.ID)
		}

		if err := h.svc.Remove(ctx, alice, "pushed", "withdrawn"); err != nil {
			t.Fatal(err)
		}
		_, _, err = h.svc.Publish(ctx, pusher, fixture.Clean("pushed", "3.0.0"), workflow.FormatTOML, gh)
		wantErr(t, "Publish to a removed addon", err, registry.ErrConflict)
	})
}

func TestConcurrentSubmitSameVersion(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		manifests := [][]byte{fixture.Clean("race", "1.0.0"), warned("race", "1.0.0")}
		subs := make([]registry.Submission, len(manifests))
		errs := make([]error, len(manifests))
		var wg sync.WaitGroup
		for i, m := range manifests {
			wg.Go(func() { subs[i], _, _, errs[i] = h.svc.Submit(ctx, sam, m, workflow.FormatTOML, nil) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("Submit %d: %v", i, err)
			}
		}
		if subs[0].ID == subs[1].ID || subs[0].ManifestSHA256 == subs[1].ManifestSHA256 {
			t.Fatalf("two different manifests share a submission: %s", subs[0].ID)
		}
		// Both wait in the queue; approving them at once publishes exactly
		// one, and name@version is then immutable.
		errs = make([]error, len(subs))
		for i, s := range subs {
			wg.Go(func() { _, errs[i] = h.svc.Approve(ctx, alice, s.ID, "") })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errorsIsConflict(err):
				t.Errorf("Approve: %v, want success or a conflict", err)
			}
		}
		if ok != 1 {
			t.Errorf("%d approvals of race@1.0.0 succeeded, want exactly 1", ok)
		}
	})
}
