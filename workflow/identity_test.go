package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// failing has blocking findings: shell_exec, fetch_exec and pipe_to_shell
// at mcp.args[1].
func failing(name, version string) []byte { return []byte(fixture.FailingManifest(name, version)) }

// token makes a token and returns the actor it authenticates as.
func (h *harness) token(t *testing.T, principal, name string, role registry.Role) workflow.Actor {
	t.Helper()
	ctx := context.Background()
	secret, _, err := h.svc.CreateTokenFor(ctx, principal, name, role)
	if err != nil {
		t.Fatalf("CreateTokenFor(%q, %q): %v", principal, name, err)
	}
	a, err := h.svc.Authenticate(ctx, secret)
	if err != nil {
		t.Fatalf("Authenticate: %v", err)
	}
	return a
}

func TestPrincipalKey(t *testing.T) {
	for _, tt := range []struct{ a, b string }{
		{"alice", "Alice"},
		{"alice", "ALICE"},
		{"alice", "Ａｌｉｃｅ"}, // full-width
		{"straße", "STRASSE"},
		{"zoë", "Zoe\u0308"}, // precomposed and combining
		{"ǆ", "Ǆ"},
		{"ﬁle", "FILE"}, // ligature
	} {
		if ka, kb := workflow.PrincipalKey(tt.a), workflow.PrincipalKey(tt.b); ka != kb {
			t.Errorf("PrincipalKey(%q) = %q, PrincipalKey(%q) = %q; want equal", tt.a, ka, tt.b, kb)
		}
	}
	for _, tt := range []struct{ a, b string }{
		{"alice", "alicia"},
		{"alice", "аlice"}, // Cyrillic а: another script is another name
		{"bob", "bob."},
	} {
		if workflow.PrincipalKey(tt.a) == workflow.PrincipalKey(tt.b) {
			t.Errorf("PrincipalKey(%q) == PrincipalKey(%q); want different", tt.a, tt.b)
		}
	}
}

// FuzzPrincipalKey: the key is a fixed point (a key is its own key), and
// the case of ASCII letters never changes a principal. (Beyond ASCII,
// Go's simple case mappings and Unicode's full folding part ways, as for
// the Turkish dotted İ, so that is no law there.)
func FuzzPrincipalKey(f *testing.F) {
	for _, s := range []string{"alice", "Ａｌｉｃｅ", "straße", "ǅ", "ΐ", "ﬃ", "İstanbul", "ᾈ", "\u0345"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := workflow.PrincipalKey(s)
		if workflow.PrincipalKey(k) != k {
			t.Fatalf("PrincipalKey is not idempotent on %q: %q then %q", s, k, workflow.PrincipalKey(k))
		}
		ascii := strings.Map(func(r rune) rune {
			if r < 0x80 {
				return r
			}
			return -1
		}, s)
		if up := strings.ToUpper(ascii); workflow.PrincipalKey(up) != workflow.PrincipalKey(strings.ToLower(up)) {
			t.Fatalf("%q and %q are different principals", up, strings.ToLower(up))
		}
	})
}

