// Package storetest is the conformance suite every storage.Store
// implementation must pass. Each backend's tests call Run with a function
// that opens a fresh, migrated, empty store.
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// NewStore opens a fresh, migrated, empty store for t and closes it when t
// ends (t.Cleanup).
type NewStore func(t *testing.T) storage.Store

// Run runs every conformance test against stores made by newStore. The
// subtests run in parallel, each on its own store.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		fn   func(*testing.T, storage.Store)
	}{
		{"Migrated", testMigrated},
		{"SubmissionRoundTrip", testSubmissionRoundTrip},
		{"SubmissionErrors", testSubmissionErrors},
		{"UpdateSubmission", testUpdateSubmission},
		{"SubmissionsPaging", testSubmissionsPaging},
		{"SubmissionsFilter", testSubmissionsFilter},
		{"SubmissionOrders", testSubmissionOrders},
		{"ReviewQueue", testReviewQueue},
		{"SubmissionsOfAddon", testSubmissionsOfAddon},
		{"Reports", testReports},
		{"ReportErrors", testReportErrors},
		{"ClaimStaleReports", testClaimStaleReports},
		{"MarkReportsStale", testMarkReportsStale},
		{"PutReports", testPutReports},
		{"SetVerdicts", testSetVerdicts},
		{"LogPutReports", testLogPutReports},
		{"Addons", testAddons},
		{"AddonsFilterAndPaging", testAddonsFilterAndPaging},
		{"AddonOrderAndCount", testAddonOrderAndCount},
		{"AddonSearch", testAddonSearch},
		{"AddonSearchCursor", testAddonSearchCursor},
		{"AddonSearchMany", testAddonSearchMany},
		{"Versions", testVersions},
		{"PublishedReport", testPublishedReport},
		{"PublishedReportDigest", testPublishedReportDigest},
		{"VersionByManifest", testVersionByManifest},
		{"ReadCacheFresh", testReadCacheFresh},
		{"Suppressions", testSuppressions},
		{"VerifyApproval", testVerifyApproval},
		{"AuditLog", testAuditLog},
		{"AuditLogFilter", testAuditLogFilter},
		{"Tokens", testTokens},
		{"Principals", testPrincipals},
		{"VersionKeys", testVersionKeys},
		{"Deliveries", testDeliveries},
		{"MalformedCursor", testMalformedCursor},
		{"InTxRollback", testInTxRollback},
		{"ConcurrentDeciders", testConcurrentDeciders},
		{"ConcurrentRedelivery", testConcurrentRedelivery},
		{"Jobs", testJobs},
		{"UpstreamSubmissions", testUpstreamSubmissions},
		{"UpstreamBindings", testUpstreamBindings},
		{"UpstreamSync", testUpstreamSync},
		{"PublishedServers", testPublishedServers},
		{"Gauges", testGauges},
		{"LogAppend", testLogAppend},
		{"LogRerender", testLogRerender},
		{"LogVersionFirst", testLogVersionFirst},
		{"LogConcurrent", testLogConcurrent},
		{"ConsistencyErrors", testConsistencyErrors},
		{"RefreshCheckpoint", testRefreshCheckpoint},
		{"CheckpointSoon", testCheckpointSoon},
		{"CheckpointBehind", testCheckpointBehind},
		{"LogTiles", testLogTiles},
		{"Lock", testLock},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// base has nanoseconds and a non-UTC zone on purpose: stores return UTC
// truncated to the microsecond.
var base = time.Date(2026, 11, 30, 1, 2, 3, 456789123, time.FixedZone("UTC+1", 3600))

func at(i int) time.Time { return base.Add(time.Duration(i) * time.Minute) }

// stored is what a store hands back for t.
func stored(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func storedPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := stored(*t)
	return &v
}

func ptr[T any](v T) *T { return &v }

// opts compares entities: empty and nil slices are the same.
var opts = cmp.Options{cmpopts.EquateEmpty()}

func inTx(t *testing.T, s storage.Store, fn func(tx storage.Tx) error) {
	t.Helper()
	if err := s.InTx(context.Background(), fn); err != nil {
		t.Fatalf("InTx: %v", err)
	}
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want one wrapping %v", what, err, target)
	}
}

func submission(id, addon, version string, i int) registry.Submission {
	manifest := []byte(fmt.Sprintf("[addon]\nname = %q\nversion = %q\n", addon, version))
	sum := sha256.Sum256(manifest)
	return registry.Submission{
		ID: id, Addon: addon, Version: version, Manifest: manifest,
		ManifestSHA256: hex.EncodeToString(sum[:]), Format: "toml",
		Source: registry.SourceREST, Submitter: "alice", SubmitterToken: "tok_alice", SubmitterPrincipal: "prn_alice",
		Status: registry.StatusPending, Verdict: registry.VerdictReview, Risk: registry.LevelWarn,
		WiringSHA256: wiring(addon + "@" + version),
		CreatedAt:    at(i), UpdatedAt: at(i),
	}
}

// wiring returns a wiring digest named after s.
func wiring(s string) string {
	sum := sha256.Sum256([]byte("wiring " + s))
	return hex.EncodeToString(sum[:])
}

// normSubmission is s as a store returns it.
func normSubmission(s registry.Submission) registry.Submission {
	s.CreatedAt, s.UpdatedAt, s.DecidedAt = stored(s.CreatedAt), stored(s.UpdatedAt), storedPtr(s.DecidedAt)
	return s
}

func report(submissionID, ruleset string, body string) registry.Report {
	sum := sha256.Sum256([]byte(body))
	return registry.Report{SubmissionID: submissionID, Bytes: []byte(body), SHA256: hex.EncodeToString(sum[:]), Ruleset: ruleset}
}

func testMigrated(t *testing.T, s storage.Store) {
	ctx := context.Background()
	ok, err := s.Migrated(ctx)
	if err != nil || !ok {
		t.Errorf("Migrated() = %v, %v; want true, nil", ok, err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping() = %v", err)
	}
}

func testSubmissionRoundTrip(t *testing.T, s storage.Store) {
	ctx := context.Background()
	plain := submission("sub_plain", "alpha", "1.0.0", 0)
	// Bytes that are not valid UTF-8 and a NUL must come back exactly.
	plain.Manifest = []byte{0x00, 0xff, 0xfe, '\n', 'x', 0xc3, 0x28}
	fromGitHub := submission("sub_gh", "alpha", "1.1.0", 1)
	fromGitHub.Source = registry.SourceGitHub
	fromGitHub.SubmitterToken = ""
	fromGitHub.GitHub = &registry.GitHubOrigin{Repo: "org/registry", PR: 42, CommitID: "0123abcd", Path: "addons/alpha.toml", Author: "bob"}
	fromGitHub.Format = "json"
	decided := submission("sub_decided", "beta", "2.0.0", 2)
	decided.Status = registry.StatusRejected
	decided.Verdict = registry.VerdictFail
	decided.Risk = registry.LevelDanger
	decided.DecidedBy = "carol"
	decided.DecidedAt = ptr(at(3))
	decided.DecisionReason = "fetches and runs a script"
	emptyOrigin := submission("sub_empty_origin", "gamma", "0.1.0", 4)
	emptyOrigin.GitHub = &registry.GitHubOrigin{}
	emptyOrigin.Risk = registry.LevelNone
	emptyOrigin.Verdict = registry.VerdictPass

	all := []registry.Submission{plain, fromGitHub, decided, emptyOrigin}
	inTx(t, s, func(tx storage.Tx) error {
		for _, sub := range all {
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return err
			}
		}
		return nil
	})
	for _, want := range all {
		t.Run(want.ID, func(t *testing.T) {
			want := normSubmission(want)
			got, err := s.Submission(ctx, want.ID)
			if err != nil {
				t.Fatalf("Submission(%q): %v", want.ID, err)
			}
			if diff := cmp.Diff(want, got, opts); diff != "" {
				t.Errorf("Submission(%q) mismatch (-want +got):\n%s", want.ID, diff)
			}
			if got.CreatedAt.Location() != time.UTC {
				t.Errorf("CreatedAt location = %v, want UTC", got.CreatedAt.Location())
			}
			var inside registry.Submission
			inTx(t, s, func(tx storage.Tx) error {
				var err error
				inside, err = tx.Submission(ctx, want.ID)
				return err
			})
			if diff := cmp.Diff(want, inside, opts); diff != "" {
				t.Errorf("Tx.Submission(%q) mismatch (-want +got):\n%s", want.ID, diff)
			}
		})
	}
}

