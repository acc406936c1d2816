package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// DeferSearchIndex makes the addons' triggers leave the search index
// (addon_search, migration 00009) alone until RebuildSearchIndex, for a
// bulk load: FTS5 writes a segment for each addon written and merges them
// as it goes, which costs more the larger the index, while one statement
// over every addon at the end builds it at once (migration 00023). Until
// then the search does not find the addons written meanwhile. A load that
// stops without RebuildSearchIndex leaves the index deferred, and the next
// Open rebuilds it.
func (s *Store) DeferSearchIndex(ctx context.Context) error {
	if _, err := s.write.ExecContext(ctx, `INSERT INTO addon_search_deferred (id) VALUES (1) ON CONFLICT DO NOTHING`); err != nil {
		return fmt.Errorf("sqlite: defer the search index: %w", err)
	}
	return nil
}

// RebuildSearchIndex builds the search index again from every addon, in
// one transaction, merges it into one segment and ends what
// DeferSearchIndex began. Searches read the old index until it commits.
func (s *Store) RebuildSearchIndex(ctx context.Context) error {
	if err := rebuildSearch(ctx, s.write); err != nil {
		return err
	}
	// Kept answers may predate the rebuilt index.
	s.Changes().ChangedAll()
	return nil
}

func rebuildSearch(ctx context.Context, db *sql.DB) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: rebuild the search index: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	for _, q := range []string{
		`INSERT INTO addon_search (addon_search) VALUES ('delete-all')`,
		`DELETE FROM addon_search_deferred`,
		`INSERT INTO addon_search (rowid, search_text)
			SELECT i.id, a.search_text FROM addons a JOIN addon_search_ids i ON i.name = a.name`,
		// One segment, as a search reads best: the statement above
		// leaves one for each time its pending entries filled FTS5's
		// buffer.
		`INSERT INTO addon_search (addon_search) VALUES ('optimize')`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlite: rebuild the search index: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: rebuild the search index: %w", err)
	}
	return nil
}

// rebuildDeferredSearch rebuilds the search index when a bulk load left it
// deferred, and reports whether it did.
func rebuildDeferredSearch(ctx context.Context, db *sql.DB) (bool, error) {
	var deferred bool
	err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM addon_search_deferred)`).Scan(&deferred)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		return false, nil // a schema before migration 00023, opened without migrating
	}
	if err != nil {
		return false, fmt.Errorf("sqlite: read whether the search index is deferred: %w", err)
	}
	if !deferred {
		return false, nil
	}
	return true, rebuildSearch(ctx, db)
}
