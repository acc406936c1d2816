// Package sqlstore is registryd's one SQL layer: every query and every rule
// of the store, written once and run on PostgreSQL (storage/postgres) and
// SQLite (storage/sqlite) alike. A database package gives it a Dialect, for
// what the two databases spell differently, and a DB, for how statements
// reach the database; the Store it returns implements storage.Reader,
// storage.Sessions and Store.InTx, and the database package adds only
// opening, migrations and what is truly its own, such as how it hears of
// changes made elsewhere so that the report cache (cache.go) stays fresh.
//
// The code keeps one file per table, each holding the table's columns, how
// a row is scanned, and its reads and writes. Where things go:
//
//   - a new query on an existing table: a method in that table's file, on
//     reader when it only reads (it is then available outside and inside
//     transactions) or on tx when it writes; declare it in storage.Reader or
//     storage.Tx, and add its behaviour to storage/storetest;
//   - a new table: a migration in both dialects (migrations/), and a new file
//     here following the others;
//   - something the two databases spell differently: a method on Dialect,
//     implemented by both database packages.
//
// Queries are constants with bound parameters, written in the syntax both
// databases accept: $n placeholders (SQLite binds $n to the nth argument),
// ON CONFLICT … DO UPDATE SET c = excluded.c upserts, row-value
// comparisons and RETURNING. Only what differs goes through the Dialect:
// row locks, case-insensitive matching, how times and lists are stored,
// and which errors mean a conflict, a missing row or a retry.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

// Row is one result row: a *sql.Row, or a pgx.Row.
type Row interface {
	Scan(dest ...any) error
}

// Rows is a result set; the layer always closes it.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Conn runs statements: a pool, or one transaction. Its methods take the
// query's text and its bound arguments; Exec returns how many rows the
// statement changed.
type Conn interface {
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// TxConn is one transaction of a DB.
type TxConn interface {
	Conn
	// CopyRows inserts n rows into c's table, in as few round trips as the
	// database allows. row(i) returns the values of the ith row, one per
	// column of c; the slice may be reused by the next call.
	CopyRows(ctx context.Context, c *Copy, n int, row func(i int) []any) error
	// Enqueuer enqueues jobs in this transaction.
	jobs.Enqueuer
	// Commit and Rollback end the transaction; Rollback after Commit (or
	// a failed Commit) is harmless.
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Copy is a bulk insert into Table's Cols. Insert is the same as one
// INSERT statement with a placeholder per column, for a database that
// copies by running it once per row.
type Copy struct {
	Table  string
	Cols   []string
	Insert string
}

// newCopy returns the Copy into table's cols.
func newCopy(table string, cols ...string) *Copy {
	ph := make([]string, len(cols))
	for i := range ph {
		ph[i] = "$" + strconv.Itoa(i+1)
	}
	return &Copy{Table: table, Cols: cols,
		Insert: "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(ph, ", ") + ")"}
}

// DB is a database as a database package hands it to the layer: where
// reads outside a transaction go, and how a transaction begins.
type DB interface {
	Conn
	// Begin starts a transaction in which a read that a decision depends
	// on (one ending in Dialect.ForUpdate) excludes every other
	// transaction's decision on the same rows until commit: PostgreSQL's
	// row locks, SQLite's write lock taken at BEGIN IMMEDIATE.
	Begin(ctx context.Context) (TxConn, error)
}

// maxAttempts bounds how often InTx runs fn when the database reports a
// failure that a new attempt may not meet (Dialect.Retryable).
const maxAttempts = 5

// Store is registryd's store on a DB. It is safe for concurrent use when
// the DB is.
type Store struct {
	reader
	db     DB
	schema Schema
	n      *notary
	cp     *checkpointer
	cache  cache
}

var (
	_ storage.Reader   = (*Store)(nil)
	_ storage.Sessions = (*Store)(nil)
)

// New returns the store on db, spoken to in d, whose schema is schema,
// signing published reports and the log's checkpoints as signing says. It
// fails when signing has no signer (see storage.Ephemeral).
func New(d Dialect, db DB, schema Schema, signing storage.Signing) (*Store, error) {
	if len(signing.Signers) == 0 {
		return nil, errors.New("sqlstore: no signing key")
	}
	return &Store{reader: reader{c: db, d: d}, db: db, schema: schema, n: newNotary(signing), cp: newCheckpointer(), cache: newCache()}, nil
}

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		return s.err("ping", err)
	}
	return nil
}

