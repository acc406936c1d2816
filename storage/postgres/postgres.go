// Package postgres is registryd's PostgreSQL store (pgx v5, pgxpool): the
// production backend that several stateless replicas share.
//
// Migrations are applied under a PostgreSQL session advisory lock, so
// replicas may start at once. River (riverpgxv5) runs on the same pool:
// Tx.InsertJob enqueues in the caller's transaction.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/jobs/riverjobs"
	"github.com/registryd/registryd/migrations"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// defaultMaxConns is the pool size when storage.Config.MaxConns is zero.
const defaultMaxConns = 16

// maxAttempts bounds how often InTx runs fn when PostgreSQL reports a
// serialization failure or a deadlock.
const maxAttempts = 5

// riverLockKey is the advisory-lock key that serializes River's own schema
// migrations across replicas (goose holds its own key for ours).
const riverLockKey int64 = 0x7265676973747279 // "registry"

// Store is a storage.Store on PostgreSQL. It is safe for concurrent use.
type Store struct {
	reader
	pool   *pgxpool.Pool
	jobs   *riverjobs.Queue[pgx.Tx]
	logger *slog.Logger

	cache      *reportCache
	stopListen context.CancelFunc
	listenDone chan struct{}
}

var _ storage.Store = (*Store)(nil)

// Open connects to cfg.DatabaseURL, applies the migrations (ours and
// River's) unless cfg.SkipMigrate, and returns the store. The caller must
// Close it.
func Open(ctx context.Context, cfg storage.Config) (*Store, error) {
	pool, err := newPool(ctx, cfg)
	if err != nil {
		return nil, err
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if !cfg.SkipMigrate {
		if err := migrate(ctx, pool, logger); err != nil {
			pool.Close()
			return nil, err
		}
	}
	q, err := riverjobs.New(riverpgxv5.New(pool), riverjobs.Config{Logger: logger, MaxWorkers: 10})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	st := &Store{reader: reader{db: pool}, pool: pool, jobs: q, logger: logger, cache: newReportCache(), listenDone: make(chan struct{})}
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	st.stopListen = stop
	go func() {
		defer close(st.listenDone)
		st.cache.listen(lctx, pool, logger)
	}()
	return st, nil
}

// Migrate applies every pending migration, ours and River's, to the
// database at cfg.DatabaseURL under an advisory lock, and returns when the
// schema is current. It is safe to run from several processes at once.
func Migrate(ctx context.Context, cfg storage.Config) error {
	pool, err := newPool(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return migrate(ctx, pool, logger)
}

func newPool(ctx context.Context, cfg storage.Config) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		// The parse error may quote the URL, password included.
		return nil, errors.New("postgres: database URL is malformed")
	}
	pc.MaxConns = defaultMaxConns
	if cfg.MaxConns > 0 {
		pc.MaxConns = int32(min(cfg.MaxConns, 1<<16))
	}
	// Migrate holds one connection for its lock while River migrates on
	// another.
	pc.MaxConns = max(pc.MaxConns, 2)
	pc.ConnConfig.RuntimeParams["timezone"] = "UTC"
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	return pool, nil
}

func newProvider(db *sql.DB, logger *slog.Logger, withLock bool) (*goose.Provider, error) {
	opts := []goose.ProviderOption{goose.WithSlog(logger)}
	if withLock {
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	return goose.NewProvider(goose.DialectPostgres, db, migrations.Postgres(), opts...)
}

func migrate(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := newProvider(db, logger, true)
	if err != nil {
		return fmt.Errorf("postgres: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("postgres: apply migrations: %w", err)
	}

	// River's migrations each need their own transaction (one adds an enum
	// value that a later statement uses), so they are serialized by a
	// session advisory lock held on a connection of its own.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: river migrations: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", riverLockKey); err != nil {
		return fmt.Errorf("postgres: river migration lock: %w", err)
	}
	err = riverjobs.Migrate(ctx, riverpgxv5.New(pool), logger)
	if _, uerr := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", riverLockKey); uerr != nil {
		// A connection whose unlock failed must not return to the pool
		// still holding the lock.
		_ = conn.Conn().Close(context.WithoutCancel(ctx))
	}
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// Migrated reports whether every embedded migration, ours and River's, has
// been applied.
func (s *Store) Migrated(ctx context.Context) (bool, error) {
	db := stdlib.OpenDBFromPool(s.pool)
	defer db.Close()
	p, err := newProvider(db, s.logger, false)
	if err != nil {
		return false, fmt.Errorf("postgres: migrations: %w", err)
	}
	pending, err := p.HasPending(ctx)
	if err != nil {
		return false, fmt.Errorf("postgres: migration status: %w", err)
	}
	if pending {
		return false, nil
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('river_migration') IS NOT NULL`).Scan(&exists); err != nil {
		return false, fmt.Errorf("postgres: job queue migration status: %w", err)
	}
	ok, err := riverjobs.Migrated(ctx, riverpgxv5.New(s.pool), exists, s.logger)
	if err != nil {
		return false, fmt.Errorf("postgres: %w", err)
	}
	return ok, nil
}

// Ping checks that PostgreSQL answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

// Close closes the pool. Stop any job runner first.
func (s *Store) Close() error {
	s.stopListen()
	<-s.listenDone
	s.pool.Close()
	return nil
}

// Pool returns the underlying pool, for tests and tools that need raw SQL.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// InTx runs fn in one READ COMMITTED transaction; reads that decisions
// depend on lock their rows (FOR UPDATE). It commits when fn returns nil and
// rolls back otherwise, returning fn's error unchanged. On a serialization
// failure or deadlock (SQLSTATE 40001, 40P01) it runs fn again, up to five
// times in all.
func (s *Store) InTx(ctx context.Context, fn func(storage.Tx) error) error {
	// Whatever the transaction changed, this process must read it at once.
	defer s.cache.clear()
	for attempt := 1; ; attempt++ {
		err := s.inTx(ctx, fn)
		if err == nil || attempt == maxAttempts || !retryable(err) {
			return err
		}
		wait := time.Duration(attempt*attempt)*5*time.Millisecond + rand.N(5*time.Millisecond)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

func (s *Store) inTx(ctx context.Context, fn func(storage.Tx) error) (err error) {
	ptx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	defer func() {
		if err != nil {
			_ = ptx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err := fn(&tx{reader: reader{db: ptx, lock: true}, tx: ptx, jobs: s.jobs}); err != nil {
		return err
	}
	if err := ptx.Commit(ctx); err != nil {
		return dbErr("commit", err)
	}
	return nil
}

func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// StartJobs starts the workers of handlers on this database; see
// storage.Store.
func (s *Store) StartJobs(ctx context.Context, handlers ...jobs.Handler) (func(context.Context) error, error) {
	return s.jobs.Start(ctx, handlers...)
}

// dbErr wraps a database error for op, translating by SQLSTATE: a unique
// violation becomes registry.ErrConflict, a foreign-key violation (a row
// referring to a missing one) registry.ErrNotFound.
func dbErr(op string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505":
			return fmt.Errorf("postgres: %s: %w (%w)", op, registry.ErrConflict, err)
		case "23503":
			return fmt.Errorf("postgres: %s: %w (%w)", op, registry.ErrNotFound, err)
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("postgres: %s: %w", op, registry.ErrNotFound)
	}
	return fmt.Errorf("postgres: %s: %w", op, err)
}
