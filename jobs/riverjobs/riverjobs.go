// Package riverjobs implements registryd's job queue (package jobs) with
// River, on the registry's own database: riverpgxv5 on PostgreSQL,
// riversqlite on SQLite. The database packages make one Queue with their
// River driver, enqueue in their transactions through it, and start the
// workers through it; nothing else in registryd imports River.
package riverjobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/registryd/registryd/jobs"
)

// Config tunes a Queue's workers.
type Config struct {
	// Logger receives River's logs; nil discards them.
	Logger *slog.Logger
	// MaxWorkers bounds the jobs one process runs at once; 0 means 10.
	MaxWorkers int
	// FetchPollInterval is how often idle workers look for new jobs; 0
	// leaves River's default (one second), which suits a database that
	// also notifies them (PostgreSQL).
	FetchPollInterval time.Duration
}

// Queue is the job queue on one database, whose transactions are TTx
// (pgx.Tx or *sql.Tx). It is safe for concurrent use.
type Queue[TTx any] struct {
	driver riverdriver.Driver[TTx]
	insert *river.Client[TTx] // insert-only: no workers
	cfg    Config
}

// New returns the queue on driver's database. It starts nothing.
func New[TTx any](driver riverdriver.Driver[TTx], cfg Config) (*Queue[TTx], error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxWorkers <= 0 {
		cfg.MaxWorkers = 10
	}
	c, err := river.NewClient(driver, &river.Config{Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	return &Queue[TTx]{driver: driver, insert: c, cfg: cfg}, nil
}

// insertArgs is a jobs.Job as River inserts it.
type insertArgs struct{ j jobs.Job }

func (a insertArgs) Kind() string                 { return a.j.Kind }
func (a insertArgs) MarshalJSON() ([]byte, error) { return json.Marshal(a.j.Args) }

// Enqueue inserts j in tx: it exists if and only if tx commits.
func (q *Queue[TTx]) Enqueue(ctx context.Context, tx TTx, j jobs.Job) error {
	if j.Kind == "" {
		return errors.New("job has no kind")
	}
	n := j.MaxAttempts
	if n <= 0 {
		n = jobs.DefaultMaxAttempts
	}
	if _, err := q.insert.InsertTx(ctx, tx, insertArgs{j}, &river.InsertOpts{MaxAttempts: n}); err != nil {
		return err
	}
	return nil
}

// Depth returns how many jobs are in each state that is not final
// (available, pending, retryable, running, scheduled): the work waiting or
// under way, on every queue. Jobs in final states (completed, cancelled,
// discarded) are not counted.
func (q *Queue[TTx]) Depth(ctx context.Context) (map[string]int, error) {
	counts, err := q.driver.GetExecutor().JobCountByAllStates(ctx, &riverdriver.JobCountByAllStatesParams{})
	if err != nil {
		return nil, fmt.Errorf("jobs: count by state: %w", err)
	}
	// Every state is reported, an empty one as 0, so that a dashboard
	// sees the series before the first job.
	out := make(map[string]int, 5)
	for _, state := range []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
		rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled} {
		out[string(state)] = counts[state]
	}
	return out, nil
}

// Start starts the workers of handlers on the queue "default" and returns a
// function that stops them, letting running jobs finish until its ctx is
// done and cancelling them after. A job running longer than
// jobs.StuckAfter is taken for abandoned and run again.
func (q *Queue[TTx]) Start(ctx context.Context, handlers ...jobs.Handler) (func(context.Context) error, error) {
	workers := river.NewWorkers()
	var periodic []*river.PeriodicJob
	for _, h := range handlers {
		if err := h.Validate(); err != nil {
			return nil, err
		}
		if err := addWorker(workers, h); err != nil {
			return nil, fmt.Errorf("jobs: %w", err)
		}
		if h.Every > 0 {
			periodic = append(periodic, periodicJob(h))
		}
	}
	c, err := river.NewClient(q.driver, &river.Config{
		Logger:               q.cfg.Logger,
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: q.cfg.MaxWorkers}},
		Workers:              workers,
		PeriodicJobs:         periodic,
		FetchPollInterval:    q.cfg.FetchPollInterval,
		RescueStuckJobsAfter: jobs.StuckAfter,
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: client: %w", err)
	}
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("jobs: start: %w", err)
	}
	return func(ctx context.Context) error {
		if err := c.Stop(ctx); err != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if cerr := c.StopAndCancel(cctx); cerr != nil {
				return fmt.Errorf("stop jobs: %w", errors.Join(err, cerr))
			}
		}
		return nil
	}, nil
}

