package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// Approve publishes a pending submission's name@version, which is immutable
// from then on. It needs the maintainer role; the reason is optional and
// goes to the audit log.
//
// Four eyes: the maintainer's principal must not be the submitter's (the
// principal of a REST submission's token; for a pull request, the
// principal whose name folds to the author's login). A submission whose
// verdict is fail is not published: ApproveOverride does that, with a
// reason.
//
// Errors: registry.ErrNotFound for an unknown submission;
// registry.ErrForbidden below maintainer, and registry.ErrOwnSubmission
// (which matches it) for a maintainer approving their own submission; a *registry.BlockedError (registry.ErrConflict)
// naming the blocking findings when the verdict is fail;
// registry.ErrConflict when the submission is not pending (of two
// concurrent deciders exactly one wins), when its name@version is already
// published or when the addon was removed; a *registry.ValidationError for
// an unprintable or oversized reason.
func (s *Service) Approve(ctx context.Context, a Actor, submissionID, reason string) (registry.Submission, error) {
	return s.decide(ctx, a, submissionID, reason, registry.StatusApproved, false)
}

// ApproveOverride is Approve for a submission whose verdict is fail: the
// maintainer publishes it despite its blocking findings. The reason is
// required; the audit log records the override and the findings it
// overrode. On a submission that does not fail it is Approve. Errors are
// Approve's, without the *registry.BlockedError.
func (s *Service) ApproveOverride(ctx context.Context, a Actor, submissionID, reason string) (registry.Submission, error) {
	return s.decide(ctx, a, submissionID, reason, registry.StatusApproved, true)
}

// Reject rejects a pending submission for good. It needs the maintainer role
// and a reason, which the audit log keeps. Errors are Approve's, except
// that a maintainer may reject (withdraw) their own submission and a
// failing verdict does not stand in the way.
func (s *Service) Reject(ctx context.Context, a Actor, submissionID, reason string) (registry.Submission, error) {
	return s.decide(ctx, a, submissionID, reason, registry.StatusRejected, false)
}

func (s *Service) decide(ctx context.Context, a Actor, id, reason string, to registry.SubmissionStatus, override bool) (registry.Submission, error) {
	if err := requireRole(a, registry.RoleMaintainer); err != nil {
		return registry.Submission{}, err
	}
	var fs fields
	fs.text("reason", reason, MaxReasonBytes, to == registry.StatusRejected || override)
	if err := fs.err(); err != nil {
		return registry.Submission{}, err
	}
	now := s.clock()
	var sub registry.Submission
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		var err error
		sub, err = tx.Submission(ctx, id)
		if err != nil {
			return err
		}
		if sub.Status != registry.StatusPending {
			return conflict("the submission is already %s", sub.Status)
		}
		sub.Status, sub.DecidedBy, sub.DecidedAt, sub.DecisionReason, sub.UpdatedAt = to, a.Name, &now, reason, now
		if to == registry.StatusRejected {
			if err := tx.UpdateSubmission(ctx, sub); err != nil {
				return fmt.Errorf("store decision: %w", err)
			}
			return s.audit(ctx, tx, now, a.Name, "submission.reject", "submission/"+sub.ID, reason, versionDetail(sub))
		}
		if submittedBy(sub, a) {
			return fmt.Errorf("%w (%s submitted it); another maintainer must approve it", registry.ErrOwnSubmission, a.Name)
		}
		st, err := loadState(ctx, tx, sub.Addon)
		if err != nil {
			return err
		}
		if st.exists && st.addon.Removed {
			return conflict("addon %q was removed from the registry", sub.Addon)
		}
		// The report is rendered again so that the published version's
		// report certainly reflects the state it is published into. It is
		// stored after the version is created, so that its row is written
		// once, signed (storage.Tx.CreateVersion).
		r, err := render(sub.Manifest, Format(sub.Format), st, now)
		if err != nil {
			return fmt.Errorf("render submission %s: %w", sub.ID, err)
		}
		blocked := r.blocking()
		if blocked != nil && !override {
			return blocked
		}
		sub.Verdict, sub.Risk, sub.WiringSHA256 = r.report.Verdict, r.report.Risk, r.wiring
		if err := tx.UpdateSubmission(ctx, sub); err != nil {
			return fmt.Errorf("store decision: %w", err)
		}
		if _, err := publish(ctx, tx, sub, st, r.parsed, a.Name, now); err != nil {
			return err
		}
		rep, fs := r.stored(sub.ID)
		if err := tx.PutReport(ctx, rep, fs); err != nil {
			return fmt.Errorf("store report of %s: %w", sub.ID, err)
		}
		return s.audit(ctx, tx, now, a.Name, "submission.approve", "submission/"+sub.ID, reason, approveDetail(sub, blocked))
	})
	if err != nil {
		return registry.Submission{}, fmt.Errorf("decide submission %q: %w", id, err)
	}
	return sub, nil
}

