package sqlstore

import (
	"context"
	"fmt"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// versionCols are read FROM versionsFrom: a version with its submission's
// wiring digest.
const (
	versionCols  = `v.addon, v.version, v.submission_id, v.published_at, v.published_by, s.wiring_sha256`
	versionsFrom = ` FROM versions v JOIN submissions s ON s.id = v.submission_id`
)

func (r reader) scanVersion(row Row) (registry.Version, error) {
	var v registry.Version
	err := row.Scan(&v.Addon, &v.Version, &v.SubmissionID, r.d.ScanTime(&v.PublishedAt), &v.PublishedBy, &v.WiringSHA256)
	return v, err
}

// Versions lists the published versions of addon, newest first
// (published_at, then version), one page at a time.
func (r reader) Versions(ctx context.Context, addon string, p storage.Page) ([]registry.Version, string, error) {
	var a args
	where, err := r.cursorAfter(&a, []string{"v.addon = " + a.add(addon)}, "v.published_at, v.version", "<", p.Cursor)
	if err != nil {
		return nil, "", err
	}
	limit := p.Bounded()
	out, err := list(r, ctx, fmt.Sprintf("versions of %q", addon), r.scanVersion, `SELECT `+versionCols+versionsFrom+
		whereSQL(where)+` ORDER BY v.published_at DESC, v.version DESC LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", err
	}
	out, next := page(out, limit, func(v registry.Version) storage.Cursor {
		return storage.Cursor{At: v.PublishedAt, Key: v.Version}
	})
	return out, next, nil
}

// Version returns the published version of addon that is the same version
// as version (registry.VersionKey: equal but for build metadata), or an
// error wrapping registry.ErrNotFound.
func (r reader) Version(ctx context.Context, addon, version string) (registry.Version, error) {
	v, err := r.scanVersion(r.c.QueryRow(ctx, `SELECT `+versionCols+versionsFrom+` WHERE v.addon = $1 AND v.version_key = $2`,
		addon, registry.VersionKey(version)))
	if err != nil {
		return v, r.err(fmt.Sprintf("version %s@%s", addon, version), err)
	}
	return v, nil
}

// VersionByManifest returns the published version whose submission's
// manifest has the sha256 manifestSHA256, or an error wrapping
// registry.ErrNotFound. Should two ever share it, the latest published
// wins.
func (r reader) VersionByManifest(ctx context.Context, manifestSHA256 string) (registry.Version, error) {
	v, err := r.scanVersion(r.c.QueryRow(ctx, `SELECT `+versionCols+versionsFrom+` WHERE s.manifest_sha256 = $1
		ORDER BY v.published_at DESC, v.addon, v.version LIMIT 1`, manifestSHA256))
	if err != nil {
		return v, r.err(fmt.Sprintf("version with manifest sha256:%s", manifestSHA256), err)
	}
	return v, nil
}

// CreateVersion publishes v; registry.ErrConflict when the addon has a
// version with the same registry.VersionKey, registry.ErrNotFound when its
// submission does not exist.
func (t *tx) CreateVersion(ctx context.Context, v registry.Version) error {
	_, err := t.c.Exec(ctx, `INSERT INTO versions (addon, version, version_key, submission_id, published_at, published_by)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		v.Addon, v.Version, registry.VersionKey(v.Version), v.SubmissionID, t.d.Time(v.PublishedAt), v.PublishedBy)
	if err != nil {
		return t.err(fmt.Sprintf("create version %s@%s", v.Addon, v.Version), err)
	}
	// The report the submission has is now a published version's: it is
	// signed and logged (translog.go), and so is any it gets later in
	// this transaction. Which is signed waits for the report PutReport
	// stores later in the transaction, if it does (a workflow that
	// publishes a submission renders its report anew and stores it after
	// creating the version for that): the report's row is then written
	// once, with its envelope. The one the submission already had is
	// signed at the commit only if none came.
	var p published
	if f, fresh := t.fresh[v.SubmissionID]; fresh {
		delete(t.fresh, v.SubmissionID)
		p = published{addon: f.addon, version: f.version, manifest: f.manifest}
		if f.reported {
			t.unsigned = append(t.unsigned, v.SubmissionID)
		}
	} else {
		var ok bool
		if p, ok, err = t.publishedAs(ctx, v.SubmissionID); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("%s: create version %s@%s: not found once created", t.d.Name(), v.Addon, v.Version)
		}
		t.unsigned = append(t.unsigned, v.SubmissionID)
	}
	if t.born == nil {
		t.born = map[string]published{}
	}
	t.born[v.SubmissionID] = p
	return nil
}
