package sqlstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/registryd/registryd/registry"
)

// The report reads. The published ones go by version, or through the
// addon's latest version, each for the whole report and for its digest
// alone. They are the install clients' hot path: constants, so that each
// database prepares them once per connection (pgx's statement cache; the
// SQLite store prepares HotQueries when it opens).
const (
	publishedFromLatest = `
		FROM addons a
		JOIN versions v ON v.addon = a.name AND v.version = a.latest_version
		JOIN reports rp ON rp.submission_id = v.submission_id
		WHERE a.name = $1`
	publishedFromVersion = `
		FROM versions v JOIN reports rp ON rp.submission_id = v.submission_id
		WHERE v.addon = $1 AND v.version = $2`
	publishedReportCols = `SELECT rp.submission_id, rp.bytes, rp.sha256, rp.ruleset`
	publishedDigestCols = `SELECT rp.sha256`

	qPublishedReportLatest = publishedReportCols + publishedFromLatest
	qPublishedReport       = publishedReportCols + publishedFromVersion
	qPublishedDigestLatest = publishedDigestCols + publishedFromLatest
	qPublishedDigest       = publishedDigestCols + publishedFromVersion
	qReport                = `SELECT submission_id, bytes, sha256, ruleset FROM reports WHERE submission_id = $1`
)

// HotQueries are the texts of the reads every request makes (install
// clients' report and revalidation reads, and what every authenticated or
// submission request reads), for a database that prepares statements
// ahead to do so when it opens.
var HotQueries = []string{
	qPublishedReportLatest, qPublishedReport, qPublishedDigestLatest, qPublishedDigest,
	qReport, qAddon, qSubmission, qTokenByHash,
}

func scanReport(row Row) (registry.Report, error) {
	var rep registry.Report
	err := row.Scan(&rep.SubmissionID, &rep.Bytes, &rep.SHA256, &rep.Ruleset)
	rep.Bytes = nonNilBytes(rep.Bytes)
	return rep, err
}

// Report returns the current report of a submission, its bytes exactly as
// stored, or an error wrapping registry.ErrNotFound.
func (r reader) Report(ctx context.Context, submissionID string) (registry.Report, error) {
	rep, err := scanReport(r.c.QueryRow(ctx, qReport, submissionID))
	if err != nil {
		return rep, r.err(fmt.Sprintf("report of %q", submissionID), err)
	}
	return rep, nil
}

// PublishedReport returns the report of a published addon@version, or of the
// addon's LatestVersion when version is "", in one indexed query;
// registry.ErrNotFound when not published. It does not look at Removed.
func (r reader) PublishedReport(ctx context.Context, addon, version string) (registry.Report, error) {
	var row Row
	if version == "" {
		row = r.c.QueryRow(ctx, qPublishedReportLatest, addon)
	} else {
		row = r.c.QueryRow(ctx, qPublishedReport, addon, version)
	}
	rep, err := scanReport(row)
	if err != nil {
		return rep, r.err(fmt.Sprintf("published report of %s@%s", addon, version), err)
	}
	return rep, nil
}

// PublishedReportDigest returns the sha256 of the report PublishedReport
// would return, reading neither its bytes nor its findings;
// registry.ErrNotFound when not published.
func (r reader) PublishedReportDigest(ctx context.Context, addon, version string) (string, error) {
	var row Row
	if version == "" {
		row = r.c.QueryRow(ctx, qPublishedDigestLatest, addon)
	} else {
		row = r.c.QueryRow(ctx, qPublishedDigest, addon, version)
	}
	var sum string
	if err := row.Scan(&sum); err != nil {
		return "", r.err(fmt.Sprintf("published report digest of %s@%s", addon, version), err)
	}
	return sum, nil
}

// StaleReports returns up to limit IDs of submissions whose report came from
// a ruleset other than ruleset, oldest first.
func (r reader) StaleReports(ctx context.Context, ruleset string, limit int) ([]string, error) {
	if limit <= 0 {
		return []string{}, nil
	}
	return list(r, ctx, "stale reports", func(row Row) (string, error) {
		var id string
		return id, row.Scan(&id)
	}, `SELECT s.id FROM reports rp JOIN submissions s ON s.id = rp.submission_id
		WHERE rp.ruleset <> $1 ORDER BY s.created_at, s.id LIMIT $2`, ruleset, limit)
}

// Findings returns the findings projection of a submission's report in
// stored order; empty, non-nil when there are none.
func (r reader) Findings(ctx context.Context, submissionID string) ([]registry.StoredFinding, error) {
	return list(r, ctx, fmt.Sprintf("findings of %q", submissionID), func(row Row) (registry.StoredFinding, error) {
		var f registry.StoredFinding
		var level string
		if err := row.Scan(&f.SubmissionID, &level, &f.Code, &f.Message, &f.Path, &f.Line, &f.Suppressed); err != nil {
			return f, err
		}
		var err error
		f.Level, err = registry.ParseLevel(level)
		return f, err
	}, `SELECT submission_id, level, code, message, path, line, suppressed
		FROM findings WHERE submission_id = $1 ORDER BY ord`, submissionID)
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

var copyFindings = newCopy("findings", "submission_id", "ord", "level", "code", "message", "path", "line", "suppressed")

// PutReport stores or replaces the report of r.SubmissionID with its
// findings (in the given order). It refuses (registry.ErrInvalid) a report
// whose SHA256 is not the hex sha256 of its Bytes, and returns
// registry.ErrNotFound for an unknown submission.
func (t *tx) PutReport(ctx context.Context, r registry.Report, findings []registry.StoredFinding) error {
	if err := checkReport(r); err != nil {
		return fmt.Errorf("put report: %w", err)
	}
	op := fmt.Sprintf("put report of %q", r.SubmissionID)
	pub, published, err := t.publishedAs(ctx, r.SubmissionID)
	if err != nil {
		return err
	}
	// A published version's report is stored with its envelope, and its
	// leaf is queued for the commit (translog.go); any other report has
	// no envelope.
	var env envelopeCols
	if published {
		if env, err = t.logReport(r.SubmissionID, pub, nonNilBytes(r.Bytes), r.SHA256); err != nil {
			return err
		}
	}
	_, err = t.c.Exec(ctx, `INSERT INTO reports (submission_id, bytes, sha256, ruleset, envelope, envelope_sha256, envelope_keys)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (submission_id) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256, ruleset = excluded.ruleset,
			envelope = excluded.envelope, envelope_sha256 = excluded.envelope_sha256, envelope_keys = excluded.envelope_keys`,
		r.SubmissionID, nonNilBytes(r.Bytes), r.SHA256, r.Ruleset, env.bytes, env.sha, env.keys)
	if err != nil {
		return t.err(op, err)
	}
	if _, err := t.c.Exec(ctx, `DELETE FROM findings WHERE submission_id = $1`, r.SubmissionID); err != nil {
		return t.err(op, err)
	}
	if len(findings) == 0 {
		return nil
	}
	row := make([]any, len(copyFindings.Cols))
	err = t.c.CopyRows(ctx, copyFindings, len(findings), func(i int) []any {
		f := &findings[i]
		row[0], row[1], row[2], row[3] = r.SubmissionID, i, f.Level.String(), f.Code
		row[4], row[5], row[6], row[7] = f.Message, f.Path, f.Line, f.Suppressed
		return row
	})
	if err != nil {
		return t.err(op, err)
	}
	return nil
}
