package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"
)

// maxCachedStmts bounds the statement cache. Every query this package runs
// is assembled from constant fragments with bound parameters, so the set of
// distinct texts is small and fixed (well under this bound); the cap only
// keeps a future query built otherwise from growing the cache without
// limit: past it, queries run unprepared.
const maxCachedStmts = 256

// stmtCache is a pool seen through prepared statements: each distinct
// query text is parsed and planned once per connection instead of on every
// call, which modernc.org/sqlite otherwise does (it has no statement cache
// of its own). The read pool's queries run through it directly (it
// implements querier); the writer's transactions use it through
// txQuerier, which only looks statements up, because preparing on the
// writer's pool while a transaction holds its one connection would wait
// forever. It is safe for concurrent use.
type stmtCache struct {
	db *sql.DB

	mu     sync.RWMutex
	stmts  map[string]*sql.Stmt
	closed bool
}

// newStmtCache returns a cache on db with the queries in warm already
// prepared, so that the first requests do not pay for preparing them. A
// query that does not prepare yet (a store opened before its migrations)
// is left to be prepared on first use.
func newStmtCache(ctx context.Context, db *sql.DB, warm []string) *stmtCache {
	c := &stmtCache{db: db, stmts: make(map[string]*sql.Stmt, len(warm))}
	for _, q := range warm {
		if st, err := db.PrepareContext(ctx, q); err == nil {
			c.stmts[q] = st
		}
	}
	return c
}

// stmt returns the prepared statement of query, preparing it on first use,
// or nil when the cache is full or closed, or preparing fails: the caller
// then runs the query text directly, which reports any error in the query.
func (c *stmtCache) stmt(ctx context.Context, query string) *sql.Stmt {
	c.mu.RLock()
	st, ok := c.stmts[query]
	full := c.closed || len(c.stmts) >= maxCachedStmts
	c.mu.RUnlock()
	if ok || full {
		return st
	}
	// Prepared outside the lock; a concurrent caller may prepare the same
	// text, and the loser closes its copy.
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.stmts[query]; ok {
		st.Close()
		return prev
	}
	if c.closed || len(c.stmts) >= maxCachedStmts {
		st.Close()
		return nil
	}
	c.stmts[query] = st
	return st
}

// lookup returns the cached statement of query, or nil, without
// preparing anything.
func (c *stmtCache) lookup(query string) *sql.Stmt {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.stmts[query]
}

// learn prepares the queries not yet cached. The writer calls it after a
// transaction, once its one connection is free again, with the texts the
// transaction ran unprepared.
func (c *stmtCache) learn(ctx context.Context, queries []string) {
	for _, q := range queries {
		c.stmt(ctx, q)
	}
}

// len returns how many statements are cached.
func (c *stmtCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.stmts)
}

// ExecContext runs query unprepared: the read pool is query-only, so
// nothing worth caching writes through it.
func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.db.ExecContext(ctx, query, args...)
}

// QueryContext runs query through its prepared statement.
func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.db.QueryContext(ctx, query, args...)
}

// QueryRowContext runs query through its prepared statement.
func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.db.QueryRowContext(ctx, query, args...)
}

// Close closes every cached statement; later queries run unprepared (and
// fail once the pool itself is closed).
func (c *stmtCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for q, st := range c.stmts {
		errs = append(errs, st.Close())
		delete(c.stmts, q)
	}
	return errors.Join(errs...)
}

// txQuerier runs one transaction's statements through the writer's cache:
// a cached statement is bound to the transaction (database/sql reuses what
// the connection has prepared), and a text the cache lacks runs unprepared
// and is remembered, for Store.InTx to prepare once the transaction is
// over. The writer has a single connection, which the transaction holds,
// so nothing can be prepared on the pool meanwhile. A transaction is used
// by one goroutine at a time.
type txQuerier struct {
	tx     *sql.Tx
	cache  *stmtCache
	missed *[]string
}

func (q txQuerier) stmt(ctx context.Context, query string) *sql.Stmt {
	if st := q.cache.lookup(query); st != nil {
		return q.tx.StmtContext(ctx, st)
	}
	if !slices.Contains(*q.missed, query) {
		*q.missed = append(*q.missed, query)
	}
	return nil
}

// ExecContext runs query in the transaction.
func (q txQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := q.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return q.tx.ExecContext(ctx, query, args...)
}

// QueryContext runs query in the transaction.
func (q txQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := q.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return q.tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs query in the transaction.
func (q txQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := q.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return q.tx.QueryRowContext(ctx, query, args...)
}

// PrepareContext returns query as a statement of the transaction, closed
// when it ends.
func (q txQuerier) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := q.stmt(ctx, query); st != nil {
		return st, nil
	}
	return q.tx.PrepareContext(ctx, query)
}
