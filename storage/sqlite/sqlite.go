// Package sqlite is registryd's embedded store: one SQLite file opened with
// the pure-Go modernc.org/sqlite driver, so a laptop needs nothing but the
// binary.
//
// Every query and rule is in storage/sqlstore; this package opens the
// database, applies the migrations and speaks SQLite's dialect of the
// layer (dialect.go), preparing statements where SQLite needs it
// (stmts.go), and tells the store's read cache of commits made by other
// processes (changes.go). Writes go through a single connection whose transactions take the
// database's write lock when they begin (BEGIN IMMEDIATE), so concurrent
// deciders serialize instead of failing to upgrade a read lock; River
// (jobs/riverjobs with riversqlite) shares that connection, as its driver recommends. Reads
// outside a transaction use a separate read-only pool, which WAL lets run
// alongside the writer.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/jobs/riverjobs"
	"github.com/registryd/registryd/migrations"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/sqlstore"
)

// defaultReadConns is the read pool size when storage.Config.MaxConns is 0.
const defaultReadConns = 8

// Store is a storage.Store on one SQLite file. It is safe for concurrent
// use within one process; several processes may open the same file.
type Store struct {
	*sqlstore.Store
	write  *sql.DB    // one connection: every transaction and the job queue
	read   *sql.DB    // read-only pool for Reader methods
	stmts  *stmtCache // read's prepared statements, which Reader methods use
	wstmts *stmtCache // write's prepared statements, which transactions use
	jobs   *riverjobs.Queue[*sql.Tx]
	logger *slog.Logger
	locks  sqlstore.KeyLocks
	watch  *watcher // other processes' commits, for the read cache
}

var _ storage.Store = (*Store)(nil)

// Path returns the database file that cfg selects: DataDir/registryd.db,
// with DataDir defaulting to ./data.
func Path(cfg storage.Config) string {
	dir := cfg.DataDir
	if dir == "" {
		dir = storage.DefaultDataDir
	}
	return filepath.Join(dir, storage.SQLiteFile)
}

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_txlock", "immediate")
	}
	// A plain name (not a file: URI) reaches SQLite as is; the driver
	// strips and reads the query.
	return path + "?" + q.Encode()
}

