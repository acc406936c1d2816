package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
)

// TestLockLostWithItsConnection: the connection holding a lock is
// terminated by the server (pg_terminate_backend, as a restart would), so
// PostgreSQL releases the advisory lock at once. The holder learns it: its
// lock's context ends with storage.ErrLockLost. Another replica waiting
// for the lock gets it, but only once the holder's context has ended, so
// the two never act at once; the old holder's unlock then leaves the new
// holder's lock alone.
func TestLockLostWithItsConnection(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a, b, c := openURL(t, url, false), openURL(t, url, true), openURL(t, url, true)
	postgres.SetLockLease(a, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const key = "github:o/r#1"

	held, unlock, err := a.Lock(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	var pid int
	err = b.Pool().QueryRow(ctx, `SELECT pid FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&pid)
	if err != nil {
		t.Fatalf("the advisory lock's holder: %v", err)
	}

	type taken struct {
		held     context.Context
		unlock   func()
		err      error
		aWasDone bool // whether a's lock context had ended when b got the lock
	}
	got := make(chan taken, 1)
	go func() {
		h, u, err := b.Lock(ctx, key)
		got <- taken{h, u, err, held.Err() != nil}
	}()
	// b waits while a holds the lock.
	select {
	case tk := <-got:
		t.Fatalf("b took the lock while a held it (%v)", tk.err)
	default:
	}
	if held.Err() != nil {
		t.Fatalf("a's lock context ended while a held it: %v", context.Cause(held))
	}

	var terminated bool
	if err := b.Pool().QueryRow(ctx, `SELECT pg_terminate_backend($1)`, pid).Scan(&terminated); err != nil || !terminated {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", pid, terminated, err)
	}
	select {
	case <-held.Done():
	case <-ctx.Done():
		t.Fatal("a's lock context did not end after its connection was terminated")
	}
	if cause := context.Cause(held); !errors.Is(cause, storage.ErrLockLost) {
		t.Errorf("a's lock context ended with %v, want storage.ErrLockLost", cause)
	}
	var tk taken
	select {
	case tk = <-got:
	case <-ctx.Done():
		t.Fatal("b did not take the lock after a lost it")
	}
	if tk.err != nil {
		t.Fatalf("b: %v", tk.err)
	}
	if !tk.aWasDone {
		t.Error("b got the lock while a's lock context was still live: both could act at once")
	}
	if tk.held.Err() != nil {
		t.Errorf("b's lock context is done: %v", context.Cause(tk.held))
	}

	// a's unlock, late, does not release b's lock.
	unlock()
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	if _, u, err := c.Lock(short, key); err == nil {
		u()
		t.Fatal("c took the lock b holds after a's late unlock")
	}
	if tk.held.Err() != nil {
		t.Errorf("b's lock context ended after a's late unlock: %v", context.Cause(tk.held))
	}
	// Released normally, the lock passes at once: no lease is left.
	tk.unlock()
	start := time.Now()
	if _, u, err := c.Lock(ctx, key); err != nil {
		t.Fatal(err)
	} else {
		u()
	}
	t.Logf("after a normal unlock the next holder took the lock in %s", time.Since(start))
}
