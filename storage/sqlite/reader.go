package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// reader holds the queries shared by the store (on the read pool) and its
// transactions (on the writer).
type reader struct {
	db querier
}

func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// jsonList encodes a list column; nil is stored as [].
func jsonList(s []string) string {
	if len(s) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func parseList(col, s string) ([]string, error) {
	out := []string{}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("column %s holds malformed JSON: %w", col, err)
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// args collects bound parameters for a query assembled from optional
// clauses; the SQL only ever contains their numbered placeholders.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "?" + strconv.Itoa(len(*a))
}

func whereSQL(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// page trims a result fetched with limit+1 rows to limit and returns the
// cursor of its last row when more rows follow.
func page[T any](rows []T, limit int, key func(T) storage.Cursor) ([]T, string) {
	if len(rows) <= limit {
		return rows, ""
	}
	rows = rows[:limit]
	return rows, key(rows[limit-1]).Encode()
}

func collect[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

const submissionCols = `id, addon, version, manifest, manifest_sha256, format, source, submitter,
	submitter_token, github_repo, github_pr, github_commit, github_path, github_author, status,
	verdict, risk, decided_by, decided_at, decision_reason, created_at, updated_at, wiring_sha256, submitter_principal`

func scanSubmission(row scanner) (registry.Submission, error) {
	var (
		s                                  registry.Submission
		repo                               sql.NullString
		pr                                 int
		commit, path, author, risk, source string
		status, verdict                    string
		decidedAt                          sql.NullInt64
		created, updated                   int64
	)
	err := row.Scan(&s.ID, &s.Addon, &s.Version, &s.Manifest, &s.ManifestSHA256, &s.Format, &source,
		&s.Submitter, &s.SubmitterToken, &repo, &pr, &commit, &path, &author, &status, &verdict, &risk,
		&s.DecidedBy, &decidedAt, &s.DecisionReason, &created, &updated, &s.WiringSHA256, &s.SubmitterPrincipal)
	if err != nil {
		return s, err
	}
	s.Manifest = nonNilBytes(s.Manifest)
	s.Source = registry.Source(source)
	s.Status = registry.SubmissionStatus(status)
	s.Verdict = registry.Verdict(verdict)
	if s.Risk, err = registry.ParseLevel(risk); err != nil {
		return s, fmt.Errorf("submission %q risk: %w", s.ID, err)
	}
	if repo.Valid {
		s.GitHub = &registry.GitHubOrigin{Repo: repo.String, PR: pr, CommitID: commit, Path: path, Author: author}
	}
	s.DecidedAt = fromNullMicros(decidedAt)
	s.CreatedAt, s.UpdatedAt = fromMicros(created), fromMicros(updated)
	return s, nil
}

// Submission returns the submission with id, or an error wrapping
// registry.ErrNotFound. Inside a transaction it locks the row until commit.
func (r reader) Submission(ctx context.Context, id string) (registry.Submission, error) {
	s, err := scanSubmission(r.db.QueryRowContext(ctx, qSubmission, id))
	if err != nil {
		return s, dbErr(fmt.Sprintf("submission %q", id), err)
	}
	return s, nil
}

// Submissions lists submissions matching f, oldest first (created_at, then
// ID), one page at a time.
func (r reader) Submissions(ctx context.Context, f storage.SubmissionFilter, p storage.Page) ([]registry.Submission, string, error) {
	var a args
	var where []string
	if f.Status != "" {
		where = append(where, "status = "+a.add(string(f.Status)))
	}
	if f.Verdict != "" {
		where = append(where, "verdict = "+a.add(string(f.Verdict)))
	}
	if f.Source != "" {
		where = append(where, "source = "+a.add(string(f.Source)))
	}
	if f.Addon != "" {
		where = append(where, "addon = "+a.add(f.Addon))
	}
	if f.SubmitterToken != "" {
		where = append(where, "submitter_token = "+a.add(f.SubmitterToken))
	}
	if p.Cursor != "" {
		c, err := storage.DecodeCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, "(created_at, id) > ("+a.add(micros(c.At))+", "+a.add(c.Key)+")")
	}
	limit := p.Bounded()
	rows, err := r.db.QueryContext(ctx, `SELECT `+submissionCols+` FROM submissions`+whereSQL(where)+
		` ORDER BY created_at, id LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", dbErr("list submissions", err)
	}
	out, err := collect(rows, scanSubmission)
	if err != nil {
		return nil, "", dbErr("list submissions", err)
	}
	out, next := page(out, limit, func(s registry.Submission) storage.Cursor {
		return storage.Cursor{At: s.CreatedAt, Key: s.ID}
	})
	return out, next, nil
}

// SubmissionsOfAddon returns every submission of addon, oldest first; an
// empty, non-nil slice when there are none.
func (r reader) SubmissionsOfAddon(ctx context.Context, addon string) ([]registry.Submission, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT `+submissionCols+` FROM submissions WHERE addon = ?1 ORDER BY created_at, id`, addon)
	if err != nil {
		return nil, dbErr(fmt.Sprintf("submissions of %q", addon), err)
	}
	out, err := collect(rows, scanSubmission)
	if err != nil {
		return nil, dbErr(fmt.Sprintf("submissions of %q", addon), err)
	}
	return out, nil
}

func scanReport(row scanner) (registry.Report, error) {
	var rep registry.Report
	err := row.Scan(&rep.SubmissionID, &rep.Bytes, &rep.SHA256, &rep.Ruleset)
	rep.Bytes = nonNilBytes(rep.Bytes)
	return rep, err
}

// Report returns the current report of a submission, its bytes exactly as
// stored, or an error wrapping registry.ErrNotFound.
func (r reader) Report(ctx context.Context, submissionID string) (registry.Report, error) {
	rep, err := scanReport(r.db.QueryRowContext(ctx, qReport, submissionID))
	if err != nil {
		return rep, dbErr(fmt.Sprintf("report of %q", submissionID), err)
	}
	return rep, nil
}

// Findings returns the findings projection of a submission's report in
// stored order; empty, non-nil when there are none.
func (r reader) Findings(ctx context.Context, submissionID string) ([]registry.StoredFinding, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT submission_id, level, code, message, path, line, suppressed
		FROM findings WHERE submission_id = ?1 ORDER BY ord`, submissionID)
	if err != nil {
		return nil, dbErr(fmt.Sprintf("findings of %q", submissionID), err)
	}
	out, err := collect(rows, func(row scanner) (registry.StoredFinding, error) {
		var f registry.StoredFinding
		var level string
		if err := row.Scan(&f.SubmissionID, &level, &f.Code, &f.Message, &f.Path, &f.Line, &f.Suppressed); err != nil {
			return f, err
		}
		var err error
		f.Level, err = registry.ParseLevel(level)
		return f, err
	})
	if err != nil {
		return nil, dbErr(fmt.Sprintf("findings of %q", submissionID), err)
	}
	return out, nil
}

const addonCols = `name, display_name, description, homepage, latest_version, latest_verdict,
	verified, verified_by, verified_at, verified_reason, removed, removed_at, created_at, updated_at,
	latest_wiring_sha256, verified_wiring_sha256`

func scanAddon(row scanner) (registry.Addon, error) {
	var (
		a                   registry.Addon
		verdict, verifiedBy string
		verifiedAt, remAt   sql.NullInt64
		created, updated    int64
	)
	err := row.Scan(&a.Name, &a.DisplayName, &a.Description, &a.Homepage, &a.LatestVersion, &verdict,
		&a.Verified, &verifiedBy, &verifiedAt, &a.VerifiedReason, &a.Removed, &remAt, &created, &updated,
		&a.LatestWiring, &a.VerifiedWiring)
	if err != nil {
		return a, err
	}
	a.LatestVerdict = registry.Verdict(verdict)
	if a.VerifiedBy, err = parseList("addons.verified_by", verifiedBy); err != nil {
		return a, err
	}
	a.VerifiedAt, a.RemovedAt = fromNullMicros(verifiedAt), fromNullMicros(remAt)
	a.CreatedAt, a.UpdatedAt = fromMicros(created), fromMicros(updated)
	return a, nil
}

// Addon returns the addon called name, or an error wrapping
// registry.ErrNotFound. Inside a transaction it locks the row until commit.
func (r reader) Addon(ctx context.Context, name string) (registry.Addon, error) {
	a, err := scanAddon(r.db.QueryRowContext(ctx, qAddon, name))
	if err != nil {
		return a, dbErr(fmt.Sprintf("addon %q", name), err)
	}
	return a, nil
}

// tierVerifiedSQL is registry.Addon.Tier() == TierVerified in SQL: a grant
// that covers the latest version's wiring.
const tierVerifiedSQL = `(verified = 1 AND latest_wiring_sha256 <> '' AND verified_wiring_sha256 = latest_wiring_sha256)`

// likePattern makes q a LIKE pattern (escape character \) matching it as a
// literal substring.
func likePattern(q string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(q) + "%"
}

// Addons lists addons matching f by name, one page at a time. Query matches
// a literal, case-insensitive substring (ASCII case only on SQLite).
func (r reader) Addons(ctx context.Context, f storage.AddonFilter, p storage.Page) ([]registry.Addon, string, error) {
	var a args
	var where []string
	if f.Query != "" {
		// SQLite's LIKE folds ASCII case only.
		pat := a.add(likePattern(f.Query))
		where = append(where, "(name LIKE "+pat+` ESCAPE '\' OR display_name LIKE `+pat+` ESCAPE '\' OR description LIKE `+pat+` ESCAPE '\')`)
	}
	switch f.Tier {
	case "":
	case registry.TierVerified:
		where = append(where, tierVerifiedSQL)
	case registry.TierCommunity:
		where = append(where, "NOT "+tierVerifiedSQL)
	default:
		return nil, "", fmt.Errorf("list addons: %w", &registry.ValidationError{
			Fields: []registry.FieldError{{Path: "tier", Message: "is not a known tier"}}})
	}
	if f.Verdict != "" {
		where = append(where, "latest_verdict = "+a.add(string(f.Verdict)))
	}
	if f.UpdatedSince != nil {
		where = append(where, "updated_at >= "+a.add(micros(*f.UpdatedSince)))
	}
	if !f.IncludeRemoved {
		where = append(where, "removed = 0")
	}
	if p.Cursor != "" {
		c, err := storage.DecodeCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, "name > "+a.add(c.Key))
	}
	limit := p.Bounded()
	rows, err := r.db.QueryContext(ctx, `SELECT `+addonCols+` FROM addons`+whereSQL(where)+
		` ORDER BY name LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", dbErr("list addons", err)
	}
	out, err := collect(rows, scanAddon)
	if err != nil {
		return nil, "", dbErr("list addons", err)
	}
	out, next := page(out, limit, func(a registry.Addon) storage.Cursor { return storage.Cursor{Key: a.Name} })
	return out, next, nil
}

// versionCols are read FROM versionsFrom: a version with its submission's
// wiring digest.
const (
	versionCols  = `v.addon, v.version, v.submission_id, v.published_at, v.published_by, s.wiring_sha256`
	versionsFrom = ` FROM versions v JOIN submissions s ON s.id = v.submission_id`
)

func scanVersion(row scanner) (registry.Version, error) {
	var v registry.Version
	var published int64
	err := row.Scan(&v.Addon, &v.Version, &v.SubmissionID, &published, &v.PublishedBy, &v.WiringSHA256)
	v.PublishedAt = fromMicros(published)
	return v, err
}

// Versions lists the published versions of addon, newest first
// (published_at, then version), one page at a time.
func (r reader) Versions(ctx context.Context, addon string, p storage.Page) ([]registry.Version, string, error) {
	var a args
	where := []string{"v.addon = " + a.add(addon)}
	if p.Cursor != "" {
		c, err := storage.DecodeCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, "(v.published_at, v.version) < ("+a.add(micros(c.At))+", "+a.add(c.Key)+")")
	}
	limit := p.Bounded()
	rows, err := r.db.QueryContext(ctx, `SELECT `+versionCols+versionsFrom+
		whereSQL(where)+` ORDER BY v.published_at DESC, v.version DESC LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", dbErr(fmt.Sprintf("versions of %q", addon), err)
	}
	out, err := collect(rows, scanVersion)
	if err != nil {
		return nil, "", dbErr(fmt.Sprintf("versions of %q", addon), err)
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
	v, err := scanVersion(r.db.QueryRowContext(ctx, `SELECT `+versionCols+versionsFrom+
		` WHERE v.addon = ?1 AND v.version_key = ?2`, addon, registry.VersionKey(version)))
	if err != nil {
		return v, dbErr(fmt.Sprintf("version %s@%s", addon, version), err)
	}
	return v, nil
}

// The published-report queries: by version, or through the addon's latest
// version. Each exists twice, for the whole report and for its digest
// alone.
const (
	publishedFromLatest = `
		FROM addons a
		JOIN versions v ON v.addon = a.name AND v.version = a.latest_version
		JOIN reports rp ON rp.submission_id = v.submission_id
		WHERE a.name = ?1`
	publishedFromVersion = `
		FROM versions v JOIN reports rp ON rp.submission_id = v.submission_id
		WHERE v.addon = ?1 AND v.version = ?2`
	publishedReportCols = `SELECT rp.submission_id, rp.bytes, rp.sha256, rp.ruleset`
	publishedDigestCols = `SELECT rp.sha256`

	qPublishedReportLatest = publishedReportCols + publishedFromLatest
	qPublishedReport       = publishedReportCols + publishedFromVersion
	qPublishedDigestLatest = publishedDigestCols + publishedFromLatest
	qPublishedDigest       = publishedDigestCols + publishedFromVersion
	qReport                = `SELECT submission_id, bytes, sha256, ruleset FROM reports WHERE submission_id = ?1`
	qAddon                 = `SELECT ` + addonCols + ` FROM addons WHERE name = ?1`
	qSubmission            = `SELECT ` + submissionCols + ` FROM submissions WHERE id = ?1`
	qTokenByHash           = tokenSelect + ` WHERE t.hash = ?1`
)

// hotQueries are prepared on the read pool when the store opens: install
// clients' report and revalidation reads, and what every authenticated or
// submission request reads.
var hotQueries = []string{
	qPublishedReportLatest, qPublishedReport, qPublishedDigestLatest, qPublishedDigest,
	qReport, qAddon, qSubmission, qTokenByHash,
}

// PublishedReport returns the report of a published addon@version, or of the
// addon's LatestVersion when version is "", in one indexed query;
// registry.ErrNotFound when not published. It does not look at Removed.
func (r reader) PublishedReport(ctx context.Context, addon, version string) (registry.Report, error) {
	var row *sql.Row
	if version == "" {
		row = r.db.QueryRowContext(ctx, qPublishedReportLatest, addon)
	} else {
		row = r.db.QueryRowContext(ctx, qPublishedReport, addon, version)
	}
	rep, err := scanReport(row)
	if err != nil {
		return rep, dbErr(fmt.Sprintf("published report of %s@%s", addon, version), err)
	}
	return rep, nil
}

// PublishedReportDigest returns the sha256 of the report PublishedReport
// would return, reading neither its bytes nor its findings;
// registry.ErrNotFound when not published.
func (r reader) PublishedReportDigest(ctx context.Context, addon, version string) (string, error) {
	var row *sql.Row
	if version == "" {
		row = r.db.QueryRowContext(ctx, qPublishedDigestLatest, addon)
	} else {
		row = r.db.QueryRowContext(ctx, qPublishedDigest, addon, version)
	}
	var sum string
	if err := row.Scan(&sum); err != nil {
		return "", dbErr(fmt.Sprintf("published report digest of %s@%s", addon, version), err)
	}
	return sum, nil
}

const suppressionCols = `id, addon, code, path, reason, note, author, expires_at, created_at`

func scanSuppression(row scanner) (registry.Suppression, error) {
	var s registry.Suppression
	var reason string
	var expires sql.NullInt64
	var created int64
	err := row.Scan(&s.ID, &s.Addon, &s.Code, &s.Path, &reason, &s.Note, &s.Author, &expires, &created)
	s.Reason = registry.SuppressionReason(reason)
	s.ExpiresAt = fromNullMicros(expires)
	s.CreatedAt = fromMicros(created)
	return s, err
}

// Suppressions returns every suppression of addon, expired ones included,
// ordered by code, path and ID.
func (r reader) Suppressions(ctx context.Context, addon string) ([]registry.Suppression, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT `+suppressionCols+` FROM suppressions WHERE addon = ?1 ORDER BY code, path, id`, addon)
	if err != nil {
		return nil, dbErr(fmt.Sprintf("suppressions of %q", addon), err)
	}
	out, err := collect(rows, scanSuppression)
	if err != nil {
		return nil, dbErr(fmt.Sprintf("suppressions of %q", addon), err)
	}
	return out, nil
}

// VerifyApproval returns the pending verify approval of addon, or an error
// wrapping registry.ErrNotFound.
func (r reader) VerifyApproval(ctx context.Context, addon string) (registry.VerifyApproval, error) {
	var v registry.VerifyApproval
	var at int64
	err := r.db.QueryRowContext(ctx, `SELECT addon, maintainer, reason, at, wiring_sha256, principal FROM verify_approvals WHERE addon = ?1`, addon).
		Scan(&v.Addon, &v.Maintainer, &v.Reason, &at, &v.WiringSHA256, &v.Principal)
	if err != nil {
		return v, dbErr(fmt.Sprintf("verify approval of %q", addon), err)
	}
	v.At = fromMicros(at)
	return v, nil
}

// StaleReports returns up to limit IDs of submissions whose report came from
// a ruleset other than ruleset, oldest first.
func (r reader) StaleReports(ctx context.Context, ruleset string, limit int) ([]string, error) {
	if limit <= 0 {
		return []string{}, nil
	}
	rows, err := r.db.QueryContext(ctx, `SELECT s.id FROM reports rp JOIN submissions s ON s.id = rp.submission_id
		WHERE rp.ruleset <> ?1 ORDER BY s.created_at, s.id LIMIT ?2`, ruleset, limit)
	if err != nil {
		return nil, dbErr("stale reports", err)
	}
	out, err := collect(rows, func(row scanner) (string, error) {
		var id string
		return id, row.Scan(&id)
	})
	if err != nil {
		return nil, dbErr("stale reports", err)
	}
	return out, nil
}

// AuditLog lists audit entries newest first (time, then ID), one page at a
// time.
func (r reader) AuditLog(ctx context.Context, p storage.Page) ([]registry.AuditEntry, string, error) {
	var a args
	var where []string
	if p.Cursor != "" {
		c, err := storage.DecodeCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, "(at, id) < ("+a.add(micros(c.At))+", "+a.add(c.Key)+")")
	}
	limit := p.Bounded()
	rows, err := r.db.QueryContext(ctx, `SELECT id, at, actor, action, target, reason, detail FROM audit_log`+
		whereSQL(where)+` ORDER BY at DESC, id DESC LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", dbErr("audit log", err)
	}
	out, err := collect(rows, func(row scanner) (registry.AuditEntry, error) {
		var e registry.AuditEntry
		var at int64
		err := row.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target, &e.Reason, &e.Detail)
		e.At = fromMicros(at)
		return e, err
	})
	if err != nil {
		return nil, "", dbErr("audit log", err)
	}
	out, next := page(out, limit, func(e registry.AuditEntry) storage.Cursor { return storage.Cursor{At: e.At, Key: e.ID} })
	return out, next, nil
}

