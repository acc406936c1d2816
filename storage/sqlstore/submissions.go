package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

const submissionCols = `id, addon, version, manifest, manifest_sha256, format, source, submitter,
	submitter_token, github_repo, github_pr, github_commit, github_path, github_author, status,
	verdict, risk, decided_by, decided_at, decision_reason, created_at, updated_at, wiring_sha256,
	submitter_principal, upstream_url, upstream_name, upstream_version`

// submissionColsOf returns submissionCols, each prefixed with prefix (a
// table's alias and a dot), for a query that joins submissions.
func submissionColsOf(prefix string) string {
	cols := strings.Split(submissionCols, ",")
	for i, c := range cols {
		cols[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

const qSubmission = `SELECT ` + submissionCols + ` FROM submissions WHERE id = $1`

func (r reader) scanSubmission(row Row) (registry.Submission, error) {
	var s registry.Submission
	dst, finish := r.submissionFields(&s)
	if err := row.Scan(dst...); err != nil {
		return s, err
	}
	return s, finish()
}

// submissionFields returns the scan destinations of submissionCols into s,
// and the function that completes s once they are scanned.
func (r reader) submissionFields(s *registry.Submission) ([]any, func() error) {
	var (
		repo                               *string
		pr                                 int
		commit, path, author, risk, source string
		status, verdict                    string
		up                                 registry.UpstreamOrigin
	)
	return []any{&s.ID, &s.Addon, &s.Version, &s.Manifest, &s.ManifestSHA256, &s.Format, &source,
			&s.Submitter, &s.SubmitterToken, &repo, &pr, &commit, &path, &author, &status, &verdict, &risk,
			&s.DecidedBy, r.d.ScanNullTime(&s.DecidedAt), &s.DecisionReason, r.d.ScanTime(&s.CreatedAt), r.d.ScanTime(&s.UpdatedAt),
			&s.WiringSHA256, &s.SubmitterPrincipal, &up.URL, &up.Name, &up.Version},
		func() error {
			s.Manifest = nonNilBytes(s.Manifest)
			s.Source = registry.Source(source)
			s.Status = registry.SubmissionStatus(status)
			s.Verdict = registry.Verdict(verdict)
			var err error
			if s.Risk, err = registry.ParseLevel(risk); err != nil {
				return fmt.Errorf("submission %q risk: %w", s.ID, err)
			}
			if repo != nil {
				s.GitHub = &registry.GitHubOrigin{Repo: *repo, PR: pr, CommitID: commit, Path: path, Author: author}
			}
			if s.Source.Imported() {
				s.Upstream = &up
			}
			return nil
		}
}

// Submission returns the submission with id, or an error wrapping
// registry.ErrNotFound. Inside a transaction it locks the row until commit.
func (r reader) Submission(ctx context.Context, id string) (registry.Submission, error) {
	s, err := r.scanSubmission(r.c.QueryRow(ctx, qSubmission+r.lock, id))
	if err != nil {
		return s, r.err(fmt.Sprintf("submission %q", id), err)
	}
	return s, nil
}

// severitySQL ranks a submission's verdict for WorstFirst: fail 0, review
// 1, pass 2. severity is the same rank in Go, for the cursor.
const severitySQL = `(CASE verdict WHEN 'fail' THEN 0 WHEN 'review' THEN 1 ELSE 2 END)`

func severity(v registry.Verdict) int {
	switch v {
	case registry.VerdictFail:
		return 0
	case registry.VerdictReview:
		return 1
	}
	return 2
}

// submissionsQuery returns the query listing the columns cols of the
// submissions f matches, one page of p in f's order (one row more than
// the page, to tell whether another follows), and its arguments.
func submissionsQuery(d Dialect, cols string, f storage.SubmissionFilter, p storage.Page) (string, args, error) {
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
	var order string
	switch f.Order {
	case storage.OldestFirst:
		order = "created_at, id"
	case storage.NewestFirst:
		order = "created_at DESC, id DESC"
	case storage.WorstFirst:
		order = severitySQL + ", created_at, id"
	default:
		return "", nil, invalid("order", "is not a known order")
	}
	if p.Cursor != "" {
		c, err := storage.DecodeCursor(p.Cursor)
		if err != nil {
			return "", nil, err
		}
		op := ">"
		if f.Order == storage.NewestFirst {
			op = "<"
		}
		after := "(created_at, id) " + op + " (" + a.add(d.Time(c.At)) + ", " + a.add(c.Key) + ")"
		if f.Order == storage.WorstFirst {
			after = "(" + severitySQL + " > " + a.add(c.Rank) + " OR (" + severitySQL + " = " + a.add(c.Rank) + " AND " + after + "))"
		}
		where = append(where, after)
	}
	return `SELECT ` + cols + ` FROM submissions` + whereSQL(where) + ` ORDER BY ` + order + ` LIMIT ` + a.add(p.Bounded()+1), a, nil
}

// submissionCursor is the cursor of the page that follows s.
func submissionCursor(s registry.Submission) storage.Cursor {
	return storage.Cursor{At: s.CreatedAt, Key: s.ID, Rank: severity(s.Verdict)}
}

// Submissions lists submissions matching f in f's order, one page at a
// time. An unknown order is a validation error naming the field "order".
func (r reader) Submissions(ctx context.Context, f storage.SubmissionFilter, p storage.Page) ([]registry.Submission, string, error) {
	query, a, err := submissionsQuery(r.d, submissionCols, f, p)
	if err != nil {
		return nil, "", fmt.Errorf("list submissions: %w", err)
	}
	out, err := list(r, ctx, "list submissions", r.scanSubmission, query, a...)
	if err != nil {
		return nil, "", err
	}
	out, next := page(out, p.Bounded(), submissionCursor)
	return out, next, nil
}

// queueCols are a submission's columns and what the review queue adds:
// its unsuppressed findings counted by level, and the version it updates
// (see storage.QueueEntry), each read through an index (findings' key;
// versions_published).
const queueCols = submissionCols + `,
	(SELECT count(*) FROM findings f WHERE f.submission_id = submissions.id AND f.level = 'danger' AND NOT f.suppressed),
	(SELECT count(*) FROM findings f WHERE f.submission_id = submissions.id AND f.level = 'warn' AND NOT f.suppressed),
	(SELECT count(*) FROM findings f WHERE f.submission_id = submissions.id AND f.level = 'info' AND NOT f.suppressed),
	COALESCE((SELECT v.version FROM versions v WHERE v.addon = submissions.addon AND v.submission_id <> submissions.id
		AND (submissions.decided_at IS NULL OR v.published_at < submissions.decided_at)
		ORDER BY v.published_at DESC, v.version DESC LIMIT 1), '')`

// ReviewQueue lists the submissions Submissions lists for f and p, each
// with its findings counted by level and the version it updates.
func (r reader) ReviewQueue(ctx context.Context, f storage.SubmissionFilter, p storage.Page) ([]storage.QueueEntry, string, error) {
	query, a, err := submissionsQuery(r.d, queueCols, f, p)
	if err != nil {
		return nil, "", fmt.Errorf("review queue: %w", err)
	}
	out, err := list(r, ctx, "review queue", func(row Row) (storage.QueueEntry, error) {
		var e storage.QueueEntry
		dst, finish := r.submissionFields(&e.Submission)
		if err := row.Scan(append(dst, &e.Danger, &e.Warn, &e.Info, &e.Updates)...); err != nil {
			return e, err
		}
		return e, finish()
	}, query, a...)
	if err != nil {
		return nil, "", err
	}
	out, next := page(out, p.Bounded(), func(e storage.QueueEntry) storage.Cursor { return submissionCursor(e.Submission) })
	return out, next, nil
}

// SubmissionsOfAddon returns every submission of addon, oldest first; an
// empty, non-nil slice when there are none.
func (r reader) SubmissionsOfAddon(ctx context.Context, addon string) ([]registry.Submission, error) {
	return list(r, ctx, fmt.Sprintf("submissions of %q", addon), r.scanSubmission,
		`SELECT `+submissionCols+` FROM submissions WHERE addon = $1 ORDER BY created_at, id`, addon)
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
	var up registry.UpstreamOrigin
	if s.Upstream != nil {
		up = *s.Upstream
	}
	_, err := t.c.Exec(ctx, `INSERT INTO submissions (`+submissionCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,
			$25, $26, $27)`,
		s.ID, s.Addon, s.Version, nonNilBytes(s.Manifest), s.ManifestSHA256, s.Format, string(s.Source), s.Submitter,
		s.SubmitterToken, repo, g.PR, g.CommitID, g.Path, g.Author, string(s.Status),
		string(s.Verdict), s.Risk.String(), s.DecidedBy, nullTime(t.d, s.DecidedAt), s.DecisionReason,
		t.d.Time(s.CreatedAt), t.d.Time(s.UpdatedAt), s.WiringSHA256,
		s.SubmitterPrincipal, up.URL, up.Name, up.Version)
	if err != nil {
		return t.err(fmt.Sprintf("create submission %q", s.ID), err)
	}
	t.markFresh(s)
	return nil
}

// UpdateSubmission writes s's status, verdict, risk, decision fields,
// wiring digest and UpdatedAt; registry.ErrNotFound if absent.
func (t *tx) UpdateSubmission(ctx context.Context, s registry.Submission) error {
	n, err := t.c.Exec(ctx, `UPDATE submissions SET status = $2, verdict = $3, risk = $4, decided_by = $5,
		decided_at = $6, decision_reason = $7, updated_at = $8, wiring_sha256 = $9 WHERE id = $1`,
		s.ID, string(s.Status), string(s.Verdict), s.Risk.String(), s.DecidedBy, nullTime(t.d, s.DecidedAt),
		s.DecisionReason, t.d.Time(s.UpdatedAt), s.WiringSHA256)
	if err != nil {
		return t.err(fmt.Sprintf("update submission %q", s.ID), err)
	}
	if n == 0 {
		return fmt.Errorf("update submission %q: %w", s.ID, registry.ErrNotFound)
	}
	return nil
}

// SubmissionsByUpstream returns every submission imported from source with
// the upstream name and version, oldest first; an empty, non-nil slice when
// there are none.
func (r reader) SubmissionsByUpstream(ctx context.Context, source registry.Source, name, version string) ([]registry.Submission, error) {
	return list(r, ctx, fmt.Sprintf("submissions of upstream %q", name+"@"+version), r.scanSubmission,
		`SELECT `+submissionCols+` FROM submissions WHERE source = $1 AND upstream_name = $2 AND upstream_version = $3
		ORDER BY created_at, id`, string(source), name, version)
}

// SetVerdicts writes the verdict, risk and wiring digest of each
// submission of vs, and UpdatedAt at, in a statement per rowsPerStatement
// submissions; registry.ErrNotFound when one does not exist.
func (t *tx) SetVerdicts(ctx context.Context, at time.Time, vs []storage.VerdictWrite) error {
	op := fmt.Sprintf("set the verdicts of %d submissions", len(vs))
	return chunks(len(vs), func(lo, hi int) error {
		a := make([]any, 0, 1+4*(hi-lo))
		a = append(a, t.d.Time(at))
		for _, v := range vs[lo:hi] {
			a = append(a, v.ID, string(v.Verdict), v.Risk.String(), v.Wiring)
		}
		n, err := t.c.Exec(ctx, `UPDATE submissions SET verdict = v.column2, risk = v.column3, wiring_sha256 = v.column4,
			updated_at = $1 FROM (VALUES `+valuesSQL(hi-lo, 4, 2, "")+`) AS v WHERE submissions.id = v.column1`, a...)
		if err != nil {
			return t.err(op, err)
		}
		if int(n) != hi-lo {
			return fmt.Errorf("%s: %d of them: %w", op, hi-lo-int(n), registry.ErrNotFound)
		}
		return nil
	})
}