func TestTokensOfOnePrincipal(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		first := h.token(t, "alice", "alice", registry.RoleMaintainer)
		for _, tt := range []struct{ principal, name string }{
			{"Alice", "Alice"},
			{"ＡＬＩＣＥ", "ＡＬＩＣＥ"},
			{"alice", "alice-laptop"}, // --principal names the holder
		} {
			a := h.token(t, tt.principal, tt.name, registry.RoleMaintainer)
			if a.Principal != first.Principal || a.Name != "alice" {
				t.Errorf("token %q of %q: principal %q named %q; want %q named alice", tt.name, tt.principal, a.Principal, a.Name, first.Principal)
			}
		}
		bob := h.token(t, "bob", "bob", registry.RoleMaintainer)
		zoe := h.token(t, "Zoë", "Zoë", registry.RoleMaintainer)
		if bob.Principal == first.Principal || zoe.Principal == first.Principal || zoe.Name != "Zoë" {
			t.Errorf("bob %+v, zoë %+v: want principals of their own", bob, zoe)
		}
		toks, err := h.store.Tokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tok := range toks {
			names = append(names, tok.Name+"/"+tok.Principal.Name)
		}
		want := []string{"alice/alice", "Alice/alice", "ALICE/alice", "alice-laptop/alice", "bob/bob", "Zoë/Zoë"}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("tokens and principals (-want +got):\n%s", diff)
		}
		for _, tt := range []struct {
			name, principal, tname string
			paths                  []string
		}{
			{"zero-width", "al\u200bice", "x", []string{"principal"}},
			{"hangul filler", "\u3164", "x", []string{"principal"}},
			{"leading mark", "\u0301a", "x", []string{"principal"}},
			{"space", "a", "a b", []string{"name"}},
			{"empty principal", "", "x", []string{"principal"}},
		} {
			_, _, err := h.svc.CreateTokenFor(ctx, tt.principal, tt.tname, registry.RoleMaintainer)
			wantErr(t, "CreateTokenFor("+tt.name+")", err, registry.ErrInvalid)
			if diff := cmp.Diff(tt.paths, fieldPaths(err)); diff != "" {
				t.Errorf("%s: field paths (-want +got):\n%s", tt.name, diff)
			}
		}
	})
}

// TestVerifiedNeedsTwoPrincipals: tokens named Alice and alice are one
// maintainer; the grant waits for bob.
func TestVerifiedNeedsTwoPrincipals(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		upper := h.token(t, "Alice", "Alice", registry.RoleMaintainer)
		lower := h.token(t, "alice", "alice", registry.RoleMaintainer)
		laptop := h.token(t, "alice", "laptop", registry.RoleMaintainer)
		bob := h.token(t, "bob", "bob", registry.RoleMaintainer)
		h.publish(t, fixture.Clean("demo", "1.0.0"))
		out, err := h.svc.SetVerified(ctx, upper, "demo", true, "known author")
		if err != nil || !out.Pending || out.Approval.Principal != upper.Principal {
			t.Fatalf("first grant = %+v, %v", out, err)
		}
		for _, again := range []workflow.Actor{lower, laptop, upper} {
			_, err := h.svc.SetVerified(ctx, again, "demo", true, "me again")
			wantErr(t, "second grant by "+again.Name, err, registry.ErrConflict)
		}
		out, err = h.svc.SetVerified(ctx, bob, "demo", true, "agreed")
		if err != nil || out.Pending || !out.Addon.Verified {
			t.Fatalf("grant by bob = %+v, %v", out, err)
		}
		if diff := cmp.Diff([]string{"Alice", "bob"}, out.Addon.VerifiedBy); diff != "" {
			t.Errorf("VerifiedBy (-want +got):\n%s", diff)
		}
	})
}

