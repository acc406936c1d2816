package ghingest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
)

// TestLockLostMidDelivery: the job of a pull request's delivery loses its
// lock while it waits on GitHub, after posting its status and before
// writing its summary comment; meanwhile the pull request moves to a newer
// head, whose delivery waits for the lock. The first job must notice and
// stop without writing, the newer head's delivery runs and writes the one
// comment, and the first delivery is retried (not failed) and passed over,
// its head being no longer the pull request's. The held request is let
// through to GitHub only once the newer delivery is done: a holder that had
// not noticed would then overwrite the newer comment with its own.
//
// The lock is lost as it is on PostgreSQL: its connection ended
// (pg_terminate_backend), or its renewals stalled past the lease (held up
// by a row lock) and the lease taken over. SQLite's lock is never lost, so
// there a locker around the store's ends the holder's context as a lost
// PostgreSQL lock does.
func TestLockLostMidDelivery(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		backend fixture.Backend
		lose    func(t *testing.T, st storage.Store, l *losingLocker)
	}{
		{"sqlite/lock lost", fixture.SQLite, func(t *testing.T, _ storage.Store, l *losingLocker) { l.lose() }},
		{"postgres/connection ended", fixture.Postgres, terminateLockHolder},
		{"postgres/lease ran out", fixture.Postgres, stallLease},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const newer = "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
			fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
			fake.PutFile(owner, repoName, headSHA, fsPath, fixture.Clean("fs", "1.0.0"))
			fake.PutFile(owner, repoName, newer, fsPath, fixture.Clean("fs", "1.0.1"))
			g := newGate(t, fake.URL)
			g.holdFirst("GET /repos/" + owner + "/" + repoName + "/issues/")

			cfg := tc.backend.Config(t)
			st := fixture.Open(t, cfg)
			locker := &losingLocker{store: st}
			first := startInstance(t, st, instanceOpts{githubURL: g.srv.URL + "/", locker: locker})
			second := first
			if tc.backend.Name == fixture.Postgres.Name {
				// Another replica on the same database.
				st2 := fixture.Open(t, cfg)
				second = startInstance(t, st2, instanceOpts{githubURL: g.srv.URL + "/", locker: st2})
			}

			old := newID()
			if status, ans := first.send(t, delivery{event: "pull_request", id: old, body: payload(t, "pull_request.opened.1.json")}); status != http.StatusAccepted {
				t.Fatalf("delivery answered %d %v", status, ans)
			}
			select {
			case <-g.arrived:
			case <-time.After(60 * time.Second):
				t.Fatal("the job never reached the comments")
			}
			if got := statuses(fake); len(got) != 1 || got[0].SHA != headSHA {
				t.Fatalf("statuses before the lock is lost = %+v, want one on the first head", got)
			}

			fake.SetPullHead(owner, repoName, prNumber, owner, repoName, newer)
			newerID := newID()
			body := edit(t, payload(t, "pull_request.synchronize.1.json"), withPR(prNumber, newer))
			if status, ans := second.send(t, delivery{event: "pull_request", id: newerID, body: body}); status != http.StatusAccepted {
				t.Fatalf("newer delivery answered %d %v", status, ans)
			}

			began := time.Now()
			tc.lose(t, st, locker)
			t.Logf("lock lost after %v", time.Since(began))

			if d := waitDone(t, second.store, newerID); d.Status != registry.DeliveryDone || len(d.Submissions) != 1 {
				t.Fatalf("newer head's delivery: %s %q %v, want done with one submission", d.Status, d.Error, d.Submissions)
			}
			t.Logf("newer delivery done after %v", time.Since(began))
			g.open()
			d := waitDone(t, st, old)
			t.Logf("first delivery done after %v", time.Since(began))
			if d.Status != registry.DeliveryDone || !strings.Contains(d.Error, "passed over") {
				t.Errorf("delivery that lost its lock: %s %q; want retried, then done and passed over", d.Status, d.Error)
			}
			comments := fake.Comments(owner, repoName, prNumber)
			if len(comments) != 1 || !strings.Contains(comments[0].Body, "fs@1.0.1") || strings.Contains(comments[0].Body, "fs@1.0.0") {
				t.Errorf("comments = %+v, want the newer head's one, untouched by the older", comments)
			}
			var onNewer int
			for _, s := range statuses(fake) {
				if s.SHA == newer {
					onNewer++
				}
			}
			if onNewer != 1 {
				t.Errorf("statuses = %+v, want one on the newer head", statuses(fake))
			}
		})
	}
}

// losingLocker takes the store's lock and lets the test end the held
// context as a lost lock ends it.
type losingLocker struct {
	store storage.Store
	mu    sync.Mutex
	drop  context.CancelCauseFunc // the holder's; nil while none holds
}

func (l *losingLocker) Lock(ctx context.Context, key string) (context.Context, func(), error) {
	held, unlock, err := l.store.Lock(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	held, drop := context.WithCancelCause(held)
	l.mu.Lock()
	l.drop = drop
	l.mu.Unlock()
	return held, func() {
		l.mu.Lock()
		l.drop = nil
		l.mu.Unlock()
		drop(nil)
		unlock()
	}, nil
}

// lose ends the current holder's context with storage.ErrLockLost.
func (l *losingLocker) lose() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.drop != nil {
		l.drop(fmt.Errorf("%w: taken from the holder by the test", storage.ErrLockLost))
	}
}

// heldLease waits for the one lease of a lock held on st, and returns its
// key.
func heldLease(t *testing.T, st storage.Store) string {
	t.Helper()
	pool := st.(*postgres.Store).Pool()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var key string
		err := pool.QueryRow(t.Context(), `SELECT key FROM lock_leases`).Scan(&key)
		if err == nil {
			return key
		}
		if time.Now().After(deadline) {
			t.Fatalf("no lease held: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// terminateLockHolder ends the backend holding the pull request's
// advisory lock, as a database restart or an idle timeout would.
func terminateLockHolder(t *testing.T, st storage.Store, _ *losingLocker) {
	t.Helper()
	key := heldLease(t, st)
	var n int
	err := st.(*postgres.Store).Pool().QueryRow(t.Context(), `SELECT count(pg_terminate_backend(l.pid)) FROM pg_locks l
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
		AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended('registryd.lock:' || $1, 0)`, key).Scan(&n)
	if err != nil || n != 1 {
		t.Fatalf("terminate the lock's backend: %d ended (%v), want 1", n, err)
	}
}

// stallLease holds the pull request's lease row locked, so that its
// holder's renewals wait, until the lease has run out by the database's
// clock, and then takes the lease over as a next holder would.
func stallLease(t *testing.T, st storage.Store, _ *losingLocker) {
	t.Helper()
	key := heldLease(t, st)
	pool := st.(*postgres.Store).Pool()
	ctx := t.Context()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT 1 FROM lock_leases WHERE key = $1 FOR UPDATE`, key); err != nil {
		t.Fatalf("lock the lease row: %v", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var over bool
		if err := pool.QueryRow(ctx, `SELECT expires_at <= now() FROM lock_leases WHERE key = $1`, key).Scan(&over); err != nil {
			t.Fatalf("read the lease: %v", err)
		}
		if over {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lease never ran out")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := tx.Exec(ctx, `UPDATE lock_leases SET token = token + 1 WHERE key = $1`, key); err != nil {
		t.Fatalf("take the lease over: %v", err)
	}
	if err := tx.Commit(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("commit: %v", err)
	}
}
