package migrations_test

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"regexp"
	"testing"
	"testing/fstest"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/migrations"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
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

// without returns fsys without the migration named name.
func without(t *testing.T, fsys fs.FS, name string) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n == name {
			continue
		}
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = &fstest.MapFile{Data: b}
	}
	return out
}

// TestOutOfOrder: a database that a build without one of the migrations
// brought past it (a later migration landed first) is migrated by the
// stores: the missing one is applied, and the store is ready.
func TestOutOfOrder(t *testing.T) {
	if !migrations.Independent {
		t.Skip("migrations are applied in order")
	}
	names, err := fs.Glob(migrations.SQLite(), "*.sql")
	if err != nil || len(names) < 3 {
		t.Fatalf("migrations: %v, %v", names, err)
	}
	skipped := names[len(names)-2] // the latest but one
	ctx := context.Background()
	tests := []struct {
		name    string
		dialect goose.Dialect
		driver  string
		fsys    fs.FS
		config  func(t *testing.T) (dsn string, cfg storage.Config)
	}{
		{"sqlite", goose.DialectSQLite3, "sqlite", migrations.SQLite(), func(t *testing.T) (string, storage.Config) {
			dir := t.TempDir()
			return filepath.Join(dir, storage.SQLiteFile), storage.Config{DataDir: dir}
		}},
		{"postgres", goose.DialectPostgres, "pgx", migrations.Postgres(), func(t *testing.T) (string, storage.Config) {
			url := pgtest.NewEmptyDatabase(t)
			return url, storage.Config{DatabaseURL: url}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dsn, cfg := tt.config(t)
			db, err := sql.Open(tt.driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			p, err := goose.NewProvider(tt.dialect, db, without(t, tt.fsys, skipped))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Up(ctx); err != nil {
				t.Fatalf("up without %s: %v", skipped, err)
			}
			db.Close()
			if err := backend.Migrate(ctx, cfg); err != nil {
				t.Fatalf("Migrate a database past %s without it: %v", skipped, err)
			}
			s, err := backend.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if ok, err := s.Migrated(ctx); !ok || err != nil {
				t.Errorf("Migrated() = %v, %v; want true once %s is applied", ok, err, skipped)
			}
		})
	}
}
