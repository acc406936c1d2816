package ghingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/webhook"
)

// ReceiverConfig configures a Receiver.
type ReceiverConfig struct {
	// Secrets are the webhook secrets; a delivery signed with any one of
	// them is accepted, so a secret can be rotated by configuring the new
	// one next to the old. At least one non-empty secret is required.
	Secrets [][]byte
	// Store records deliveries and enqueues their jobs (a storage.Store).
	Store TxRunner
	// MaxAttempts bounds the runs of a failing job; 0 means
	// DefaultMaxAttempts.
	MaxAttempts int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives one line per refused or failed delivery; nil
	// discards. Secrets and payloads are never logged.
	Logger *slog.Logger
	// BodyBudget bounds the bytes of delivery bodies held in memory at
	// once across every request (see webhook.BodyBudget); 0 means
	// webhook.DefaultBodyBudget.
	BodyBudget int64
	// BodyTimeout bounds how long a delivery's body may take to arrive,
	// from the moment its headers are accepted; 0 means
	// DefaultBodyTimeout.
	BodyTimeout time.Duration
	// Observe, when non-nil, is told of every delivery: its event header
	// (as sent, unverified when refused) and its outcome, one of
	// OutcomeQueued, OutcomeIgnored, OutcomeDuplicate or a Refused*
	// outcome. It must be safe for concurrent use.
	Observe func(event, outcome string)
}

// DefaultBodyTimeout is how long a delivery's body may take to arrive.
// GitHub itself gives up on a delivery that is not answered within 10
// seconds, so a slower body is not GitHub's.
const DefaultBodyTimeout = 10 * time.Second

// busyRetryAfter is the Retry-After, in seconds, of a delivery refused
// because the body budget is spent: bodies in flight end within
// DefaultBodyTimeout.
const busyRetryAfter = "10"

// Receiver is the POST /v1/webhooks/github handler. It is safe for
// concurrent use.
type Receiver struct {
	secrets     [][]byte
	store       TxRunner
	maxAttempts int
	now         func() time.Time
	log         *slog.Logger
	budget      *webhook.BodyBudget
	bodyTimeout time.Duration
	observe     func(event, outcome string)
}

// NewReceiver validates cfg and returns a Receiver. It refuses a
// configuration without a usable secret, without a store, or with a body
// budget under webhook.MinBodyBudget.
func NewReceiver(cfg ReceiverConfig) (*Receiver, error) {
	var secrets [][]byte
	for _, s := range cfg.Secrets {
		if len(s) > 0 {
			secrets = append(secrets, append([]byte(nil), s...))
		}
	}
	if len(secrets) == 0 {
		return nil, fmt.Errorf("ghingest: no webhook secret configured: %w", registry.ErrInvalid)
	}
	if cfg.Store == nil {
		return nil, fmt.Errorf("ghingest: no store: %w", registry.ErrInvalid)
	}
	if cfg.BodyBudget == 0 {
		cfg.BodyBudget = webhook.DefaultBodyBudget
	}
	budget, err := webhook.NewBodyBudget(cfg.BodyBudget)
	if err != nil {
		return nil, fmt.Errorf("ghingest: %w", err)
	}
	r := &Receiver{secrets: secrets, store: cfg.Store, maxAttempts: cfg.MaxAttempts, now: cfg.Now, log: cfg.Logger,
		budget: budget, bodyTimeout: cfg.BodyTimeout, observe: cfg.Observe}
	if r.bodyTimeout <= 0 {
		r.bodyTimeout = DefaultBodyTimeout
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.observe == nil {
		r.observe = func(string, string) {}
	}
	return r, nil
}

// The outcomes a Receiver reports in its answer's "status".
const (
	// OutcomeQueued: recorded, and a job will process it (202).
	OutcomeQueued = "queued"
	// OutcomeIgnored: recorded; registryd does not act on this event (200).
	OutcomeIgnored = "ignored"
	// OutcomeDuplicate: this delivery was recorded before; nothing new
	// happens (200).
	OutcomeDuplicate = "duplicate"
)

// The outcomes of refused deliveries, as ReceiverConfig.Observe is told.
const (
	RefusedUnauthenticated = "unauthenticated" // 401: no or wrong signature
	RefusedMalformed       = "malformed"       // 400: headers or payload
	RefusedTooLarge        = "too_large"       // 413
	RefusedTimeout         = "timeout"         // 408: the body was too slow
	RefusedBusy            = "busy"            // 503: the body budget is spent
	Failed                 = "failed"          // 5xx: the server could not record it
)

// refusalOutcome names the outcome of a delivery answered with status.
func refusalOutcome(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return RefusedUnauthenticated
	case http.StatusRequestEntityTooLarge:
		return RefusedTooLarge
	case http.StatusRequestTimeout:
		return RefusedTimeout
	case http.StatusServiceUnavailable:
		return RefusedBusy
	}
	if status >= 500 {
		return Failed
	}
	return RefusedMalformed
}

// Ack is the body of a successful answer.
type Ack struct {
	DeliveryID string `json:"delivery_id"`
	Event      string `json:"event"`
	Action     string `json:"action,omitempty"`
	Status     string `json:"status"`
}

