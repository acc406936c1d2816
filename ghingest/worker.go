package ghingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/githubapi"
	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/webhook"
	"github.com/registryd/registryd/workflow"
)

// Defaults of WorkerConfig.
const (
	DefaultBaseBackoff = 5 * time.Second
	DefaultMaxBackoff  = 15 * time.Minute
	DefaultMaxSnoozes  = 24
	DefaultJobTimeout  = 5 * time.Minute
)

// WorkerConfig configures a Worker. Store, Workflow and GitHub are
// required.
type WorkerConfig struct {
	// Store holds the deliveries (a storage.Store).
	Store DeliveryStore
	// Locker, when set, serializes the work on one pull request (and on
	// the pushes of one repository) across every server sharing the store
	// (a storage.Store); without it the work is serialized in this process
	// only, which is enough for one server.
	Locker Locker
	// Workflow ingests the manifests (a *workflow.Service).
	Workflow Ingester
	// GitHub is the API client (a *githubapi.Client).
	GitHub GitHub
	// ManifestGlob selects the manifest files of a repository;
	// webhook.DefaultManifestGlob when empty.
	ManifestGlob string
	// PublicURL is registryd's externally visible base URL, used for the
	// links in statuses and comments; empty leaves the links out.
	PublicURL string
	// StatusContext names the commit status; githubapi.DefaultStatusContext
	// when empty.
	StatusContext string
	// Retrier retries one API call in process for short delays; a delay
	// above its MaxDelay ends the attempt and reschedules the job for when
	// GitHub asked.
	Retrier githubapi.Retrier
	// BaseBackoff and MaxBackoff shape the retry schedule for failures
	// that name no delay: BaseBackoff doubled per attempt, capped at
	// MaxBackoff, with ±10% jitter.
	BaseBackoff, MaxBackoff time.Duration
	// MaxSnoozes bounds how many times a job waits for a delay GitHub asked
	// for (rate limits) before such a wait counts as a failed attempt.
	MaxSnoozes int
	// JobTimeout bounds one run of a job.
	JobTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the worker's events; nil discards.
	Logger *slog.Logger
}

// Worker runs delivery jobs (its Handler). It is safe for concurrent
// use; jobs of the same pull request run one at a time in one process,
// and across processes with a Locker.
//
// Running a job twice (after a crash, or through Retry) is harmless:
// identical manifest bytes map to the existing submission (workflow.Submit
// returns the pending or published one with created false; Publish returns
// the published one), the summary comment is edited rather than added, and
// a commit status with the same context replaces the previous one.
type Worker struct {
	store      DeliveryStore
	locker     Locker
	wf         Ingester
	gh         GitHub
	glob       string
	public     string
	statusCtx  string
	retrier    githubapi.Retrier
	base, max  time.Duration
	maxSnoozes int
	timeout    time.Duration
	now        func() time.Time
	log        *slog.Logger

	mu    sync.Mutex
	locks map[string]*prLock
}

type prLock struct {
	mu   sync.Mutex
	refs int
}

// NewWorker validates cfg and returns a Worker.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if cfg.Store == nil || cfg.Workflow == nil || cfg.GitHub == nil {
		return nil, fmt.Errorf("ghingest: worker needs a store, a workflow and a GitHub client: %w", registry.ErrInvalid)
	}
	w := &Worker{
		store: cfg.Store, locker: cfg.Locker, wf: cfg.Workflow, gh: cfg.GitHub, glob: cfg.ManifestGlob,
		public: strings.TrimRight(cfg.PublicURL, "/"), statusCtx: cfg.StatusContext, retrier: cfg.Retrier,
		base: cfg.BaseBackoff, max: cfg.MaxBackoff, maxSnoozes: cfg.MaxSnoozes, timeout: cfg.JobTimeout,
		now: cfg.Now, log: cfg.Logger, locks: map[string]*prLock{},
	}
	if w.glob == "" {
		w.glob = webhook.DefaultManifestGlob
	}
	if err := webhook.ValidateGlob(w.glob); err != nil {
		return nil, fmt.Errorf("ghingest: manifest glob: %w", err)
	}
	if w.statusCtx == "" {
		w.statusCtx = githubapi.DefaultStatusContext
	}
	if w.base <= 0 {
		w.base = DefaultBaseBackoff
	}
	if w.max <= 0 {
		w.max = DefaultMaxBackoff
	}
	if w.maxSnoozes <= 0 {
		w.maxSnoozes = DefaultMaxSnoozes
	}
	if w.timeout <= 0 {
		w.timeout = DefaultJobTimeout
	}
	if w.now == nil {
		w.now = time.Now
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	return w, nil
}

