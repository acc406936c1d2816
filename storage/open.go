package storage

import (
	"log/slog"

	"github.com/registryd/registryd/transparency"
)

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
	// Signing signs published reports and the log's checkpoints. Without
	// signers the store makes an ephemeral key and logs a warning.
	Signing Signing
}

// DefaultDataDir is the SQLite directory used when Config.DataDir is empty.
const DefaultDataDir = "./data"

// SQLiteFile is the database file name inside Config.DataDir.
const SQLiteFile = "registryd.db"

// SigningOrEphemeral returns cfg.Signing, or when it has no signer, the
// same with an ephemeral key (Ephemeral), warning cfg.Logger that what the
// store signs will not verify after the process ends.
func (cfg Config) SigningOrEphemeral() (Signing, error) {
	s := cfg.Signing
	if len(s.Signers) > 0 {
		return s, nil
	}
	k, err := Ephemeral()
	if err != nil {
		return s, err
	}
	if cfg.Logger != nil {
		cfg.Logger.Warn("no signing key: signing reports and checkpoints with an ephemeral key, whose signatures will not verify after a restart",
			"verifier_key", k.Verifier().Text)
	}
	s.Signers = []*transparency.Signer{k}
	return s, nil
}
