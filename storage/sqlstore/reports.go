package sqlstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
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

// upsertReports and onConflictReports frame the VALUES rows of a report
// upsert, reportArgs arguments each: a report stored is current, no longer
// marked stale.
const (
	upsertReports = `INSERT INTO reports (submission_id, bytes, sha256, ruleset, signatures, envelope_keys, leaf_idx, stale)
		VALUES `
	onConflictReports = ` ON CONFLICT (submission_id) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256,
		ruleset = excluded.ruleset, signatures = excluded.signatures,
		envelope_keys = excluded.envelope_keys, leaf_idx = excluded.leaf_idx, stale = excluded.stale`
	reportArgs = 7
)

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
	var err error
	// A submission created in this transaction is a published version if
	// and only if it was published in it: no need to ask.
	pub, published := t.born[r.SubmissionID]
	if f, fresh := t.fresh[r.SubmissionID]; fresh {
		f.reported = true
		t.fresh[r.SubmissionID] = f
	} else if !published {
		if pub, published, err = t.publishedAs(ctx, r.SubmissionID); err != nil {
			return err
		}
	}
	// A published version's report is stored with its envelope, and its
	// leaf is queued for the commit (translog.go); any other report has
	// no envelope.
	var env logCols
	if published {
		if env, err = t.logReport(r.SubmissionID, pub, nonNilBytes(r.Bytes), r.SHA256); err != nil {
			return err
		}
		t.signed(r.SubmissionID)
	}
	_, err = t.c.Exec(ctx, upsertReports+valuesSQL(1, reportArgs, 1, ", false")+onConflictReports,
		r.SubmissionID, nonNilBytes(r.Bytes), r.SHA256, r.Ruleset, env.sigs, env.keys, env.leafIdx)
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

// PutReports stores or replaces each report of rs with its findings, as
// PutReport does, in a statement per rowsPerStatement reports, one to
// delete their old findings and one copy of the new ones. It refuses
// (registry.ErrInvalid) the whole batch when a report's SHA256 does not
// match its bytes or a submission appears twice, and returns
// registry.ErrNotFound when a submission does not exist.
func (t *tx) PutReports(ctx context.Context, rs []storage.ReportWrite) error {
	ids := make([]string, len(rs))
	seen := make(map[string]bool, len(rs))
	nf := 0
	for i, w := range rs {
		if err := checkReport(w.Report); err != nil {
			return fmt.Errorf("put reports: %w", err)
		}
		id := w.Report.SubmissionID
		if seen[id] {
			return fmt.Errorf("put reports: %w", invalid("reports", fmt.Sprintf("has submission %q twice", id)))
		}
		seen[id] = true
		ids[i] = id
		nf += len(w.Findings)
	}
	if len(rs) == 0 {
		return nil
	}
	op := fmt.Sprintf("put %d reports", len(rs))
	pubs, err := t.publishedAsMany(ctx, ids)
	if err != nil {
		return err
	}
	// As PutReport: published versions' reports are signed, and their
	// leaves queued for the one append at commit.
	envs := make([]logCols, len(rs))
	for i, w := range rs {
		if p, ok := pubs[ids[i]]; ok {
			if envs[i], err = t.logReport(ids[i], p, nonNilBytes(w.Report.Bytes), w.Report.SHA256); err != nil {
				return err
			}
			t.signed(ids[i])
		}
	}
	err = chunks(len(rs), func(lo, hi int) error {
		a := make([]any, 0, reportArgs*(hi-lo))
		for i := lo; i < hi; i++ {
			r, env := rs[i].Report, envs[i]
			a = append(a, r.SubmissionID, nonNilBytes(r.Bytes), r.SHA256, r.Ruleset, env.sigs, env.keys, env.leafIdx)
		}
		_, err := t.c.Exec(ctx, upsertReports+valuesSQL(hi-lo, reportArgs, 1, ", false")+onConflictReports, a...)
		return err
	})
	if err != nil {
		return t.err(op, err)
	}
	if _, err := t.c.Exec(ctx, `DELETE FROM findings WHERE `+t.d.AnyOf("submission_id", "$1"), t.d.List(ids)); err != nil {
		return t.err(op, err)
	}
	if nf == 0 {
		return nil
	}
	// The findings of every report, in one sequence: report r, finding i.
	r, i := 0, 0
	row := make([]any, len(copyFindings.Cols))
	err = t.c.CopyRows(ctx, copyFindings, nf, func(int) []any {
		for i == len(rs[r].Findings) {
			r, i = r+1, 0
		}
		f := &rs[r].Findings[i]
		row[0], row[1], row[2], row[3] = rs[r].Report.SubmissionID, i, f.Level.String(), f.Code
		row[4], row[5], row[6], row[7] = f.Message, f.Path, f.Line, f.Suppressed
		i++
		return row
	})
	if err != nil {
		return t.err(op, err)
	}
	return nil
}

// staleWhere selects the reports ClaimStaleReports and CountStaleReports
// take: made by another ruleset (bound to $1), or marked stale.
const staleWhere = `(rp.ruleset <> $1 OR rp.stale)`

