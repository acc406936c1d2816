package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// maxCachedStmts bounds the statement cache. Every query this package runs
// is assembled from constant fragments with bound parameters, so the set of
// distinct texts is small and fixed (well under this bound); the cap only
// keeps a future query built otherwise from growing the cache without
// limit: past it, queries run unprepared.
const maxCachedStmts = 256

// stmtCache is the read pool seen through prepared statements: each
// distinct query text is parsed and planned once per connection instead of
// on every call, which modernc.org/sqlite otherwise does (it has no
// statement cache of its own). It implements querier and is safe for
// concurrent use.
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
