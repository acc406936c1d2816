package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
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
//
// This process's own commits move the data version too; they are already
// accounted for (sqlstore.Store.InTx drops everything at their end), so
// after each the store calls rebase, which reads the version again before
// that drop: a commit of another process that came first is covered by
// the drop, one that comes later moves the version again.
type watcher struct {
	db      *sql.DB // one read-only connection, the watcher's alone
	changes *readcache.Tracker
	logger  *slog.Logger
	stop    context.CancelFunc
	done    chan struct{}

	mu      sync.Mutex
	conn    *sql.Conn // nil while disconnected
	version int64
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
	if err := w.connect(ctx); err != nil {
		db.Close()
		return nil, err
	}
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	w.stop = stop
	go w.run(wctx)
	return w, nil
}

// connect takes the watcher's connection and reads the data version; only
// then may answers be kept, since every later commit will be seen.
func (w *watcher) connect(ctx context.Context) error {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	var v int64
	if err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		conn.Close()
		return err
	}
	w.mu.Lock()
	w.conn, w.version = conn, v
	w.mu.Unlock()
	// The data version moves with every commit, the log's appends and
	// checkpoints among them: the log is heard like everything else.
	w.changes.HearLog(true)
	w.changes.Reset(true)
	return nil
}

// disconnect turns the tracker off and drops the connection.
func (w *watcher) disconnect() {
	w.changes.Reset(false)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}

func (w *watcher) run(ctx context.Context) {
	defer close(w.done)
	backoff := 100 * time.Millisecond
	for {
		err := w.poll(ctx)
		w.disconnect()
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
			if w.connect(ctx) == nil {
				break
			}
		}
	}
}

// poll reads the data version every changesPoll until it fails or ctx
// ends.
func (w *watcher) poll(ctx context.Context) error {
	t := time.NewTicker(changesPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if err := w.check(ctx, true); err != nil {
			return err
		}
	}
}

// check reads the data version and records a change to everything when it
// moved and record is set.
func (w *watcher) check(ctx context.Context, record bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn == nil {
		return nil
	}
	var v int64
	if err := w.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		return err
	}
	if v != w.version {
		w.version = v
		if record {
			w.changes.ChangedAll()
		}
	}
	return nil
}

// rebase takes the data version as it is after one of this process's
// transactions, which the store accounts for itself. A failure is left to
// the polling, which meets it too.
func (w *watcher) rebase() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = w.check(ctx, false)
}

// close stops the polling and closes the connection.
func (w *watcher) close() error {
	w.stop()
	<-w.done
	return w.db.Close()
}
