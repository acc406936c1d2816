// Package postgres is registryd's PostgreSQL store (pgx v5, pgxpool): the
// production backend that several stateless replicas share.
//
// Every query and rule is in storage/sqlstore; this package opens the pool,
// applies the migrations, speaks PostgreSQL's dialect of the layer
// (dialect.go) and tells the store's read cache of changes other replicas
// make (cache.go: LISTEN/NOTIFY). Migrations
// are applied under a PostgreSQL session advisory lock, so replicas may
// start at once. The job queue (jobs/riverjobs, River's riverpgxv5) runs on
// the same pool: Tx.Enqueue enqueues in the caller's transaction.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/jobs/riverjobs"
	"github.com/registryd/registryd/migrations"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/sqlstore"
)

// defaultMaxConns is the pool size when storage.Config.MaxConns is zero.
const defaultMaxConns = 16

// riverLockKey is the advisory-lock key that serializes River's own schema
// migrations across replicas (goose holds its own key for ours).
const riverLockKey int64 = 0x7265676973747279 // "registry"

// Store is a storage.Store on PostgreSQL. It is safe for concurrent use.
type Store struct {
	*sqlstore.Store
	pool   *pgxpool.Pool
	sqlDB  *sql.DB // the pool through database/sql, for the migrations
	jobs   *riverjobs.Queue[pgx.Tx]
	logger *slog.Logger

	locks      sqlstore.KeyLocks // Lock's waits in this process
	lockLease  time.Duration     // how long a lock's lease lasts unrenewed
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
	// The schema's provider reads goose's version table through
	// database/sql on the same pool; it holds no connection between calls.
	sqlDB := stdlib.OpenDBFromPool(pool)
	schema, err := newProvider(sqlDB, logger, false)
	if err != nil {
		sqlDB.Close()
		pool.Close()
		return nil, fmt.Errorf("postgres: migrations: %w", err)
	}
	signing, err := cfg.SigningOrEphemeral()
	var inner *sqlstore.Store
	if err == nil {
		inner, err = sqlstore.New(dialect{}, db{conn: conn{pool}, pool: pool, jobs: q}, sqlstore.Schema{Migrations: schema, Jobs: q}, signing)
	}
	if err != nil {
		sqlDB.Close()
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	st := &Store{
		Store: inner,
		pool:  pool, sqlDB: sqlDB, jobs: q, logger: logger, listenDone: make(chan struct{}), lockLease: defaultLease}
	lctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	st.stopListen = stop
	go func() {
		defer close(st.listenDone)
		listen(lctx, st.Changes(), pool, logger)
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
	// Out of order: see migrations.Independent.
	opts := []goose.ProviderOption{goose.WithSlog(logger), goose.WithAllowOutofOrder(migrations.Independent)}
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

// Close closes the pool, once the checkpoint signer has signed what this
// process appended. Stop any job runner first.
func (s *Store) Close() error {
	s.StopSigning()
	s.stopListen()
	<-s.listenDone
	s.sqlDB.Close()
	s.pool.Close()
	return nil
}

// Pool returns the underlying pool, for tests and tools that need raw SQL.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// JobDepth counts the jobs waiting or running; see storage.Store.
func (s *Store) JobDepth(ctx context.Context) (map[string]int, error) { return s.jobs.Depth(ctx) }

// Pools returns the pool's connections; see storage.Store.
func (s *Store) Pools() []storage.PoolStats {
	st := s.pool.Stat()
	return []storage.PoolStats{{Name: "main", InUse: int(st.AcquiredConns()), Idle: int(st.IdleConns()), Max: int(st.MaxConns())}}
}

// StartJobs starts the workers of handlers on this database; see
// storage.Store.
func (s *Store) StartJobs(ctx context.Context, handlers ...jobs.Handler) (func(context.Context) error, error) {
	return s.jobs.Start(ctx, handlers...)
}
