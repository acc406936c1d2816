package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/sqlite"
	"github.com/registryd/registryd/storage/storetest"
	"github.com/registryd/registryd/transparency"
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

// Two handles on one file hear of each other's log appends and
// checkpoints, which change every inclusion proof.
func TestLogChangesAcrossHandles(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(migratedFile(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, storage.SQLiteFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := storage.Ephemeral()
	if err != nil {
		t.Fatal(err)
	}
	var skew atomic.Int64
	cfg := storage.Config{DataDir: dir, Signing: storage.Signing{Signers: []*transparency.Signer{k},
		Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }}}
	open := func() *sqlite.Store {
		s, err := sqlite.Open(context.Background(), cfg)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	storetest.LogChangesAcrossHandles(t, open(), open(), func(d time.Duration) { skew.Add(int64(d)) })
}
