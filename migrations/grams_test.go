package migrations_test

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pressly/goose/v3"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
)

// gramAddons have search texts with non-ASCII letters, several keywords
// (joined by a newline in their part), an empty part and parts of fewer
// than three characters.
var gramAddons = []registry.Addon{
	{Name: "café-tools", DisplayName: "Café Über Tools", Keywords: []string{"naïve", "ñandú"}, Categories: []string{"data"},
		Description: "Reads menus — fast."},
	{Name: "plain", DisplayName: "Plain", Description: "A tool."},
	{Name: "ab", DisplayName: "x", Keywords: []string{"k"}, Description: "no"},
}

// TestSearchGrams stores addons before migration 00025 with the search
// text registryd writes, migrates, and checks that the postings the
// migration computes in SQL are exactly those the store writes for the
// same addons (so that a later change of an addon's text deletes exactly
// its old postings), and that the search finds the addons through them,
// on both dialects.
func TestSearchGrams(t *testing.T) {
	eachDialect(t, func(t *testing.T, d oldDB) {
		db := d.open()
		defer db.Close()
		fillBeforeGrams(t, d.dialect, db, d.fsys)
		db.Close()
		checkGrams(t, d.cfg, d.fresh())
	})
}

// gramText is the search text registryd writes for a (sqlstore's
// searchText), spelled out here as version 24 stored it.
func gramText(a registry.Addon) string {
	tags := append(append([]string{}, a.Keywords...), a.Categories...)
	return strings.ToLower(a.Name+"\n"+a.DisplayName) + "\x1f" + strings.ToLower(strings.Join(tags, "\n")) + "\x1f" +
		strings.ToLower(a.Description)
}

func fillBeforeGrams(t *testing.T, dialect goose.Dialect, db *sql.DB, fsys fs.FS) {
	t.Helper()
	upTo(t, dialect, db, fsys, 24)
	for _, a := range gramAddons {
		q := `INSERT INTO addons (name, display_name, description, latest_version, latest_verdict, created_at, updated_at, search_text)
			VALUES (?1, ?2, ?3, '1.0.0', 'pass', ?4, ?4, ?5)`
		var at any = int64(1e15)
		if dialect == goose.DialectPostgres {
			q, at = strings.ReplaceAll(q, "?", "$"), "2026-01-01T00:00:00Z"
		}
		if _, err := db.ExecContext(context.Background(), q, a.Name, a.DisplayName, a.Description, at, gramText(a)); err != nil {
			t.Fatal(err)
		}
	}
}

type posting struct {
	Gram string
	Part int
	Name string
}

func postingsOf(t *testing.T, cfg storage.Config) []posting {
	t.Helper()
	var db *sql.DB
	var err error
	if cfg.DatabaseURL != "" {
		db, err = sql.Open("pgx", cfg.DatabaseURL)
	} else {
		db, err = sql.Open("sqlite", filepath.Join(cfg.DataDir, "registryd.db"))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT gram, part, name FROM addon_grams`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []posting
	for rows.Next() {
		var p posting
		if err := rows.Scan(&p.Gram, &p.Part, &p.Name); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkGrams(t *testing.T, migrated, written storage.Config) {
	ctx := context.Background()
	if err := backend.Migrate(ctx, migrated); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if err := backend.Migrate(ctx, written); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	s, err := backend.Open(ctx, written)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range gramAddons {
		a.LatestVersion, a.LatestVerdict, a.CreatedAt, a.UpdatedAt = "1.0.0", registry.VerdictPass, time.Unix(1e9, 0), time.Unix(1e9, 0)
		if err := s.InTx(ctx, func(tx storage.Tx) error { return tx.PutAddon(ctx, a) }); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	less := func(a, b posting) bool {
		return a.Gram < b.Gram || a.Gram == b.Gram && (a.Part < b.Part || a.Part == b.Part && a.Name < b.Name)
	}
	got, want := postingsOf(t, migrated), postingsOf(t, written)
	if len(want) < 40 {
		t.Fatalf("the store wrote %d postings, too few for these addons", len(want))
	}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(less)); diff != "" {
		t.Errorf("postings of the migration (-store +migration):\n%s", diff)
	}

	m, err := backend.Open(ctx, migrated)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for q, want := range map[string][]string{"über": {"café-tools"}, "ñandú": {"café-tools"}, "nus — f": {"café-tools"}, "a tool": {"plain"}, "é-t": {"café-tools"}} {
		page, _, err := m.Addons(ctx, storage.AddonFilter{Query: q, Order: storage.ByRelevance}, storage.Page{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, a := range page {
			names = append(names, a.Name)
		}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("q=%s after the migration (-want +got):\n%s", q, diff)
		}
	}
}