// openFile opens the writer (one connection) and the reader pool on path,
// creating its directory.
func openFile(ctx context.Context, cfg storage.Config) (write, read *sql.DB, err error) {
	path := Path(cfg)
	if strings.ContainsRune(path, '?') {
		return nil, nil, errors.New("sqlite: the data directory must not contain '?'")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, nil, fmt.Errorf("sqlite: create data directory: %w", err)
	}
	write, err = sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetConnMaxIdleTime(0)
	// The first connection sets WAL mode, which later ones then share.
	if err := write.PingContext(ctx); err != nil {
		write.Close()
		return nil, nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	read, err = sql.Open("sqlite", dsn(path, true))
	if err != nil {
		write.Close()
		return nil, nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	n := defaultReadConns
	if cfg.MaxConns > 0 {
		n = cfg.MaxConns
	}
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	return write, read, nil
}

func discard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// Open opens (creating when missing) the database under cfg.DataDir,
// applies the migrations (ours and River's) unless cfg.SkipMigrate, and
// returns the store. The caller must Close it.
func Open(ctx context.Context, cfg storage.Config) (*Store, error) {
	write, read, err := openFile(ctx, cfg)
	if err != nil {
		return nil, err
	}
	logger := discard(cfg.Logger)
	if !cfg.SkipMigrate {
		if err := migrate(ctx, write, logger); err != nil {
			write.Close()
			read.Close()
			return nil, err
		}
	}
	// A bulk load that stopped before it rebuilt the search index left it
	// deferred (DeferSearchIndex): build it now, before anything searches.
	if rebuilt, err := rebuildDeferredSearch(ctx, write); err != nil {
		write.Close()
		read.Close()
		return nil, err
	} else if rebuilt {
		logger.Warn("sqlite: rebuilt the search index, which a bulk load had deferred and not rebuilt")
	}
	// Statistics for the query planner on tables that lack them or whose
	// size changed a lot since they were gathered; SQLite bounds the work.
	if _, err := write.ExecContext(ctx, "PRAGMA optimize=0x10002"); err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("sqlite: optimize: %w", err)
	}
	// River's workers poll: SQLite cannot notify them.
	q, err := riverjobs.New(riversqlite.New(write), riverjobs.Config{Logger: logger, MaxWorkers: 4, FetchPollInterval: 200 * time.Millisecond})
	if err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	schema, err := newProvider(write, logger)
	if err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("sqlite: migrations: %w", err)
	}
	stmts := newStmtCache(ctx, read, sqlstore.HotQueries)
	wstmts := newStmtCache(ctx, write, nil)
	signing, err := cfg.SigningOrEphemeral()
	var inner *sqlstore.Store
	if err == nil {
		inner, err = sqlstore.New(dialect{}, db{conn: conn{stmts}, write: write, wstmts: wstmts, jobs: q},
			sqlstore.Schema{Migrations: schema, Jobs: q}, signing)
	}
	var watch *watcher
	if err == nil {
		watch, err = watchChanges(ctx, Path(cfg), inner.Changes(), logger)
	}
	if err != nil {
		_ = errors.Join(stmts.Close(), wstmts.Close(), write.Close(), read.Close())
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	inner.AfterTx(watch.rebase)
	return &Store{Store: inner, write: write, read: read, stmts: stmts, wstmts: wstmts, jobs: q, logger: logger, watch: watch}, nil
}

// Migrate applies every pending migration, ours and River's, to the
// database under cfg.DataDir. Each migration runs in a transaction that
// holds SQLite's write lock.
func Migrate(ctx context.Context, cfg storage.Config) error {
	write, read, err := openFile(ctx, cfg)
	if err != nil {
		return err
	}
	defer read.Close()
	defer write.Close()
	return migrate(ctx, write, discard(cfg.Logger))
}

func newProvider(db *sql.DB, logger *slog.Logger) (*goose.Provider, error) {
	// Out of order: see migrations.Independent.
	return goose.NewProvider(goose.DialectSQLite3, db, migrations.SQLite(), goose.WithSlog(logger),
		goose.WithAllowOutofOrder(migrations.Independent))
}

func migrate(ctx context.Context, db *sql.DB, logger *slog.Logger) error {
	p, err := newProvider(db, logger)
	if err != nil {
		return fmt.Errorf("sqlite: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("sqlite: apply migrations: %w", err)
	}
	if err := riverjobs.Migrate(ctx, riversqlite.New(db), logger); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return nil
}

// Close closes both pools. Stop any job runner first. It first lets SQLite
// refresh the query planner's statistics where the tables changed enough to
// need it, as SQLite advises before closing a connection.
func (s *Store) Close() error {
	// The checkpoint signer signs what this process appended first.
	s.StopSigning()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.write.ExecContext(ctx, "PRAGMA optimize"); err != nil {
		// Only statistics are lost; closing goes on.
		s.logger.Warn("sqlite: optimize before close", "err", err)
	}
	return errors.Join(s.watch.close(), s.stmts.Close(), s.wstmts.Close(), s.read.Close(), s.write.Close())
}

// DB returns the writer connection pool, for tests and tools that need raw
// SQL. Holding a transaction on it blocks every other write.
func (s *Store) DB() *sql.DB { return s.write }

// JobDepth counts the jobs waiting or running; see storage.Store.
func (s *Store) JobDepth(ctx context.Context) (map[string]int, error) { return s.jobs.Depth(ctx) }

// Pools returns the read and write pools' connections; see storage.Store.
func (s *Store) Pools() []storage.PoolStats {
	out := make([]storage.PoolStats, 0, 2)
	for _, p := range []struct {
		name string
		db   *sql.DB
	}{{"read", s.read}, {"write", s.write}} {
		st := p.db.Stats()
		out = append(out, storage.PoolStats{Name: p.name, InUse: st.InUse, Idle: st.Idle, Max: st.MaxOpenConnections})
	}
	return out
}

// StartJobs starts the workers of handlers on this database; see
// storage.Store.
func (s *Store) StartJobs(ctx context.Context, handlers ...jobs.Handler) (func(context.Context) error, error) {
	return s.jobs.Start(ctx, handlers...)
}