// submittedBy reports whether a's principal submitted sub: the principal of
// a REST submission's token, or for a submission from GitHub the principal
// named like the pull request's author (GitHub logins are case-insensitive,
// as principal names are).
func submittedBy(sub registry.Submission, a Actor) bool {
	if sub.Source == registry.SourceGitHub {
		login := sub.Submitter
		if sub.GitHub != nil && sub.GitHub.Author != "" {
			login = sub.GitHub.Author
		}
		return samePrincipal("", login, "", a.Name)
	}
	return samePrincipal(sub.SubmitterPrincipal, sub.Submitter, a.Principal, a.Name)
}

// approveDetail is the audit detail of an approval: the version, and for an
// override the blocking findings it overrode.
func approveDetail(sub registry.Submission, overridden *registry.BlockedError) string {
	if overridden == nil {
		return versionDetail(sub)
	}
	type finding struct {
		Code string `json:"code"`
		Path string `json:"path"`
	}
	d := struct {
		Addon          string    `json:"addon"`
		Version        string    `json:"version"`
		ManifestSHA256 string    `json:"manifest_sha256"`
		Override       bool      `json:"override"`
		Overridden     []finding `json:"overridden"`
	}{Addon: sub.Addon, Version: sub.Version, ManifestSHA256: sub.ManifestSHA256, Override: true, Overridden: []finding{}}
	for _, f := range overridden.Findings {
		d.Overridden = append(d.Overridden, finding{Code: f.Code, Path: f.Path})
	}
	b, _ := json.Marshal(d)
	return string(b)
}

// VerifyOutcome is the result of SetVerified. Pending is true when a first
// maintainer's grant was recorded (Approval) and a second, different
// maintainer must confirm it; Addon is the addon as stored afterwards.
type VerifyOutcome struct {
	Pending  bool
	Addon    registry.Addon
	Approval *registry.VerifyApproval
}

