package workflow_test

import (
	"context"
	"testing"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
	"github.com/registryd/registryd/storage/sqlite"
)

// backends lists the store implementations the tests run against: each
// test gets a fresh, migrated, empty store of each kind.
func backends() []backend {
	return []backend{
		{"sqlite", openSQLite},
		{"postgres", openPostgres},
	}
}

func openSQLite(t testing.TB) storage.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), storage.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func openPostgres(t testing.TB) storage.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), storage.Config{DatabaseURL: pgtest.NewDatabase(t), SkipMigrate: true, MaxConns: 8})
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