func TestFourEyes(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		alice := h.token(t, "alice", "alice", registry.RoleMaintainer)
		aliceCI := h.token(t, "ALICE", "ci", registry.RoleSubmitter)
		bob := h.token(t, "bob", "bob", registry.RoleMaintainer)

		own, _, _, err := h.svc.Submit(ctx, aliceCI, fixture.Clean("mine", "1.0.0"), workflow.FormatTOML, nil)
		if err != nil {
			t.Fatal(err)
		}
		if own.SubmitterPrincipal != alice.Principal {
			t.Errorf("SubmitterPrincipal = %q, want alice's %q", own.SubmitterPrincipal, alice.Principal)
		}
		_, err = h.svc.Approve(ctx, alice, own.ID, "mine, but fine")
		wantErr(t, "Approve(own REST submission)", err, registry.ErrForbidden)
		if err == nil || !strings.Contains(err.Error(), "cannot approve their own") {
			t.Errorf("error %v does not say why", err)
		}
		_, err = h.svc.ApproveOverride(ctx, alice, own.ID, "really")
		wantErr(t, "ApproveOverride(own REST submission)", err, registry.ErrForbidden)
		if got, _ := h.store.Submission(ctx, own.ID); got.Status != registry.StatusPending {
			t.Errorf("refused approval left the submission %s", got.Status)
		}
		if _, err := h.svc.Approve(ctx, bob, own.ID, "reviewed"); err != nil {
			t.Errorf("Approve by bob: %v", err)
		}

		// A pull request by the GitHub login Alice is alice's.
		origin := &registry.GitHubOrigin{Repo: "acme/addons", PR: 7, CommitID: "abc", Path: "pr/lean-ctx-addon.toml", Author: "Alice"}
		pr, _, _, err := h.svc.Submit(ctx, workflow.Actor{Name: "Alice"}, fixture.Clean("from-pr", "1.0.0"), workflow.FormatTOML, origin)
		if err != nil {
			t.Fatal(err)
		}
		_, err = h.svc.Approve(ctx, alice, pr.ID, "")
		wantErr(t, "Approve(own pull request)", err, registry.ErrForbidden)
		if _, err := h.svc.Approve(ctx, bob, pr.ID, ""); err != nil {
			t.Errorf("Approve of alice's pull request by bob: %v", err)
		}

		// Withdrawing one's own submission is no four-eyes matter.
		again, _, _, err := h.svc.Submit(ctx, aliceCI, fixture.Clean("mine", "2.0.0"), workflow.FormatTOML, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.svc.Reject(ctx, alice, again.ID, "withdrawn"); err != nil {
			t.Errorf("Reject(own): %v", err)
		}
	})
}

func TestApproveFailingVerdict(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		sub := h.submit(t, failing("risky", "1.0.0"))
		if sub.Verdict != registry.VerdictFail {
			t.Fatalf("verdict %s, want fail", sub.Verdict)
		}
		_, err := h.svc.Approve(ctx, alice, sub.ID, "looks fine")
		var be *registry.BlockedError
		if !errors.As(err, &be) || !errors.Is(err, registry.ErrConflict) {
			t.Fatalf("Approve(fail) = %v, want a *registry.BlockedError", err)
		}
		var codes []string
		for _, f := range be.Findings {
			codes = append(codes, f.Code+"@"+f.Path)
		}
		if diff := cmp.Diff([]string{"fetch_exec@mcp.args[1]", "pipe_to_shell@mcp.args[1]", "shell_exec@mcp.args[1]"}, codes); diff != "" {
			t.Errorf("blocking findings (-want +got):\n%s", diff)
		}
		if !strings.Contains(err.Error(), "pipe_to_shell at mcp.args[1]") {
			t.Errorf("the error does not name the findings: %v", err)
		}
		if _, err := h.store.Addon(ctx, "risky"); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("a refused approval published the addon: %v", err)
		}

		_, err = h.svc.ApproveOverride(ctx, alice, sub.ID, "")
		wantErr(t, "ApproveOverride without a reason", err, registry.ErrInvalid)
		if diff := cmp.Diff([]string{"reason"}, fieldPaths(err)); diff != "" {
			t.Errorf("field paths (-want +got):\n%s", diff)
		}

		got, err := h.svc.ApproveOverride(ctx, alice, sub.ID, "the installer is ours; pinned by checksum upstream")
		if err != nil || got.Status != registry.StatusApproved {
			t.Fatalf("ApproveOverride = %+v, %v", got, err)
		}
		log, _, err := h.store.AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
		if err != nil || len(log) == 0 {
			t.Fatal(log, err)
		}
		e := log[0]
		var detail struct {
			Version    string `json:"version"`
			Override   bool   `json:"override"`
			Overridden []struct {
				Code string `json:"code"`
				Path string `json:"path"`
			} `json:"overridden"`
		}
		if err := json.Unmarshal([]byte(e.Detail), &detail); err != nil {
			t.Fatalf("detail %q: %v", e.Detail, err)
		}
		if e.Action != "submission.approve" || e.Actor != "alice" || e.Reason != "the installer is ours; pinned by checksum upstream" ||
			!detail.Override || detail.Version != "1.0.0" || len(detail.Overridden) != 3 {
			t.Errorf("audit entry %+v, detail %+v", e, detail)
		}

		// An override of a submission that does not fail is an approval.
		ok := h.submit(t, fixture.Clean("fine", "1.0.0"))
		if _, err := h.svc.ApproveOverride(ctx, alice, ok.ID, "no need"); err != nil {
			t.Fatal(err)
		}
		log, _, _ = h.store.AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
		if strings.Contains(log[0].Detail, "override") {
			t.Errorf("a plain approval records an override: %s", log[0].Detail)
		}
	})
}