// SetVerified grants or revokes an addon's `verified` tier; it needs the
// maintainer role.
//
// A grant is made to the wiring of the latest published version (its
// addon.Wiring digest) and confers the verified tier on every version with
// that wiring, and on no other. Granting takes two different maintainers
// (principals: two tokens of one principal, or names that fold alike, are
// one maintainer): the first call records a VerifyApproval of the latest
// wiring and returns Pending; the second call, by another maintainer,
// confirms it. When the
// latest wiring changed between the two (a new version was published), the
// first approval no longer applies: the second call records its own as the
// first approval of the new wiring and returns Pending. Both calls require
// that the latest published version has no unsuppressed finding at warn or
// above. A grant replaces an earlier one made to another wiring. Revoking
// takes one maintainer and a reason, and also drops a pending approval.
// When the tier changes, every report of the addon is rendered again in the
// same transaction. Each step is audit-logged.
//
// Errors: registry.ErrNotFound for an unknown addon; registry.ErrConflict
// (with a message saying why) when a finding blocks the grant, the same
// maintainer approves twice, the latest wiring is already verified (grant)
// or the addon is neither verified nor pending (revoke), or the addon was
// removed (grant);
// registry.ErrForbidden below maintainer; a *registry.ValidationError for a
// malformed name or reason.
func (s *Service) SetVerified(ctx context.Context, a Actor, name string, verified bool, reason string) (VerifyOutcome, error) {
	if err := requireRole(a, registry.RoleMaintainer); err != nil {
		return VerifyOutcome{}, err
	}
	var fs fields
	fs.ident("addon", name, addon.MaxNameBytes, addonByte, "lower-case letters, digits and dashes")
	fs.text("reason", reason, MaxReasonBytes, !verified)
	if err := fs.err(); err != nil {
		return VerifyOutcome{}, err
	}
	now := s.clock()
	var out VerifyOutcome
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		out = VerifyOutcome{}
		st, err := loadState(ctx, tx, name)
		if err != nil {
			return err
		}
		if !st.exists {
			return fmt.Errorf("addon %q: %w", name, registry.ErrNotFound)
		}
		approval, err := tx.VerifyApproval(ctx, name)
		hasApproval := err == nil
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			return fmt.Errorf("load verify approval: %w", err)
		}
		if !verified {
			return s.revokeVerified(ctx, tx, a, st, hasApproval, reason, now, &out)
		}
		switch {
		case st.addon.Removed:
			return conflict("addon %q was removed from the registry", name)
		case st.addon.Tier() == registry.TierVerified:
			return conflict("addon %q is already verified for the wiring of its latest version", name)
		}
		wiring, err := grantable(ctx, tx, st, now)
		if err != nil {
			return err
		}
		if !hasApproval || approval.WiringSHA256 != wiring {
			// A first approval, or one of a wiring that is no longer the
			// latest: this maintainer's approval is the first of this one.
			ap := registry.VerifyApproval{Addon: name, Maintainer: a.Name, Principal: a.Principal, Reason: reason, At: now, WiringSHA256: wiring}
			if err := tx.PutVerifyApproval(ctx, ap); err != nil {
				return fmt.Errorf("store verify approval: %w", err)
			}
			out = VerifyOutcome{Pending: true, Addon: st.addon, Approval: &ap}
			d := map[string]string{"version": st.addon.LatestVersion, "wiring_sha256": wiring}
			if hasApproval {
				d["replaces_approval_by"], d["replaces_wiring_sha256"] = approval.Maintainer, approval.WiringSHA256
			}
			detail, _ := json.Marshal(d)
			return s.audit(ctx, tx, now, a.Name, "addon.verify.approve", "addon/"+name, reason, string(detail))
		}
		if samePrincipal(approval.Principal, approval.Maintainer, a.Principal, a.Name) {
			return conflict("%s already approved verifying %q; a second, different maintainer must confirm it", a.Name, name)
		}
		st.addon.Verified = true
		st.addon.VerifiedWiring = wiring
		st.addon.VerifiedBy = []string{approval.Maintainer, a.Name}
		st.addon.VerifiedAt = &now
		st.addon.VerifiedReason = joinReasons(approval.Reason, reason)
		st.addon.UpdatedAt = now
		if err := tx.DeleteVerifyApproval(ctx, name); err != nil {
			return fmt.Errorf("drop verify approval: %w", err)
		}
		ad, err := s.storeAddon(ctx, tx, st, now)
		if err != nil {
			return err
		}
		out = VerifyOutcome{Addon: ad}
		detail, _ := json.Marshal(map[string]any{"maintainers": ad.VerifiedBy, "version": ad.LatestVersion, "wiring_sha256": wiring})
		return s.audit(ctx, tx, now, a.Name, "addon.verify.grant", "addon/"+name, reason, string(detail))
	})
	if err != nil {
		return VerifyOutcome{}, fmt.Errorf("set verified on %q: %w", name, err)
	}
	return out, nil
}

func (s *Service) revokeVerified(ctx context.Context, tx storage.Tx, a Actor, st state, hasApproval bool, reason string, now time.Time, out *VerifyOutcome) error {
	name := st.addon.Name
	if !st.addon.Verified && !hasApproval {
		return conflict("addon %q is not verified", name)
	}
	if hasApproval {
		if err := tx.DeleteVerifyApproval(ctx, name); err != nil {
			return fmt.Errorf("drop verify approval: %w", err)
		}
	}
	ad := st.addon
	if st.addon.Verified {
		st.addon.Verified, st.addon.VerifiedBy, st.addon.VerifiedAt, st.addon.VerifiedWiring = false, nil, nil, ""
		st.addon.VerifiedReason, st.addon.UpdatedAt = reason, now
		var err error
		if ad, err = s.storeAddon(ctx, tx, st, now); err != nil {
			return err
		}
	}
	*out = VerifyOutcome{Addon: ad}
	return s.audit(ctx, tx, now, a.Name, "addon.verify.revoke", "addon/"+name, reason, "")
}

// grantable checks that the latest published version of the addon has no
// counted finding at warn or above under the addon's current suppressions,
// and returns its wiring digest: what a grant now covers.
func grantable(ctx context.Context, tx storage.Tx, st state, now time.Time) (string, error) {
	name := st.addon.Name
	if st.addon.LatestVersion == "" {
		return "", conflict("addon %q has no published version", name)
	}
	v, err := tx.Version(ctx, name, st.addon.LatestVersion)
	if err != nil {
		return "", fmt.Errorf("load latest version: %w", err)
	}
	// Read without locking it (its manifest never changes): a grant then
	// re-renders every version, locking the submissions in the order they
	// were made, and locking the latest one first would cross a
	// re-assessment that claims them in that order.
	subs, err := tx.SubmissionsOfAddon(ctx, name)
	if err != nil {
		return "", fmt.Errorf("list submissions: %w", err)
	}
	i := slices.IndexFunc(subs, func(s registry.Submission) bool { return s.ID == v.SubmissionID })
	if i < 0 {
		return "", fmt.Errorf("load latest submission %s: %w", v.SubmissionID, registry.ErrNotFound)
	}
	sub := subs[i]
	r, err := render(sub.Manifest, Format(sub.Format), st, now)
	if err != nil {
		return "", fmt.Errorf("render latest version: %w", err)
	}
	if f, ok := r.unsuppressed(); ok {
		return "", conflict("the latest version %q has an unsuppressed %s finding %s at %s; fix it or suppress it with a reason before granting verified",
			sub.Version, f.Level, f.Code, pathOrWhole(f.Path))
	}
	return r.wiring, nil
}

