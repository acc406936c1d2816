package migrations_test

import (
	"context"
	"database/sql"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pressly/goose/v3"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/workflow"
)

// TestSearchBackfill stores addons the way registryd did before migration
// 00009 (keywords and categories only in their manifests), migrates to the
// latest version, and checks that the search finds them by keyword once
// workflow.BackfillSearch has run, and that running it again changes
// nothing, on both dialects.
func TestSearchBackfill(t *testing.T) {
	ctx := context.Background()
	eachDialect(t, func(t *testing.T, d oldDB) {
		db := d.open()
		defer db.Close()
		fillBeforeSearch(t, d.dialect, db, d.fsys)
		db.Close()
		checkSearchBackfill(ctx, t, d.cfg)
	})
}

// upTo migrates db to version n and returns the provider, for tests that
// store rows in an older schema before they migrate the rest of the way.
func upTo(t *testing.T, dialect goose.Dialect, db *sql.DB, fsys fs.FS, n int64) *goose.Provider {
	t.Helper()
	p, err := goose.NewProvider(dialect, db, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), n); err != nil {
		t.Fatalf("up to %d: %v", n, err)
	}
	return p
}

// fillBeforeSearch migrates db to version 8 and stores three addons: two
// whose latest manifests have keywords and categories (one of them also
// an older version with others), one whose manifest has none.
func fillBeforeSearch(t *testing.T, dialect goose.Dialect, db *sql.DB, fsys fs.FS) {
	t.Helper()
	ctx := context.Background()
	upTo(t, dialect, db, fsys, 8)
	at := func(sec int) any {
		if dialect == goose.DialectSQLite3 {
			return int64(sec) * 1e6
		}
		return "2026-01-01T00:00:0" + string(rune('0'+sec)) + "Z"
	}
	bind := func(q string) string {
		if dialect == goose.DialectPostgres {
			return strings.ReplaceAll(q, "?", "$")
		}
		return q
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, bind(q), args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	manifest := func(name, version, tags string) []byte {
		return []byte("[addon]\nname = \"" + name + "\"\nversion = \"" + version + "\"\ndescription = \"A tool.\"\n" + tags +
			"\n[mcp]\ntransport = \"stdio\"\ncommand = \"" + name + "-server\"\n")
	}
	for i, v := range []struct{ name, version, tags string }{
		{"weather", "1.0.0", "keywords = [\"stale-word\"]\n"},
		{"weather", "2.0.0", "keywords = [\"Forecast\", \"rain\"]\ncategories = [\"data\"]\n"},
		{"notes", "1.0.0", "categories = [\"Productivity\"]\n"},
		{"plain", "1.0.0", ""},
	} {
		id := "sub_" + string(rune('a'+i))
		exec(`INSERT INTO submissions (id, addon, version, manifest, manifest_sha256, format, source, status, verdict, created_at, updated_at)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)`, id, v.name, v.version, manifest(v.name, v.version, v.tags), "00", "toml", "rest", "approved", "pass", at(i+1), at(i+1))
		exec(`INSERT INTO versions (addon, version, version_key, submission_id, published_at) VALUES (?1, ?2, ?3, ?4, ?5)`, v.name, v.version, v.version, id, at(i+1))
	}
	for _, a := range []struct{ name, latest string }{{"weather", "2.0.0"}, {"notes", "1.0.0"}, {"plain", "1.0.0"}} {
		exec(`INSERT INTO addons (name, display_name, description, latest_version, latest_verdict, created_at, updated_at)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`, a.name, a.name, "A tool.", a.latest, "pass", at(1), at(4))
	}
}

func checkSearchBackfill(ctx context.Context, t *testing.T, cfg storage.Config) {
	if err := backend.Migrate(ctx, cfg); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	s, err := backend.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	search := func(q string) []string {
		t.Helper()
		page, _, err := s.Addons(ctx, storage.AddonFilter{Query: q, Order: storage.ByRelevance}, storage.Page{})
		if err != nil {
			t.Fatal(err)
		}
		names := []string{}
		for _, a := range page {
			names = append(names, a.Name)
		}
		return names
	}
	// Before the backfill, only names and descriptions are searchable.
	if got := search("forecast"); len(got) != 0 {
		t.Fatalf("before the backfill, q=forecast found %v", got)
	}
	svc := workflow.New(s, workflow.Options{})
	n, err := svc.BackfillSearch(ctx, 2) // batches smaller than the list
	if err != nil || n != 2 {
		t.Fatalf("BackfillSearch = %d, %v; want 2 addons changed", n, err)
	}
	for q, want := range map[string][]string{
		"forecast": {"weather"}, "rain": {"weather"}, "data": {"weather"}, "productivity": {"notes"},
		"stale-word": {}, "a tool": {"notes", "plain", "weather"},
	} {
		if diff := cmp.Diff(want, search(q)); diff != "" {
			t.Errorf("after the backfill, q=%s (-want +got):\n%s", q, diff)
		}
	}
	a, err := s.Addon(ctx, "weather")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Forecast", "rain"}, a.Keywords); diff != "" || a.LatestVerdict != registry.VerdictPass || a.LatestVersion != "2.0.0" {
		t.Errorf("weather after the backfill: keywords (-want +got):\n%s; verdict %q, version %q", diff, a.LatestVerdict, a.LatestVersion)
	}
	// Again: the list is empty, nothing changes.
	if n, err := svc.BackfillSearch(ctx, 2); err != nil || n != 0 {
		t.Errorf("BackfillSearch again = %d, %v; want 0", n, err)
	}
	// An addon published afterwards keeps its own keywords: it is not on
	// the list, and a backfill never replaces keywords an addon has.
	if err := s.InTx(ctx, func(tx storage.Tx) error {
		a.Keywords = []string{"storm"}
		return tx.PutAddon(ctx, a)
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := svc.BackfillSearch(ctx, 2); err != nil || n != 0 {
		t.Errorf("BackfillSearch after a change = %d, %v; want 0", n, err)
	}
	if diff := cmp.Diff([]string{"weather"}, search("storm")); diff != "" {
		t.Errorf("q=storm (-want +got):\n%s", diff)
	}
}
