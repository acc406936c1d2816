package sqlite

import (
	"context"
	"database/sql"

	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/jobs/riverjobs"
	"github.com/registryd/registryd/storage/sqlstore"
)

// querier is the read pool's statement cache or one transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// conn is a querier as sqlstore.Conn.
type conn struct{ q querier }

func (c conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := c.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c conn) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := c.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (c conn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return c.q.QueryRowContext(ctx, query, args...)
}

// sqlRows is *sql.Rows as sqlstore.Rows; Close's error is Err's.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

// db is the store's two pools as sqlstore.DB: reads outside transactions on
// the read-only pool through its prepared statements, transactions on the
// one writer connection (BEGIN IMMEDIATE: they take the write lock at once
// and never interleave).
type db struct {
	conn
	write  *sql.DB
	wstmts *stmtCache
	jobs   *riverjobs.Queue[*sql.Tx]
}

func (d db) Begin(ctx context.Context) (sqlstore.TxConn, error) {
	stx, err := d.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	t := &txConn{tx: stx, cache: d.wstmts, jobs: d.jobs}
	t.q = txQuerier{tx: stx, cache: d.wstmts, missed: &t.missed}
	t.conn = conn{t.q}
	return t, nil
}

// txConn is one transaction on the writer. Its statements come from the
// writer's cache where prepared; the texts it ran unprepared are prepared
// once it ends and the writer's one connection is free again.
type txConn struct {
	conn
	q      txQuerier
	tx     *sql.Tx
	cache  *stmtCache
	jobs   *riverjobs.Queue[*sql.Tx]
	missed []string
}

// CopyRows runs c's INSERT once per row through one prepared statement, as
// SQLite has nothing faster for a transaction that already holds the
// database.
func (t *txConn) CopyRows(ctx context.Context, c *sqlstore.Copy, n int, row func(i int) []any) error {
	stmt, err := t.q.PrepareContext(ctx, c.Insert)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i := range n {
		if _, err := stmt.ExecContext(ctx, row(i)...); err != nil {
			return err
		}
	}
	return nil
}

func (t *txConn) Enqueue(ctx context.Context, j jobs.Job) error { return t.jobs.Enqueue(ctx, t.tx, j) }

func (t *txConn) Commit(ctx context.Context) error {
	err := t.tx.Commit()
	t.learn(ctx)
	return err
}

func (t *txConn) Rollback(ctx context.Context) error {
	err := t.tx.Rollback()
	t.learn(ctx)
	return err
}

func (t *txConn) learn(ctx context.Context) {
	t.cache.learn(ctx, t.missed)
	t.missed = nil
}
