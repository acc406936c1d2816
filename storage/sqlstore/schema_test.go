package sqlstore_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
	"github.com/registryd/registryd/storage/sqlite"
)

// TestAuditLogAppendOnly holds both schemas to an append-only audit log:
// SQL that bypasses the store to change or remove an entry is refused by
// the database itself (its triggers), and the entry stays as it was.
func TestAuditLogAppendOnly(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		ctx := context.Background()
		s := b.Open(t)
		err := s.InTx(ctx, func(tx storage.Tx) error {
			return tx.AppendAudit(ctx, registry.AuditEntry{ID: "aud_1", Actor: "carol", Action: "addon.verify.grant"})
		})
		if err != nil {
			t.Fatal(err)
		}
		stmts := []string{"UPDATE audit_log SET actor = 'mallory'", "DELETE FROM audit_log"}
		var exec func(string) error
		switch s := s.(type) {
		case *postgres.Store:
			stmts = append(stmts, "TRUNCATE audit_log")
			exec = func(stmt string) error {
				_, err := s.Pool().Exec(ctx, stmt)
				var pe *pgconn.PgError
				if err != nil && !errors.As(err, &pe) {
					t.Errorf("%s: %v, want the database's refusal", stmt, err)
				}
				return err
			}
		case *sqlite.Store:
			exec = func(stmt string) error { _, err := s.DB().ExecContext(ctx, stmt); return err }
		default:
			t.Fatalf("no raw SQL for %T", s)
		}
		for _, stmt := range stmts {
			if err := exec(stmt); err == nil {
				t.Errorf("%s succeeded, want the append-only trigger to refuse it", stmt)
			}
		}
		log, _, err := s.AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
		if err != nil || len(log) != 1 || log[0].Actor != "carol" {
			t.Errorf("audit log after refused changes = %+v, %v; want the one entry unchanged", log, err)
		}
	})
}

// TestManifestLookupPlan checks that the lookup by manifest digest
// (VersionByManifest) reads an index at each step on both databases: the
// submissions with the digest, then the version published from each.
func TestManifestLookupPlan(t *testing.T) {
	const lookup = `SELECT v.addon, v.version FROM versions v JOIN submissions s ON s.id = v.submission_id
		WHERE s.manifest_sha256 = $1 ORDER BY v.published_at DESC, v.addon, v.version LIMIT 1`
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		wantPlan(t, b.Open(t), lookup, []any{"00"}, "submissions_manifest_sha256", "versions_submission")
	})
}

// TestListedFilterPlan checks that a list of the listed addons (not
// removed) filtered by tier and verdict at once, in name order, reads the
// index of the listed addons (migration 00027), not the index of every
// addon, whose removed entries it would read row by row.
func TestListedFilterPlan(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		wantPlan(t, b.Open(t), `SELECT * FROM addons WHERE tier = $1 AND latest_verdict = $2 AND NOT removed ORDER BY name LIMIT 31`,
			[]any{"verified", "fail"}, "addons_listed_tier_verdict_name")
	})
}

// Whether any report is stale is read from indexes alone: the partial
// index of reports marked stale (00029), and the rulesets' on each side of
// the current one.
func TestStaleReportsPlan(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		s := b.Open(t)
		wantPlan(t, s, `SELECT 1 FROM reports WHERE stale LIMIT 1`, nil, "reports_stale")
		wantPlan(t, s, `SELECT 1 FROM reports WHERE ruleset < $1 LIMIT 1`, []any{"2026.12.1"}, "reports_ruleset")
		wantPlan(t, s, `SELECT 1 FROM reports WHERE ruleset > $1 LIMIT 1`, []any{"2026.12.1"}, "reports_ruleset")
	})
}

// wantPlan checks that the plan of query (placeholders $1, $2, …) with
// args names each of wantIndexes. PostgreSQL is told to avoid sequential
// scans, as it would on tables this small, so that the plan shows which
// indexes it can use.
func wantPlan(t *testing.T, s storage.Store, query string, args []any, wantIndexes ...string) {
	t.Helper()
	ctx := context.Background()
	var plan []string
	switch s := s.(type) {
	case *postgres.Store:
		tx, err := s.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
		rows, err := tx.Query(ctx, "EXPLAIN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	case *sqlite.Store:
		rows, err := s.DB().QueryContext(ctx, "EXPLAIN QUERY PLAN "+dollarToQuestion.ReplaceAllString(query, "?$1"), args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id, parent, notUsed int
			var detail string
			if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("no raw SQL for %T", s)
	}
	got := strings.Join(plan, "\n")
	for _, idx := range wantIndexes {
		if !strings.Contains(got, idx+" ") && !strings.HasSuffix(got, idx) && !strings.Contains(got, idx+"\n") {
			t.Errorf("plan of %s does not use %s:\n%s", query, idx, got)
		}
	}
}

// dollarToQuestion turns PostgreSQL's $n placeholders into SQLite's ?n.
var dollarToQuestion = regexp.MustCompile(`\$([0-9]+)`)
