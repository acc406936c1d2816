package sqlite_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/storetest"
)

// Two handles on one file, as two processes would have (registryd serve
// and registryd reassess, say): each serves the other's commits once its
// watcher has seen the file's data version move, and its own at once.
func TestCacheAcrossHandles(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(migratedFile(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, storage.SQLiteFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	storetest.CacheAcrossHandles(t, openDir(t, dir), openDir(t, dir))
}
