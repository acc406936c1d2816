package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/jobs/riverjobs"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// tx is a storage.Tx on one IMMEDIATE transaction: it holds the write lock,
// so its reads need no row locks.
type tx struct {
	reader
	tx   *sql.Tx
	q    txQuerier // runs tx's statements, prepared where the writer has them
	jobs *riverjobs.Queue[*sql.Tx]
}

var _ storage.Tx = (*tx)(nil)

func invalid(path, msg string) error {
	return &registry.ValidationError{Fields: []registry.FieldError{{Path: path, Message: msg}}}
}

func affected(res sql.Result) int64 {
	n, err := res.RowsAffected()
	if err != nil {
		return -1
	}
	return n
}

// CreateSubmission inserts s; registry.ErrConflict if its ID exists,
// registry.ErrInvalid if it has none.
func (t *tx) CreateSubmission(ctx context.Context, s registry.Submission) error {
	if s.ID == "" {
		return fmt.Errorf("create submission: %w", invalid("id", "is empty"))
	}
	var repo *string
	var g registry.GitHubOrigin
	if s.GitHub != nil {
		g = *s.GitHub
		repo = &g.Repo
	}
	_, err := t.q.ExecContext(ctx, `INSERT INTO submissions (`+submissionCols+`)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)`,
		s.ID, s.Addon, s.Version, nonNilBytes(s.Manifest), s.ManifestSHA256, s.Format, string(s.Source), s.Submitter,
		s.SubmitterToken, repo, g.PR, g.CommitID, g.Path, g.Author, string(s.Status),
		string(s.Verdict), s.Risk.String(), s.DecidedBy, microsPtr(s.DecidedAt), s.DecisionReason, micros(s.CreatedAt), micros(s.UpdatedAt),
		s.WiringSHA256, s.SubmitterPrincipal)
	if err != nil {
		return dbErr(fmt.Sprintf("create submission %q", s.ID), err)
	}
	return nil
}

// UpdateSubmission writes s's status, verdict, risk, decision fields,
// wiring digest and UpdatedAt; registry.ErrNotFound if absent.
func (t *tx) UpdateSubmission(ctx context.Context, s registry.Submission) error {
	res, err := t.q.ExecContext(ctx, `UPDATE submissions SET status = ?2, verdict = ?3, risk = ?4, decided_by = ?5,
		decided_at = ?6, decision_reason = ?7, updated_at = ?8, wiring_sha256 = ?9 WHERE id = ?1`,
		s.ID, string(s.Status), string(s.Verdict), s.Risk.String(), s.DecidedBy, microsPtr(s.DecidedAt),
		s.DecisionReason, micros(s.UpdatedAt), s.WiringSHA256)
	if err != nil {
		return dbErr(fmt.Sprintf("update submission %q", s.ID), err)
	}
	if affected(res) == 0 {
		return fmt.Errorf("update submission %q: %w", s.ID, registry.ErrNotFound)
	}
	return nil
}

// checkReport refuses a report whose SHA256 does not match its bytes: the
// stored digest is what the server sends as the ETag.
func checkReport(r registry.Report) error {
	sum := sha256.Sum256(r.Bytes)
	if r.SHA256 != hex.EncodeToString(sum[:]) {
		return invalid("report.sha256", "does not match the report bytes")
	}
	if r.SubmissionID == "" {
		return invalid("report.submission_id", "is empty")
	}
	return nil
}

// PutReport stores or replaces the report of r.SubmissionID with its
// findings (in the given order). It refuses (registry.ErrInvalid) a report
// whose SHA256 is not the hex sha256 of its Bytes, and returns
// registry.ErrNotFound for an unknown submission.
func (t *tx) PutReport(ctx context.Context, r registry.Report, findings []registry.StoredFinding) error {
	if err := checkReport(r); err != nil {
		return fmt.Errorf("put report: %w", err)
	}
	op := fmt.Sprintf("put report of %q", r.SubmissionID)
	_, err := t.q.ExecContext(ctx, `INSERT INTO reports (submission_id, bytes, sha256, ruleset) VALUES (?1, ?2, ?3, ?4)
		ON CONFLICT (submission_id) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256, ruleset = excluded.ruleset`,
		r.SubmissionID, nonNilBytes(r.Bytes), r.SHA256, r.Ruleset)
	if err != nil {
		return dbErr(op, err)
	}
	if _, err := t.q.ExecContext(ctx, `DELETE FROM findings WHERE submission_id = ?1`, r.SubmissionID); err != nil {
		return dbErr(op, err)
	}
	if len(findings) == 0 {
		return nil
	}
	stmt, err := t.q.PrepareContext(ctx, `INSERT INTO findings (submission_id, ord, level, code, message, path, line, suppressed)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`)
	if err != nil {
		return dbErr(op, err)
	}
	defer stmt.Close()
	for i, f := range findings {
		if _, err := stmt.ExecContext(ctx, r.SubmissionID, i, f.Level.String(), f.Code, f.Message, f.Path, f.Line, f.Suppressed); err != nil {
			return dbErr(op, err)
		}
	}
	return nil
}

