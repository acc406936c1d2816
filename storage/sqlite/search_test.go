package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/sqlite"
)

func putAddon(t *testing.T, s storage.Store, name, desc string) {
	t.Helper()
	a := registry.Addon{
		Name: name, DisplayName: "Display " + name, Description: desc, LatestVersion: "1.0.0",
		LatestVerdict: registry.VerdictPass, CreatedAt: time.Unix(1e9, 0), UpdatedAt: time.Unix(1e9, 0),
	}
	if err := s.InTx(context.Background(), func(tx storage.Tx) error { return tx.PutAddon(context.Background(), a) }); err != nil {
		t.Fatalf("PutAddon(%s): %v", name, err)
	}
}

// search returns the names the search for q finds, by relevance.
func search(t *testing.T, s storage.Store, q string) []string {
	t.Helper()
	page, _, err := s.Addons(context.Background(), storage.AddonFilter{Query: q, Order: storage.ByRelevance}, storage.Page{Limit: 100})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	names := []string{}
	for _, a := range page {
		names = append(names, a.Name)
	}
	return names
}

// indexed counts the addons that the FTS5 index finds for q: CountAddons
// reads through it (the search's pages read the postings of
// addon_grams, which are not deferred).
func indexed(t *testing.T, s storage.Store, q string) int {
	t.Helper()
	n, _, err := s.CountAddons(context.Background(), storage.AddonFilter{Query: q}, 100)
	if err != nil {
		t.Fatalf("count %q: %v", q, err)
	}
	return n
}

func checkIndex(t *testing.T, s *sqlite.Store) {
	t.Helper()
	if _, err := s.DB().Exec(`INSERT INTO addon_search (addon_search, rank) VALUES ('integrity-check', 0)`); err != nil {
		t.Errorf("FTS5 integrity-check: %v", err)
	}
}

// A bulk load defers the search index and rebuilds it: what it wrote
// meanwhile (inserts, changed text, deletions) is searched exactly as if
// the index had been kept all along, and the triggers keep it again after.
func TestDeferredSearchIndex(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	putAddon(t, s, "kept", "plain tracing")
	putAddon(t, s, "changed", "old words")
	putAddon(t, s, "deleted", "tracing to delete")

	if err := s.DeferSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.DeferSearchIndex(ctx); err != nil {
		t.Fatalf("deferring twice: %v", err)
	}
	putAddon(t, s, "added", "fresh tracing")
	putAddon(t, s, "changed", "new phrasing")
	if _, err := s.DB().ExecContext(ctx, `DELETE FROM addons WHERE name = 'deleted'`); err != nil {
		t.Fatal(err)
	}
	// Deferred: the index is as it was before; the search's postings
	// are not deferred.
	if got := indexed(t, s, "fresh"); got != 0 {
		t.Errorf("the index finds fresh %d times while deferred; want none (the triggers wrote the index)", got)
	}
	if got, want := search(t, s, "fresh"), []string{"added"}; !cmp.Equal(got, want) {
		t.Errorf("search fresh while deferred = %v; want %v", got, want)
	}

	if err := s.RebuildSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, s)
	tests := []struct {
		q    string
		want []string
	}{
		{"tracing", []string{"added", "kept"}},
		{"fresh", []string{"added"}},
		{"phrasing", []string{"changed"}},
		{"old words", []string{}},
		{"delete", []string{}},
		{"display", []string{"added", "changed", "kept"}},
	}
	check := func(step string) {
		t.Helper()
		for _, tc := range tests {
			if got := search(t, s, tc.q); !cmp.Equal(got, tc.want) {
				t.Errorf("%s: search %q = %v; want %v", step, tc.q, got, tc.want)
			}
			if got := indexed(t, s, tc.q); got != len(tc.want) {
				t.Errorf("%s: the index finds %q %d times; want %d", step, tc.q, got, len(tc.want))
			}
		}
	}
	check("rebuilt")

	// The triggers keep the index again.
	putAddon(t, s, "later", "tracing once more")
	putAddon(t, s, "kept", "plain logging")
	tests[0].want = []string{"added", "later"}
	tests[5].want = []string{"added", "changed", "kept", "later"}
	check("after the rebuild")
	checkIndex(t, s)
}

// A load that stops while the index is deferred leaves it deferred; the
// next Open rebuilds it.
func TestOpenRebuildsDeferredSearchIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := sqlite.Open(ctx, storage.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeferSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	putAddon(t, s, "loaded", "found after open")
	if got := indexed(t, s, "found"); got != 0 {
		t.Errorf("the index finds %d while deferred; want none", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openDir(t, dir)
	if got, want := search(t, s, "found"), []string{"loaded"}; !cmp.Equal(got, want) {
		t.Errorf("search after Open = %v; want %v", got, want)
	}
	if got := indexed(t, s, "found"); got != 1 {
		t.Errorf("the index finds %d after Open; want 1", got)
	}
	checkIndex(t, s)
	putAddon(t, s, "next", "found at once")
	if got, want := search(t, s, "found"), []string{"loaded", "next"}; !cmp.Equal(got, want) {
		t.Errorf("search after a write = %v; want %v (still deferred)", got, want)
	}
}
