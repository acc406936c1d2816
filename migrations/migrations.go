// Package migrations embeds registryd's SQL schema migrations, one set per
// dialect, in the goose file format (NNNNN_name.sql with -- +goose Up/Down
// sections). The storage backends apply them at start-up under a lock.
package migrations

import (
	"embed"
	"io/fs"
)

// Independent says that the migrations may be applied out of order: a
// database may already hold a later migration when an earlier one first
// appears. Numbers are given to pieces of work when they are planned, and
// the work lands in whatever order it is finished, so a database migrated by
// one build can meet, in the next, a migration numbered below its version.
// That is safe because every migration touches only what it creates or the
// columns it adds, and none reads another's; a new migration must keep it so
// (or depend only on lower numbers that have landed). The stores apply with
// goose's out-of-order option set to this.
const Independent = true

// FS holds both sets: postgres/*.sql and sqlite/*.sql. It is read-only.
//
//go:embed postgres/*.sql sqlite/*.sql
var FS embed.FS

// Postgres returns the PostgreSQL migrations, rooted so that the .sql files
// sit at the top of the returned FS.
func Postgres() fs.FS { return sub("postgres") }

// SQLite returns the SQLite migrations, rooted like Postgres.
func SQLite() fs.FS { return sub("sqlite") }

func sub(dir string) fs.FS {
	f, err := fs.Sub(FS, dir)
	if err != nil {
		// dir is a constant embedded above; fs.Sub fails only on an
		// invalid path, which would be a build defect.
		panic("migrations: " + err.Error())
	}
	return f
}
