// Package jobs is registryd's durable background work in its own words:
// a Job is enqueued inside a database transaction (storage.Tx.Enqueue), so
// it exists if and only if that transaction commits, and Handlers run jobs
// by kind in workers that storage.Store.StartJobs starts and stops.
//
// The queue itself is River (jobs/riverjobs), on the registry's own
// database, but nothing outside jobs/riverjobs and the database packages
// names River: a handler sees a Run and answers with an error, Cancel or
// Snooze. It has no dependencies beyond the standard library.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Job is work to enqueue. Args is encoded as JSON and handed back to the
// handler of Kind as Run.Args; MaxAttempts bounds how many times a job that
// keeps failing runs (0 takes DefaultMaxAttempts).
type Job struct {
	Kind        string
	Args        any
	MaxAttempts int
}

// DefaultMaxAttempts is how many times a job runs when Job.MaxAttempts is 0.
const DefaultMaxAttempts = 25

// Run is one run of a job, as its handler sees it.
type Run struct {
	ID          int64
	Kind        string
	Args        []byte // Job.Args as JSON
	Attempt     int    // 1 on the first run
	MaxAttempts int
	// Snoozes counts the runs that ended in Snooze: they spend no attempt.
	Snoozes int
}

// Handler runs the jobs of one kind.
type Handler struct {
	// Kind names the jobs it runs; it is required and unique among the
	// handlers given to one StartJobs.
	Kind string
	// Work runs one job. A nil error completes it; Cancel(err) ends it for
	// good; Snooze(d) runs it again after d without spending an attempt;
	// any other error runs it again (at NextRetry) until MaxAttempts runs
	// have failed. Work must return once ctx is done.
	Work func(ctx context.Context, r Run) error
	// Timeout bounds one run (ctx is cancelled after it); it must stay well
	// below StuckAfter. 0 means one minute.
	Timeout time.Duration
	// NextRetry returns when to run a failed job again; nil leaves it to
	// the queue's exponential backoff.
	NextRetry func(r Run) time.Time
	// Every, when above zero, makes the kind periodic: a job of Kind with
	// empty arguments ({}) is enqueued when the workers start and every
	// Every after, by one process among all those that run workers on the
	// database, and never while another job of Kind waits or runs, so that
	// runs of the kind never overlap, whatever the number of replicas.
	// Such a job runs at most PeriodicAttempts times: the next period
	// retries what a failed run left.
	Every time.Duration
}

// MinEvery is the shortest period Handler.Every may take.
const MinEvery = time.Second

// PeriodicAttempts is how many times a periodic job runs before it is
// discarded.
const PeriodicAttempts = 3

// Validate reports a handler that cannot run: no kind or no Work.
func (h Handler) Validate() error {
	if h.Kind == "" || h.Work == nil {
		return fmt.Errorf("jobs: a handler needs a kind and a Work function (kind %q)", h.Kind)
	}
	if h.Every != 0 && h.Every < MinEvery {
		return fmt.Errorf("jobs: handler %q: Every must be 0 or at least %v, not %v", h.Kind, MinEvery, h.Every)
	}
	return nil
}

// StuckAfter is how long a job may stay running before the queue takes it
// for abandoned (its process died: a crash, a kill -9) and runs it again.
// Every job must finish well within it (Handler.Timeout); River's own
// default is an hour, which would leave an acknowledged delivery
// unprocessed that long after a crash.
const StuckAfter = 6 * time.Minute

// Enqueuer enqueues jobs in a transaction; storage.Tx is one.
type Enqueuer interface {
	// Enqueue adds j in the transaction: it exists if and only if the
	// transaction commits.
	Enqueue(ctx context.Context, j Job) error
}

// CancelError ends a job for good; Work returns it through Cancel.
type CancelError struct{ Err error }

func (e *CancelError) Error() string { return "job cancelled: " + e.Err.Error() }
func (e *CancelError) Unwrap() error { return e.Err }

// Cancel returns an error that makes the queue give up the job: it does not
// run again, whatever attempts remain. err says why.
func Cancel(err error) error {
	if err == nil {
		err = errors.New("cancelled")
	}
	return &CancelError{Err: err}
}

// SnoozeError runs a job again later without spending an attempt; Work
// returns it through Snooze.
type SnoozeError struct{ After time.Duration }

func (e *SnoozeError) Error() string { return fmt.Sprintf("job snoozed for %v", e.After) }

// Snooze returns an error that makes the queue run the job again after d
// (0: as soon as a worker is free), spending no attempt. Run.Snoozes counts
// them, so that a handler can bound how often a job waits.
func Snooze(d time.Duration) error { return &SnoozeError{After: max(d, 0)} }

// The outcomes of a job's run, as Observe reports them.
const (
	OutcomeCompleted = "completed" // Work returned nil
	OutcomeRetry     = "retry"     // it failed and will run again
	OutcomeDiscarded = "discarded" // it failed its last attempt
	OutcomeCancelled = "cancelled" // Work returned Cancel
	OutcomeSnoozed   = "snoozed"   // Work returned Snooze
)

// Outcome names how run r of a job ended with err.
func Outcome(r Run, err error) string {
	var cancel *CancelError
	var snooze *SnoozeError
	switch {
	case err == nil:
		return OutcomeCompleted
	case errors.As(err, &snooze):
		return OutcomeSnoozed
	case errors.As(err, &cancel):
		return OutcomeCancelled
	case r.MaxAttempts > 0 && r.Attempt >= r.MaxAttempts:
		return OutcomeDiscarded
	}
	return OutcomeRetry
}

// Observe returns h with every run reported to observe, with h's kind and
// the run's Outcome, once Work has returned. observe must be safe for
// concurrent use.
func Observe(h Handler, observe func(kind, outcome string)) Handler {
	work := h.Work
	h.Work = func(ctx context.Context, r Run) error {
		err := work(ctx, r)
		observe(h.Kind, Outcome(r, err))
		return err
	}
	return h
}
