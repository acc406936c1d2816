package main

import (
	"context"
	"database/sql"
	"io"
	"path/filepath"
	"testing"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
)

// The seed publishes the registry the scale run measures: the marked
// searches match 100 addons, and verdicts, tiers and removals are mixed.
func TestSeed(t *testing.T) {
	for _, batch := range []string{"1", "7", "200"} {
		t.Run("batch "+batch, func(t *testing.T) { testSeed(t, batch) })
	}
}

func testSeed(t *testing.T, batch string) {
	dir := t.TempDir()
	env := func(string) string { return "" }
	if err := run(context.Background(), []string{"seed", "-addons", "200", "-batch", batch, "-workers", "3", "-data-dir", dir}, env, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The seed built the search index it deferred (opening the store
	// would build it too, and hide that it did not).
	db, err := sql.Open("sqlite", filepath.Join(dir, storage.SQLiteFile))
	if err != nil {
		t.Fatal(err)
	}
	var deferred int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM addon_search_deferred`).Scan(&deferred); err != nil || deferred != 0 {
		t.Errorf("after the seed, addon_search_deferred holds %d rows (%v); want 0", deferred, err)
	}
	db.Close()
	s, err := backend.Open(ctx, storage.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tests := []struct {
		name string
		f    storage.AddonFilter
		want int
	}{
		{"all, with removed", storage.AddonFilter{IncludeRemoved: true}, 200},
		{"listed", storage.AddonFilter{}, 199},
		{"keyword search", storage.AddonFilter{Query: keywordSearch, IncludeRemoved: true}, searchMarked},
		{"name search", storage.AddonFilter{Query: nameSearch, IncludeRemoved: true}, searchMarked},
		{"broad search", storage.AddonFilter{Query: broadSearch, IncludeRemoved: true}, 5},
		{"fail", storage.AddonFilter{Verdict: registry.VerdictFail}, 6},
		{"review", storage.AddonFilter{Verdict: registry.VerdictReview, IncludeRemoved: true}, 67},
		{"verified", storage.AddonFilter{Tier: registry.TierVerified, IncludeRemoved: true}, 2},
	}
	for _, tc := range tests {
		n, _, err := s.CountAddons(ctx, tc.f, 1000)
		if err != nil || n != tc.want {
			t.Errorf("%s: CountAddons = %d, %v; want %d", tc.name, n, err, tc.want)
		}
	}
	// Seeding again refuses nothing and changes nothing: publishing the
	// same bytes is not an error.
	if err := run(ctx, []string{"seed", "-addons", "200", "-from", "190", "-batch", batch, "-data-dir", dir}, env, io.Discard, io.Discard); err != nil {
		t.Errorf("seeding the last ten again: %v", err)
	}
}
