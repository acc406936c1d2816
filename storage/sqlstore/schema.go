package sqlstore

import (
	"context"
	"fmt"

	"github.com/pressly/goose/v3"
)

// Schema is how a store tells whether its database's schema is current.
// The database packages apply the migrations, each under its own lock.
type Schema struct {
	// Migrations are registryd's migrations (migrations/) on the database.
	Migrations *goose.Provider
	// Jobs is the job queue, which has a schema of its own.
	Jobs interface {
		Migrated(ctx context.Context) (bool, error)
	}
}

// Migrated reports whether every migration, registryd's and the job
// queue's, has been applied.
func (s *Store) Migrated(ctx context.Context) (bool, error) {
	pending, err := s.schema.Migrations.HasPending(ctx)
	if err != nil {
		return false, fmt.Errorf("%s: migration status: %w", s.d.Name(), err)
	}
	if pending {
		return false, nil
	}
	ok, err := s.schema.Jobs.Migrated(ctx)
	if err != nil {
		return false, fmt.Errorf("%s: %w", s.d.Name(), err)
	}
	return ok, nil
}
