package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/storage"
)

// Submit parses a manifest (addon.ParseTOML or addon.ParseJSON by f),
// audits it, renders its report with the addon's current registry state
// (tier, active suppressions, removed) and stores the pending submission,
// its report and findings in one transaction.
//
// A REST submission (origin nil) needs an actor with at least the submitter
// role. A submission with a GitHub origin is webhook-driven work: the caller
// has verified the webhook's signature and a.Name is the GitHub login, so no
// role is required.
//
// The manifest must name its version, a SemVer 2.0.0 version
// (addon.CheckVersion). A version equal to a published one but for build
// metadata (1.0.0+b after 1.0.0+a) is that version.
//
// Errors: a *registry.ValidationError (errors.Is registry.ErrInvalid, and
// registry.ErrTooLarge for an oversized manifest) for a refused manifest, and
// then nothing is stored; registry.ErrConflict when name@version is already
// published with different bytes. When the bytes are identical to the
// published version's, or to a submission of the same version the same
// submitter made that is still pending, Submit returns that submission and its current report with
// created false and stores nothing (for a pending one this is best effort:
// two identical submissions racing each other may both be queued).
func (s *Service) Submit(ctx context.Context, a Actor, manifest []byte, f Format, origin *registry.GitHubOrigin) (sub registry.Submission, rep registry.Report, created bool, err error) {
	if err := submitter(a, origin, registry.RoleSubmitter); err != nil {
		return sub, rep, false, err
	}
	m, err := parseSubmission(manifest, f, origin)
	if err != nil {
		return sub, rep, false, err
	}
	sha := report.SHA256(manifest)
	name, version := m.Addon.Name, m.Addon.Version
	// A retried request or a re-sent pull request must not queue the same
	// bytes twice. The look-up is outside the transaction, so two identical
	// submissions racing each other may both be queued: harmless, as
	// approving one makes the other conflict.
	twin, found, err := s.pendingTwin(ctx, a, origin, name, version, sha)
	if err != nil {
		return sub, rep, false, fmt.Errorf("submit %q: %w", name+"@"+version, err)
	}
	if found {
		rep, err = s.store.Report(ctx, twin.ID)
		if err != nil {
			return registry.Submission{}, registry.Report{}, false, fmt.Errorf("load report of %s: %w", twin.ID, err)
		}
		return twin, rep, false, nil
	}
	now := s.clock()
	var existing bool
	err = s.store.InTx(ctx, func(tx storage.Tx) error {
		existing, rep = false, registry.Report{}
		prior, found, err := sameBytes(ctx, tx, name, version, sha)
		if err != nil || found {
			sub, existing = prior, found
			return err
		}
		st, err := loadState(ctx, tx, name)
		if err != nil {
			return err
		}
		r, err := renderParsed(manifest, m, st, now)
		if err != nil {
			return err
		}
		sub = s.newSubmission(a, manifest, sha, f, origin, m, r, now)
		if err := tx.CreateSubmission(ctx, sub); err != nil {
			return fmt.Errorf("store submission: %w", err)
		}
		var fs []registry.StoredFinding
		rep, fs = r.stored(sub.ID)
		if err := tx.PutReport(ctx, rep, fs); err != nil {
			return fmt.Errorf("store report: %w", err)
		}
		return nil
	})
	if err != nil {
		return registry.Submission{}, registry.Report{}, false, fmt.Errorf("submit %q: %w", name+"@"+version, err)
	}
	if existing {
		rep, err = s.store.Report(ctx, sub.ID)
		if err != nil {
			return registry.Submission{}, registry.Report{}, false, fmt.Errorf("load report of %s: %w", sub.ID, err)
		}
		return sub, rep, false, nil
	}
	return sub, rep, true, nil
}

