package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/registryd/registryd/storage/readcache"
)

// changesPoll is how often the store asks SQLite whether another
// connection committed: the longest a write by another process (registryd
// reassess, a second server on the same file) goes unseen by the answers
// this process keeps in memory. This process's own transactions are seen
// at commit (sqlstore.Store.InTx).
const changesPoll = 50 * time.Millisecond

// watcher keeps the store's read cache honest about other processes: it
// holds a connection of its own and polls PRAGMA data_version, which
// changes whenever a connection other than that one commits, and drops
// every kept answer when it does. The tracker is on while the watcher can
// read the data version and off while it cannot.
type watcher struct {
	db      *sql.DB // one read-only connection, the watcher's alone
	changes *readcache.Tracker
	logger  *slog.Logger
	stop    context.CancelFunc
	done    chan struct{}
}

// watchChanges reads the data version once, turns changes on, and polls on
// in the background until close.
func watchChanges(ctx context.Context, path string, changes *readcache.Tracker, logger *slog.Logger) (*watcher, error) {
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	w := &watcher{db: db, changes: changes, logger: logger, done: make(chan struct{})}
	conn, version, err := w.connect(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	w.stop = stop
	go w.run(wctx, conn, version)
	return w, nil
}

// connect takes the watcher's connection and reads the data version; only
// then may answers be kept, since every later commit will be seen.
func (w *watcher) connect(ctx context.Context) (*sql.Conn, int64, error) {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return nil, 0, err
	}
	var v int64
	if err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		conn.Close()
		return nil, 0, err
	}
	w.changes.Reset(true)
	return conn, v, nil
}

func (w *watcher) run(ctx context.Context, conn *sql.Conn, version int64) {
	defer close(w.done)
	backoff := 100 * time.Millisecond
	for {
		err := w.poll(ctx, conn, version)
		conn.Close()
		w.changes.Reset(false)
		if ctx.Err() != nil {
			return
		}
		w.logger.Warn("read cache off: cannot read the database's data version; reports are read from the database until it can", "err", err)
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			if conn, version, err = w.connect(ctx); err == nil {
				break
			}
		}
	}
}

// poll reads the data version every changesPoll until it fails or ctx
// ends, recording a change to everything whenever it moved.
func (w *watcher) poll(ctx context.Context, conn *sql.Conn, version int64) error {
	t := time.NewTicker(changesPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		var v int64
		if err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
			return err
		}
		if v != version {
			version = v
			w.changes.ChangedAll()
		}
	}
}

// close stops the polling and closes the connection.
func (w *watcher) close() error {
	w.stop()
	<-w.done
	return w.db.Close()
}