// periodicJob schedules h's kind every h.Every. River's leader (one
// process among those sharing the database) enqueues it; the insert is
// unique by kind across every state but the final ones, so a period that
// comes while a run waits or runs enqueues nothing.
func periodicJob(h jobs.Handler) *river.PeriodicJob {
	kind := h.Kind
	return river.NewPeriodicJob(river.PeriodicInterval(h.Every),
		func() (river.JobArgs, *river.InsertOpts) {
			return insertArgs{jobs.Job{Kind: kind, Args: struct{}{}}}, &river.InsertOpts{
				MaxAttempts: jobs.PeriodicAttempts,
				UniqueOpts: river.UniqueOpts{ByState: []rivertype.JobState{
					rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
					rivertype.JobStateRetryable, rivertype.JobStateScheduled,
				}},
			}
		},
		&river.PeriodicJobOpts{ID: "registryd/" + kind, RunOnStart: true})
}

// kindArgs are a job's arguments as River hands them to a worker: only the
// kind, registered per handler. The handler reads the arguments' JSON from
// the job row.
type kindArgs struct{ kind string }

func (a kindArgs) Kind() string                  { return a.kind }
func (a *kindArgs) UnmarshalJSON(_ []byte) error { return nil }

// addWorker registers h under its kind. River keys workers by the kind of
// an arguments type; AddWorkerArgs lets one type stand for every kind.
func addWorker(workers *river.Workers, h jobs.Handler) (err error) {
	defer func() {
		// AddWorkerArgs panics on a kind registered twice.
		if r := recover(); r != nil {
			err = fmt.Errorf("register the handler of %q: %v", h.Kind, r)
		}
	}()
	river.AddWorkerArgs(workers, kindArgs{kind: h.Kind}, &worker{h: h})
	return nil
}

// worker runs one handler's jobs.
type worker struct {
	river.WorkerDefaults[kindArgs]
	h jobs.Handler
}

func run(job *river.Job[kindArgs]) jobs.Run {
	return jobs.Run{
		ID: job.ID, Kind: job.Kind, Args: job.EncodedArgs, Attempt: job.Attempt, MaxAttempts: job.MaxAttempts,
		Snoozes: snoozes(job.Metadata),
	}
}

// snoozes reads how many times River snoozed a job from its metadata.
func snoozes(meta []byte) int {
	var m struct {
		Snoozes int `json:"snoozes"`
	}
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return 0
	}
	return m.Snoozes
}

func (w *worker) Timeout(*river.Job[kindArgs]) time.Duration {
	if w.h.Timeout > 0 {
		return w.h.Timeout
	}
	return time.Minute
}

func (w *worker) NextRetry(job *river.Job[kindArgs]) time.Time {
	if w.h.NextRetry == nil {
		return time.Time{}
	}
	return w.h.NextRetry(run(job))
}

func (w *worker) Work(ctx context.Context, job *river.Job[kindArgs]) error {
	err := w.h.Work(ctx, run(job))
	var ce *jobs.CancelError
	var se *jobs.SnoozeError
	switch {
	case errors.As(err, &ce):
		return river.JobCancel(ce.Err)
	case errors.As(err, &se):
		return river.JobSnooze(se.After)
	}
	return err
}

// Migrate brings River's schema up to date on driver's database. Its
// caller serializes concurrent migrations (a lock on PostgreSQL; SQLite's
// write lock).
func Migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], logger *slog.Logger) error {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: logger})
	if err != nil {
		return fmt.Errorf("job queue migrations: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("apply job queue migrations: %w", err)
	}
	return nil
}

// Migrated reports whether River's schema on the queue's database is
// current.
func (q *Queue[TTx]) Migrated(ctx context.Context) (bool, error) {
	exists, err := q.driver.GetExecutor().TableExists(ctx, &riverdriver.TableExistsParams{Table: "river_migration"})
	if err != nil {
		return false, fmt.Errorf("job queue migration status: %w", err)
	}
	if !exists {
		return false, nil
	}
	m, err := rivermigrate.New(q.driver, &rivermigrate.Config{Logger: q.cfg.Logger})
	if err != nil {
		return false, fmt.Errorf("job queue migrations: %w", err)
	}
	have, err := m.ExistingVersions(ctx)
	if err != nil {
		return false, fmt.Errorf("job queue migration status: %w", err)
	}
	all := m.AllVersions()
	return len(all) > 0 && len(have) > 0 && have[len(have)-1].Version >= all[len(all)-1].Version, nil
}
