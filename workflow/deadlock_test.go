package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
	"github.com/registryd/registryd/workflow"
)

// TestDecisionsBesideReassessment runs, round after round, a maintainer's
// decisions on one addon (a suppression, a verified grant confirmed by a
// second maintainer, an approval, a revocation, the suppression's removal:
// each but the first grant and the approval re-renders every version of
// the addon), each while two re-assessments render every report, made
// stale just before. The re-assessments' last passes wait for the reports other
// transactions hold, so a decision that locked the addon's rows in another
// order than theirs would deadlock with them. Every call must succeed, and
// PostgreSQL must have found no deadlock at all: InTx retries one, so a
// retried deadlock would not show as an error, only as a lost second
// (deadlock_timeout, lowered here so that the test stays short).
func TestDecisionsBesideReassessment(t *testing.T) {
	ctx := context.Background()
	h, admin := deadlockHarness(t)
	st := h.store

	const name = "fs"
	for v := range 4 {
		h.publish(t, warned(name, fmt.Sprintf("1.%d.0", v)))
	}
	h.publish(t, warned("other", "1.0.0"))

	rounds := 8
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		var sp registry.Suppression
		var pending registry.Submission
		steps := []struct {
			name string
			do   func() error
		}{
			{"suppress", func() (err error) { sp, err = h.svc.Suppress(ctx, alice, name, unpinnedSuppression()); return err }},
			{"first grant", func() error { _, err := h.svc.SetVerified(ctx, alice, name, true, "known author"); return err }},
			{"second grant", func() error { _, err := h.svc.SetVerified(ctx, bob, name, true, "agreed"); return err }},
			{"approve", func() error { _, err := h.svc.Approve(ctx, alice, pending.ID, ""); return err }},
			{"revoke", func() error { _, err := h.svc.SetVerified(ctx, bob, name, false, "checking again"); return err }},
			{"unsuppress", func() error { return h.svc.Unsuppress(ctx, alice, name, sp.ID) }},
		}
		for _, step := range steps {
			if step.name == "approve" {
				pending = h.submit(t, warned(name, fmt.Sprintf("2.%d.0", round)))
			}
			if _, err := h.svc.MarkAllStale(ctx); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 3)
			for range 2 {
				wg.Go(func() {
					if _, err := h.svc.ReassessAll(ctx, 1, nil); err != nil {
						errs <- fmt.Errorf("ReassessAll: %w", err)
					}
				})
			}
			wg.Go(func() {
				if err := step.do(); err != nil {
					errs <- fmt.Errorf("%s: %w", step.name, err)
				}
			})
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("round %d: %v", round, err)
			}
			if t.Failed() {
				return
			}
			if left, err := h.svc.StaleCount(ctx); err != nil || left != 0 {
				t.Fatalf("round %d, %s: stale reports left = %d, %v; want 0", round, step.name, left, err)
			}
		}
	}

	if n := deadlocks(t, admin, st); n != 0 {
		t.Errorf("PostgreSQL found %d deadlocks in %d rounds, want none", n, rounds)
	}
}

// TestApprovalBesideWaitingReassessment: an approval locks its submission,
// then its addon, then stores the submission's report. A re-assessment's
// waiting pass that claims that stale report in between must wait for the
// approval without holding anything the approval needs: it claimed the
// report before the submission, and the approval, stopped at the addon
// (which the test holds), then waited for the report; PostgreSQL found the
// deadlock and aborted one of them, which InTx ran again.
func TestApprovalBesideWaitingReassessment(t *testing.T) {
	ctx := context.Background()
	h, admin := deadlockHarness(t)
	h.publish(t, warned("fs", "1.0.0"))
	pending := h.submit(t, warned("fs", "1.1.0"))
	staleReports(t, h, pending.ID)

	pool := h.store.(*postgres.Store).Pool()
	holder, holderPID := holdRows(t, pool, `SELECT 1 FROM addons WHERE name = 'fs' FOR UPDATE`)

	approved := make(chan error, 1)
	go func() {
		_, err := h.svc.Approve(ctx, alice, pending.ID, "")
		approved <- err
	}()
	// The approval holds its submission and waits for the addon.
	approver := waitBlocked(t, pool, holderPID)
	reassessed := make(chan error, 1)
	go func() {
		_, err := h.svc.ReassessAll(ctx, 1, nil)
		reassessed <- err
	}()
	// The re-assessment's waiting pass waits for the approval.
	waitBlocked(t, pool, approver)
	if err := holder.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-approved; err != nil {
		t.Errorf("Approve: %v", err)
	}
	if err := <-reassessed; err != nil {
		t.Errorf("ReassessAll: %v", err)
	}
	if left, err := h.svc.StaleCount(ctx); err != nil || left != 0 {
		t.Errorf("stale reports left = %d, %v; want 0", left, err)
	}
	if n := deadlocks(t, admin, h.store); n != 0 {
		t.Errorf("PostgreSQL found %d deadlocks, want none", n)
	}
}

// deadlockHarness is a harness on a PostgreSQL database whose deadlocks
// are found after 20 ms rather than a second, with a connection of the
// test's own to it.
func deadlockHarness(t *testing.T) (*harness, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	cfg := fixture.Postgres.Config(t)
	admin, err := pgx.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	var db string
	if err := admin.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, `ALTER DATABASE `+pgx.Identifier{db}.Sanitize()+` SET deadlock_timeout = '20ms'`); err != nil {
		t.Fatal(err)
	}
	st := fixture.Open(t, cfg)
	c := &clock{now: start}
	return &harness{store: st, clock: c, svc: workflow.New(st, workflow.Options{Now: c.Now, NewID: (&ids{}).New})}, admin
}

// waitBlocked waits until a backend of pool's database waits for a lock
// the backend pid holds, and returns that backend's pid.
// holdRows begins a transaction on pool that runs lock, a statement taking
// row locks, and returns it with its backend's pid; it is rolled back when
// the test ends unless committed first.
func holdRows(t *testing.T, pool *pgxpool.Pool, lock string, args ...any) (pgx.Tx, int) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback(ctx) })
	var pid int
	if err := tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, lock, args...); err != nil {
		t.Fatal(err)
	}
	return tx, pid
}

func waitBlocked(t *testing.T, pool *pgxpool.Pool, pid int) int {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var blocked int
		err := pool.QueryRow(context.Background(), `SELECT pid FROM pg_stat_activity
			WHERE datname = current_database() AND $1 = ANY(pg_blocking_pids(pid)) LIMIT 1`, pid).Scan(&blocked)
		if err == nil {
			return blocked
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no backend waited for backend %d within 2 minutes", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// deadlocks closes st and returns how many deadlocks PostgreSQL found in
// admin's database. A deadlock is counted by the backend that found it,
// and reported when that backend next flushes its statistics, at the
// latest when it exits: so the store's backends must be gone first.
func deadlocks(t *testing.T, admin *pgx.Conn, st storage.Store) int64 {
	t.Helper()
	ctx := context.Background()
	st.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		var others int
		err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&others)
		if err != nil {
			t.Fatal(err)
		}
		if others == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d backends of the store still running a minute after it closed", others)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var n int64
	if err := admin.QueryRow(ctx, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
