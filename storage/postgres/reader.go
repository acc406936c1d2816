package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// reader holds the queries shared by the store and its transactions. lock
// adds FOR UPDATE to the reads a decision depends on.
type reader struct {
	db   querier
	lock bool
}

func (r reader) forUpdate() string {
	if r.lock {
		return " FOR UPDATE"
	}
	return ""
}

// ts converts t for a write: UTC, truncated to the microsecond that
// PostgreSQL keeps.
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func tsPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := ts(*t)
	return &v
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := t.UTC()
	return &v
}

func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// args collects bound parameters for a query assembled from optional
// clauses; the SQL only ever contains their placeholders.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

const submissionCols = `id, addon, version, manifest, manifest_sha256, format, source, submitter,
	submitter_token, github_repo, github_pr, github_commit, github_path, github_author, status,
	verdict, risk, decided_by, decided_at, decision_reason, created_at, updated_at, wiring_sha256, submitter_principal`

func scanSubmission(row pgx.Row) (registry.Submission, error) {
	var (
		s                                  registry.Submission
		repo                               *string
		pr                                 int
		commit, path, author, risk, source string
		status, verdict                    string
	)
	err := row.Scan(&s.ID, &s.Addon, &s.Version, &s.Manifest, &s.ManifestSHA256, &s.Format, &source,
		&s.Submitter, &s.SubmitterToken, &repo, &pr, &commit, &path, &author, &status, &verdict, &risk,
		&s.DecidedBy, &s.DecidedAt, &s.DecisionReason, &s.CreatedAt, &s.UpdatedAt, &s.WiringSHA256, &s.SubmitterPrincipal)
	if err != nil {
		return s, err
	}
	s.Source = registry.Source(source)
	s.Status = registry.SubmissionStatus(status)
	s.Verdict = registry.Verdict(verdict)
	if s.Risk, err = registry.ParseLevel(risk); err != nil {
		return s, fmt.Errorf("submission %q risk: %w", s.ID, err)
	}
	if repo != nil {
		s.GitHub = &registry.GitHubOrigin{Repo: *repo, PR: pr, CommitID: commit, Path: path, Author: author}
	}
	s.DecidedAt = utcPtr(s.DecidedAt)
	s.CreatedAt = s.CreatedAt.UTC()
	s.UpdatedAt = s.UpdatedAt.UTC()
	return s, nil
}

