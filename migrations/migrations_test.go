package migrations_test

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"regexp"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/migrations"
)

// TestSetsMatch keeps the two dialects in step: the same versions, with
// the same names.
func TestSetsMatch(t *testing.T) {
	list := func(fsys fs.FS) []string {
		names, err := fs.Glob(fsys, "*.sql")
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	pg, lite := list(migrations.Postgres()), list(migrations.SQLite())
	if len(pg) == 0 {
		t.Fatal("no PostgreSQL migrations embedded")
	}
	if len(pg) != len(lite) {
		t.Fatalf("PostgreSQL has %d migrations, SQLite %d", len(pg), len(lite))
	}
	valid := regexp.MustCompile(`^\d{5}_[a-z0-9_]+\.sql$`)
	for i := range pg {
		if pg[i] != lite[i] {
			t.Errorf("migration %d: %q (PostgreSQL) vs %q (SQLite)", i, pg[i], lite[i])
		}
		if !valid.MatchString(pg[i]) {
			t.Errorf("migration name %q does not match NNNNN_name.sql", pg[i])
		}
	}
}

// upDownUp applies every migration, reverts them all, and applies them
// again: each Down section must undo its Up exactly.
func upDownUp(t *testing.T, dialect goose.Dialect, db *sql.DB, fsys fs.FS) {
	t.Helper()
	ctx := context.Background()
	p, err := goose.NewProvider(dialect, db, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatalf("down: %v", err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	if pending, err := p.HasPending(ctx); err != nil || pending {
		t.Errorf("HasPending() = %v, %v after up; want false", pending, err)
	}
}

func TestSQLiteUpDownUp(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db")+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	upDownUp(t, goose.DialectSQLite3, db, migrations.SQLite())
}

func TestPostgresUpDownUp(t *testing.T) {
	db, err := sql.Open("pgx", pgtest.NewEmptyDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	upDownUp(t, goose.DialectPostgres, db, migrations.Postgres())
}