func TestPushDoesNotPublishFailingVerdict(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		prOrigin := &registry.GitHubOrigin{Repo: "acme/addons", PR: 3, CommitID: "c1", Path: "risky/lean-ctx-addon.toml", Author: "octo"}
		pr, _, _, err := h.svc.Submit(ctx, workflow.Actor{Name: "octo"}, failing("risky", "1.0.0"), workflow.FormatTOML, prOrigin)
		if err != nil {
			t.Fatal(err)
		}
		push := &registry.GitHubOrigin{Repo: "acme/addons", CommitID: "c2", Path: "risky/lean-ctx-addon.toml", Author: "merger"}
		_, _, err = h.svc.Publish(ctx, workflow.Actor{Name: "merger"}, failing("risky", "1.0.0"), workflow.FormatTOML, push)
		var be *registry.BlockedError
		if !errors.As(err, &be) || len(be.Findings) == 0 {
			t.Fatalf("Publish(fail) = %v, want a *registry.BlockedError", err)
		}
		if got, _ := h.store.Submission(ctx, pr.ID); got.Status != registry.StatusPending {
			t.Errorf("the pull request's submission is %s, want pending", got.Status)
		}
		if _, err := h.store.Addon(ctx, "risky"); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("a blocked push published the addon: %v", err)
		}
	})
}

func TestVersionIsSemVer(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		noVersion := []byte("[addon]\nname = \"nover\"\n\n[mcp]\ncommand = \"/usr/bin/true\"\n")
		for _, tt := range []struct {
			name string
			m    []byte
			line int
		}{
			{"missing", noVersion, 1},
			{"traversal", fixture.Clean("trav", "../../../v1/audit-log?x="), 3},
			{"leading v", fixture.Clean("lead", "v1.0.0"), 3},
			{"shortened", fixture.Clean("short", "1.0"), 3},
		} {
			_, _, _, err := h.svc.Submit(ctx, sam, tt.m, workflow.FormatTOML, nil)
			var ve *registry.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Path != "addon.version" || ve.Fields[0].Line != tt.line {
				t.Errorf("Submit(%s) = %v, want a refusal of addon.version at line %d", tt.name, err, tt.line)
			}
			_, _, err = h.svc.Publish(ctx, alice, tt.m, workflow.FormatTOML, nil)
			wantErr(t, "Publish("+tt.name+")", err, registry.ErrInvalid)
		}
		subs, _, err := h.store.Submissions(ctx, storage.SubmissionFilter{}, storage.Page{})
		if err != nil || len(subs) != 0 {
			t.Errorf("refused submissions stored: %v, %v", subs, err)
		}
	})
}