func testSubmissionErrors(t *testing.T, s storage.Store) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error { return tx.CreateSubmission(ctx, submission("sub_1", "alpha", "1.0.0", 0)) })

	_, err := s.Submission(ctx, "sub_missing")
	wantErr(t, "Submission(missing)", err, registry.ErrNotFound)
	err = s.InTx(ctx, func(tx storage.Tx) error {
		_, err := tx.Submission(ctx, "sub_missing")
		return err
	})
	wantErr(t, "Tx.Submission(missing)", err, registry.ErrNotFound)

	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.CreateSubmission(ctx, submission("sub_1", "other", "9.9.9", 5)) })
	wantErr(t, "CreateSubmission(duplicate id)", err, registry.ErrConflict)

	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.CreateSubmission(ctx, submission("", "alpha", "1.0.0", 0)) })
	wantErr(t, "CreateSubmission(empty id)", err, registry.ErrInvalid)

	got, err := s.Submission(ctx, "sub_1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Addon != "alpha" {
		t.Errorf("after a refused duplicate, Addon = %q, want %q", got.Addon, "alpha")
	}
}

func testUpdateSubmission(t *testing.T, s storage.Store) {
	ctx := context.Background()
	sub := submission("sub_1", "alpha", "1.0.0", 0)
	sub.GitHub = &registry.GitHubOrigin{Repo: "o/r", PR: 7}
	inTx(t, s, func(tx storage.Tx) error { return tx.CreateSubmission(ctx, sub) })

	upd := sub
	upd.Status = registry.StatusApproved
	upd.Verdict = registry.VerdictPass
	upd.Risk = registry.LevelInfo
	upd.DecidedBy = "carol"
	upd.DecidedAt = ptr(at(10))
	upd.DecisionReason = "looks fine"
	upd.UpdatedAt = at(10)
	upd.WiringSHA256 = wiring("filled in by a re-assessment")
	// Fields UpdateSubmission does not write stay as they were.
	changed := upd
	changed.Addon, changed.Manifest, changed.GitHub = "renamed", []byte("other"), nil
	inTx(t, s, func(tx storage.Tx) error { return tx.UpdateSubmission(ctx, changed) })

	got, err := s.Submission(ctx, "sub_1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(normSubmission(upd), got, opts); diff != "" {
		t.Errorf("after UpdateSubmission (-want +got):\n%s", diff)
	}

	// Clearing the decision writes NULL back.
	upd.DecidedAt = nil
	inTx(t, s, func(tx storage.Tx) error { return tx.UpdateSubmission(ctx, upd) })
	got, err = s.Submission(ctx, "sub_1")
	if err != nil {
		t.Fatal(err)
	}
	if got.DecidedAt != nil {
		t.Errorf("DecidedAt = %v, want nil", got.DecidedAt)
	}

	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.UpdateSubmission(ctx, submission("sub_missing", "a", "1", 0)) })
	wantErr(t, "UpdateSubmission(missing)", err, registry.ErrNotFound)
}

func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

func subID(s registry.Submission) string { return s.ID }

func testSubmissionsPaging(t *testing.T, s storage.Store) {
	ctx := context.Background()
	var want []string
	inTx(t, s, func(tx storage.Tx) error {
		// Created out of order; listed oldest first. Two share a time,
		// so the ID breaks the tie.
		for _, i := range []int{4, 1, 6, 0, 3, 5, 2} {
			sub := submission(fmt.Sprintf("sub_%d", i), "alpha", fmt.Sprintf("1.0.%d", i), min(i, 5))
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return err
			}
		}
		return nil
	})
	for i := range 7 {
		want = append(want, fmt.Sprintf("sub_%d", i))
	}

	var got []string
	var sizes []int
	cursor := ""
	for range 10 {
		page, next, err := s.Submissions(ctx, storage.SubmissionFilter{}, storage.Page{Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatalf("Submissions(cursor %q): %v", cursor, err)
		}
		got = append(got, ids(page, subID)...)
		sizes = append(sizes, len(page))
		if next == "" {
			break
		}
		cursor = next
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages of 3 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{3, 3, 1}, sizes); diff != "" {
		t.Errorf("page sizes (-want +got):\n%s", diff)
	}

	// Exactly one full page: no next cursor.
	page, next, err := s.Submissions(ctx, storage.SubmissionFilter{}, storage.Page{Limit: 7})
	if err != nil || len(page) != 7 || next != "" {
		t.Errorf("Limit 7 over 7 items: got %d items, next %q, err %v; want 7, \"\", nil", len(page), next, err)
	}
	// Zero limit means the default, which covers all 7.
	page, _, err = s.Submissions(ctx, storage.SubmissionFilter{}, storage.Page{})
	if err != nil || len(page) != 7 {
		t.Errorf("Limit 0: got %d items, err %v; want 7", len(page), err)
	}
	// Over the maximum is clamped, not refused.
	if _, _, err := s.Submissions(ctx, storage.SubmissionFilter{}, storage.Page{Limit: storage.MaxLimit + 1000}); err != nil {
		t.Errorf("Limit over MaxLimit: %v", err)
	}
}

func testSubmissionsFilter(t *testing.T, s storage.Store) {
	ctx := context.Background()
	a := submission("sub_a", "alpha", "1.0.0", 0)
	b := submission("sub_b", "alpha", "1.1.0", 1)
	b.Status, b.Verdict = registry.StatusApproved, registry.VerdictPass
	c := submission("sub_c", "beta", "1.0.0", 2)
	c.Source, c.SubmitterToken, c.Submitter = registry.SourceGitHub, "", "bob"
	c.GitHub = &registry.GitHubOrigin{Repo: "o/r", PR: 1}
	d := submission("sub_d", "beta", "1.1.0", 3)
	d.SubmitterToken = "tok_other"
	d.Verdict = registry.VerdictFail
	inTx(t, s, func(tx storage.Tx) error {
		for _, sub := range []registry.Submission{a, b, c, d} {
			if err := tx.CreateSubmission(ctx, sub); err != nil {
				return err
			}
		}
		return nil
	})
	tests := []struct {
		name string
		f    storage.SubmissionFilter
		want []string
	}{
		{"all", storage.SubmissionFilter{}, []string{"sub_a", "sub_b", "sub_c", "sub_d"}},
		{"pending", storage.SubmissionFilter{Status: registry.StatusPending}, []string{"sub_a", "sub_c", "sub_d"}},
		{"approved", storage.SubmissionFilter{Status: registry.StatusApproved}, []string{"sub_b"}},
		{"rejected", storage.SubmissionFilter{Status: registry.StatusRejected}, []string{}},
		{"verdict fail", storage.SubmissionFilter{Verdict: registry.VerdictFail}, []string{"sub_d"}},
		{"source github", storage.SubmissionFilter{Source: registry.SourceGitHub}, []string{"sub_c"}},
		{"addon beta", storage.SubmissionFilter{Addon: "beta"}, []string{"sub_c", "sub_d"}},
		{"token", storage.SubmissionFilter{SubmitterToken: "tok_alice"}, []string{"sub_a", "sub_b"}},
		{"combined", storage.SubmissionFilter{Addon: "alpha", Status: registry.StatusPending}, []string{"sub_a"}},
		{"no match", storage.SubmissionFilter{Addon: "nope"}, []string{}},
		{"addon is not a pattern", storage.SubmissionFilter{Addon: "%"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, next, err := s.Submissions(ctx, tc.f, storage.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Errorf("Submissions returned a nil slice, want non-nil")
			}
			if diff := cmp.Diff(tc.want, ids(got, subID)); diff != "" || next != "" {
				t.Errorf("Submissions(%+v) (-want +got):\n%s next %q", tc.f, diff, next)
			}
		})
	}
}

func testSubmissionsOfAddon(t *testing.T, s storage.Store) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error {
		for i, id := range []string{"sub_z", "sub_y", "sub_x"} {
			if err := tx.CreateSubmission(ctx, submission(id, "alpha", fmt.Sprint(i), i)); err != nil {
				return err
			}
		}
		return tx.CreateSubmission(ctx, submission("sub_other", "beta", "1", 9))
	})
	var got, none []registry.Submission
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		if got, err = tx.SubmissionsOfAddon(ctx, "alpha"); err != nil {
			return err
		}
		none, err = tx.SubmissionsOfAddon(ctx, "missing")
		return err
	})
	if diff := cmp.Diff([]string{"sub_z", "sub_y", "sub_x"}, ids(got, subID)); diff != "" {
		t.Errorf("SubmissionsOfAddon (-want +got):\n%s", diff)
	}
	if none == nil || len(none) != 0 {
		t.Errorf("SubmissionsOfAddon(missing) = %#v, want empty non-nil", none)
	}
}

