package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/sqlite"
	"github.com/registryd/registryd/storage/storetest"
)

func open(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), storage.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store { return open(t) })
}

func TestAuditLogAppendOnly(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	err := s.InTx(ctx, func(tx storage.Tx) error {
		return tx.AppendAudit(ctx, registry.AuditEntry{ID: "aud_1", Actor: "carol", Action: "addon.verify.grant"})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"UPDATE audit_log SET actor = 'mallory'",
		"DELETE FROM audit_log",
	} {
		t.Run(stmt, func(t *testing.T) {
			if _, err := s.DB().ExecContext(ctx, stmt); err == nil {
				t.Fatalf("%s succeeded, want the append-only trigger to refuse it", stmt)
			}
		})
	}
	log, _, err := s.AuditLog(ctx, storage.Page{})
	if err != nil || len(log) != 1 || log[0].Actor != "carol" {
		t.Errorf("audit log after refused changes = %+v, %v; want the one entry unchanged", log, err)
	}
}

func TestOpenCreatesDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	s, err := sqlite.Open(context.Background(), storage.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(filepath.Join(dir, storage.SQLiteFile)); err != nil {
		t.Errorf("database file not created: %v", err)
	}
}

func TestMigratedFalseBeforeMigrate(t *testing.T) {
	ctx := context.Background()
	cfg := storage.Config{DataDir: t.TempDir(), SkipMigrate: true}
	s, err := sqlite.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ok, err := s.Migrated(ctx); ok || err != nil {
		t.Errorf("Migrated() before migrating = %v, %v; want false, nil", ok, err)
	}
	if err := sqlite.Migrate(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Migrated(ctx); !ok || err != nil {
		t.Errorf("Migrated() after Migrate = %v, %v; want true, nil", ok, err)
	}
	// Migrating again is a no-op.
	if err := sqlite.Migrate(ctx, cfg); err != nil {
		t.Errorf("second Migrate: %v", err)
	}
}

func TestOpenUnusableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(context.Background(), storage.Config{DataDir: file}); err == nil {
		t.Error("Open with DataDir naming a file succeeded, want an error")
	}
}