// Handler returns the job handler of delivery jobs (JobKind), for
// storage.Store.StartJobs. A run is bounded by JobTimeout; after a failure
// that named no delay the next attempt comes BaseBackoff doubled for each
// attempt made, capped at MaxBackoff, with ±10% jitter so that replicas do
// not retry in step.
func (w *Worker) Handler() jobs.Handler {
	return jobs.Handler{
		Kind:      JobKind,
		Work:      w.Work,
		Timeout:   w.timeout,
		NextRetry: func(r jobs.Run) time.Time { return w.now().Add(w.backoff(r.Attempt)) },
	}
}

func (w *Worker) backoff(attempt int) time.Duration {
	d := w.base
	for i := 1; i < attempt && d < w.max; i++ {
		d *= 2
	}
	d = min(d, w.max)
	jitter := time.Duration(rand.Int64N(int64(d)/5+1)) - d/10
	return max(d+jitter, time.Millisecond)
}

// Work processes one delivery. Outcomes:
//
//   - done: the delivery's status is done, its submissions recorded, and
//     any refused manifest named in its error;
//   - a GitHub failure worth retrying (5xx, timeout, rate limit): the
//     delivery is "retrying" with the error, and the job waits the delay
//     GitHub asked for (jobs.Snooze) or backs off (see Handler); after the
//     last attempt the delivery is "failed";
//   - a permanent failure (a 4xx other than a rate limit): the delivery is
//     "failed" with the error and the job is cancelled;
//   - the job's context cancelled (the server stopping): the job is put
//     back to run at once on the next start, and the delivery is "queued".
func (w *Worker) Work(ctx context.Context, job jobs.Run) error {
	var args JobArgs
	if err := json.Unmarshal(job.Args, &args); err != nil {
		return jobs.Cancel(fmt.Errorf("job %d: malformed arguments: %w", job.ID, err))
	}
	id := args.DeliveryID
	d, err := w.store.Delivery(ctx, id)
	if errors.Is(err, registry.ErrNotFound) {
		return jobs.Cancel(fmt.Errorf("delivery %s: %w", id, err))
	}
	if err != nil {
		return w.failed(ctx, job, id, nil, err)
	}
	ev, err := decodeEvent(d.Payload)
	if err != nil {
		return w.failed(ctx, job, id, &d, permanent(err))
	}
	if !ev.Actionable() {
		return w.setState(ctx, &d, registry.DeliveryIgnored, "", nil)
	}
	if err := w.setState(ctx, &d, registry.DeliveryRunning, d.Error, nil); err != nil {
		return w.failed(ctx, job, id, nil, err)
	}
	var out outcome
	switch {
	// The work runs under the lock's context: a lock lost on the way
	// (storage.ErrLockLost) stops it before its next call, and the
	// delivery is retried.
	case ev.PR != nil:
		held, unlock, lerr := w.lock(ctx, ev.Repo+"#"+fmt.Sprint(ev.PR.Number))
		if err = lerr; err == nil {
			out, err = w.pullRequest(held, ev)
			err = lockLost(held, err)
			unlock()
		}
	case ev.Push != nil:
		held, unlock, lerr := w.lock(ctx, ev.Repo+"@push")
		if err = lerr; err == nil {
			out, err = w.push(held, ev)
			err = lockLost(held, err)
			unlock()
		}
	}
	if err != nil {
		return w.failed(ctx, job, id, &d, err)
	}
	if err := w.setState(ctx, &d, registry.DeliveryDone, strings.Join(out.problems, "\n"), out.submissions); err != nil {
		return w.failed(ctx, job, id, nil, err)
	}
	w.log.LogAttrs(ctx, slog.LevelInfo, "delivery processed", slog.String("delivery", id),
		slog.String("event", ev.Name), slog.String("repo", ev.Repo), slog.Int("submissions", len(out.submissions)))
	return nil
}

// lock serializes the work on one key (a pull request): in this process,
// then, with a Locker, across every process on the store. Waiting in this
// process first keeps one connection per key pinned, not one per job.
func (w *Worker) lock(ctx context.Context, key string) (context.Context, func(), error) {
	unlock := w.localLock(key)
	if w.locker == nil {
		return ctx, unlock, nil
	}
	held, shared, err := w.locker.Lock(ctx, "github:"+key)
	if err != nil {
		unlock()
		return nil, nil, fmt.Errorf("lock %s: %w", key, err)
	}
	return held, func() { shared(); unlock() }, nil
}