func testReports(t *testing.T, s storage.Store) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error { return tx.CreateSubmission(ctx, submission("sub_1", "alpha", "1.0.0", 0)) })
	// Canonical JSON with escapes and non-ASCII: must not be re-encoded.
	body := `{"addon":{"name":"alpha"},"message":"caf\u00e9 é \"q\" <b>","n":1}`
	rep := report("sub_1", "rules-1", body)
	findings := []registry.StoredFinding{
		{SubmissionID: "sub_1", Finding: registry.Finding{Level: registry.LevelDanger, Code: "fetch_exec", Message: "m1", Path: "mcp.args[1]"}, Line: 4},
		{SubmissionID: "sub_1", Finding: registry.Finding{Level: registry.LevelInfo, Code: "child_env", Message: "m2", Path: "mcp.env.X"}, Suppressed: true},
	}
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReport(ctx, rep, findings) })

	got, err := s.Report(ctx, "sub_1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep, got); diff != "" {
		t.Errorf("Report (-want +got):\n%s", diff)
	}
	if string(got.Bytes) != body {
		t.Errorf("report bytes = %q, want %q", got.Bytes, body)
	}
	gotF, err := s.Findings(ctx, "sub_1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(findings, gotF); diff != "" {
		t.Errorf("Findings (-want +got):\n%s", diff)
	}

	// Re-assessment replaces the report and its findings.
	rep2 := report("sub_1", "rules-2", `{"v":2}`)
	findings2 := findings[1:]
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReport(ctx, rep2, findings2) })
	got, err = s.Report(ctx, "sub_1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep2, got); diff != "" {
		t.Errorf("replaced Report (-want +got):\n%s", diff)
	}
	gotF, err = s.Findings(ctx, "sub_1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(findings2, gotF); diff != "" {
		t.Errorf("replaced Findings (-want +got):\n%s", diff)
	}

	// No findings at all.
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReport(ctx, rep2, nil) })
	gotF, err = s.Findings(ctx, "sub_1")
	if err != nil || gotF == nil || len(gotF) != 0 {
		t.Errorf("Findings after PutReport(nil) = %#v, %v; want empty non-nil", gotF, err)
	}
	gotF, err = s.Findings(ctx, "sub_missing")
	if err != nil || gotF == nil || len(gotF) != 0 {
		t.Errorf("Findings(missing) = %#v, %v; want empty non-nil", gotF, err)
	}
}

func testReportErrors(t *testing.T, s storage.Store) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error { return tx.CreateSubmission(ctx, submission("sub_1", "alpha", "1.0.0", 0)) })
	_, err := s.Report(ctx, "sub_1")
	wantErr(t, "Report(no report yet)", err, registry.ErrNotFound)

	bad := report("sub_1", "r", `{}`)
	bad.SHA256 = "00" + bad.SHA256[2:]
	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.PutReport(ctx, bad, nil) })
	wantErr(t, "PutReport(wrong sha256)", err, registry.ErrInvalid)

	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.PutReport(ctx, report("sub_missing", "r", `{}`), nil) })
	wantErr(t, "PutReport(missing submission)", err, registry.ErrNotFound)

	if _, err := s.Report(ctx, "sub_1"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("a refused PutReport left a report behind: %v", err)
	}
}

func addon(name string, i int) registry.Addon {
	return registry.Addon{
		Name: name, DisplayName: "Display " + name, Description: "about " + name,
		Homepage: "https://example.org/" + name, LatestVersion: "1.0.0", LatestVerdict: registry.VerdictPass,
		CreatedAt: at(i), UpdatedAt: at(i),
	}
}

func normAddon(a registry.Addon) registry.Addon {
	a.CreatedAt, a.UpdatedAt = stored(a.CreatedAt), stored(a.UpdatedAt)
	a.VerifiedAt, a.RemovedAt = storedPtr(a.VerifiedAt), storedPtr(a.RemovedAt)
	return a
}

func testAddons(t *testing.T, s storage.Store) {
	ctx := context.Background()
	plain := addon("plain", 0)
	verified := addon("verified", 1)
	verified.Verified = true
	verified.VerifiedBy = []string{"carol", "dave"}
	verified.VerifiedAt = ptr(at(2))
	verified.VerifiedReason = "reviewed the source"
	verified.LatestWiring = wiring("latest")
	verified.VerifiedWiring = wiring("verified")
	removed := addon("removed", 2)
	removed.Removed = true
	removed.RemovedAt = ptr(at(3))
	inTx(t, s, func(tx storage.Tx) error {
		for _, a := range []registry.Addon{plain, verified, removed} {
			if err := tx.PutAddon(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})
	for _, want := range []registry.Addon{plain, verified, removed} {
		got, err := s.Addon(ctx, want.Name)
		if err != nil {
			t.Fatalf("Addon(%q): %v", want.Name, err)
		}
		if diff := cmp.Diff(normAddon(want), got, opts); diff != "" {
			t.Errorf("Addon(%q) (-want +got):\n%s", want.Name, diff)
		}
		var inside registry.Addon
		inTx(t, s, func(tx storage.Tx) error {
			var err error
			inside, err = tx.Addon(ctx, want.Name)
			return err
		})
		if diff := cmp.Diff(normAddon(want), inside, opts); diff != "" {
			t.Errorf("Tx.Addon(%q) (-want +got):\n%s", want.Name, diff)
		}
	}

	// PutAddon updates in place, clearing pointers too.
	upd := verified
	upd.Verified, upd.VerifiedBy, upd.VerifiedAt, upd.VerifiedReason, upd.VerifiedWiring = false, nil, nil, "", ""
	upd.LatestWiring = wiring("2.0.0")
	upd.LatestVersion, upd.UpdatedAt = "2.0.0", at(20)
	inTx(t, s, func(tx storage.Tx) error { return tx.PutAddon(ctx, upd) })
	got, err := s.Addon(ctx, "verified")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(normAddon(upd), got, opts); diff != "" {
		t.Errorf("after update (-want +got):\n%s", diff)
	}

	_, err = s.Addon(ctx, "missing")
	wantErr(t, "Addon(missing)", err, registry.ErrNotFound)
	err = s.InTx(ctx, func(tx storage.Tx) error {
		_, err := tx.Addon(ctx, "missing")
		return err
	})
	wantErr(t, "Tx.Addon(missing)", err, registry.ErrNotFound)
	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.PutAddon(ctx, registry.Addon{}) })
	wantErr(t, "PutAddon(empty name)", err, registry.ErrInvalid)
}

func addonName(a registry.Addon) string { return a.Name }