// PutAddon inserts a or overwrites every field of the addon with its name.
func (t *tx) PutAddon(ctx context.Context, a registry.Addon) error {
	if a.Name == "" {
		return fmt.Errorf("put addon: %w", invalid("name", "is empty"))
	}
	_, err := t.q.ExecContext(ctx, `INSERT INTO addons (`+addonCols+`)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
		ON CONFLICT (name) DO UPDATE SET display_name = excluded.display_name, description = excluded.description,
			homepage = excluded.homepage, latest_version = excluded.latest_version,
			latest_verdict = excluded.latest_verdict, verified = excluded.verified,
			verified_by = excluded.verified_by, verified_at = excluded.verified_at,
			verified_reason = excluded.verified_reason, removed = excluded.removed,
			removed_at = excluded.removed_at, created_at = excluded.created_at, updated_at = excluded.updated_at,
			latest_wiring_sha256 = excluded.latest_wiring_sha256, verified_wiring_sha256 = excluded.verified_wiring_sha256`,
		a.Name, a.DisplayName, a.Description, a.Homepage, a.LatestVersion, string(a.LatestVerdict),
		a.Verified, jsonList(a.VerifiedBy), microsPtr(a.VerifiedAt), a.VerifiedReason, a.Removed, microsPtr(a.RemovedAt),
		micros(a.CreatedAt), micros(a.UpdatedAt), a.LatestWiring, a.VerifiedWiring)
	if err != nil {
		return dbErr(fmt.Sprintf("put addon %q", a.Name), err)
	}
	return nil
}

// CreateVersion publishes v; registry.ErrConflict when the addon has a
// version with the same registry.VersionKey, registry.ErrNotFound when its
// submission does not exist.
func (t *tx) CreateVersion(ctx context.Context, v registry.Version) error {
	_, err := t.q.ExecContext(ctx, `INSERT INTO versions (addon, version, version_key, submission_id, published_at, published_by)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6)`, v.Addon, v.Version, registry.VersionKey(v.Version), v.SubmissionID, micros(v.PublishedAt), v.PublishedBy)
	if err != nil {
		return dbErr(fmt.Sprintf("create version %s@%s", v.Addon, v.Version), err)
	}
	return nil
}

// PutVerifyApproval records or replaces the pending approval of a.Addon.
func (t *tx) PutVerifyApproval(ctx context.Context, a registry.VerifyApproval) error {
	_, err := t.q.ExecContext(ctx, `INSERT INTO verify_approvals (addon, maintainer, reason, at, wiring_sha256, principal) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
		ON CONFLICT (addon) DO UPDATE SET maintainer = excluded.maintainer, reason = excluded.reason, at = excluded.at,
			wiring_sha256 = excluded.wiring_sha256, principal = excluded.principal`,
		a.Addon, a.Maintainer, a.Reason, micros(a.At), a.WiringSHA256, a.Principal)
	if err != nil {
		return dbErr(fmt.Sprintf("put verify approval of %q", a.Addon), err)
	}
	return nil
}

// DeleteVerifyApproval removes the pending approval of addon; removing none
// is not an error.
func (t *tx) DeleteVerifyApproval(ctx context.Context, addon string) error {
	if _, err := t.q.ExecContext(ctx, `DELETE FROM verify_approvals WHERE addon = ?1`, addon); err != nil {
		return dbErr(fmt.Sprintf("delete verify approval of %q", addon), err)
	}
	return nil
}

// CreateSuppression inserts s; registry.ErrConflict when the addon has one
// for the same code and path, or the ID exists.
func (t *tx) CreateSuppression(ctx context.Context, s registry.Suppression) error {
	_, err := t.q.ExecContext(ctx, `INSERT INTO suppressions (`+suppressionCols+`) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)`,
		s.ID, s.Addon, s.Code, s.Path, string(s.Reason), s.Note, s.Author, microsPtr(s.ExpiresAt), micros(s.CreatedAt))
	if err != nil {
		return dbErr(fmt.Sprintf("create suppression of %q", s.Addon), err)
	}
	return nil
}

// DeleteSuppression removes the suppression id of addon and returns it;
// registry.ErrNotFound if the addon has no such suppression.
func (t *tx) DeleteSuppression(ctx context.Context, addon, id string) (registry.Suppression, error) {
	s, err := scanSuppression(t.q.QueryRowContext(ctx, `DELETE FROM suppressions WHERE addon = ?1 AND id = ?2
		RETURNING `+suppressionCols, addon, id))
	if err != nil {
		return s, dbErr(fmt.Sprintf("delete suppression %q of %q", id, addon), err)
	}
	return s, nil
}