// lockLost names the lost lock as the cause of err when the work under
// held failed because the lock was lost.
func lockLost(held context.Context, err error) error {
	if err != nil && held.Err() != nil {
		if cause := context.Cause(held); errors.Is(cause, storage.ErrLockLost) {
			return fmt.Errorf("%w (%w)", cause, err)
		}
	}
	return err
}

// localLock serializes the work on one key in this process.
func (w *Worker) localLock(key string) func() {
	w.mu.Lock()
	l := w.locks[key]
	if l == nil {
		l = &prLock{}
		w.locks[key] = l
	}
	l.refs++
	w.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		w.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(w.locks, key)
		}
		w.mu.Unlock()
	}
}

// setState records the delivery's status; with a nil subs the recorded
// submissions stay as they are.
func (w *Worker) setState(ctx context.Context, d *registry.Delivery, st registry.DeliveryStatus, msg string, subs []string) error {
	d.Status, d.Error, d.UpdatedAt = st, safeText(msg, maxErrorBytes), w.now().UTC().Truncate(time.Microsecond)
	if subs != nil {
		d.Submissions = subs
	}
	if d.Submissions == nil {
		d.Submissions = []string{}
	}
	return w.store.InTx(ctx, func(tx storage.Tx) error { return tx.UpdateDelivery(ctx, *d) })
}

// permanentError marks a failure no retry can fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

// failed decides what becomes of a job that ended with err, records it on
// the delivery d (when known) and returns what the queue should do.
func (w *Worker) failed(ctx context.Context, job jobs.Run, id string, d *registry.Delivery, err error) error {
	record := func(st registry.DeliveryStatus, msg string) {
		if d == nil {
			return
		}
		// The job's context may be done; the record must still be written.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if serr := w.setState(rctx, d, st, msg, nil); serr != nil {
			w.log.LogAttrs(ctx, slog.LevelError, "record delivery state", slog.String("delivery", d.ID), slog.String("error", errText(serr)))
		}
	}
	snoozes := job.Snoozes
	if errors.Is(ctx.Err(), context.Canceled) && snoozes < w.maxSnoozes {
		// The server is stopping: run again as soon as a worker starts,
		// without spending an attempt.
		record(registry.DeliveryQueued, "interrupted by a shutdown; runs again on the next start")
		return jobs.Snooze(0)
	}
	var pe *permanentError
	var ge *githubapi.Error
	retry, after := githubapi.IsRetryable(err)
	// A lost lock cut the work short: the GitHub call it was making ends
	// cancelled, which GitHub's errors call final, but the delivery itself
	// is as good as it was and runs again from the start.
	lost := errors.Is(err, storage.ErrLockLost)
	switch {
	case !lost && (errors.As(err, &pe) || (errors.As(err, &ge) && !retry)):
		w.log.LogAttrs(ctx, slog.LevelWarn, "delivery failed", slog.String("delivery", id), slog.String("error", errText(err)))
		record(registry.DeliveryFailed, errText(err))
		return jobs.Cancel(err)
	case retry && after > 0 && snoozes < w.maxSnoozes:
		record(registry.DeliveryRetrying, errText(err))
		return jobs.Snooze(after)
	case job.Attempt >= job.MaxAttempts:
		w.log.LogAttrs(ctx, slog.LevelWarn, "delivery failed after its last attempt", slog.String("delivery", id), slog.String("error", errText(err)))
		record(registry.DeliveryFailed, errText(err))
		return err
	}
	record(registry.DeliveryRetrying, errText(err))
	return err
}

// call runs one GitHub call with the in-process retrier.
func (w *Worker) call(ctx context.Context, fn func(ctx context.Context) error) error {
	return w.retrier.Do(ctx, fn)
}

// outcome is what one delivery produced.
type outcome struct {
	submissions []string
	problems    []string // one line per refused manifest or skipped removal
}

// result is the fate of one manifest file.
type result struct {
	path    string
	sub     registry.Submission
	report  *report.Report
	refusal *refusal
}

// refusal says why a manifest was not ingested: the field at fault (empty
// for the file as a whole) and a message safe to print.
type refusal struct {
	field, message string
}

func (r refusal) String() string {
	if r.field == "" {
		return r.message
	}
	return r.field + ": " + r.message
}

