package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/jobs/riverjobs"
	"github.com/registryd/registryd/storage/sqlstore"
)

// querier is a pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// conn is a pool or a transaction as sqlstore.Conn. pgx prepares each query
// text once per connection and caches it (its default
// QueryExecModeCacheStatement), so the layer's constant queries cost only
// their parameters after the first run.
type conn struct{ q querier }

func (c conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (c conn) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return c.q.Query(ctx, query, args...)
}

func (c conn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return c.q.QueryRow(ctx, query, args...)
}

// db is the pool as sqlstore.DB: reads on the pool, and READ COMMITTED
// transactions whose deciding reads lock their rows (FOR UPDATE).
type db struct {
	conn
	pool *pgxpool.Pool
	jobs *riverjobs.Queue[pgx.Tx]
}

func (d db) Begin(ctx context.Context) (sqlstore.TxConn, error) {
	t, err := d.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return txConn{conn: conn{t}, tx: t, jobs: d.jobs}, nil
}

// txConn is one pgx transaction as sqlstore.TxConn.
type txConn struct {
	conn
	tx   pgx.Tx
	jobs *riverjobs.Queue[pgx.Tx]
}

// CopyRows inserts the rows with COPY: one round trip for any number.
func (t txConn) CopyRows(ctx context.Context, c *sqlstore.Copy, n int, row func(i int) []any) error {
	_, err := t.tx.CopyFrom(ctx, pgx.Identifier{c.Table}, c.Cols, pgx.CopyFromSlice(n, func(i int) ([]any, error) {
		return row(i), nil
	}))
	return err
}

func (t txConn) Enqueue(ctx context.Context, j jobs.Job) error { return t.jobs.Enqueue(ctx, t.tx, j) }
func (t txConn) Commit(ctx context.Context) error              { return t.tx.Commit(ctx) }
func (t txConn) Rollback(ctx context.Context) error            { return t.tx.Rollback(ctx) }