// AppendAudit appends e; registry.ErrConflict if its ID exists,
// registry.ErrInvalid if it has none.
func (t *tx) AppendAudit(ctx context.Context, e registry.AuditEntry) error {
	if e.ID == "" {
		return fmt.Errorf("append audit: %w", invalid("id", "is empty"))
	}
	_, err := t.q.ExecContext(ctx, `INSERT INTO audit_log (id, at, actor, action, target, reason, detail)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`, e.ID, micros(e.At), e.Actor, e.Action, e.Target, e.Reason, e.Detail)
	if err != nil {
		return dbErr(fmt.Sprintf("append audit %q", e.ID), err)
	}
	return nil
}

// CreateToken inserts k; registry.ErrConflict when its ID or hash exists,
// registry.ErrNotFound when its principal does not, registry.ErrInvalid
// when it has no ID or no principal.
func (t *tx) CreateToken(ctx context.Context, k registry.Token) error {
	if k.ID == "" {
		return fmt.Errorf("create token: %w", invalid("id", "is empty"))
	}
	if k.Principal.ID == "" {
		return fmt.Errorf("create token: %w", invalid("principal", "is empty"))
	}
	// SQLite cannot hold the principal as a foreign key on this table (see
	// migration 00005), so the insert checks it.
	res, err := t.q.ExecContext(ctx, `INSERT INTO api_tokens (id, name, role, hash, created_at, revoked_at, principal_id)
		SELECT ?1, ?2, ?3, ?4, ?5, ?6, id FROM principals WHERE id = ?7`,
		k.ID, k.Name, string(k.Role), nonNilBytes(k.Hash), micros(k.CreatedAt), microsPtr(k.RevokedAt), k.Principal.ID)
	if err == nil && affected(res) == 0 {
		return fmt.Errorf("create token %q: principal %q: %w", k.ID, k.Principal.ID, registry.ErrNotFound)
	}
	if err != nil {
		return dbErr(fmt.Sprintf("create token %q", k.ID), err)
	}
	return nil
}

// RevokeToken marks the token revoked at at, keeping the first instant when
// already revoked; registry.ErrNotFound if absent.
func (t *tx) RevokeToken(ctx context.Context, id string, at time.Time) error {
	res, err := t.q.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?2) WHERE id = ?1`, id, micros(at))
	if err != nil {
		return dbErr(fmt.Sprintf("revoke token %q", id), err)
	}
	if affected(res) == 0 {
		return fmt.Errorf("revoke token %q: %w", id, registry.ErrNotFound)
	}
	return nil
}

// CreateDelivery records d and returns true, or returns false (and no error)
// when a delivery with d.ID exists.
func (t *tx) CreateDelivery(ctx context.Context, d registry.Delivery) (bool, error) {
	if d.ID == "" {
		return false, fmt.Errorf("create delivery: %w", invalid("id", "is empty"))
	}
	res, err := t.q.ExecContext(ctx, `INSERT INTO webhook_deliveries (`+deliveryCols+`)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT (id) DO NOTHING`,
		d.ID, d.Event, d.Action, d.Repo, nonNilBytes(d.Payload), string(d.Status), d.Error,
		jsonList(d.Submissions), micros(d.ReceivedAt), micros(d.UpdatedAt))
	if err != nil {
		return false, dbErr(fmt.Sprintf("create delivery %q", d.ID), err)
	}
	return affected(res) == 1, nil
}

// UpdateDelivery writes d's status, error, submissions and UpdatedAt;
// registry.ErrNotFound if absent.
func (t *tx) UpdateDelivery(ctx context.Context, d registry.Delivery) error {
	res, err := t.q.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?2, error = ?3, submissions = ?4, updated_at = ?5
		WHERE id = ?1`, d.ID, string(d.Status), d.Error, jsonList(d.Submissions), micros(d.UpdatedAt))
	if err != nil {
		return dbErr(fmt.Sprintf("update delivery %q", d.ID), err)
	}
	if affected(res) == 0 {
		return fmt.Errorf("update delivery %q: %w", d.ID, registry.ErrNotFound)
	}
	return nil
}

// Enqueue adds a job in this transaction: it exists if and only if the
// transaction commits.
func (t *tx) Enqueue(ctx context.Context, j jobs.Job) error {
	if err := t.jobs.Enqueue(ctx, t.tx, j); err != nil {
		return fmt.Errorf("sqlite: enqueue job %q: %w", j.Kind, err)
	}
	return nil
}
