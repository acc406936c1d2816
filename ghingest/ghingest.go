// Package ghingest turns GitHub webhook deliveries into registry work.
//
// Receiver is the POST /v1/webhooks/github handler: it verifies the
// delivery's signature before anything else, records the delivery and, for
// an event registryd acts on, enqueues one durable job in the same
// transaction, then answers. Worker runs the job (package jobs):
// for a pull request it ingests the changed manifests as pending
// submissions, posts a commit status and keeps one summary comment up to
// date; for a push to the default branch it publishes the changed manifests
// (every manifest of the branch when the push creates it) and marks removed
// ones' addons removed. Several servers may share one store: the work on
// one pull request, or on the pushes of one repository, runs in one of
// them at a time, and a delivery whose head is no longer the pull
// request's is passed over, so a late delivery never replaces what a newer
// head posted. Deliveries lists what was received
// and what became of it, and Retry queues a delivery again.
//
// A job carries only the delivery ID; the delivery row holds the reduced
// event (webhook.Event as JSON), so a job that outlives its process finds
// everything it needs in the database.
package ghingest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/registryd/registryd/githubapi"
	"github.com/registryd/registryd/jobs"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/webhook"
	"github.com/registryd/registryd/workflow"
)

// JobKind is the kind of a delivery job.
const JobKind = "github_delivery"

// JobArgs are a delivery job's arguments: only the delivery's ID. The
// delivery row holds the event.
type JobArgs struct {
	DeliveryID string `json:"delivery_id"`
}

// DefaultMaxAttempts is how many times the queue runs a delivery job that keeps
// failing with a retryable error before giving up. Delays GitHub asks for
// (rate limits) do not count: they snooze the job instead.
const DefaultMaxAttempts = 12

// deliveryJob is the job of delivery id.
func deliveryJob(id string, maxAttempts int) jobs.Job {
	if maxAttempts <= 0 {
		maxAttempts = DefaultMaxAttempts
	}
	return jobs.Job{Kind: JobKind, Args: JobArgs{DeliveryID: id}, MaxAttempts: maxAttempts}
}

// Ingester is the part of the review workflow the worker calls. The
// concrete *workflow.Service satisfies it.
type Ingester interface {
	Submit(ctx context.Context, a workflow.Actor, manifest []byte, f workflow.Format, origin *registry.GitHubOrigin) (registry.Submission, registry.Report, bool, error)
	Publish(ctx context.Context, a workflow.Actor, manifest []byte, f workflow.Format, origin *registry.GitHubOrigin) (registry.Submission, registry.Report, error)
	Remove(ctx context.Context, a workflow.Actor, name, reason string) error
}

// GitHub is the part of GitHub's API the worker calls. The concrete
// *githubapi.Client satisfies it.
type GitHub interface {
	PullRequestFiles(ctx context.Context, owner, repo string, number int) ([]githubapi.File, error)
	CompareFiles(ctx context.Context, owner, repo, base, head string) ([]githubapi.File, error)
	FileContent(ctx context.Context, owner, repo, path, ref string) ([]byte, error)
	SetStatus(ctx context.Context, owner, repo, sha string, s githubapi.Status) error
	UpsertComment(ctx context.Context, owner, repo string, number int, marker, body string) (int64, bool, error)
	PullRequestHead(ctx context.Context, owner, repo string, number int) (string, error)
	TreeFiles(ctx context.Context, owner, repo, ref string) ([]string, error)
}

// Locker serializes work on one key across every process sharing a store;
// storage.Store satisfies it (see storage.Store.Lock).
type Locker interface {
	Lock(ctx context.Context, key string) (held context.Context, unlock func(), err error)
}

// TxRunner runs a transaction; storage.Store satisfies it.
type TxRunner interface {
	InTx(ctx context.Context, fn func(storage.Tx) error) error
}

// DeliveryStore reads one delivery and writes in transactions;
// storage.Store satisfies it.
type DeliveryStore interface {
	TxRunner
	Delivery(ctx context.Context, id string) (registry.Delivery, error)
}

// Errors of Retry.
var (
	// ErrNotActionable: the delivery is an event registryd does not act
	// on, so there is nothing to run again.
	ErrNotActionable = fmt.Errorf("delivery is not an event registryd acts on: %w", registry.ErrConflict)
	// ErrInProgress: the delivery is queued or running already.
	ErrInProgress = fmt.Errorf("delivery is already queued or running: %w", registry.ErrConflict)
)

// Retry queues delivery id again: in one transaction it sets the delivery
// back to queued (clearing its error) and enqueues a new job. It refuses a
// delivery that is queued or running (ErrInProgress) unless force is set,
// since its job will run anyway, and an event registryd does not act on
// (ErrNotActionable). A delivery that does not exist is an error matching
// registry.ErrNotFound. The worker is idempotent, so running a delivery
// twice creates no duplicate submissions.
func Retry(ctx context.Context, store DeliveryStore, id string, force bool, now time.Time) (registry.Delivery, error) {
	if !validDeliveryID(id) {
		return registry.Delivery{}, &registry.ValidationError{Fields: []registry.FieldError{{Path: "delivery_id", Message: "not a GitHub delivery id"}}}
	}
	d, err := store.Delivery(ctx, id)
	if err != nil {
		return registry.Delivery{}, fmt.Errorf("load delivery %s: %w", id, err)
	}
	ev, err := decodeEvent(d.Payload)
	if err != nil {
		return registry.Delivery{}, fmt.Errorf("delivery %s: %w", id, err)
	}
	if !ev.Actionable() {
		return registry.Delivery{}, fmt.Errorf("delivery %s: %w", id, ErrNotActionable)
	}
	if !force && (d.Status == registry.DeliveryQueued || d.Status == registry.DeliveryRunning) {
		return registry.Delivery{}, fmt.Errorf("delivery %s (%s): %w", id, d.Status, ErrInProgress)
	}
	d.Status, d.Error, d.UpdatedAt = registry.DeliveryQueued, "", now.UTC().Truncate(time.Microsecond)
	err = store.InTx(ctx, func(tx storage.Tx) error {
		if err := tx.UpdateDelivery(ctx, d); err != nil {
			return err
		}
		return tx.Enqueue(ctx, deliveryJob(id, 0))
	})
	if err != nil {
		return registry.Delivery{}, fmt.Errorf("queue delivery %s: %w", id, err)
	}
	return d, nil
}

// decodeEvent reads the reduced event stored with a delivery.
func decodeEvent(payload []byte) (*webhook.Event, error) {
	var ev webhook.Event
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("stored event is not readable: %w", err)
	}
	return &ev, nil
}

// validDeliveryID accepts what webhook.Receive accepts as a delivery id.
func validDeliveryID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// maxErrorBytes bounds the error text stored with a delivery.
const maxErrorBytes = 2000

// safeText makes s fit to store and show: every character safetext does
// not let be shown on one line (newlines included) becomes U+FFFD, and the
// text is cut to at most max bytes.
func safeText(s string, max int) string {
	return safetext.Truncate(safetext.Replace(s, 0, utf8.RuneError), max)
}

// errText is the stored form of err.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return safeText(err.Error(), maxErrorBytes)
}