// tokenSelect reads tokens with their principal's ID and name.
const tokenSelect = `SELECT t.id, t.name, t.role, t.hash, t.created_at, t.revoked_at, t.principal_id, COALESCE(p.name, '')
	FROM api_tokens t LEFT JOIN principals p ON p.id = t.principal_id`

func scanToken(row scanner) (registry.Token, error) {
	var t registry.Token
	var role string
	var created int64
	var revoked sql.NullInt64
	err := row.Scan(&t.ID, &t.Name, &role, &t.Hash, &created, &revoked, &t.Principal.ID, &t.Principal.Name)
	t.Role = registry.Role(role)
	t.CreatedAt = fromMicros(created)
	t.RevokedAt = fromNullMicros(revoked)
	return t, err
}

// TokenByHash returns the token whose secret hashes to hash, revoked or not,
// or an error wrapping registry.ErrNotFound.
func (r reader) TokenByHash(ctx context.Context, hash []byte) (registry.Token, error) {
	t, err := scanToken(r.db.QueryRowContext(ctx, qTokenByHash, nonNilBytes(hash)))
	if err != nil {
		return t, dbErr("token by hash", err)
	}
	return t, nil
}

// Tokens returns every token, oldest first.
func (r reader) Tokens(ctx context.Context) ([]registry.Token, error) {
	rows, err := r.db.QueryContext(ctx, tokenSelect+` ORDER BY t.created_at, t.id`)
	if err != nil {
		return nil, dbErr("list tokens", err)
	}
	out, err := collect(rows, scanToken)
	if err != nil {
		return nil, dbErr("list tokens", err)
	}
	return out, nil
}

