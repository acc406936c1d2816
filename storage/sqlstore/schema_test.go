package sqlstore_test

import (
	"context"
	"errors"
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