// Publish ingests a manifest and publishes it at once. It serves a push to
// the registry repository's default branch, where the merge was the
// maintainers' approval: the submission is stored approved, decided by
// a.Name (the pusher), and the audit log records the pusher as approver.
// Publish with a nil origin needs the maintainer role.
//
// When a submission of the same name@version with the same bytes is
// pending (typically from the pull request that was merged), Publish
// approves that one instead of storing a new one, so that it leaves the
// review queue; the submission keeps its submitter and origin.
//
// A manifest whose verdict is fail is not published: Publish returns a
// *registry.BlockedError naming its blocking findings and stores nothing
// (the pull request's pending submission stays in the review queue, where a
// maintainer may approve it with an override and a reason). A push carries
// no such reason.
//
// Errors are Submit's, plus registry.ErrConflict when the addon was removed.
// Publishing bytes identical to the published version's is not an error: it
// returns that version's submission and report and stores nothing.
func (s *Service) Publish(ctx context.Context, a Actor, manifest []byte, f Format, origin *registry.GitHubOrigin) (registry.Submission, registry.Report, error) {
	if err := submitter(a, origin, registry.RoleMaintainer); err != nil {
		return registry.Submission{}, registry.Report{}, err
	}
	m, err := parseSubmission(manifest, f, origin)
	if err != nil {
		return registry.Submission{}, registry.Report{}, err
	}
	sha := report.SHA256(manifest)
	name, version := m.Addon.Name, m.Addon.Version
	// The pull request that was merged usually left its submission of the
	// same bytes pending: publishing decides that one rather than leaving it
	// in the review queue for good.
	waiting, err := s.pendingIDs(ctx, name, version, sha)
	if err != nil {
		return registry.Submission{}, registry.Report{}, fmt.Errorf("publish %q: %w", name+"@"+version, err)
	}
	now := s.clock()
	var (
		sub      registry.Submission
		rep      registry.Report
		existing bool
	)
	err = s.store.InTx(ctx, func(tx storage.Tx) error {
		existing, rep = false, registry.Report{}
		prior, found, err := sameBytes(ctx, tx, name, version, sha)
		if err != nil || found {
			sub, existing = prior, found
			return err
		}
		st, err := loadState(ctx, tx, name)
		if err != nil {
			return err
		}
		if st.exists && st.addon.Removed {
			return conflict("addon %q was removed from the registry", name)
		}
		r, err := renderParsed(manifest, m, st, now)
		if err != nil {
			return err
		}
		if blocked := r.blocking(); blocked != nil {
			return blocked
		}
		sub = s.newSubmission(a, manifest, sha, f, origin, m, r, now)
		adopted := false
		for _, id := range waiting {
			if p, err := tx.Submission(ctx, id); err == nil && p.Status == registry.StatusPending {
				sub.ID, sub.Source, sub.Submitter, sub.SubmitterToken, sub.GitHub = p.ID, p.Source, p.Submitter, p.SubmitterToken, p.GitHub
				sub.SubmitterPrincipal = p.SubmitterPrincipal
				sub.Format, sub.CreatedAt, adopted = p.Format, p.CreatedAt, true
				break
			}
		}
		sub.Status, sub.DecidedBy, sub.DecidedAt = registry.StatusApproved, a.Name, &now
		sub.DecisionReason = pushReason(origin)
		if adopted {
			err = tx.UpdateSubmission(ctx, sub)
		} else {
			err = tx.CreateSubmission(ctx, sub)
		}
		if err != nil {
			return fmt.Errorf("store submission: %w", err)
		}
		// The version first: its report is then stored once, signed
		// (storage.Tx.CreateVersion), rather than stored and then stored
		// again with its envelope.
		if _, err := publish(ctx, tx, sub, st, m, a.Name, now); err != nil {
			return err
		}
		var fs []registry.StoredFinding
		rep, fs = r.stored(sub.ID)
		if err := tx.PutReport(ctx, rep, fs); err != nil {
			return fmt.Errorf("store report: %w", err)
		}
		return s.audit(ctx, tx, now, a.Name, "submission.publish", "submission/"+sub.ID, sub.DecisionReason, versionDetail(sub))
	})
	if err != nil {
		return registry.Submission{}, registry.Report{}, fmt.Errorf("publish %q: %w", name+"@"+version, err)
	}
	if existing {
		rep, err = s.store.Report(ctx, sub.ID)
		if err != nil {
			return registry.Submission{}, registry.Report{}, fmt.Errorf("load report of %s: %w", sub.ID, err)
		}
	}
	return sub, rep, nil
}

