package migrations_test

import (
	"database/sql"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/migrations"
	"github.com/registryd/registryd/storage"
)

// oldDB is an empty database of one dialect, which a test fills with an
// older schema and data through its own handles, then opens as a store.
type oldDB struct {
	dialect goose.Dialect
	fsys    fs.FS                 // the dialect's migrations
	open    func() *sql.DB        // a new handle on the database; the caller closes it
	cfg     storage.Config        // the store's config for the database
	fresh   func() storage.Config // the config of another empty database of the dialect
}

// eachDialect runs fn in a subtest per dialect, each on a new empty
// database: SQLite in a temporary directory, PostgreSQL on the test server
// (pgtest skips the subtest when none answers).
func eachDialect(t *testing.T, fn func(t *testing.T, d oldDB)) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		fn(t, oldDB{
			dialect: goose.DialectSQLite3,
			fsys:    migrations.SQLite(),
			open:    opener(t, "sqlite", filepath.Join(dir, "registryd.db")+"?_pragma=foreign_keys(1)"),
			cfg:     storage.Config{DataDir: dir},
			fresh:   func() storage.Config { return storage.Config{DataDir: t.TempDir()} },
		})
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.NewEmptyDatabase(t)
		fn(t, oldDB{
			dialect: goose.DialectPostgres,
			fsys:    migrations.Postgres(),
			open:    opener(t, "pgx", url),
			cfg:     storage.Config{DatabaseURL: url},
			fresh:   func() storage.Config { return storage.Config{DatabaseURL: pgtest.NewEmptyDatabase(t)} },
		})
	})
}

// opener returns a function opening a new handle on dsn, failing t when
// the driver refuses it.
func opener(t *testing.T, driver, dsn string) func() *sql.DB {
	return func() *sql.DB {
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
}