func pathOrWhole(p string) string {
	if p == "" {
		return "(manifest)"
	}
	return p
}

func joinReasons(first, second string) string {
	switch {
	case first == "":
		return second
	case second == "":
		return first
	}
	return first + "\n" + second
}

// storeAddon re-renders every report of st's addon (whose record the
// caller changed) and stores the addon.
func (s *Service) storeAddon(ctx context.Context, tx storage.Tx, st state, now time.Time) (registry.Addon, error) {
	ad, err := rerenderAddon(ctx, tx, st, now)
	if err != nil {
		return registry.Addon{}, err
	}
	if err := tx.PutAddon(ctx, ad); err != nil {
		return registry.Addon{}, fmt.Errorf("store addon: %w", err)
	}
	return ad, nil
}

// Suppress records a maintainer's suppression of the findings with sp.Code
// at sp.Path (every path of the code when sp.Path is empty) in the addon's
// reports, and re-renders those reports in the same transaction. sp.Code
// must be a code of the rule table, sp.Reason a known reason; sp.Note is
// optional text; sp.ExpiresAt, when set, must lie in the future. The
// service sets ID, Addon, Author and CreatedAt. It needs the maintainer role
// and is audit-logged.
//
// Errors: a *registry.ValidationError naming the field; registry.ErrNotFound
// for an unknown addon; registry.ErrConflict when the addon already has a
// suppression for the same code and path; registry.ErrForbidden.
func (s *Service) Suppress(ctx context.Context, a Actor, name string, sp registry.Suppression) (registry.Suppression, error) {
	if err := requireRole(a, registry.RoleMaintainer); err != nil {
		return registry.Suppression{}, err
	}
	now := s.clock()
	var fs fields
	fs.ident("addon", name, addon.MaxNameBytes, addonByte, "lower-case letters, digits and dashes")
	fs.ident("code", sp.Code, 64, codeByte, "lower-case letters, digits and underscores")
	if len(fs) == 0 || fs[len(fs)-1].Path != "code" {
		if _, ok := assess.RuleFor(sp.Code); !ok {
			fs.add("code", "is not a code of the rule table")
		}
	}
	if sp.Path != "" {
		fs.ident("path", sp.Path, 256, pathByte, "letters, digits and _ - . [ ]")
	}
	if !sp.Reason.Valid() {
		fs.add("reason", "must be one of false_positive, mitigated, not_applicable, accepted_risk")
	}
	fs.text("note", sp.Note, MaxNoteBytes, false)
	if sp.ExpiresAt != nil {
		if !sp.ExpiresAt.After(now) {
			fs.add("expires_at", "must lie in the future")
		} else {
			t := sp.ExpiresAt.UTC().Truncate(time.Microsecond)
			sp.ExpiresAt = &t
		}
	}
	if err := fs.err(); err != nil {
		return registry.Suppression{}, err
	}
	sp.Addon, sp.Author, sp.CreatedAt = name, a.Name, now
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		sp.ID = s.newID("sup")
		st, err := loadState(ctx, tx, name)
		if err != nil {
			return err
		}
		if !st.exists {
			return fmt.Errorf("addon %q: %w", name, registry.ErrNotFound)
		}
		for _, old := range st.suppressions {
			if old.Code == sp.Code && old.Path == sp.Path {
				return conflict("addon %q already has a suppression of %s at %s", name, sp.Code, pathOrAll(sp.Path))
			}
		}
		if err := tx.CreateSuppression(ctx, sp); err != nil {
			if errors.Is(err, registry.ErrConflict) {
				return conflict("addon %q already has a suppression of %s at %s", name, sp.Code, pathOrAll(sp.Path))
			}
			return fmt.Errorf("store suppression: %w", err)
		}
		st.suppressions = append(st.suppressions, sp)
		if _, err := s.storeAddon(ctx, tx, st, now); err != nil {
			return err
		}
		return s.audit(ctx, tx, now, a.Name, "suppression.create", "addon/"+name, string(sp.Reason)+": "+sp.Note, suppressionDetail(sp))
	})
	if err != nil {
		return registry.Suppression{}, fmt.Errorf("suppress in %q: %w", name, err)
	}
	return sp, nil
}

