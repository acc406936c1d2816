package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/registryd/registryd/storage"
)

// lockSpace keeps the keys of Lock apart from other advisory locks taken
// on the database (goose's, River's).
const lockSpace = "registryd.lock:"

// Bounds of the wait between two attempts at a lock another process holds.
const (
	lockPollMin = 5 * time.Millisecond
	lockPollMax = 200 * time.Millisecond
)

// defaultLease is how long a lock's lease lasts unless renewed; the holder
// renews it every fifth of that.
const defaultLease = 5 * time.Second

// Lock takes the lock named key; see storage.Store. It is a session
// advisory lock (the key hashed to its 64-bit number by PostgreSQL's
// hashtextextended, so distinct keys may rarely share one: that only
// serializes more) held on a pool connection of its own, with a lease in
// lock_leases (migration 00017):
//
//   - The holder renews the lease on the lock's connection every fifth of
//     the lease. Each renewal that succeeds proves the session, and so the
//     lock, alive when it ran; the held context is cancelled, with
//     storage.ErrLockLost, as soon as a renewal fails (the connection
//     died: a database restart, pg_terminate_backend) or the lease would
//     end before a renewal succeeded.
//   - A lock lost with its connection leaves its lease behind. The next
//     holder, once it has the advisory lock, waits until that lease has
//     expired by the database's clock before it returns, and the old
//     holder's context ends no later than that: it counts its lease from
//     before it sent the renewal, on its own clock. So two holders never
//     act at once, as long as the clocks run at the same rate.
//   - Unlock deletes the lease, so that a lock released normally is taken
//     again at once.
//
// A waiter holds no connection: it waits for the key in this process
// first, then tries the advisory lock (pg_try_advisory_lock) and, while
// another process holds it, waits a growing while before trying again. So
// waiters never take the pool's connections from the holders, which need
// them to finish their work.
func (s *Store) Lock(ctx context.Context, key string) (context.Context, func(), error) {
	local, err := s.locks.Lock(ctx, key)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: lock %q: %w", key, err)
	}
	wait := lockPollMin
	for {
		conn, held, err := s.tryLock(ctx, key)
		if err != nil {
			local()
			return nil, nil, fmt.Errorf("postgres: lock %q: %w", key, err)
		}
		if held {
			l, err := s.lease(ctx, conn, key)
			if err != nil {
				s.unlock(conn, key, 0)
				local()
				return nil, nil, fmt.Errorf("postgres: lock %q: %w", key, err)
			}
			var once sync.Once
			return l.ctx, func() {
				once.Do(func() {
					l.stop()
					s.unlock(conn, key, l.token)
					local()
				})
			}, nil
		}
		select {
		case <-ctx.Done():
			local()
			return nil, nil, fmt.Errorf("postgres: lock %q: %w", key, ctx.Err())
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

// held is a lock's lease, kept by its renewer.
type held struct {
	token int64
	ctx   context.Context
	stop  func() // stops the renewer and cancels ctx; waits for the renewer
}

// lease takes key's lease on conn, which holds key's advisory lock,
// waiting while a previous holder's lease lasts, and starts renewing it.
func (s *Store) lease(ctx context.Context, conn *pgxpool.Conn, key string) (*held, error) {
	d := s.lockLease
	for {
		sent := time.Now()
		var token int64
		var left time.Duration
		// A lease that has not expired belongs to a holder that lost the
		// lock with its connection: the row tells how long it lasts.
		err := conn.QueryRow(ctx, `INSERT INTO lock_leases AS l (key, token, expires_at) VALUES ($1, 1, now() + $2::interval)
			ON CONFLICT (key) DO UPDATE SET token = l.token + 1, expires_at = excluded.expires_at WHERE l.expires_at <= now()
			RETURNING token`, key, d).Scan(&token)
		if err == nil {
			return s.renew(ctx, conn, key, token, sent.Add(d)), nil
		}
		if !isNoRows(err) {
			return nil, fmt.Errorf("take the lease: %w", err)
		}
		if err := conn.QueryRow(ctx, `SELECT greatest(expires_at - now(), '0'::interval) FROM lock_leases WHERE key = $1`, key).Scan(&left); err != nil && !isNoRows(err) {
			return nil, fmt.Errorf("read the lease: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(left + time.Millisecond):
		}
	}
}

// renew keeps key's lease of token alive on conn until stopped, and
// returns it with the context that ends when the lease may have ended
// (first deadline: until).
func (s *Store) renew(parent context.Context, conn *pgxpool.Conn, key string, token int64, until time.Time) *held {
	ctx, cancel := context.WithCancelCause(parent)
	stopped, done := make(chan struct{}), make(chan struct{})
	d := s.lockLease
	go func() {
		defer close(done)
		expire := time.NewTimer(time.Until(until))
		defer expire.Stop()
		tick := time.NewTicker(d / 5)
		defer tick.Stop()
		for {
			select {
			case <-stopped:
				return
			case <-ctx.Done():
				return
			case <-expire.C:
				cancel(fmt.Errorf("%w: its lease of %s ran out before a renewal succeeded", storage.ErrLockLost, d))
				return
			case <-tick.C:
			}
			sent := time.Now()
			rctx, rcancel := context.WithDeadline(context.WithoutCancel(parent), until)
			n, err := conn.Exec(rctx, `UPDATE lock_leases SET expires_at = now() + $3::interval WHERE key = $1 AND token = $2`, key, token, d)
			rcancel()
			if err == nil && n.RowsAffected() == 1 {
				until = sent.Add(d)
				expire.Reset(time.Until(until))
				continue
			}
			if err == nil {
				err = fmt.Errorf("another holder took its lease")
			}
			cancel(fmt.Errorf("%w: renew its lease: %w", storage.ErrLockLost, err))
			return
		}
	}()
	var once sync.Once
	return &held{token: token, ctx: ctx, stop: func() {
		once.Do(func() { close(stopped) })
		<-done
		cancel(errUnlocked)
	}}
}

var errUnlocked = errors.New("unlocked")

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// unlock ends key's lease of token (none when 0), releases key's advisory
// lock held on conn and gives conn back.
func (s *Store) unlock(conn *pgxpool.Conn, key string, token int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if token != 0 {
		// Lost with the connection, the lease is left to expire.
		_, _ = conn.Exec(ctx, `DELETE FROM lock_leases WHERE key = $1 AND token = $2`, key, token)
	}
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