// refused returns the refusal err stands for, or nil when err is not a
// refusal of the manifest (and so is the job's failure).
func refused(err error) *refusal {
	var ve *registry.ValidationError
	var blocked *registry.BlockedError
	switch {
	case errors.As(err, &ve):
		if len(ve.Fields) == 0 {
			return &refusal{message: "the manifest was refused"}
		}
		f := ve.Fields[0]
		msg := f.Message
		if f.Line > 0 {
			msg = fmt.Sprintf("%s (line %d)", msg, f.Line)
		}
		if len(ve.Fields) > 1 {
			msg += fmt.Sprintf(" (and %d more)", len(ve.Fields)-1)
		}
		return &refusal{field: f.Path, message: msg}
	case errors.As(err, &blocked):
		codes := make([]string, 0, len(blocked.Findings))
		for _, f := range blocked.Findings {
			codes = append(codes, f.Code)
		}
		return &refusal{message: "not published: the verdict is fail (" + strings.Join(slices.Compact(codes), ", ") +
			"); a maintainer may still publish it with an override and a reason"}
	case errors.Is(err, registry.ErrConflict):
		return &refusal{field: "addon.version", message: "this version is already published with different bytes, or the addon was removed; publish a new version"}
	case errors.Is(err, githubapi.ErrFileTooLarge):
		return &refusal{message: "the file is over the manifest size limit"}
	case errors.Is(err, githubapi.ErrNotFile):
		return &refusal{message: "the path is not a regular file"}
	}
	return nil
}

func formatOf(path string) workflow.Format {
	if strings.HasSuffix(strings.ToLower(path), ".json") {
		return workflow.FormatJSON
	}
	return workflow.FormatTOML
}

func (w *Worker) match(path string) bool { return webhook.MatchGlob(w.glob, path) }

// fetch reads a file at ref, or reports why it is refused.
func (w *Worker) fetch(ctx context.Context, ev *webhook.Event, path, ref string) ([]byte, *refusal, error) {
	var b []byte
	err := w.call(ctx, func(ctx context.Context) error {
		var err error
		b, err = w.gh.FileContent(ctx, ev.RepoOwner, ev.RepoName, path, ref)
		return err
	})
	if err != nil {
		if r := refused(err); r != nil {
			return nil, r, nil
		}
		return nil, nil, err
	}
	return b, nil, nil
}

// pullRequest audits the manifests a pull request adds or changes, posts
// the commit status and updates the summary comment.
func (w *Worker) pullRequest(ctx context.Context, ev *webhook.Event) (outcome, error) {
	pr := ev.PR
	// Deliveries may arrive, and jobs run, out of order. Under the pull
	// request's lock, a delivery whose head is no longer the pull
	// request's is passed over: the newer head's delivery, if not run
	// already, runs after this one and posts its own audit.
	var current string
	err := w.call(ctx, func(ctx context.Context) error {
		var err error
		current, err = w.gh.PullRequestHead(ctx, ev.RepoOwner, ev.RepoName, pr.Number)
		return err
	})
	if err != nil {
		return outcome{}, err
	}
	if current != pr.HeadSHA {
		return outcome{submissions: []string{}, problems: []string{
			"passed over: the pull request's head is now " + current + ", not " + pr.HeadSHA}}, nil
	}
	var files []githubapi.File
	err = w.call(ctx, func(ctx context.Context) error {
		var err error
		files, err = w.gh.PullRequestFiles(ctx, ev.RepoOwner, ev.RepoName, pr.Number)
		return err
	})
	if err != nil {
		return outcome{}, err
	}
	fetch, _ := githubapi.Select(files, w.match)
	out := outcome{submissions: []string{}, problems: []string{}}
	if len(fetch) == 0 {
		return out, nil
	}
	author := pr.Author
	if author == "" {
		author = ev.Sender
	}
	if author == "" {
		author = "github"
	}
	results := make([]result, 0, len(fetch))
	for _, f := range fetch {
		res := result{path: f.Path}
		b, ref, err := w.fetch(ctx, ev, f.Path, pr.HeadSHA)
		if err != nil {
			return outcome{}, err
		}
		if ref == nil {
			origin := &registry.GitHubOrigin{Repo: ev.Repo, PR: pr.Number, CommitID: pr.HeadSHA, Path: f.Path, Author: author}
			sub, rep, _, err := w.wf.Submit(ctx, workflow.Actor{Name: author}, b, formatOf(f.Path), origin)
			if ref = refused(err); ref == nil && err != nil {
				return outcome{}, fmt.Errorf("ingest %s: %w", safeText(f.Path, 300), err)
			}
			if err == nil {
				res.sub = sub
				if res.report, err = report.Decode(rep.Bytes); err != nil {
					return outcome{}, fmt.Errorf("read report of %s: %w", sub.ID, err)
				}
				out.submissions = append(out.submissions, sub.ID)
			}
		}
		if ref != nil {
			res.refusal = ref
			out.problems = append(out.problems, safeText(f.Path, 300)+": "+ref.String())
		}
		results = append(results, res)
	}
	st := w.status(results)
	if err := w.call(ctx, func(ctx context.Context) error {
		return w.gh.SetStatus(ctx, ev.RepoOwner, ev.RepoName, pr.HeadSHA, st)
	}); err != nil {
		return outcome{}, err
	}
	body := w.comment(pr.HeadSHA, results)
	if err := w.call(ctx, func(ctx context.Context) error {
		_, _, err := w.gh.UpsertComment(ctx, ev.RepoOwner, ev.RepoName, pr.Number, CommentMarker, body)
		return err
	}); err != nil {
		return outcome{}, err
	}
	return out, nil
}