func collect[T any](rows pgx.Rows, scan func(pgx.Row) (T, error)) ([]T, error) {
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

// Submission returns the submission with id, or an error wrapping
// registry.ErrNotFound. Inside a transaction it locks the row until commit.
func (r reader) Submission(ctx context.Context, id string) (registry.Submission, error) {
	s, err := scanSubmission(r.db.QueryRow(ctx,
		`SELECT `+submissionCols+` FROM submissions WHERE id = $1`+r.forUpdate(), id))
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
		where = append(where, "(created_at, id) > ("+a.add(c.At)+", "+a.add(c.Key)+")")
	}
	limit := p.Bounded()
	q := `SELECT ` + submissionCols + ` FROM submissions` + whereSQL(where) +
		` ORDER BY created_at, id LIMIT ` + a.add(limit+1)
	rows, err := r.db.Query(ctx, q, a...)
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

// SubmissionsOfAddon returns every submission of addon, oldest first; an
// empty, non-nil slice when there are none.
func (r reader) SubmissionsOfAddon(ctx context.Context, addon string) ([]registry.Submission, error) {
	rows, err := r.db.Query(ctx, `SELECT `+submissionCols+` FROM submissions WHERE addon = $1 ORDER BY created_at, id`, addon)
	if err != nil {
		return nil, dbErr(fmt.Sprintf("submissions of %q", addon), err)
	}
	out, err := collect(rows, scanSubmission)
	if err != nil {
		return nil, dbErr(fmt.Sprintf("submissions of %q", addon), err)
	}
	return out, nil
}

func scanReport(row pgx.Row) (registry.Report, error) {
	var rep registry.Report
	err := row.Scan(&rep.SubmissionID, &rep.Bytes, &rep.SHA256, &rep.Ruleset)
	return rep, err
}

// Report returns the current report of a submission, its bytes exactly as
// stored, or an error wrapping registry.ErrNotFound.
func (r reader) Report(ctx context.Context, submissionID string) (registry.Report, error) {
	rep, err := scanReport(r.db.QueryRow(ctx,
		`SELECT submission_id, bytes, sha256, ruleset FROM reports WHERE submission_id = $1`, submissionID))
	if err != nil {
		return rep, dbErr(fmt.Sprintf("report of %q", submissionID), err)
	}
	return rep, nil
}

// Findings returns the findings projection of a submission's report in
// stored order; empty, non-nil when there are none.
func (r reader) Findings(ctx context.Context, submissionID string) ([]registry.StoredFinding, error) {
	rows, err := r.db.Query(ctx, `SELECT submission_id, level, code, message, path, line, suppressed
		FROM findings WHERE submission_id = $1 ORDER BY ord`, submissionID)
	if err != nil {
		return nil, dbErr(fmt.Sprintf("findings of %q", submissionID), err)
	}
	out, err := collect(rows, func(row pgx.Row) (registry.StoredFinding, error) {
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

func scanAddon(row pgx.Row) (registry.Addon, error) {
	var a registry.Addon
	var verdict string
	err := row.Scan(&a.Name, &a.DisplayName, &a.Description, &a.Homepage, &a.LatestVersion, &verdict,
		&a.Verified, &a.VerifiedBy, &a.VerifiedAt, &a.VerifiedReason, &a.Removed, &a.RemovedAt,
		&a.CreatedAt, &a.UpdatedAt, &a.LatestWiring, &a.VerifiedWiring)
	a.LatestVerdict = registry.Verdict(verdict)
	a.VerifiedBy = nonNilStrings(a.VerifiedBy)
	a.VerifiedAt = utcPtr(a.VerifiedAt)
	a.RemovedAt = utcPtr(a.RemovedAt)
	a.CreatedAt = a.CreatedAt.UTC()
	a.UpdatedAt = a.UpdatedAt.UTC()
	return a, err
}

// Addon returns the addon called name, or an error wrapping
// registry.ErrNotFound. Inside a transaction it locks the row until commit.
func (r reader) Addon(ctx context.Context, name string) (registry.Addon, error) {
	a, err := scanAddon(r.db.QueryRow(ctx, `SELECT `+addonCols+` FROM addons WHERE name = $1`+r.forUpdate(), name))
	if err != nil {
		return a, dbErr(fmt.Sprintf("addon %q", name), err)
	}
	return a, nil
}

// tierVerifiedSQL is registry.Addon.Tier() == TierVerified in SQL: a grant
// that covers the latest version's wiring.
const tierVerifiedSQL = `(verified AND latest_wiring_sha256 <> '' AND verified_wiring_sha256 = latest_wiring_sha256)`

// likePattern makes q a LIKE pattern matching it as a literal substring.
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
		pat := a.add(likePattern(f.Query))
		where = append(where, "(name ILIKE "+pat+" OR display_name ILIKE "+pat+" OR description ILIKE "+pat+")")
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
		where = append(where, "updated_at >= "+a.add(ts(*f.UpdatedSince)))
	}
	if !f.IncludeRemoved {
		where = append(where, "NOT removed")
	}
	if p.Cursor != "" {
		c, err := storage.DecodeCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, "name > "+a.add(c.Key))
	}
	limit := p.Bounded()
	rows, err := r.db.Query(ctx, `SELECT `+addonCols+` FROM addons`+whereSQL(where)+
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

func scanVersion(row pgx.Row) (registry.Version, error) {
	var v registry.Version
	err := row.Scan(&v.Addon, &v.Version, &v.SubmissionID, &v.PublishedAt, &v.PublishedBy, &v.WiringSHA256)
	v.PublishedAt = v.PublishedAt.UTC()
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
		where = append(where, "(v.published_at, v.version) < ("+a.add(c.At)+", "+a.add(c.Key)+")")
	}
	limit := p.Bounded()
	rows, err := r.db.Query(ctx, `SELECT `+versionCols+versionsFrom+
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
	v, err := scanVersion(r.db.QueryRow(ctx, `SELECT `+versionCols+versionsFrom+
		` WHERE v.addon = $1 AND v.version_key = $2`, addon, registry.VersionKey(version)))
	if err != nil {
		return v, dbErr(fmt.Sprintf("version %s@%s", addon, version), err)
	}
	return v, nil
}

// The published-report queries: by version, or through the addon's latest
// version. Each exists twice, for the whole report and for its digest
// alone. pgx prepares each text once per connection and caches it (its
// default QueryExecModeCacheStatement), so they are constants.
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
)

// PublishedReport returns the report of a published addon@version, or of the
// addon's LatestVersion when version is "", in one indexed query;
// registry.ErrNotFound when not published. It does not look at Removed.
func (r reader) PublishedReport(ctx context.Context, addon, version string) (registry.Report, error) {
	var row pgx.Row
	if version == "" {
		row = r.db.QueryRow(ctx, publishedReportCols+publishedFromLatest, addon)
	} else {
		row = r.db.QueryRow(ctx, publishedReportCols+publishedFromVersion, addon, version)
	}
	rep, err := scanReport(row)
	if err != nil {
		return rep, dbErr(fmt.Sprintf("published report of %s@%s", addon, version), err)
	}
	return rep, nil
}

// PublishedReportDigest returns the sha256 of the report PublishedReport
// would return, without transferring its bytes; registry.ErrNotFound when
// not published.
func (r reader) PublishedReportDigest(ctx context.Context, addon, version string) (string, error) {
	var row pgx.Row
	if version == "" {
		row = r.db.QueryRow(ctx, publishedDigestCols+publishedFromLatest, addon)
	} else {
		row = r.db.QueryRow(ctx, publishedDigestCols+publishedFromVersion, addon, version)
	}
	var sum string
	if err := row.Scan(&sum); err != nil {
		return "", dbErr(fmt.Sprintf("published report digest of %s@%s", addon, version), err)
	}
	return sum, nil
}

const suppressionCols = `id, addon, code, path, reason, note, author, expires_at, created_at`

func scanSuppression(row pgx.Row) (registry.Suppression, error) {
	var s registry.Suppression
	var reason string
	err := row.Scan(&s.ID, &s.Addon, &s.Code, &s.Path, &reason, &s.Note, &s.Author, &s.ExpiresAt, &s.CreatedAt)
	s.Reason = registry.SuppressionReason(reason)
	s.ExpiresAt = utcPtr(s.ExpiresAt)
	s.CreatedAt = s.CreatedAt.UTC()
	return s, err
}

// Suppressions returns every suppression of addon, expired ones included,
// ordered by code, path and ID.
func (r reader) Suppressions(ctx context.Context, addon string) ([]registry.Suppression, error) {
	rows, err := r.db.Query(ctx, `SELECT `+suppressionCols+` FROM suppressions WHERE addon = $1 ORDER BY code, path, id`, addon)
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
	err := r.db.QueryRow(ctx, `SELECT addon, maintainer, reason, at, wiring_sha256, principal FROM verify_approvals WHERE addon = $1`+r.forUpdate(), addon).
		Scan(&v.Addon, &v.Maintainer, &v.Reason, &v.At, &v.WiringSHA256, &v.Principal)
	if err != nil {
		return v, dbErr(fmt.Sprintf("verify approval of %q", addon), err)
	}
	v.At = v.At.UTC()
	return v, nil
}

// StaleReports returns up to limit IDs of submissions whose report came from
// a ruleset other than ruleset, oldest first.
func (r reader) StaleReports(ctx context.Context, ruleset string, limit int) ([]string, error) {
	if limit <= 0 {
		return []string{}, nil
	}
	rows, err := r.db.Query(ctx, `SELECT s.id FROM reports rp JOIN submissions s ON s.id = rp.submission_id
		WHERE rp.ruleset <> $1 ORDER BY s.created_at, s.id LIMIT $2`, ruleset, limit)
	if err != nil {
		return nil, dbErr("stale reports", err)
	}
	out, err := collect(rows, func(row pgx.Row) (string, error) {
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
		where = append(where, "(at, id) < ("+a.add(c.At)+", "+a.add(c.Key)+")")
	}
	limit := p.Bounded()
	rows, err := r.db.Query(ctx, `SELECT id, at, actor, action, target, reason, detail FROM audit_log`+
		whereSQL(where)+` ORDER BY at DESC, id DESC LIMIT `+a.add(limit+1), a...)
	if err != nil {
		return nil, "", dbErr("audit log", err)
	}
	out, err := collect(rows, func(row pgx.Row) (registry.AuditEntry, error) {
		var e registry.AuditEntry
		err := row.Scan(&e.ID, &e.At, &e.Actor, &e.Action, &e.Target, &e.Reason, &e.Detail)
		e.At = e.At.UTC()
		return e, err
	})
	if err != nil {
		return nil, "", dbErr("audit log", err)
	}
	out, next := page(out, limit, func(e registry.AuditEntry) storage.Cursor { return storage.Cursor{At: e.At, Key: e.ID} })
	return out, next, nil
}

// tokenSelect reads tokens with their principal's ID and name.
const tokenSelect = `SELECT t.id, t.name, t.role, t.hash, t.created_at, t.revoked_at, t.principal_id, p.name
	FROM api_tokens t JOIN principals p ON p.id = t.principal_id`

func scanToken(row pgx.Row) (registry.Token, error) {
	var t registry.Token
	var role string
	err := row.Scan(&t.ID, &t.Name, &role, &t.Hash, &t.CreatedAt, &t.RevokedAt, &t.Principal.ID, &t.Principal.Name)
	t.Role = registry.Role(role)
	t.CreatedAt = t.CreatedAt.UTC()
	t.RevokedAt = utcPtr(t.RevokedAt)
	return t, err
}

// TokenByHash returns the token whose secret hashes to hash, revoked or not,
// or an error wrapping registry.ErrNotFound.
func (r reader) TokenByHash(ctx context.Context, hash []byte) (registry.Token, error) {
	t, err := scanToken(r.db.QueryRow(ctx, tokenSelect+` WHERE t.hash = $1`, nonNilBytes(hash)))
	if err != nil {
		return t, dbErr("token by hash", err)
	}
	return t, nil
}

// Tokens returns every token, oldest first.
func (r reader) Tokens(ctx context.Context) ([]registry.Token, error) {
	rows, err := r.db.Query(ctx, tokenSelect+` ORDER BY t.created_at, t.id`)
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

func scanDelivery(row pgx.Row) (registry.Delivery, error) {
	var d registry.Delivery
	var status string
	err := row.Scan(&d.ID, &d.Event, &d.Action, &d.Repo, &d.Payload, &status, &d.Error, &d.Submissions,
		&d.ReceivedAt, &d.UpdatedAt)
	d.Status = registry.DeliveryStatus(status)
	d.Submissions = nonNilStrings(d.Submissions)
	d.ReceivedAt = d.ReceivedAt.UTC()
	d.UpdatedAt = d.UpdatedAt.UTC()
	return d, err
}

// Delivery returns the webhook delivery with id, or an error wrapping
// registry.ErrNotFound.
func (r reader) Delivery(ctx context.Context, id string) (registry.Delivery, error) {
	d, err := scanDelivery(r.db.QueryRow(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries WHERE id = $1`, id))
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
		where = append(where, "(received_at, id) < ("+a.add(c.At)+", "+a.add(c.Key)+")")
	}
	limit := p.Bounded()
	rows, err := r.db.Query(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries`+whereSQL(where)+
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
