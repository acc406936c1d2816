package riverjobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
	"github.com/registryd/registryd/storage/sqlite"
)

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), storage.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func start(t *testing.T, s storage.Store, hs ...jobs.Handler) {
	t.Helper()
	stop, err := s.StartJobs(context.Background(), hs...)
	if err != nil {
		t.Fatalf("StartJobs: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
}

func enqueue(t *testing.T, s storage.Store, j jobs.Job) {
	t.Helper()
	if err := s.InTx(context.Background(), func(tx storage.Tx) error { return tx.Enqueue(context.Background(), j) }); err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
}

// waitState waits until the one job of kind is in state, failing after 30s.
func waitState(t *testing.T, s *sqlite.Store, kind, state string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got string
		err := s.DB().QueryRow(`SELECT state FROM river_job WHERE kind = ?`, kind).Scan(&got)
		if err == nil && got == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: state %q (%v) after 30s, want %q", kind, got, err, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type args struct {
	N int `json:"n"`
}

// TestRunSeesTheJob checks what a handler is given: its arguments as
// JSON, the attempt, the bound on attempts, and a deadline of Timeout.
func TestRunSeesTheJob(t *testing.T) {
	s := openStore(t)
	type seen struct {
		run      jobs.Run
		deadline time.Duration
	}
	got := make(chan seen, 1)
	start(t, s, jobs.Handler{Kind: "see", Timeout: time.Hour, Work: func(ctx context.Context, r jobs.Run) error {
		d, _ := ctx.Deadline()
		got <- seen{r, time.Until(d)}
		return nil
	}})
	enqueue(t, s, jobs.Job{Kind: "see", Args: args{N: 7}, MaxAttempts: 3})
	g := <-got
	var a args
	if err := json.Unmarshal(g.run.Args, &a); err != nil || a.N != 7 {
		t.Errorf("Args = %s (%v), want {\"n\":7}", g.run.Args, err)
	}
	if g.run.Kind != "see" || g.run.Attempt != 1 || g.run.MaxAttempts != 3 || g.run.Snoozes != 0 || g.run.ID == 0 {
		t.Errorf("Run = %+v, want kind see, attempt 1 of 3, no snoozes, an ID", g.run)
	}
	if g.deadline <= 50*time.Minute || g.deadline > time.Hour {
		t.Errorf("the run's deadline is %v away, want the handler's Timeout of 1h", g.deadline)
	}
	waitState(t, s, "see", "completed")
}

// TestOutcomes checks that Cancel, Snooze and a plain error mean what
// package jobs says.
func TestOutcomes(t *testing.T) {
	s := openStore(t)
	runs := make(chan jobs.Run, 16)
	retryNow := func(jobs.Run) time.Time { return time.Now() }
	start(t, s,
		// Cancel on the first attempt of two: it must not run again.
		jobs.Handler{Kind: "cancel", NextRetry: retryNow, Work: func(ctx context.Context, r jobs.Run) error {
			runs <- r
			return jobs.Cancel(errors.New("no point"))
		}},
		// Snooze once, then succeed: the snooze spends no attempt.
		jobs.Handler{Kind: "snooze", Work: func(ctx context.Context, r jobs.Run) error {
			runs <- r
			if r.Snoozes == 0 {
				return jobs.Snooze(0)
			}
			return nil
		}},
		// Fail every time: retried until MaxAttempts, then given up.
		jobs.Handler{Kind: "fail", NextRetry: retryNow, Work: func(ctx context.Context, r jobs.Run) error {
			runs <- r
			return fmt.Errorf("attempt %d failed", r.Attempt)
		}},
	)
	enqueue(t, s, jobs.Job{Kind: "cancel", Args: args{}, MaxAttempts: 2})
	waitState(t, s, "cancel", "cancelled")
	enqueue(t, s, jobs.Job{Kind: "snooze", Args: args{}, MaxAttempts: 1})
	waitState(t, s, "snooze", "completed")
	enqueue(t, s, jobs.Job{Kind: "fail", Args: args{}, MaxAttempts: 2})
	waitState(t, s, "fail", "discarded")
	close(runs)
	var got []string
	for r := range runs {
		got = append(got, fmt.Sprintf("%s attempt %d snoozes %d", r.Kind, r.Attempt, r.Snoozes))
	}
	want := []string{
		"cancel attempt 1 snoozes 0",
		"snooze attempt 1 snoozes 0", "snooze attempt 1 snoozes 1",
		"fail attempt 1 snoozes 0", "fail attempt 2 snoozes 0",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("runs:\n%q\nwant\n%q", got, want)
	}
}

// TestStartRefusesBadHandlers checks that a handler without a kind or a
// Work function, or two of one kind, keep the workers from starting.
func TestStartRefusesBadHandlers(t *testing.T) {
	s := openStore(t)
	work := func(context.Context, jobs.Run) error { return nil }
	tests := map[string][]jobs.Handler{
		"no kind":      {{Work: work}},
		"no work":      {{Kind: "k"}},
		"kind twice":   {{Kind: "k", Work: work}, {Kind: "k", Work: work}},
		"second empty": {{Kind: "k", Work: work}, {}},
	}
	for name, hs := range tests {
		t.Run(name, func(t *testing.T) {
			stop, err := s.StartJobs(context.Background(), hs...)
			if err == nil {
				stop(context.Background())
				t.Fatal("StartJobs accepted the handlers")
			}
		})
	}
}

// TestEnqueueRefusesNoKind checks that a job without a kind is refused and
// its transaction's error says so.
func TestEnqueueRefusesNoKind(t *testing.T) {
	s := openStore(t)
	err := s.InTx(context.Background(), func(tx storage.Tx) error {
		return tx.Enqueue(context.Background(), jobs.Job{Args: args{}})
	})
	if err == nil {
		t.Fatal("Enqueue accepted a job without a kind")
	}
}

// periodicProbe is a periodic handler's Work that takes hold long and
// counts its runs and how many ran at once.
type periodicProbe struct {
	hold              time.Duration
	mu                sync.Mutex
	runs, inflight    int
	maxInflight       int
	args              []string
	attempts, maxRuns []int
}

func (p *periodicProbe) work(ctx context.Context, r jobs.Run) error {
	p.mu.Lock()
	p.runs++
	p.inflight++
	p.maxInflight = max(p.maxInflight, p.inflight)
	p.args = append(p.args, string(r.Args))
	p.attempts = append(p.attempts, r.Attempt)
	p.maxRuns = append(p.maxRuns, r.MaxAttempts)
	p.mu.Unlock()
	defer func() { p.mu.Lock(); p.inflight--; p.mu.Unlock() }()
	// The run outlasts the period, so that periods come while it runs.
	select {
	case <-time.After(p.hold):
	case <-ctx.Done():
	}
	return nil
}

// waitRuns waits until the probe has run n times, failing after 60s.
func (p *periodicProbe) waitRuns(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p.mu.Lock()
		runs := p.runs
		p.mu.Unlock()
		if runs >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("periodic job ran %d times in 60s, want %d", runs, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *periodicProbe) check(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.maxInflight != 1 {
		t.Errorf("%d runs of the periodic kind ran at once, want 1", p.maxInflight)
	}
	for i := range p.args {
		if p.args[i] != "{}" || p.attempts[i] != 1 || p.maxRuns[i] != jobs.PeriodicAttempts {
			t.Errorf("run %d: args %s, attempt %d of %d; want {}, 1 of %d", i, p.args[i], p.attempts[i], p.maxRuns[i], jobs.PeriodicAttempts)
		}
	}
}

// TestPeriodic: a periodic kind runs when the workers start and then every
// period, and a run that outlasts the period is never joined by another.
func TestPeriodic(t *testing.T) {
	s := openStore(t)
	p := &periodicProbe{hold: 2500 * time.Millisecond}
	start(t, s, jobs.Handler{Kind: "tick", Every: time.Second, Timeout: 10 * time.Second, Work: p.work})
	p.waitRuns(t, 3)
	p.check(t)
}

// TestPeriodicReplicas: two processes' workers on one PostgreSQL database,
// both with the periodic kind: its runs never overlap across them.
func TestPeriodicReplicas(t *testing.T) {
	url := pgtest.NewDatabase(t)
	p := &periodicProbe{hold: 2500 * time.Millisecond}
	h := jobs.Handler{Kind: "tick", Every: time.Second, Timeout: 10 * time.Second, Work: p.work}
	for range 2 {
		s, err := postgres.Open(context.Background(), storage.Config{DatabaseURL: url, MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		start(t, s, h)
	}
	p.waitRuns(t, 3)
	p.check(t)
}

func TestPeriodicValidate(t *testing.T) {
	s := openStore(t)
	_, err := s.StartJobs(context.Background(), jobs.Handler{Kind: "fast", Every: time.Millisecond, Work: func(context.Context, jobs.Run) error { return nil }})
	if err == nil || !strings.Contains(err.Error(), "Every must be 0 or at least 1s") {
		t.Errorf("StartJobs with Every 1ms: %v, want an error naming Every", err)
	}
}