// submitter checks who may ingest a manifest: webhook-driven work (a GitHub
// origin) by an identified login, anything else by a token of role min.
func submitter(a Actor, origin *registry.GitHubOrigin, min registry.Role) error {
	if origin != nil {
		if a.Name == "" {
			return fmt.Errorf("%w: no actor", registry.ErrUnauthenticated)
		}
		return nil
	}
	return requireRole(a, min)
}

// parseSubmission decodes the manifest and checks the GitHub origin.
func parseSubmission(manifest []byte, f Format, origin *registry.GitHubOrigin) (*addon.Manifest, error) {
	if origin != nil {
		var fs fields
		fs.text("github.repo", origin.Repo, 256, true)
		fs.text("github.commit", origin.CommitID, 64, false)
		fs.text("github.path", origin.Path, 1024, false)
		fs.text("github.author", origin.Author, 128, false)
		if origin.PR < 0 {
			fs.add("github.pr", "must not be negative")
		}
		if err := fs.err(); err != nil {
			return nil, err
		}
	}
	m, err := parse(manifest, f)
	if err != nil {
		return nil, err
	}
	if err := addon.CheckVersion(m); err != nil {
		return nil, err
	}
	return m, nil
}

// sameBytes finds the published submission of name@version when its
// manifest digest is sha. It returns registry.ErrConflict when name@version
// is published with other bytes.
func sameBytes(ctx context.Context, tx storage.Tx, name, version, sha string) (registry.Submission, bool, error) {
	v, err := tx.Version(ctx, name, version)
	if errors.Is(err, registry.ErrNotFound) {
		return registry.Submission{}, false, nil
	}
	if err != nil {
		return registry.Submission{}, false, fmt.Errorf("load version: %w", err)
	}
	pub, err := tx.Submission(ctx, v.SubmissionID)
	if err != nil {
		return registry.Submission{}, false, fmt.Errorf("load published submission: %w", err)
	}
	if pub.ManifestSHA256 != sha {
		if pub.Version != version {
			return registry.Submission{}, false, conflict("%q is already published as %q, the same version (build metadata does not make a new version); publish a new version",
				name+"@"+version, pub.Version)
		}
		return registry.Submission{}, false, conflict("%q is already published with different bytes; publish a new version", name+"@"+version)
	}
	return pub, true, nil
}

// pendingTwin finds a pending submission of name@version whose manifest
// digest is sha, made by the same submitter through the same channel, among
// the addon's first storage.MaxLimit pending ones. Another submitter's
// pending submission is never handed out: pending submissions are visible
// only to their submitter and the maintainers.
func (s *Service) pendingTwin(ctx context.Context, a Actor, origin *registry.GitHubOrigin, name, version, sha string) (registry.Submission, bool, error) {
	source := registry.SourceREST
	if origin != nil {
		source = registry.SourceGitHub
	}
	subs, _, err := s.store.Submissions(ctx, storage.SubmissionFilter{Addon: name, Status: registry.StatusPending}, storage.Page{Limit: storage.MaxLimit})
	if err != nil {
		return registry.Submission{}, false, fmt.Errorf("list pending submissions: %w", err)
	}
	for _, p := range subs {
		if p.Version == version && p.ManifestSHA256 == sha && p.Source == source && p.Submitter == a.Name && p.SubmitterToken == tokenOf(a, origin) {
			return p, true, nil
		}
	}
	return registry.Submission{}, false, nil
}