// InTx runs fn in one transaction, committing when fn returns nil and
// rolling back otherwise (fn's error is returned unchanged). When the
// transaction fails in a way the dialect calls retryable (a serialization
// failure, a deadlock, a database busy past its timeout), it runs fn
// again, up to five times in all, after a short randomized wait; fn must
// therefore have no effects outside tx.
//
// When it returns, committed or not, every answer kept against the store's
// Changes is invalid: whatever the transaction did, this process reads it
// at once.
func (s *Store) InTx(ctx context.Context, fn func(storage.Tx) error) error {
	defer s.txEnded()
	for attempt := 1; ; attempt++ {
		err := s.inTx(ctx, func(t *tx) error { return fn(t) })
		if err == nil || attempt == maxAttempts || !s.d.Retryable(err) {
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

// inTx runs fn in one transaction, once.
func (s *Store) inTx(ctx context.Context, fn func(*tx) error) (err error) {
	c, err := s.db.Begin(ctx)
	if err != nil {
		return s.err("begin", err)
	}
	defer func() {
		if err != nil {
			_ = c.Rollback(context.WithoutCancel(ctx))
		}
	}()
	t := &tx{reader: reader{c: c, d: s.d, lock: s.d.ForUpdate()}, c: c, n: s.n}
	if err := fn(t); err != nil {
		return err
	}
	// The log's lock is taken last, so that it is held only for the
	// append and the commit.
	if err := t.flushLog(ctx); err != nil {
		return err
	}
	if err := c.Commit(ctx); err != nil {
		return s.err("commit", err)
	}
	if t.appended {
		s.appended()
	}
	return nil
}

// reader holds every read, shared by the store (outside transactions) and
// its transactions. lock is appended to the reads a decision depends on:
// empty outside a transaction.
type reader struct {
	c    Conn
	d    Dialect
	lock string
}

// err wraps a database error for op, translating it: a unique violation
// becomes registry.ErrConflict, a foreign-key violation (a row referring to
// a missing one) and an empty result registry.ErrNotFound.
func (r reader) err(op string, err error) error {
	if c := r.d.Constraint(err); c != nil {
		return fmt.Errorf("%s: %s: %w (%w)", r.d.Name(), op, c, err)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %s: %w", r.d.Name(), op, registry.ErrNotFound)
	}
	return fmt.Errorf("%s: %s: %w", r.d.Name(), op, err)
}

// tx is a storage.Tx: the reads, locking where a decision depends on them,
// and the writes.
type tx struct {
	reader
	c       TxConn
	n       *notary
	pending []pendingLeaf // leaves to append at commit (translog.go)
	// appended says that flushLog appended leaves: once the transaction
	// commits, the checkpoint signer is told.
	appended bool
	// fresh holds the submissions created in this transaction and not
	// published in it, whose reports are not signed or logged.
	fresh map[string]freshSubmission
	// born holds the versions published in this transaction, with what
	// the log needs of their submissions: PutReport signs and logs their
	// reports without asking the database.
	born map[string]published
	// unsigned lists those of them whose report, stored before the version
	// was created, is not signed yet: flushLog signs it unless PutReport
	// stored another since.
	unsigned []string
}

// freshSubmission is what a transaction knows of a submission it created.
type freshSubmission struct {
	addon, version, manifest string
	reported                 bool // its report is stored
}

func (t *tx) markFresh(s registry.Submission) {
	if t.fresh == nil {
		t.fresh = map[string]freshSubmission{}
	}
	t.fresh[s.ID] = freshSubmission{addon: s.Addon, version: s.Version, manifest: s.ManifestSHA256}
}

var _ storage.Tx = (*tx)(nil)

// Enqueue adds a job in this transaction: it exists if and only if the
// transaction commits.
func (t *tx) Enqueue(ctx context.Context, j jobs.Job) error {
	if err := t.c.Enqueue(ctx, j); err != nil {
		return fmt.Errorf("%s: enqueue job %q: %w", t.d.Name(), j.Kind, err)
	}
	return nil
}

func invalid(path, msg string) error {
	return &registry.ValidationError{Fields: []registry.FieldError{{Path: path, Message: msg}}}
}
