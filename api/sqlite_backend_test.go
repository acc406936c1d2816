package api_test

import (
	"testing"

	"github.com/registryd/registryd/storage"
)

func openSQLite(t testing.TB) storage.Store {
	t.Skip("storage/sqlite has not landed")
	return nil
}
