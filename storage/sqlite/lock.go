package sqlite

import "context"

// Lock waits until it holds the lock named key, or ctx is done; see
// storage.Store. One server process serves a SQLite database, so the lock
// is held in this process, and its context ends only with ctx or unlock.
func (s *Store) Lock(ctx context.Context, key string) (context.Context, func(), error) {
	unlock, err := s.locks.Lock(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	held, cancel := context.WithCancel(ctx)
	return held, func() { cancel(); unlock() }, nil
}