// push publishes the manifests a push to the default branch added or
// changed, and marks removed the addons whose manifest it deleted.
func (w *Worker) push(ctx context.Context, ev *webhook.Event) (outcome, error) {
	p := ev.Push
	var changed, gone []string
	switch {
	case p.Created:
		// Nothing came before the branch: every manifest in it is new,
		// whether or not the commits the payload lists (at most 20, and
		// none that another branch already had) added it.
		var paths []string
		err := w.call(ctx, func(ctx context.Context) error {
			var err error
			paths, err = w.gh.TreeFiles(ctx, ev.RepoOwner, ev.RepoName, p.After)
			return err
		})
		if err != nil {
			return outcome{}, err
		}
		for _, f := range paths {
			if w.match(f) {
				changed = append(changed, f)
			}
		}
	case p.Truncated:
		var files []githubapi.File
		err := w.call(ctx, func(ctx context.Context) error {
			var err error
			files, err = w.gh.CompareFiles(ctx, ev.RepoOwner, ev.RepoName, p.Before, p.After)
			return err
		})
		if err != nil {
			return outcome{}, err
		}
		fetch, g := githubapi.Select(files, w.match)
		for _, f := range fetch {
			changed = append(changed, f.Path)
		}
		gone = g
	default:
		c, r := p.Changes()
		for _, f := range c {
			if w.match(f) {
				changed = append(changed, f)
			}
		}
		for _, f := range r {
			if w.match(f) {
				gone = append(gone, f)
			}
		}
	}
	out := outcome{submissions: []string{}, problems: []string{}}
	pusher := p.Pusher
	if pusher == "" {
		pusher = ev.Sender
	}
	if pusher == "" {
		pusher = "github"
	}
	published := map[string]bool{}
	for _, path := range changed {
		b, ref, err := w.fetch(ctx, ev, path, p.After)
		if err != nil {
			return outcome{}, err
		}
		if ref == nil {
			origin := &registry.GitHubOrigin{Repo: ev.Repo, CommitID: p.After, Path: path, Author: pusher}
			sub, _, err := w.wf.Publish(ctx, workflow.Actor{Name: pusher}, b, formatOf(path), origin)
			if ref = refused(err); ref == nil && err != nil {
				return outcome{}, fmt.Errorf("publish %s: %w", safeText(path, 300), err)
			}
			if err == nil {
				out.submissions = append(out.submissions, sub.ID)
				published[sub.Addon] = true
			}
		}
		if ref != nil {
			out.problems = append(out.problems, safeText(path, 300)+": "+ref.String())
		}
	}
	for _, path := range gone {
		b, ref, err := w.fetch(ctx, ev, path, p.Before)
		if errors.Is(err, registry.ErrNotFound) {
			out.problems = append(out.problems, safeText(path, 300)+": removed, but absent from the commit before the push")
			continue
		}
		if err != nil {
			return outcome{}, err
		}
		if ref != nil {
			out.problems = append(out.problems, safeText(path, 300)+": removed; "+ref.String())
			continue
		}
		m, err := addon.ParseTOML(b)
		if formatOf(path) == workflow.FormatJSON {
			m, err = addon.ParseJSON(b)
		}
		if err != nil {
			out.problems = append(out.problems, safeText(path, 300)+": removed, but its last version does not name an addon")
			continue
		}
		name := m.Addon.Name
		if published[name] {
			continue // moved, not removed
		}
		reason := "manifest " + safeText(path, 300) + " removed from " + ev.Repo + " at " + p.After
		err = w.wf.Remove(ctx, workflow.Actor{Name: pusher, Role: registry.RoleMaintainer}, name, reason)
		switch {
		case err == nil, errors.Is(err, registry.ErrNotFound), errors.Is(err, registry.ErrConflict):
			// Removed now, never published, or removed already.
		default:
			return outcome{}, fmt.Errorf("remove %q: %w", name, err)
		}
	}
	return out, nil
}