// ServeHTTP receives one delivery. A request whose headers cannot be a
// delivery's is refused before its body is read: a missing or malformed
// signature is 401, a missing event or delivery header 400, a declared
// length over webhook.MaxBodyBytes 413, and a body the budget cannot hold
// now 503 with Retry-After. A body that takes longer than the body timeout
// is 408. The signature is checked before anything is parsed; a wrong one
// is 401 and nothing is stored. A body over webhook.MaxBodyBytes is 413, a
// malformed delivery 400 naming the header or payload field. A valid
// delivery is recorded with
// its reduced event and, when registryd acts on it, a job is enqueued in
// the same transaction (202, status "queued"); other events are recorded
// and acknowledged (200, "ignored"), and a delivery ID seen before creates
// no work (200, "duplicate").
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ack, status, err := rc.serve(w, r)
	event := r.Header.Get(webhook.EventHeader)
	if err != nil {
		p, _, _ := problem.For(explain(err))
		rc.observe(event, refusalOutcome(p.Status))
		writeProblem(w, r, rc.log, err)
		return
	}
	rc.observe(event, ack.Status)
	if err := writeJSON(w, r, status, ack); err != nil {
		writeProblem(w, r, rc.log, err)
	}
}

// serve receives and records one delivery and returns the answer to write.
func (rc *Receiver) serve(w http.ResponseWriter, r *http.Request) (Ack, int, error) {
	// The server's own read timeout is meant for API requests; a
	// delivery's body has less time. A deadline is the wall clock's, not
	// the injected one. Handlers without a deadline to set (tests calling
	// ServeHTTP) keep the server's.
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(rc.bodyTimeout))
	ev, err := webhook.Receive(r, rc.secrets, rc.budget)
	if err != nil {
		return Ack{}, 0, err
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return Ack{}, 0, fmt.Errorf("encode event: %w", err)
	}
	now := rc.now().UTC().Truncate(time.Microsecond)
	d := registry.Delivery{
		ID: ev.DeliveryID, Event: ev.Name, Action: ev.Action, Repo: ev.Repo, Payload: payload,
		Status: registry.DeliveryIgnored, Submissions: []string{}, ReceivedAt: now, UpdatedAt: now,
	}
	act := ev.Actionable()
	if act {
		d.Status = registry.DeliveryQueued
	}
	var created bool
	err = rc.store.InTx(r.Context(), func(tx storage.Tx) error {
		var err error
		created, err = tx.CreateDelivery(r.Context(), d)
		if err != nil || !created || !act {
			return err
		}
		return tx.Enqueue(r.Context(), deliveryJob(d.ID, rc.maxAttempts))
	})
	if err != nil {
		return Ack{}, 0, fmt.Errorf("record delivery %s: %w", d.ID, err)
	}
	ack := Ack{DeliveryID: d.ID, Event: d.Event, Action: d.Action, Status: OutcomeIgnored}
	status := http.StatusOK
	switch {
	case !created:
		ack.Status = OutcomeDuplicate
	case act:
		ack.Status, status = OutcomeQueued, http.StatusAccepted
	}
	return ack, status, nil
}

// writeJSON encodes v into a buffer before writing the header.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) error {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
	return nil
}

// badParam refuses a malformed query parameter or path segment.
func badParam(path, msg string) error { return problem.BadRequest(path, msg) }

// explain gives the webhook's own answers: how a 401 is to authenticate,
// the 503 of a full body budget (with Retry-After) and the 408 of a body
// that arrives too slowly, which the domain has no word for; the statuses
// of everything else come from the problem table, as in the API.
func explain(err error) error {
	switch {
	case errors.Is(err, registry.ErrUnauthenticated):
		return &problem.Error{Err: err, Detail: "the X-Hub-Signature-256 header is missing or does not match a configured secret",
			Header: http.Header{"Www-Authenticate": {`HMAC-SHA256 realm="registryd", header="X-Hub-Signature-256"`}}}
	case errors.Is(err, webhook.ErrBusy):
		return &problem.Error{Status: http.StatusServiceUnavailable, Slug: "unavailable", Err: err,
			Detail: "too many delivery bodies are being read at once; retry after the number of seconds in Retry-After",
			Header: http.Header{"Retry-After": {busyRetryAfter}}}
	case errors.Is(err, webhook.ErrBodyTimeout):
		return &problem.Error{Status: http.StatusRequestTimeout, Slug: "timeout", Title: "Request timeout", Err: err,
			Detail: "the body did not arrive in time"}
	case errors.Is(err, registry.ErrTooLarge) && !errors.As(err, new(*registry.ValidationError)):
		return &problem.Error{Err: err, Detail: "the body is over the limit of " + strconv.Itoa(webhook.MaxBodyBytes) + " bytes"}
	}
	return err
}

// writeProblem answers r with the problem for err, the status the API gives
// the same error, logging server-side failures once, here.
func writeProblem(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	p, h, internal := problem.For(explain(err))
	level := slog.LevelDebug
	switch {
	case p.Status == http.StatusServiceUnavailable || p.Status == http.StatusRequestTimeout:
		// Under a flood of bodies, or from a slow client: worth seeing,
		// not a failure of the server.
		level = slog.LevelWarn
	case internal:
		level = slog.LevelError
	}
	log.LogAttrs(r.Context(), level, "webhook request refused", slog.String("request_id", problem.RequestID(r.Context())),
		slog.Int("status", p.Status), slog.String("type", p.Type), slog.String("error", errText(err)))
	problem.Write(w, r, p, h)
}
