// Package backend opens the storage.Store that a storage.Config selects. It
// sits apart from package storage because the implementations import
// storage for its interfaces.
package backend

import (
	"context"
	"errors"
	"strings"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
	"github.com/registryd/registryd/storage/sqlite"
)

// Kind names a backend.
type Kind string

// The backends.
const (
	Postgres Kind = "postgres"
	SQLite   Kind = "sqlite"
)

// ErrUnsupportedURL is returned (wrapped) when DatabaseURL is neither empty
// nor a postgres:// or postgresql:// URL.
var ErrUnsupportedURL = errors.New("REGISTRYD_DATABASE_URL must be a postgres:// or postgresql:// URL, or empty for the embedded SQLite database")

// Select returns the backend cfg selects: PostgreSQL for a postgres:// or
// postgresql:// URL, SQLite when DatabaseURL is empty, and an error wrapping
// ErrUnsupportedURL otherwise. The error never repeats the URL, which may
// hold a password.
func Select(cfg storage.Config) (Kind, error) {
	u := cfg.DatabaseURL
	switch {
	case u == "":
		return SQLite, nil
	case hasPrefixFold(u, "postgres://"), hasPrefixFold(u, "postgresql://"):
		return Postgres, nil
	}
	return "", ErrUnsupportedURL
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// Open opens the selected store and, unless cfg.SkipMigrate, brings its
// schema (registryd's and River's) up to date under a lock, so several
// replicas may start at once. The caller must Close the store.
func Open(ctx context.Context, cfg storage.Config) (storage.Store, error) {
	kind, err := Select(cfg)
	if err != nil {
		return nil, err
	}
	if kind == Postgres {
		return postgres.Open(ctx, cfg)
	}
	return sqlite.Open(ctx, cfg)
}

// Migrate applies every pending migration to the selected database and
// returns; it is what `registryd migrate` runs.
func Migrate(ctx context.Context, cfg storage.Config) error {
	kind, err := Select(cfg)
	if err != nil {
		return err
	}
	if kind == Postgres {
		return postgres.Migrate(ctx, cfg)
	}
	return sqlite.Migrate(ctx, cfg)
}