// TestBuildMetadataIsOneVersion: 1.0.0+b is 1.0.0+a, whether it comes after
// the publication or waits beside it in the queue.
func TestBuildMetadataIsOneVersion(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		b := h.submit(t, warned("meta", "1.0.0+b")) // pending first
		h.publish(t, fixture.Clean("meta", "1.0.0+a"))
		_, _, _, err := h.svc.Submit(ctx, sam, warned("meta", "1.0.0+c"), workflow.FormatTOML, nil)
		wantErr(t, "Submit(1.0.0+c after 1.0.0+a)", err, registry.ErrConflict)
		if err == nil || !strings.Contains(err.Error(), `already published as "1.0.0+a"`) {
			t.Errorf("error %v does not name the published version", err)
		}
		_, err = h.svc.Approve(ctx, alice, b.ID, "")
		wantErr(t, "Approve(1.0.0+b after 1.0.0+a)", err, registry.ErrConflict)
		a, err := h.store.Addon(ctx, "meta")
		if err != nil || a.LatestVersion != "1.0.0+a" {
			t.Errorf("addon = %+v, %v", a, err)
		}
		// Precedence, not publication order, picks the latest.
		h.publish(t, fixture.Clean("meta", "2.0.0-rc.1"))
		h.publish(t, fixture.Clean("meta", "1.4.1"))
		if a, _ := h.store.Addon(ctx, "meta"); a.LatestVersion != "2.0.0-rc.1" {
			t.Errorf("latest = %q, want 2.0.0-rc.1", a.LatestVersion)
		}
		h.publish(t, fixture.Clean("meta", "2.0.0"))
		if a, _ := h.store.Addon(ctx, "meta"); a.LatestVersion != "2.0.0" {
			t.Errorf("latest = %q, want 2.0.0", a.LatestVersion)
		}
	})
}

// TestTokenExpiry: a token made with a TTL authenticates until it expires
// and never after; the TTL is bounded and the expiry is audit-logged.
func TestTokenExpiry(t *testing.T) {
	eachBackend(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		secret, tok, err := h.svc.IssueToken(ctx, workflow.NewToken{Principal: "dana", Name: "dana-ci", Role: registry.RoleSubmitter, TTL: 90 * 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if want := h.clock.Now().UTC().Truncate(time.Microsecond).Add(90 * 24 * time.Hour); tok.ExpiresAt == nil || !tok.ExpiresAt.Equal(want) {
			t.Fatalf("ExpiresAt = %v, want %v", tok.ExpiresAt, want)
		}
		h.clock.Advance(90*24*time.Hour - 2*time.Second)
		if _, err := h.svc.Authenticate(ctx, secret); err != nil {
			t.Errorf("Authenticate before expiry: %v", err)
		}
		h.clock.Advance(2 * time.Second)
		if _, err := h.svc.Authenticate(ctx, secret); !errors.Is(err, registry.ErrUnauthenticated) {
			t.Errorf("Authenticate at expiry: err %v, want ErrUnauthenticated", err)
		}
		never, _, err := h.svc.IssueToken(ctx, workflow.NewToken{Principal: "dana", Name: "dana", Role: registry.RoleSubmitter})
		if err != nil {
			t.Fatal(err)
		}
		h.clock.Advance(20 * 366 * 24 * time.Hour)
		if _, err := h.svc.Authenticate(ctx, never); err != nil {
			t.Errorf("a token without TTL, twenty years on: %v", err)
		}
		for _, ttl := range []time.Duration{-time.Second, workflow.MaxTokenTTL + time.Second} {
			_, _, err := h.svc.IssueToken(ctx, workflow.NewToken{Principal: "dana", Name: "x", Role: registry.RoleSubmitter, TTL: ttl})
			var ve *registry.ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) != 1 || ve.Fields[0].Path != "expires" {
				t.Errorf("IssueToken(TTL %v) = %v, want a validation error naming expires", ttl, err)
			}
		}
		es, _, err := h.store.AuditLog(ctx, storage.AuditFilter{}, storage.Page{Limit: storage.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range es {
			if e.Target == "token/"+tok.ID && strings.Contains(e.Detail, `"expires_at":"`+tok.ExpiresAt.Format(time.RFC3339)+`"`) {
				found = true
			}
		}
		if !found {
			t.Errorf("the audit log does not record the token's expiry")
		}
	})
}
