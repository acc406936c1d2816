package storage

import "log/slog"

// Config selects and tunes a store. storage/backend.Open reads it; the
// backends (storage/postgres, storage/sqlite) take it as well.
type Config struct {
	// DatabaseURL selects PostgreSQL when it starts with postgres:// or
	// postgresql://. Empty selects the embedded SQLite database under
	// DataDir. Anything else is refused.
	DatabaseURL string
	// DataDir holds the SQLite database file (registryd.db); it is created
	// when missing. Empty means "./data".
	DataDir string
	// Logger receives migration and job-runner logs; nil discards them.
	Logger *slog.Logger
	// MaxConns bounds the connection pool; 0 picks a default per backend.
	MaxConns int
	// SkipMigrate makes Open leave the schema alone; Store.Migrated then
	// tells whether it is current.
	SkipMigrate bool
}

// DefaultDataDir is the SQLite directory used when Config.DataDir is empty.
const DefaultDataDir = "./data"

// SQLiteFile is the database file name inside Config.DataDir.
const SQLiteFile = "registryd.db"
