package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// lockSpace keeps the keys of Lock apart from other advisory locks taken
// on the database (goose's, River's).
const lockSpace = "registryd.lock:"

// Bounds of the wait between two attempts at a lock another process holds.
const (
	lockPollMin = 5 * time.Millisecond
	lockPollMax = 200 * time.Millisecond
)

// Lock takes the session advisory lock named key and keeps the connection
// that holds it until unlock; see storage.Store. The key is hashed to the
// lock's 64-bit number by PostgreSQL (hashtextextended), so distinct keys
// may rarely share a lock: that only serializes more.
//
// A waiter holds no connection: it waits for the key in this process
// first, then tries the advisory lock (pg_try_advisory_lock) and, while
// another process holds it, waits a growing while before trying again. So
// waiters never take the pool's connections from the holders, which need
// them to finish their work.
func (s *Store) Lock(ctx context.Context, key string) (func(), error) {
	local, err := s.locks.Lock(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("postgres: lock %q: %w", key, err)
	}
	wait := lockPollMin
	for {
		conn, held, err := s.tryLock(ctx, key)
		if err != nil {
			local()
			return nil, fmt.Errorf("postgres: lock %q: %w", key, err)
		}
		if held {
			var once sync.Once
			return func() { once.Do(func() { s.unlock(conn, key); local() }) }, nil
		}
		select {
		case <-ctx.Done():
			local()
			return nil, fmt.Errorf("postgres: lock %q: %w", key, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, lockPollMax)
	}
}

// tryLock takes key's advisory lock on a pool connection if no other
// session holds it, and returns the connection holding it.
func (s *Store) tryLock(ctx context.Context, key string) (*pgxpool.Conn, bool, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	var held bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock(hashtextextended($1, 0))", lockSpace+key).Scan(&held); err != nil {
		// The answer may have been lost after the lock was taken: the
		// connection must not go back to the pool holding it.
		_ = conn.Conn().Close(context.WithoutCancel(ctx))
		conn.Release()
		return nil, false, err
	}
	if !held {
		conn.Release()
		return nil, false, nil
	}
	return conn, true, nil
}

// unlock releases key's advisory lock held on conn and gives conn back.
func (s *Store) unlock(conn *pgxpool.Conn, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var released bool
	err := conn.QueryRow(ctx, "SELECT pg_advisory_unlock(hashtextextended($1, 0))", lockSpace+key).Scan(&released)
	if err != nil || !released {
		// Lost with its connection, or still held: either way the
		// connection is closed, which ends its session and every lock
		// the session held.
		_ = conn.Conn().Close(ctx)
	}
	conn.Release()
}