// Unsuppress removes one of the addon's suppressions and re-renders its
// reports in the same transaction. It needs the maintainer role and is
// audit-logged. Errors: registry.ErrNotFound when the addon or the
// suppression does not exist; registry.ErrForbidden.
func (s *Service) Unsuppress(ctx context.Context, a Actor, name, suppressionID string) error {
	if err := requireRole(a, registry.RoleMaintainer); err != nil {
		return err
	}
	var fs fields
	fs.ident("addon", name, addon.MaxNameBytes, addonByte, "lower-case letters, digits and dashes")
	if err := fs.err(); err != nil {
		return err
	}
	now := s.clock()
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		st, err := loadState(ctx, tx, name)
		if err != nil {
			return err
		}
		if !st.exists {
			return fmt.Errorf("addon %q: %w", name, registry.ErrNotFound)
		}
		sp, err := tx.DeleteSuppression(ctx, name, suppressionID)
		if err != nil {
			return fmt.Errorf("suppression %q: %w", suppressionID, err)
		}
		st.suppressions = without(st.suppressions, sp.ID)
		if _, err := s.storeAddon(ctx, tx, st, now); err != nil {
			return err
		}
		return s.audit(ctx, tx, now, a.Name, "suppression.delete", "addon/"+name, "", suppressionDetail(sp))
	})
	if err != nil {
		return fmt.Errorf("unsuppress in %q: %w", name, err)
	}
	return nil
}

// Remove marks an addon removed from the registry. Its reports stay
// fetchable and say so: they are re-rendered with removed set (and so a
// failing verdict) in the same transaction. A pending verify approval is
// dropped. It needs the maintainer role and a reason, and is audit-logged.
//
// Errors: registry.ErrNotFound; registry.ErrConflict when it is already
// removed; registry.ErrForbidden; a *registry.ValidationError.
func (s *Service) Remove(ctx context.Context, a Actor, name, reason string) error {
	if err := requireRole(a, registry.RoleMaintainer); err != nil {
		return err
	}
	var fs fields
	fs.ident("addon", name, addon.MaxNameBytes, addonByte, "lower-case letters, digits and dashes")
	fs.text("reason", reason, MaxReasonBytes, true)
	if err := fs.err(); err != nil {
		return err
	}
	now := s.clock()
	err := s.store.InTx(ctx, func(tx storage.Tx) error {
		st, err := loadState(ctx, tx, name)
		if err != nil {
			return err
		}
		if !st.exists {
			return fmt.Errorf("addon %q: %w", name, registry.ErrNotFound)
		}
		if st.addon.Removed {
			return conflict("addon %q is already removed", name)
		}
		if _, err := tx.VerifyApproval(ctx, name); err == nil {
			if err := tx.DeleteVerifyApproval(ctx, name); err != nil {
				return fmt.Errorf("drop verify approval: %w", err)
			}
		} else if !errors.Is(err, registry.ErrNotFound) {
			return fmt.Errorf("load verify approval: %w", err)
		}
		st.addon.Removed, st.addon.RemovedAt, st.addon.UpdatedAt = true, &now, now
		if _, err := s.storeAddon(ctx, tx, st, now); err != nil {
			return err
		}
		return s.audit(ctx, tx, now, a.Name, "addon.remove", "addon/"+name, reason, "")
	})
	if err != nil {
		return fmt.Errorf("remove %q: %w", name, err)
	}
	return nil
}

func addonByte(c byte) bool { return isLowerAlnum(c) || c == '-' }

func pathOrAll(p string) string {
	if p == "" {
		return "every path"
	}
	return p
}

func without(sps []registry.Suppression, id string) []registry.Suppression {
	out := make([]registry.Suppression, 0, len(sps))
	for _, sp := range sps {
		if sp.ID != id {
			out = append(out, sp)
		}
	}
	return out
}

func suppressionDetail(sp registry.Suppression) string {
	d := map[string]string{"id": sp.ID, "code": sp.Code, "path": sp.Path, "reason": string(sp.Reason)}
	if sp.ExpiresAt != nil {
		d["expires_at"] = sp.ExpiresAt.UTC().Format(time.RFC3339Nano)
	}
	b, _ := json.Marshal(d)
	return string(b)
}