func testAddonsFilterAndPaging(t *testing.T, s storage.Store) {
	ctx := context.Background()
	// A grant makes the tier verified only while it covers the latest
	// version's wiring (registry.Addon.Tier): eta's grant covers an older
	// wiring, theta's an unknown one.
	specs := []struct {
		name     string
		display  string
		desc     string
		verified bool
		verdict  registry.Verdict
		removed  bool
		updated  int
		latest   string // the latest version's wiring
		granted  string // the wiring the grant covers
	}{
		{"alpha", "Alpha Tools", "plain", false, registry.VerdictPass, false, 0, "a", ""},
		{"beta", "Beta", "uses 100% of CPU", true, registry.VerdictReview, false, 1, "b", "b"},
		{"delta", "Delta", "snake_case helper", false, registry.VerdictPass, false, 2, "d", "d"},
		{"epsilon", "Epsilon", "backslash \\ here", false, registry.VerdictFail, false, 3, "e", ""},
		{"eta", "Eta", "changed wiring", true, registry.VerdictPass, false, 3, "new", "old"},
		{"gamma", "GAMMA server", "x", true, registry.VerdictPass, false, 4, "g", "g"},
		{"omega", "Omega", "gone", false, registry.VerdictPass, true, 5, "o", ""},
		{"theta", "Theta", "before wiring digests", true, registry.VerdictPass, false, 5, "", ""},
		{"zeta", "Zeta", "deltaish", false, registry.VerdictReview, false, 6, "z", ""},
	}
	inTx(t, s, func(tx storage.Tx) error {
		for _, sp := range specs {
			a := addon(sp.name, sp.updated)
			a.DisplayName, a.Description, a.Verified, a.LatestVerdict, a.Removed = sp.display, sp.desc, sp.verified, sp.verdict, sp.removed
			if sp.latest != "" {
				a.LatestWiring = wiring(sp.latest)
			}
			if sp.granted != "" {
				a.VerifiedWiring = wiring(sp.granted)
			}
			// The SQL filter below must agree with Tier.
			if verified := sp.name == "beta" || sp.name == "gamma"; (a.Tier() == registry.TierVerified) != verified {
				t.Fatalf("%s: Tier() = %s", sp.name, a.Tier())
			}
			if err := tx.PutAddon(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})
	tests := []struct {
		name string
		f    storage.AddonFilter
		want []string
	}{
		{"all listed", storage.AddonFilter{}, []string{"alpha", "beta", "delta", "epsilon", "eta", "gamma", "theta", "zeta"}},
		{"with removed", storage.AddonFilter{IncludeRemoved: true}, []string{"alpha", "beta", "delta", "epsilon", "eta", "gamma", "omega", "theta", "zeta"}},
		{"query name and description", storage.AddonFilter{Query: "delta"}, []string{"delta", "zeta"}},
		{"query case-insensitive", storage.AddonFilter{Query: "gAmMa"}, []string{"gamma"}},
		{"query display name", storage.AddonFilter{Query: "tools"}, []string{"alpha"}},
		{"percent is literal", storage.AddonFilter{Query: "%"}, []string{"beta"}},
		{"underscore is literal", storage.AddonFilter{Query: "_"}, []string{"delta"}},
		{"backslash is literal", storage.AddonFilter{Query: `\`}, []string{"epsilon"}},
		{"query no match", storage.AddonFilter{Query: "nothing-like-this"}, []string{}},
		{"verified", storage.AddonFilter{Tier: registry.TierVerified}, []string{"beta", "gamma"}},
		{"community", storage.AddonFilter{Tier: registry.TierCommunity}, []string{"alpha", "delta", "epsilon", "eta", "theta", "zeta"}},
		{"verdict review", storage.AddonFilter{Verdict: registry.VerdictReview}, []string{"beta", "zeta"}},
		{"updated since", storage.AddonFilter{UpdatedSince: ptr(at(4))}, []string{"gamma", "theta", "zeta"}},
		{"updated since, with removed", storage.AddonFilter{UpdatedSince: ptr(at(4)), IncludeRemoved: true}, []string{"gamma", "omega", "theta", "zeta"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, next, err := s.Addons(ctx, tc.f, storage.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Error("Addons returned a nil slice")
			}
			if diff := cmp.Diff(tc.want, ids(got, addonName)); diff != "" || next != "" {
				t.Errorf("Addons(%+v) (-want +got):\n%s next %q", tc.f, diff, next)
			}
		})
	}

	_, _, err := s.Addons(ctx, storage.AddonFilter{Tier: "gold"}, storage.Page{})
	wantErr(t, "Addons(unknown tier)", err, registry.ErrInvalid)

	var got []string
	var sizes []int
	cursor := ""
	for range 10 {
		page, next, err := s.Addons(ctx, storage.AddonFilter{IncludeRemoved: true}, storage.Page{Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		got, sizes = append(got, ids(page, addonName)...), append(sizes, len(page))
		if next == "" {
			break
		}
		cursor = next
	}
	if diff := cmp.Diff([]string{"alpha", "beta", "delta", "epsilon", "eta", "gamma", "omega", "theta", "zeta"}, got); diff != "" {
		t.Errorf("addon pages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{3, 3, 3}, sizes); diff != "" {
		t.Errorf("addon page sizes (-want +got):\n%s", diff)
	}
}

func testVersions(t *testing.T, s storage.Store) {
	ctx := context.Background()
	var want []registry.Version
	inTx(t, s, func(tx storage.Tx) error {
		if err := tx.PutAddon(ctx, addon("alpha", 0)); err != nil {
			return err
		}
		for i := range 7 {
			v := registry.Version{Addon: "alpha", Version: fmt.Sprintf("1.0.%d", i), SubmissionID: fmt.Sprintf("sub_%d", i),
				PublishedAt: at(i), PublishedBy: "carol"}
			// The version is read with its submission's wiring digest.
			v.WiringSHA256 = wiring("alpha@" + v.Version)
			if err := tx.CreateSubmission(ctx, submission(v.SubmissionID, "alpha", v.Version, i)); err != nil {
				return err
			}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
			v.PublishedAt = stored(v.PublishedAt)
			want = append([]registry.Version{v}, want...) // newest first
		}
		return nil
	})

	var got []registry.Version
	var sizes []int
	cursor := ""
	for range 10 {
		page, next, err := s.Versions(ctx, "alpha", storage.Page{Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		got, sizes = append(got, page...), append(sizes, len(page))
		if next == "" {
			break
		}
		cursor = next
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Versions pages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{3, 3, 1}, sizes); diff != "" {
		t.Errorf("Versions page sizes (-want +got):\n%s", diff)
	}

	var one registry.Version
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		one, err = tx.Version(ctx, "alpha", "1.0.3")
		return err
	})
	if diff := cmp.Diff(want[3], one); diff != "" {
		t.Errorf("Tx.Version (-want +got):\n%s", diff)
	}
	if one, err := s.Version(ctx, "alpha", "1.0.3"); err != nil || !cmp.Equal(want[3], one) {
		t.Errorf("Version = %+v, %v; want %+v", one, err, want[3])
	}
	_, err := s.Version(ctx, "alpha", "9.9.9")
	wantErr(t, "Version(missing)", err, registry.ErrNotFound)
	err = s.InTx(ctx, func(tx storage.Tx) error {
		_, err := tx.Version(ctx, "alpha", "9.9.9")
		return err
	})
	wantErr(t, "Tx.Version(missing)", err, registry.ErrNotFound)

	// Published versions are immutable: the same version twice conflicts.
	err = s.InTx(ctx, func(tx storage.Tx) error {
		return tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: "1.0.3", SubmissionID: "sub_0", PublishedAt: at(30)})
	})
	wantErr(t, "CreateVersion(same version twice)", err, registry.ErrConflict)
	err = s.InTx(ctx, func(tx storage.Tx) error {
		return tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: "5.0.0", SubmissionID: "sub_missing", PublishedAt: at(30)})
	})
	wantErr(t, "CreateVersion(missing submission)", err, registry.ErrNotFound)

	none, next, err := s.Versions(ctx, "missing", storage.Page{})
	if err != nil || none == nil || len(none) != 0 || next != "" {
		t.Errorf("Versions(missing) = %#v, %q, %v; want empty non-nil", none, next, err)
	}
}

func testPublishedReport(t *testing.T, s storage.Store) {
	ctx := context.Background()
	r1 := report("sub_1", "rules", `{"v":"1.0.0"}`)
	r2 := report("sub_2", "rules", `{"v":"2.0.0"}`)
	inTx(t, s, func(tx storage.Tx) error {
		for i, r := range []registry.Report{r1, r2} {
			v := fmt.Sprintf("%d.0.0", i+1)
			if err := tx.CreateSubmission(ctx, submission(r.SubmissionID, "alpha", v, i)); err != nil {
				return err
			}
			if err := tx.PutReport(ctx, r, nil); err != nil {
				return err
			}
			if err := tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: v, SubmissionID: r.SubmissionID, PublishedAt: at(i)}); err != nil {
				return err
			}
		}
		// A pending submission's report is not published.
		if err := tx.CreateSubmission(ctx, submission("sub_3", "alpha", "3.0.0", 3)); err != nil {
			return err
		}
		if err := tx.PutReport(ctx, report("sub_3", "rules", `{"v":"3.0.0"}`), nil); err != nil {
			return err
		}
		a := addon("alpha", 0)
		a.LatestVersion = "2.0.0"
		return tx.PutAddon(ctx, a)
	})
	tests := []struct {
		version string
		want    registry.Report
		err     error
	}{
		{"1.0.0", r1, nil},
		{"2.0.0", r2, nil},
		{"", r2, nil},
		{"3.0.0", registry.Report{}, registry.ErrNotFound},
	}
	for _, tc := range tests {
		got, err := s.PublishedReport(ctx, "alpha", tc.version)
		if tc.err != nil {
			wantErr(t, "PublishedReport(alpha@"+tc.version+")", err, tc.err)
			continue
		}
		if err != nil {
			t.Errorf("PublishedReport(alpha@%s): %v", tc.version, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("PublishedReport(alpha@%s) (-want +got):\n%s", tc.version, diff)
		}
	}
	_, err := s.PublishedReport(ctx, "missing", "")
	wantErr(t, "PublishedReport(missing)", err, registry.ErrNotFound)
}

// testPublishedReportDigest checks that the digest lookup agrees with
// PublishedReport on every case, the latest version following the addon
// record, and fails the same way where PublishedReport fails.
func testPublishedReportDigest(t *testing.T, s storage.Store) {
	ctx := context.Background()
	reports := []registry.Report{
		report("sub_1", "rules", `{"v":"1.0.0"}`),
		report("sub_2", "rules", `{"v":"2.0.0"}`),
		report("sub_3", "rules", `{"v":"3.0.0"}`), // pending: not published
		report("sub_4", "rules", `{"v":"b1.0.0"}`),
	}
	inTx(t, s, func(tx storage.Tx) error {
		for i, r := range reports {
			name, v := "alpha", fmt.Sprintf("%d.0.0", i+1)
			if i == 3 {
				name, v = "beta", "1.0.0"
			}
			if err := tx.CreateSubmission(ctx, submission(r.SubmissionID, name, v, i)); err != nil {
				return err
			}
			if err := tx.PutReport(ctx, r, nil); err != nil {
				return err
			}
			if i == 2 {
				continue
			}
			if err := tx.CreateVersion(ctx, registry.Version{Addon: name, Version: v, SubmissionID: r.SubmissionID, PublishedAt: at(i)}); err != nil {
				return err
			}
		}
		a := addon("alpha", 0)
		a.LatestVersion = "2.0.0"
		if err := tx.PutAddon(ctx, a); err != nil {
			return err
		}
		// An addon record whose latest version was never published.
		g := addon("gamma", 1)
		g.LatestVersion = "9.9.9"
		return tx.PutAddon(ctx, g)
	})
	tests := []struct {
		addon, version string
		want           string
		err            error
	}{
		{"alpha", "1.0.0", reports[0].SHA256, nil},
		{"alpha", "2.0.0", reports[1].SHA256, nil},
		{"alpha", "", reports[1].SHA256, nil},
		{"alpha", "3.0.0", "", registry.ErrNotFound},
		{"alpha", "9.9.9", "", registry.ErrNotFound},
		// beta has a published version but no addon record: the latest
		// comes from the record, so there is none.
		{"beta", "1.0.0", reports[3].SHA256, nil},
		{"beta", "", "", registry.ErrNotFound},
		{"gamma", "", "", registry.ErrNotFound},
		{"missing", "", "", registry.ErrNotFound},
		{"missing", "1.0.0", "", registry.ErrNotFound},
	}
	for _, tc := range tests {
		name := "PublishedReportDigest(" + tc.addon + "@" + tc.version + ")"
		got, err := s.PublishedReportDigest(ctx, tc.addon, tc.version)
		rep, repErr := s.PublishedReport(ctx, tc.addon, tc.version)
		if tc.err != nil {
			wantErr(t, name, err, tc.err)
			wantErr(t, "PublishedReport("+tc.addon+"@"+tc.version+")", repErr, tc.err)
			if got != "" {
				t.Errorf("%s = %q with an error; want \"\"", name, got)
			}
			continue
		}
		if err != nil || repErr != nil {
			t.Errorf("%s: %v; PublishedReport: %v", name, err, repErr)
			continue
		}
		if got != tc.want {
			t.Errorf("%s = %q, want %q", name, got, tc.want)
		}
		if got != rep.SHA256 {
			t.Errorf("%s = %q, but PublishedReport's SHA256 is %q", name, got, rep.SHA256)
		}
	}

	// Re-assessment replaces the report: the digest follows at once.
	r2 := report("sub_2", "rules-2", `{"v":"2.0.0","again":true}`)
	inTx(t, s, func(tx storage.Tx) error { return tx.PutReport(ctx, r2, nil) })
	if got, err := s.PublishedReportDigest(ctx, "alpha", ""); err != nil || got != r2.SHA256 {
		t.Errorf("after PutReport: PublishedReportDigest(alpha) = %q, %v; want %q", got, err, r2.SHA256)
	}
}

func testSuppressions(t *testing.T, s storage.Store) {
	ctx := context.Background()
	s1 := registry.Suppression{ID: "sup_1", Addon: "alpha", Code: "shell_meta", Path: "mcp.args[0]",
		Reason: registry.ReasonFalsePositive, Note: "quoted JSON", Author: "carol", CreatedAt: at(0)}
	s2 := registry.Suppression{ID: "sup_2", Addon: "alpha", Code: "child_env", Path: "mcp.env.HOME",
		Reason: registry.ReasonAcceptedRisk, Author: "dave", ExpiresAt: ptr(at(100)), CreatedAt: at(1)}
	s3 := registry.Suppression{ID: "sup_3", Addon: "beta", Code: "shell_meta", Path: "mcp.args[0]",
		Reason: registry.ReasonMitigated, CreatedAt: at(2)}
	inTx(t, s, func(tx storage.Tx) error {
		for _, sp := range []registry.Suppression{s1, s2, s3} {
			if err := tx.CreateSuppression(ctx, sp); err != nil {
				return err
			}
		}
		return nil
	})
	norm := func(sp registry.Suppression) registry.Suppression {
		sp.CreatedAt, sp.ExpiresAt = stored(sp.CreatedAt), storedPtr(sp.ExpiresAt)
		return sp
	}
	want := []registry.Suppression{norm(s2), norm(s1)} // by code, then path
	got, err := s.Suppressions(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Suppressions (-want +got):\n%s", diff)
	}
	inTx(t, s, func(tx storage.Tx) error {
		got, err := tx.Suppressions(ctx, "alpha")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Tx.Suppressions (-want +got):\n%s", diff)
		}
		return err
	})

	dup := s1
	dup.ID = "sup_dup"
	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.CreateSuppression(ctx, dup) })
	wantErr(t, "CreateSuppression(same addon, code, path)", err, registry.ErrConflict)

	var deleted registry.Suppression
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		deleted, err = tx.DeleteSuppression(ctx, "alpha", "sup_1")
		return err
	})
	if diff := cmp.Diff(norm(s1), deleted); diff != "" {
		t.Errorf("DeleteSuppression returned (-want +got):\n%s", diff)
	}
	err = s.InTx(ctx, func(tx storage.Tx) error {
		_, err := tx.DeleteSuppression(ctx, "alpha", "sup_1")
		return err
	})
	wantErr(t, "DeleteSuppression(already deleted)", err, registry.ErrNotFound)
	err = s.InTx(ctx, func(tx storage.Tx) error {
		_, err := tx.DeleteSuppression(ctx, "alpha", "sup_3") // belongs to beta
		return err
	})
	wantErr(t, "DeleteSuppression(other addon's)", err, registry.ErrNotFound)

	got, err = s.Suppressions(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]registry.Suppression{norm(s2)}, got); diff != "" {
		t.Errorf("after delete (-want +got):\n%s", diff)
	}
	// After deletion the same code and path may be suppressed again.
	inTx(t, s, func(tx storage.Tx) error { return tx.CreateSuppression(ctx, dup) })
	none, err := s.Suppressions(ctx, "missing")
	if err != nil || none == nil || len(none) != 0 {
		t.Errorf("Suppressions(missing) = %#v, %v; want empty non-nil", none, err)
	}

	// The addons a sweep renders again: alpha's sup_2 expires at 100 and
	// sup_5 at 20 (alpha listed once), beta's sup_4 at 50; sup_3 and
	// sup_dup never. An expiry is exclusive: at that instant the
	// suppression no longer applies.
	inTx(t, s, func(tx storage.Tx) error {
		for _, sp := range []registry.Suppression{
			{ID: "sup_4", Addon: "beta", Code: "child_env", Path: "mcp.env.HOME", Reason: registry.ReasonAcceptedRisk, ExpiresAt: ptr(at(50)), CreatedAt: at(3)},
			{ID: "sup_5", Addon: "alpha", Code: "unpinned", Path: "mcp.args[0]", Reason: registry.ReasonAcceptedRisk, ExpiresAt: ptr(at(20)), CreatedAt: at(4)},
		} {
			if err := tx.CreateSuppression(ctx, sp); err != nil {
				return err
			}
		}
		return nil
	})
	for _, c := range []struct {
		now  time.Time
		want []string
	}{
		{at(0), []string{}},
		{at(20).Add(-time.Microsecond), []string{}},
		{at(20), []string{"alpha"}},
		{at(50), []string{"alpha", "beta"}},
		{at(1000), []string{"alpha", "beta"}},
	} {
		got, err := s.AddonsWithExpiredSuppressions(ctx, c.now)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("AddonsWithExpiredSuppressions(%v) (-want +got):\n%s", c.now, diff)
		}
	}
}

func testVerifyApproval(t *testing.T, s storage.Store) {
	ctx := context.Background()
	_, err := s.VerifyApproval(ctx, "alpha")
	wantErr(t, "VerifyApproval(none)", err, registry.ErrNotFound)

	a := registry.VerifyApproval{Addon: "alpha", Maintainer: "carol", Reason: "read the source", At: at(0), WiringSHA256: wiring("1.0.0"), Principal: "prn_carol"}
	inTx(t, s, func(tx storage.Tx) error { return tx.PutVerifyApproval(ctx, a) })
	want := a
	want.At = stored(a.At)
	got, err := s.VerifyApproval(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("VerifyApproval (-want +got):\n%s", diff)
	}

	b := registry.VerifyApproval{Addon: "alpha", Maintainer: "dave", Reason: "again", At: at(5), WiringSHA256: wiring("2.0.0")}
	inTx(t, s, func(tx storage.Tx) error { return tx.PutVerifyApproval(ctx, b) })
	inTx(t, s, func(tx storage.Tx) error {
		got, err := tx.VerifyApproval(ctx, "alpha")
		want := b
		want.At = stored(b.At)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Tx.VerifyApproval after replace (-want +got):\n%s", diff)
		}
		return err
	})

	inTx(t, s, func(tx storage.Tx) error { return tx.DeleteVerifyApproval(ctx, "alpha") })
	_, err = s.VerifyApproval(ctx, "alpha")
	wantErr(t, "VerifyApproval(after delete)", err, registry.ErrNotFound)
	// Deleting what is not there is not an error.
	inTx(t, s, func(tx storage.Tx) error { return tx.DeleteVerifyApproval(ctx, "alpha") })
}

func testAuditLog(t *testing.T, s storage.Store) {
	ctx := context.Background()
	var want []registry.AuditEntry
	inTx(t, s, func(tx storage.Tx) error {
		for i := range 7 {
			e := registry.AuditEntry{ID: fmt.Sprintf("aud_%d", i), At: at(min(i, 5)), Actor: "carol",
				Action: "submission.approve", Target: fmt.Sprintf("submission/sub_%d", i), Reason: "ok"}
			if i == 2 {
				e.Detail = `{"from":"pending","to":"approved"}`
			}
			if err := tx.AppendAudit(ctx, e); err != nil {
				return err
			}
			e.At = stored(e.At)
			want = append([]registry.AuditEntry{e}, want...) // newest first
		}
		return nil
	})
	// aud_5 and aud_6 share a time; the ID orders them (descending).
	var got []registry.AuditEntry
	var sizes []int
	cursor := ""
	for range 10 {
		page, next, err := s.AuditLog(ctx, storage.AuditFilter{}, storage.Page{Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		got, sizes = append(got, page...), append(sizes, len(page))
		if next == "" {
			break
		}
		cursor = next
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AuditLog pages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{3, 3, 1}, sizes); diff != "" {
		t.Errorf("AuditLog page sizes (-want +got):\n%s", diff)
	}
	err := s.InTx(ctx, func(tx storage.Tx) error { return tx.AppendAudit(ctx, registry.AuditEntry{ID: "aud_0", At: at(9)}) })
	wantErr(t, "AppendAudit(duplicate id)", err, registry.ErrConflict)
	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.AppendAudit(ctx, registry.AuditEntry{At: at(9)}) })
	wantErr(t, "AppendAudit(empty id)", err, registry.ErrInvalid)
}

func testTokens(t *testing.T, s storage.Store) {
	ctx := context.Background()
	h := func(s string) []byte { b := sha256.Sum256([]byte(s)); return b[:] }
	carol := registry.Principal{ID: "prn_carol", Name: "Carol", Key: "carol", CreatedAt: at(0)}
	t1 := registry.Token{ID: "tok_1", Name: "ci", Role: registry.RoleSubmitter, Hash: h("one"), Principal: carol, CreatedAt: at(0)}
	t2 := registry.Token{ID: "tok_2", Name: "carol", Role: registry.RoleMaintainer, Hash: h("two"), Principal: carol, CreatedAt: at(1), ExpiresAt: ptr(at(90))}
	inTx(t, s, func(tx storage.Tx) error {
		if _, err := tx.EnsurePrincipal(ctx, carol); err != nil {
			return err
		}
		if err := tx.CreateToken(ctx, t2); err != nil {
			return err
		}
		return tx.CreateToken(ctx, t1)
	})
	// A token read back carries its principal's ID and name.
	norm := func(k registry.Token) registry.Token {
		k.CreatedAt, k.RevokedAt, k.ExpiresAt = stored(k.CreatedAt), storedPtr(k.RevokedAt), storedPtr(k.ExpiresAt)
		k.Principal = registry.Principal{ID: k.Principal.ID, Name: k.Principal.Name}
		return k
	}
	got, err := s.TokenByHash(ctx, h("two"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(norm(t2), got); diff != "" {
		t.Errorf("TokenByHash (-want +got):\n%s", diff)
	}
	_, err = s.TokenByHash(ctx, h("three"))
	wantErr(t, "TokenByHash(unknown)", err, registry.ErrNotFound)
	_, err = s.TokenByHash(ctx, nil)
	wantErr(t, "TokenByHash(nil)", err, registry.ErrNotFound)

	all, err := s.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]registry.Token{norm(t1), norm(t2)}, all); diff != "" {
		t.Errorf("Tokens (-want +got):\n%s", diff)
	}

	inTx(t, s, func(tx storage.Tx) error { return tx.RevokeToken(ctx, "tok_1", at(10)) })
	// A second revocation keeps the first instant.
	inTx(t, s, func(tx storage.Tx) error { return tx.RevokeToken(ctx, "tok_1", at(20)) })
	got, err = s.TokenByHash(ctx, h("one"))
	if err != nil {
		t.Fatal(err)
	}
	if got.RevokedAt == nil || !got.RevokedAt.Equal(stored(at(10))) {
		t.Errorf("RevokedAt = %v, want %v", got.RevokedAt, stored(at(10)))
	}
	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.RevokeToken(ctx, "tok_missing", at(0)) })
	wantErr(t, "RevokeToken(missing)", err, registry.ErrNotFound)

	dupHash := registry.Token{ID: "tok_3", Name: "x", Role: registry.RoleAdmin, Hash: h("one"), Principal: carol, CreatedAt: at(2)}
	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.CreateToken(ctx, dupHash) })
	wantErr(t, "CreateToken(duplicate hash)", err, registry.ErrConflict)
	orphan := registry.Token{ID: "tok_4", Name: "x", Role: registry.RoleAdmin, Hash: h("four"), CreatedAt: at(2)}
	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.CreateToken(ctx, orphan) })
	wantErr(t, "CreateToken(no principal)", err, registry.ErrInvalid)
	orphan.Principal.ID = "prn_missing"
	err = s.InTx(ctx, func(tx storage.Tx) error { return tx.CreateToken(ctx, orphan) })
	wantErr(t, "CreateToken(unknown principal)", err, registry.ErrNotFound)
}

// testPrincipals: EnsurePrincipal creates a principal once per key and
// hands the first one back after that, also to transactions racing for
// the same key.
func testPrincipals(t *testing.T, s storage.Store) {
	ctx := context.Background()
	first := registry.Principal{ID: "prn_1", Name: "Alice", Key: "alice", CreatedAt: at(0)}
	var got registry.Principal
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		got, err = tx.EnsurePrincipal(ctx, first)
		return err
	})
	want := first
	want.CreatedAt = stored(first.CreatedAt)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EnsurePrincipal(new) (-want +got):\n%s", diff)
	}
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		got, err = tx.EnsurePrincipal(ctx, registry.Principal{ID: "prn_2", Name: "alice", Key: "alice", CreatedAt: at(5)})
		return err
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EnsurePrincipal(same key) (-want +got):\n%s", diff)
	}
	err := s.InTx(ctx, func(tx storage.Tx) error {
		_, err := tx.EnsurePrincipal(ctx, registry.Principal{ID: "prn_3", Name: "x"})
		return err
	})
	wantErr(t, "EnsurePrincipal(no key)", err, registry.ErrInvalid)

	const racers = 8
	ids := make([]string, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			errs[i] = s.InTx(ctx, func(tx storage.Tx) error {
				p, err := tx.EnsurePrincipal(ctx, registry.Principal{ID: fmt.Sprintf("prn_race_%d", i), Name: "bob", Key: "bob", CreatedAt: at(i)})
				ids[i] = p.ID
				return err
			})
		})
	}
	wg.Wait()
	for i := range racers {
		if errs[i] != nil {
			t.Fatalf("racer %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Errorf("racers got principals %v, want one", ids)
			break
		}
	}
}

// testVersionKeys: versions equal but for build metadata are one version:
// the second conflicts, and Tx.Version finds the first by either.
func testVersionKeys(t *testing.T, s storage.Store) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error {
		for i, v := range []string{"1.0.0+a", "1.0.0+b", "1.0.0", "1.0.0-rc.1+a"} {
			if err := tx.CreateSubmission(ctx, submission(fmt.Sprintf("sub_%d", i), "alpha", v, i)); err != nil {
				return err
			}
		}
		return tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: "1.0.0+a", SubmissionID: "sub_0", PublishedAt: at(0)})
	})
	for i, v := range []string{"1.0.0+b", "1.0.0"} {
		err := s.InTx(ctx, func(tx storage.Tx) error {
			return tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: v, SubmissionID: fmt.Sprintf("sub_%d", i+1), PublishedAt: at(1)})
		})
		wantErr(t, "CreateVersion("+v+" after 1.0.0+a)", err, registry.ErrConflict)
	}
	// A pre-release is another version.
	inTx(t, s, func(tx storage.Tx) error {
		return tx.CreateVersion(ctx, registry.Version{Addon: "alpha", Version: "1.0.0-rc.1+a", SubmissionID: "sub_3", PublishedAt: at(2)})
	})
	for _, v := range []string{"1.0.0+a", "1.0.0+zzz", "1.0.0"} {
		inTx(t, s, func(tx storage.Tx) error {
			got, err := tx.Version(ctx, "alpha", v)
			if err != nil {
				return err
			}
			if got.Version != "1.0.0+a" || got.SubmissionID != "sub_0" {
				t.Errorf("Tx.Version(%q) = %+v, want 1.0.0+a", v, got)
			}
			return nil
		})
	}
	// Reads by clients name the version exactly.
	if _, err := s.PublishedReport(ctx, "alpha", "1.0.0+b"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("PublishedReport(1.0.0+b) = %v, want not found", err)
	}
	vs, _, err := s.Versions(ctx, "alpha", storage.Page{})
	if err != nil || len(vs) != 2 {
		t.Errorf("Versions = %v, %v; want 2", vs, err)
	}
}

func testDeliveries(t *testing.T, s storage.Store) {
	ctx := context.Background()
	var want []registry.Delivery
	inTx(t, s, func(tx storage.Tx) error {
		for i := range 7 {
			d := registry.Delivery{ID: fmt.Sprintf("d-%d", i), Event: "pull_request", Action: "synchronize",
				Repo: "org/registry", Payload: []byte(fmt.Sprintf(`{"n":%d,"x":"\u0000"}`, i)), Status: registry.DeliveryQueued,
				ReceivedAt: at(i), UpdatedAt: at(i)}
			created, err := tx.CreateDelivery(ctx, d)
			if err != nil {
				return err
			}
			if !created {
				t.Errorf("CreateDelivery(%s) = false on first delivery", d.ID)
			}
			d.ReceivedAt, d.UpdatedAt = stored(d.ReceivedAt), stored(d.UpdatedAt)
			want = append([]registry.Delivery{d}, want...)
		}
		return nil
	})
	var again bool
	inTx(t, s, func(tx storage.Tx) error {
		var err error
		again, err = tx.CreateDelivery(ctx, registry.Delivery{ID: "d-3", Event: "push", Status: registry.DeliveryQueued, ReceivedAt: at(50), UpdatedAt: at(50)})
		return err
	})
	if again {
		t.Error("CreateDelivery(redelivery) = true, want false")
	}
	got, err := s.Delivery(ctx, "d-3")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want[3], got, opts); diff != "" {
		t.Errorf("a redelivery changed the record (-want +got):\n%s", diff)
	}

	upd := want[3]
	upd.Status, upd.Error, upd.Submissions, upd.UpdatedAt = registry.DeliveryDone, "", []string{"sub_a", "sub_b"}, stored(at(60))
	inTx(t, s, func(tx storage.Tx) error { return tx.UpdateDelivery(ctx, upd) })
	got, err = s.Delivery(ctx, "d-3")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(upd, got, opts); diff != "" {
		t.Errorf("after UpdateDelivery (-want +got):\n%s", diff)
	}
	want[3] = upd

	var all []registry.Delivery
	var sizes []int
	cursor := ""
	for range 10 {
		page, next, err := s.Deliveries(ctx, storage.Page{Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		all, sizes = append(all, page...), append(sizes, len(page))
		if next == "" {
			break
		}
		cursor = next
	}
	if diff := cmp.Diff(want, all, opts); diff != "" {
		t.Errorf("Deliveries pages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{3, 3, 1}, sizes); diff != "" {
		t.Errorf("Deliveries page sizes (-want +got):\n%s", diff)
	}

	_, err = s.Delivery(ctx, "d-missing")
	wantErr(t, "Delivery(missing)", err, registry.ErrNotFound)
	err = s.InTx(ctx, func(tx storage.Tx) error {
		return tx.UpdateDelivery(ctx, registry.Delivery{ID: "d-missing", UpdatedAt: at(0)})
	})
	wantErr(t, "UpdateDelivery(missing)", err, registry.ErrNotFound)
	err = s.InTx(ctx, func(tx storage.Tx) error {
		_, err := tx.CreateDelivery(ctx, registry.Delivery{})
		return err
	})
	wantErr(t, "CreateDelivery(empty id)", err, registry.ErrInvalid)
}

func testMalformedCursor(t *testing.T, s storage.Store) {
	ctx := context.Background()
	valid := storage.Cursor{At: at(0), Key: "k"}.Encode()
	for _, c := range []string{"!!!", "not-base64-$", "e30", valid[:len(valid)-2], "\x1b[31m", "A"} {
		t.Run(fmt.Sprintf("%q", c), func(t *testing.T) {
			p := storage.Page{Cursor: c, Limit: 3}
			_, _, err := s.Submissions(ctx, storage.SubmissionFilter{}, p)
			wantErr(t, "Submissions", err, registry.ErrInvalid)
			_, _, err = s.Addons(ctx, storage.AddonFilter{}, p)
			wantErr(t, "Addons", err, registry.ErrInvalid)
			_, _, err = s.Versions(ctx, "alpha", p)
			wantErr(t, "Versions", err, registry.ErrInvalid)
			_, _, err = s.AuditLog(ctx, storage.AuditFilter{}, p)
			wantErr(t, "AuditLog", err, registry.ErrInvalid)
			_, _, err = s.Deliveries(ctx, p)
			wantErr(t, "Deliveries", err, registry.ErrInvalid)
		})
	}
}

func testInTxRollback(t *testing.T, s storage.Store) {
	ctx := context.Background()
	errHalfway := errors.New("half-way")
	err := s.InTx(ctx, func(tx storage.Tx) error {
		if err := tx.CreateSubmission(ctx, submission("sub_1", "alpha", "1.0.0", 0)); err != nil {
			return err
		}
		if err := tx.PutReport(ctx, report("sub_1", "r", `{}`), nil); err != nil {
			return err
		}
		if err := tx.PutAddon(ctx, addon("alpha", 0)); err != nil {
			return err
		}
		if err := tx.AppendAudit(ctx, registry.AuditEntry{ID: "aud_1", At: at(0), Actor: "x", Action: "y"}); err != nil {
			return err
		}
		if _, err := tx.CreateDelivery(ctx, registry.Delivery{ID: "d-1", Status: registry.DeliveryQueued, ReceivedAt: at(0), UpdatedAt: at(0)}); err != nil {
			return err
		}
		return errHalfway
	})
	if err != errHalfway {
		t.Errorf("InTx returned %v, want fn's error as is", err)
	}
	if _, err := s.Submission(ctx, "sub_1"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("rolled-back submission: got %v, want ErrNotFound", err)
	}
	if _, err := s.Report(ctx, "sub_1"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("rolled-back report: got %v, want ErrNotFound", err)
	}
	if _, err := s.Addon(ctx, "alpha"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("rolled-back addon: got %v, want ErrNotFound", err)
	}
	if _, err := s.Delivery(ctx, "d-1"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("rolled-back delivery: got %v, want ErrNotFound", err)
	}
	if log, _, err := s.AuditLog(ctx, storage.AuditFilter{}, storage.Page{}); err != nil || len(log) != 0 {
		t.Errorf("rolled-back audit log: got %d entries, %v; want none", len(log), err)
	}

	// A failed write inside fn (a conflict) rolls back the earlier ones too.
	inTx(t, s, func(tx storage.Tx) error { return tx.CreateSubmission(ctx, submission("sub_taken", "beta", "1", 0)) })
	err = s.InTx(ctx, func(tx storage.Tx) error {
		if err := tx.PutAddon(ctx, addon("gamma", 0)); err != nil {
			return err
		}
		return tx.CreateSubmission(ctx, submission("sub_taken", "gamma", "1", 0))
	})
	wantErr(t, "InTx with a conflicting write", err, registry.ErrConflict)
	if _, err := s.Addon(ctx, "gamma"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("write before a conflict survived: got %v, want ErrNotFound", err)
	}
}

func testConcurrentDeciders(t *testing.T, s storage.Store) {
	ctx := context.Background()
	inTx(t, s, func(tx storage.Tx) error { return tx.CreateSubmission(ctx, submission("sub_1", "alpha", "1.0.0", 0)) })
	const deciders = 4
	var (
		sawPending atomic.Int32
		wg         sync.WaitGroup
		start      = make(chan struct{})
		errs       = make(chan error, deciders)
	)
	for i := range deciders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- s.InTx(ctx, func(tx storage.Tx) error {
				sub, err := tx.Submission(ctx, "sub_1")
				if err != nil {
					return err
				}
				if sub.Status != registry.StatusPending {
					return nil
				}
				// Widen the window in which a second decider could
				// read the old state if reads did not lock.
				time.Sleep(20 * time.Millisecond)
				sub.Status = registry.StatusApproved
				sub.DecidedBy = fmt.Sprintf("maintainer-%d", i)
				sub.DecidedAt = ptr(at(1))
				if err := tx.UpdateSubmission(ctx, sub); err != nil {
					return err
				}
				sawPending.Add(1)
				return tx.AppendAudit(ctx, registry.AuditEntry{ID: fmt.Sprintf("aud_%d", i), At: at(1), Actor: sub.DecidedBy, Action: "submission.approve"})
			})
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("decider: %v", err)
		}
	}
	// A decider whose transaction was retried may have seen pending in a
	// rolled-back attempt; the audit log counts committed decisions.
	log, _, err := s.AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 {
		t.Errorf("%d deciders saw the submission pending and committed, want exactly 1", len(log))
	}
	if n := sawPending.Load(); n < 1 {
		t.Errorf("no decider saw the submission pending")
	}
}

// testConcurrentRedelivery races one delivery ID through several
// transactions, as replicas receiving GitHub's redelivery would: exactly
// one records it.
func testConcurrentRedelivery(t *testing.T, s storage.Store) {
	ctx := context.Background()
	const racers = 6
	var (
		created atomic.Int32
		wg      sync.WaitGroup
		start   = make(chan struct{})
		errs    = make(chan error, racers)
	)
	for range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- s.InTx(ctx, func(tx storage.Tx) error {
				ok, err := tx.CreateDelivery(ctx, registry.Delivery{ID: "d-race", Event: "pull_request",
					Status: registry.DeliveryQueued, ReceivedAt: at(0), UpdatedAt: at(0)})
				if err != nil || !ok {
					return err
				}
				// Hold the row a moment so the others overlap.
				time.Sleep(20 * time.Millisecond)
				created.Add(1)
				return nil
			})
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("CreateDelivery: %v", err)
		}
	}
	if n := created.Load(); n != 1 {
		t.Errorf("%d transactions recorded the same delivery, want exactly 1", n)
	}
}

type pingArgs struct {
	Marker string `json:"marker"`
}

// pingKind names the job the conformance suite enqueues.
const pingKind = "storetest_ping"

func testJobs(t *testing.T, s storage.Store) {
	ctx := context.Background()
	ran := make(chan string, 16)
	ping := jobs.Handler{Kind: pingKind, Work: func(ctx context.Context, r jobs.Run) error {
		var a pingArgs
		if err := json.Unmarshal(r.Args, &a); err != nil {
			return jobs.Cancel(err)
		}
		ran <- a.Marker
		return nil
	}}
	stop, err := s.StartJobs(ctx, ping)
	if err != nil {
		t.Fatalf("StartJobs: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := stop(ctx); err != nil {
			t.Errorf("stop jobs: %v", err)
		}
	})

	errRollback := errors.New("roll back")
	err = s.InTx(ctx, func(tx storage.Tx) error {
		if err := tx.Enqueue(ctx, jobs.Job{Kind: pingKind, Args: pingArgs{Marker: "rolled-back"}}); err != nil {
			return err
		}
		return errRollback
	})
	if err != errRollback {
		t.Fatalf("InTx = %v, want %v", err, errRollback)
	}

	inTx(t, s, func(tx storage.Tx) error {
		if err := tx.Enqueue(ctx, jobs.Job{Kind: pingKind, Args: pingArgs{Marker: "committed"}}); err != nil {
			return err
		}
		// Longer than the queue's fetch interval: a job visible before
		// commit would be picked up now.
		select {
		case m := <-ran:
			t.Errorf("job %q ran before its transaction committed", m)
		case <-time.After(1500 * time.Millisecond):
		}
		return nil
	})
	select {
	case m := <-ran:
		if m != "committed" {
			t.Errorf("worker ran %q, want %q", m, "committed")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the committed job did not run within 30s")
	}
	select {
	case m := <-ran:
		t.Errorf("worker ran %q after the committed job; the rolled-back job must not exist", m)
	case <-time.After(1500 * time.Millisecond):
	}
}

// testGauges: the figures the metrics read. JobDepth counts a committed
// job that no worker has taken (and not a rolled-back one); Pools names
// each pool with a bound and counts its connections.
func testGauges(t *testing.T, s storage.Store) {
	ctx := context.Background()
	before, err := s.JobDepth(ctx)
	if err != nil {
		t.Fatalf("JobDepth: %v", err)
	}
	_ = s.InTx(ctx, func(tx storage.Tx) error {
		if err := tx.Enqueue(ctx, jobs.Job{Kind: pingKind, Args: pingArgs{Marker: "rolled-back"}}); err != nil {
			return err
		}
		return errors.New("roll back")
	})
	inTx(t, s, func(tx storage.Tx) error {
		return tx.Enqueue(ctx, jobs.Job{Kind: pingKind, Args: pingArgs{Marker: "waiting"}})
	})
	after, err := s.JobDepth(ctx)
	if err != nil {
		t.Fatalf("JobDepth: %v", err)
	}
	if got, want := after["available"], before["available"]+1; got != want {
		t.Errorf("JobDepth available = %d after one committed job, want %d (all: %v)", got, want, after)
	}
	for _, state := range []string{"available", "pending", "retryable", "running", "scheduled"} {
		if _, ok := after[state]; !ok {
			t.Errorf("JobDepth lacks the state %s (all: %v); an empty state is 0", state, after)
		}
	}
	for _, final := range []string{"completed", "cancelled", "discarded"} {
		if _, ok := after[final]; ok {
			t.Errorf("JobDepth reports the final state %s", final)
		}
	}

	pools := s.Pools()
	if len(pools) == 0 {
		t.Fatal("Pools() is empty")
	}
	for _, p := range pools {
		if p.Name == "" || p.Max <= 0 || p.InUse < 0 || p.Idle < 0 || p.InUse+p.Idle > p.Max {
			t.Errorf("pool %+v: want a name, a positive bound, and connections within it", p)
		}
	}
}

// testLock: Lock admits one holder of a key at a time, whoever asks, does
// not hold back another key, and gives up when its context ends. The
// lock's context lasts while it is held and ends with unlock.
func testLock(t *testing.T, s storage.Store) {
	ctx := context.Background()
	held, unlock, err := s.Lock(ctx, "pull:o/r#1")
	if err != nil {
		t.Fatalf("Lock: %v", err)
	}
	if held.Err() != nil {
		t.Fatalf("the context of a lock just taken is done: %v", context.Cause(held))
	}
	_, other, err := s.Lock(ctx, "pull:o/r#2")
	if err != nil {
		t.Fatalf("Lock of another key while the first is held: %v", err)
	}
	other()
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	if _, u, err := s.Lock(short, "pull:o/r#1"); err == nil {
		u()
		t.Fatal("Lock of a held key returned a lock before its context ended")
	}
	cancel()
	if held.Err() != nil {
		t.Fatalf("the lock's context ended while it was held: %v", context.Cause(held))
	}
	unlock()
	unlock() // harmless
	if held.Err() == nil {
		t.Error("the lock's context lasts after unlock")
	}
	if errors.Is(context.Cause(held), storage.ErrLockLost) {
		t.Errorf("unlock ended the lock's context with %v, as if the lock had been lost", context.Cause(held))
	}

	const holders = 8
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, holders)
	for range holders {
		wg.Go(func() {
			_, u, err := s.Lock(ctx, "pull:o/r#1")
			if err != nil {
				errs <- err
				return
			}
			n := inside.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			// A round trip to the database while holding it lets any
			// other holder in, if the lock fails to keep it out.
			if err := s.Ping(ctx); err != nil {
				errs <- err
			}
			inside.Add(-1)
			u()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Lock: %v", err)
	}
	if m := most.Load(); m != 1 {
		t.Errorf("%d holders of one key at once, want 1", m)
	}
}