// pendingIDs returns the IDs of the pending submissions of name@version
// with manifest digest sha, by any submitter.
func (s *Service) pendingIDs(ctx context.Context, name, version, sha string) ([]string, error) {
	subs, _, err := s.store.Submissions(ctx, storage.SubmissionFilter{Addon: name, Status: registry.StatusPending}, storage.Page{Limit: storage.MaxLimit})
	if err != nil {
		return nil, fmt.Errorf("list pending submissions: %w", err)
	}
	var ids []string
	for _, p := range subs {
		if p.Version == version && p.ManifestSHA256 == sha {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}

// tokenOf is the token a submission records: the actor's for REST, none
// for GitHub.
func tokenOf(a Actor, origin *registry.GitHubOrigin) string {
	if origin != nil {
		return ""
	}
	return a.TokenID
}

func (s *Service) newSubmission(a Actor, manifest []byte, sha string, f Format, origin *registry.GitHubOrigin, m *addon.Manifest, r rendered, now time.Time) registry.Submission {
	sub := registry.Submission{
		ID:             s.newID("sub"),
		Addon:          m.Addon.Name,
		Version:        m.Addon.Version,
		Manifest:       manifest,
		ManifestSHA256: sha,
		Format:         string(f),
		Source:         registry.SourceREST,
		Submitter:      a.Name,
		SubmitterToken: a.TokenID,
		Status:         registry.StatusPending,
		Verdict:        r.report.Verdict,
		Risk:           r.report.Risk,
		WiringSHA256:   r.wiring,
		CreatedAt:      now,
		UpdatedAt:      now,
	}
	// The principal of a REST submission's token, for four eyes.
	sub.SubmitterPrincipal = a.Principal
	if origin != nil {
		o := *origin
		sub.Source, sub.GitHub, sub.SubmitterToken, sub.SubmitterPrincipal = registry.SourceGitHub, &o, "", ""
	}
	return sub
}

// publish makes sub's name@version a published version and brings the
// addon record up to date (creating it on a first publication). st is the
// addon's state before the publication. A new latest version brings its
// wiring digest: the addon's tier is verified only while a grant covers
// it, and no report of another version changes (each has its own tier).
func publish(ctx context.Context, tx storage.Tx, sub registry.Submission, st state, m *addon.Manifest, by string, now time.Time) (registry.Addon, error) {
	err := tx.CreateVersion(ctx, registry.Version{Addon: sub.Addon, Version: sub.Version, SubmissionID: sub.ID, PublishedAt: now, PublishedBy: by})
	if errors.Is(err, registry.ErrConflict) {
		return registry.Addon{}, conflict("%q is already published", sub.Addon+"@"+sub.Version)
	}
	if err != nil {
		return registry.Addon{}, fmt.Errorf("publish version: %w", err)
	}
	a := st.addon
	if !st.exists {
		a = registry.Addon{Name: sub.Addon, CreatedAt: now}
	}
	if a.LatestVersion == "" || newer(sub.Version, a.LatestVersion) {
		a.LatestVersion, a.LatestVerdict, a.LatestWiring = sub.Version, sub.Verdict, sub.WiringSHA256
		a.DisplayName, a.Description, a.Homepage = m.Addon.DisplayName, m.Addon.Description, m.Addon.Homepage
		a.Keywords, a.Categories = m.Addon.Keywords, m.Addon.Categories
	}
	a.UpdatedAt = now
	if err := tx.PutAddon(ctx, a); err != nil {
		return registry.Addon{}, fmt.Errorf("store addon: %w", err)
	}
	return a, nil
}

func pushReason(o *registry.GitHubOrigin) string {
	if o == nil {
		return "published directly"
	}
	r := "merged into " + o.Repo
	if o.CommitID != "" {
		r += " at " + o.CommitID
	}
	return r
}

// versionDetail is the machine-readable detail of an audit entry about one
// submission.
func versionDetail(sub registry.Submission) string {
	b, _ := json.Marshal(map[string]string{"addon": sub.Addon, "version": sub.Version, "manifest_sha256": sub.ManifestSHA256})
	return string(b)
}