// ClaimStaleReports claims up to limit stale reports after the cursor, in
// the order of their submissions' creation and ID, and reads the state of
// their addons: one query for the submissions, one for the addons, one for
// their suppressions, and on PostgreSQL one more when an addon was held by
// another transaction. See storage.Tx.
func (t *tx) ClaimStaleReports(ctx context.Context, ruleset string, after storage.Cursor, limit int, wait bool) (storage.StaleBatch, error) {
	b := storage.StaleBatch{
		Reports: []storage.StaleReport{}, Addons: map[string]registry.Addon{},
		Suppressions: map[string][]registry.Suppression{}, Busy: map[string]bool{},
	}
	if limit <= 0 {
		return b, nil
	}
	if after.Key == "" { // a pass's first claim: is there anything to claim?
		any, err := t.anyStaleReport(ctx, ruleset)
		if err != nil || !any {
			return b, err
		}
	}
	a := args{ruleset}
	where := staleWhere
	if after.Key != "" {
		where += " AND (s.created_at, s.id) > (" + a.add(t.d.Time(after.At)) + ", " + a.add(after.Key) + ")"
	}
	query := `SELECT ` + submissionColsOf("s.") + `, rp.ruleset FROM submissions s JOIN reports rp ON rp.submission_id = s.id
		WHERE ` + where + ` ORDER BY s.created_at, s.id LIMIT ` + a.add(limit) + t.d.Claim("s, rp", wait)
	var err error
	b.Reports, err = list(t.reader, ctx, "claim stale reports", func(row Row) (storage.StaleReport, error) {
		var sr storage.StaleReport
		dst, finish := t.submissionFields(&sr.Submission)
		if err := row.Scan(append(dst, &sr.Ruleset)...); err != nil {
			return sr, err
		}
		return sr, finish()
	}, query, a...)
	if err != nil || len(b.Reports) == 0 {
		return b, err
	}
	last := b.Reports[len(b.Reports)-1].Submission
	b.Next = storage.Cursor{At: last.CreatedAt, Key: last.ID}

	var names []string
	for _, r := range b.Reports {
		if n := r.Submission.Addon; !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	addons, err := list(t.reader, ctx, "claim addons of stale reports", t.scanAddon,
		`SELECT `+addonCols+` FROM addons WHERE `+t.d.AnyOf("name", "$1")+` ORDER BY name`+t.d.Claim("", false), t.d.List(names))
	if err != nil {
		return b, err
	}
	locked := make([]string, 0, len(addons))
	for _, ad := range addons {
		b.Addons[ad.Name] = ad
		locked = append(locked, ad.Name)
	}
	if len(locked) < len(names) {
		// An addon missing from the claim either does not exist or is
		// held by another transaction: tell them apart without waiting.
		var missing []string
		for _, n := range names {
			if _, ok := b.Addons[n]; !ok {
				missing = append(missing, n)
			}
		}
		busy, err := list(t.reader, ctx, "addons of stale reports", func(row Row) (string, error) {
			var n string
			return n, row.Scan(&n)
		}, `SELECT name FROM addons WHERE `+t.d.AnyOf("name", "$1"), t.d.List(missing))
		if err != nil {
			return b, err
		}
		for _, n := range busy {
			b.Busy[n] = true
		}
	}
	if len(locked) == 0 {
		return b, nil
	}
	sps, err := list(t.reader, ctx, "suppressions of stale reports", t.scanSuppression,
		`SELECT `+suppressionCols+` FROM suppressions WHERE `+t.d.AnyOf("addon", "$1")+` ORDER BY addon, code, path, id`,
		t.d.List(locked))
	if err != nil {
		return b, err
	}
	for _, sp := range sps {
		b.Suppressions[sp.Addon] = append(b.Suppressions[sp.Addon], sp)
	}
	return b, nil
}

// MarkReportsStale marks every report that is not yet stale and returns
// how many it marked. It changes no report's bytes, so it notifies no
// report cache (migration 00010). It refreshes the table's statistics in
// the same transaction: with statistics saying that no report is stale,
// the planner would sort every report to claim the first batch instead of
// walking the submissions' index.
func (t *tx) MarkReportsStale(ctx context.Context) (int, error) {
	n, err := t.c.Exec(ctx, `UPDATE reports SET stale = true WHERE NOT stale`)
	if err != nil {
		return 0, t.err("mark reports stale", err)
	}
	if _, err := t.c.Exec(ctx, `ANALYZE reports`); err != nil {
		return 0, t.err("analyze reports", err)
	}
	return int(n), nil
}

// anyStaleReport says whether any report is stale for ruleset (staleWhere)
// through the indexes alone (reports_stale, and reports_ruleset on each
// side of ruleset), without reading the reports: where none is, as after
// every re-assessment, the claim that walks the submissions in order would
// read every one of them to find none.
func (r reader) anyStaleReport(ctx context.Context, ruleset string) (bool, error) {
	var n int
	err := r.c.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 AS x FROM (SELECT 1 FROM reports WHERE stale LIMIT 1) s `+
		`UNION ALL SELECT 1 FROM (SELECT 1 FROM reports WHERE ruleset < $1 LIMIT 1) b `+
		`UNION ALL SELECT 1 FROM (SELECT 1 FROM reports WHERE ruleset > $1 LIMIT 1) l) stale`, ruleset).Scan(&n)
	if err != nil {
		return false, r.err("find stale reports", err)
	}
	return n > 0, nil
}

// CountStaleReports returns how many reports ClaimStaleReports would claim
// for ruleset from the start, locked or not: none, through the indexes
// alone, where anyStaleReport finds none; otherwise one scan of every
// report's ruleset.
func (r reader) CountStaleReports(ctx context.Context, ruleset string) (int, error) {
	if any, err := r.anyStaleReport(ctx, ruleset); err != nil || !any {
		return 0, err
	}
	var n int
	if err := r.c.QueryRow(ctx, `SELECT count(*) FROM reports rp WHERE `+staleWhere, ruleset).Scan(&n); err != nil {
		return 0, r.err("count stale reports", err)
	}
	return n, nil
}
