package sqlstore_test

import (
	"context"
	"errors"
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
// PostgreSQL is told to avoid sequential scans, as it would on tables this
// small, so that the plan shows which indexes it can use.
func TestManifestLookupPlan(t *testing.T) {
	const lookup = `SELECT v.addon, v.version FROM versions v JOIN submissions s ON s.id = v.submission_id
		WHERE s.manifest_sha256 = $1 ORDER BY v.published_at DESC, v.addon, v.version LIMIT 1`
	wantIndexes := []string{"submissions_manifest_sha256", "versions_submission"}
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		ctx := context.Background()
		s := b.Open(t)
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
			rows, err := tx.Query(ctx, "EXPLAIN "+lookup, "00")
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
			rows, err := s.DB().QueryContext(ctx, "EXPLAIN QUERY PLAN "+strings.ReplaceAll(lookup, "$1", "?1"), "00")
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
			if !strings.Contains(got, idx) {
				t.Errorf("plan does not use %s:\n%s", idx, got)
			}
		}
	})
}
