package api_test

import (
	"context"
	"testing"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/sqlite"
)

func openSQLite(t testing.TB) storage.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), storage.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