const deliveryCols = `id, event, action, repo, payload, status, error, submissions, received_at, updated_at`

func scanDelivery(row scanner) (registry.Delivery, error) {
	var d registry.Delivery
	var status, subs string
	var received, updated int64
	err := row.Scan(&d.ID, &d.Event, &d.Action, &d.Repo, &d.Payload, &status, &d.Error, &subs, &received, &updated)
	if err != nil {
		return d, err
	}
	d.Payload = nonNilBytes(d.Payload)
	d.Status = registry.DeliveryStatus(status)
	if d.Submissions, err = parseList("webhook_deliveries.submissions", subs); err != nil {
		return d, err
	}
	d.ReceivedAt, d.UpdatedAt = fromMicros(received), fromMicros(updated)
	return d, nil
}

// Delivery returns the webhook delivery with id, or an error wrapping
// registry.ErrNotFound.
func (r reader) Delivery(ctx context.Context, id string) (registry.Delivery, error) {
	d, err := scanDelivery(r.db.QueryRowContext(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE id = ?1`, id))
	if err != nil {
		return d, dbErr(fmt.Sprintf("delivery %q", id), err)
	}
	return d, nil
}

// Deliveries lists webhook deliveries newest first (received_at, then ID),
// one page at a time.
func (r reader) Deliveries(ctx context.Context, p storage.Page) ([]registry.Delivery, string, error) {
	var a args
	var where []string
	if p.Cursor != "" {
		c, err := storage.DecodeCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, "(received_at, id) < ("+a.add(micros(c.At))+", "+a.add(c.Key)+")")
	}
	limit := p.Bounded()
	rows, err := r.db.QueryContext(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries`+whereSQL(where)+
		` ORDER BY received_at DESC, id DESC LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", dbErr("list deliveries", err)
	}
	out, err := collect(rows, scanDelivery)
	if err != nil {
		return nil, "", dbErr("list deliveries", err)
	}
	out, next := page(out, limit, func(d registry.Delivery) storage.Cursor { return storage.Cursor{At: d.ReceivedAt, Key: d.ID} })
	return out, next, nil
}
