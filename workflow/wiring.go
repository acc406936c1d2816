package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// The verified tier is bound to a wiring (see addon.Wiring): a grant covers
// the wiring digest of the version that was latest when two maintainers
// made it, and every report is rendered with the tier of its own
// manifest's wiring. So a new version that keeps the wiring is verified at
// once, one that changes it is community (and so is the addon while it is
// the latest version) until two maintainers verify its wiring; versions
// whose wiring the grant covers stay verified, whichever version is latest.

// tierFor returns the tier of a manifest whose wiring digest is wiring, in
// st.
func (st state) tierFor(wiring string) registry.Tier {
	if !st.exists {
		return registry.TierCommunity
	}
	return st.addon.TierFor(wiring)
}

// wiringOf returns the wiring digest of sub: as recorded, else computed
// from its manifest. A manifest that no longer decodes has none ("").
func wiringOf(sub registry.Submission) string {
	if sub.WiringSHA256 != "" {
		return sub.WiringSHA256
	}
	m, err := parse(sub.Manifest, Format(sub.Format))
	if err != nil {
		return ""
	}
	return m.WiringSHA256()
}

// upgradeWiring fills in the wiring digests of an addon recorded before
// they existed, and stores the addon when it changed it: LatestWiring is
// the latest version's, and VerifiedWiring that of the version that was
// latest when the grant was made (the highest version published at or
// before VerifiedAt), so that an old grant never covers a version
// published after it. A grant whose version cannot be found, or whose
// manifest no longer decodes, is left covering no wiring: the addon is
// community until maintainers verify it again.
func upgradeWiring(ctx context.Context, tx storage.Tx, st *state) error {
	a := &st.addon
	needLatest := a.LatestVersion != "" && a.LatestWiring == ""
	needGrant := a.Verified && a.VerifiedWiring == "" && a.VerifiedAt != nil
	if !needLatest && !needGrant {
		return nil
	}
	subs, err := tx.SubmissionsOfAddon(ctx, a.Name)
	if err != nil {
		return fmt.Errorf("list submissions of %q: %w", a.Name, err)
	}
	var granted *registry.Submission
	grantedVersion := ""
	for i, sub := range subs {
		if sub.Status != registry.StatusApproved {
			continue
		}
		v, err := tx.Version(ctx, a.Name, sub.Version)
		if errors.Is(err, registry.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("load %s@%s: %w", a.Name, sub.Version, err)
		}
		if v.SubmissionID != sub.ID {
			continue
		}
		if needLatest && sub.Version == a.LatestVersion {
			a.LatestWiring = wiringOf(sub)
		}
		if needGrant && !v.PublishedAt.After(*a.VerifiedAt) && (granted == nil || newer(sub.Version, grantedVersion)) {
			granted, grantedVersion = &subs[i], sub.Version
		}
	}
	if granted != nil {
		a.VerifiedWiring = wiringOf(*granted)
	}
	if a.LatestWiring == "" && a.VerifiedWiring == "" {
		return nil
	}
	if err := tx.PutAddon(ctx, *a); err != nil {
		return fmt.Errorf("store wiring digests of %q: %w", a.Name, err)
	}
	return nil
}

// WiringReader is what CompareWiring reads.
type WiringReader interface {
	Addon(ctx context.Context, name string) (registry.Addon, error)
	Version(ctx context.Context, addon, version string) (registry.Version, error)
	Submission(ctx context.Context, id string) (registry.Submission, error)
}

// WiringDiff is what a submission changes in the wiring of its addon, for
// the reviewer who decides whether to publish it.
type WiringDiff struct {
	// Wiring is the submission's wiring digest.
	Wiring string
	// Base is the published version the submission is compared with: the
	// addon's latest, unless that is the submission's own version. Nil
	// when there is none (a first version, or the latest itself).
	Base *registry.Version
	// Changes lists what differs from Base's wiring to the submission's,
	// in the wirings' order; empty when Base is nil or the wirings agree.
	Changes []addon.WiringChange
	// Tier is the tier the submission's wiring has under the addon's
	// current grant: what its report says.
	Tier registry.Tier
	// VerifiedWiring is the wiring the addon's grant covers, "" when
	// there is no grant.
	VerifiedWiring string
}

// CompareWiring compares sub's wiring with the latest published version's.
// It is a read: it runs outside any transaction, through r.
//
// Errors: a *registry.ValidationError (registry.ErrInvalid) when sub's
// manifest, or the latest version's, no longer decodes under the current
// rules; the reader's errors otherwise.
func CompareWiring(ctx context.Context, r WiringReader, sub registry.Submission) (WiringDiff, error) {
	m, err := parse(sub.Manifest, Format(sub.Format))
	if err != nil {
		return WiringDiff{}, fmt.Errorf("decode submission %s: %w", sub.ID, err)
	}
	w := m.Wiring()
	out := WiringDiff{Wiring: w.SHA256(), Changes: []addon.WiringChange{}, Tier: registry.TierCommunity}
	a, err := r.Addon(ctx, sub.Addon)
	if errors.Is(err, registry.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return WiringDiff{}, fmt.Errorf("load addon %q: %w", sub.Addon, err)
	}
	out.Tier = a.TierFor(out.Wiring)
	if a.Verified {
		out.VerifiedWiring = a.VerifiedWiring
	}
	if a.LatestVersion == "" || a.LatestVersion == sub.Version {
		return out, nil
	}
	v, err := r.Version(ctx, a.Name, a.LatestVersion)
	if err != nil {
		return WiringDiff{}, fmt.Errorf("load %s@%s: %w", a.Name, a.LatestVersion, err)
	}
	base, err := r.Submission(ctx, v.SubmissionID)
	if err != nil {
		return WiringDiff{}, fmt.Errorf("load submission of %s@%s: %w", a.Name, a.LatestVersion, err)
	}
	bm, err := parse(base.Manifest, Format(base.Format))
	if err != nil {
		return WiringDiff{}, fmt.Errorf("decode %s@%s: %w", a.Name, a.LatestVersion, err)
	}
	bw := bm.Wiring()
	v.WiringSHA256 = bw.SHA256()
	out.Base = &v
	out.Changes = bw.Changes(w)
	return out, nil
}
