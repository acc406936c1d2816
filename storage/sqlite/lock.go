package sqlite

import "context"

// Lock waits until it holds the lock named key, or ctx is done; see
// storage.Store. One server process serves a SQLite database, so the lock
// is held in this process.
func (s *Store) Lock(ctx context.Context, key string) (func(), error) {
	return s.locks.Lock(ctx, key)
}
