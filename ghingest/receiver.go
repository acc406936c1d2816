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

	"github.com/registryd/registryd/api"
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
	// MaxAttempts bounds River's retries of a job; 0 means
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
		budget: budget, bodyTimeout: cfg.BodyTimeout}
	if r.bodyTimeout <= 0 {
		r.bodyTimeout = DefaultBodyTimeout
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
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
	if err := rc.serve(w, r); err != nil {
		writeProblem(w, r, rc.log, err)
	}
}

func (rc *Receiver) serve(w http.ResponseWriter, r *http.Request) error {
	// The server's own read timeout is meant for API requests; a
	// delivery's body has less time. A deadline is the wall clock's, not
	// the injected one. Handlers without a deadline to set (tests calling
	// ServeHTTP) keep the server's.
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(rc.bodyTimeout))
	ev, err := webhook.Receive(r, rc.secrets, rc.budget)
	if err != nil {
		return err
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode event: %w", err)
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
		return tx.InsertJob(r.Context(), JobArgs{DeliveryID: d.ID}, jobOpts(rc.maxAttempts))
	})
	if err != nil {
		return fmt.Errorf("record delivery %s: %w", d.ID, err)
	}
	ack := Ack{DeliveryID: d.ID, Event: d.Event, Action: d.Action, Status: OutcomeIgnored}
	status := http.StatusOK
	switch {
	case !created:
		ack.Status = OutcomeDuplicate
	case act:
		ack.Status, status = OutcomeQueued, http.StatusAccepted
	}
	return writeJSON(w, r, status, ack)
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

// problem is an error with the status and problem type it answers with.
type problem struct {
	status int
	slug   string
	title  string
	detail string
	fields []registry.FieldError
}

func (p *problem) Error() string { return p.detail }

func badParam(path, msg string) error {
	return &problem{status: http.StatusBadRequest, slug: "bad-request", title: "Bad request",
		detail: "the request has a malformed parameter", fields: []registry.FieldError{{Path: path, Message: msg}}}
}

// problemFor maps err to the answer: the webhook's own refusals first, then
// the domain sentinels, else a 500 that does not echo err.
func problemFor(err error) *problem {
	var p *problem
	var ve *registry.ValidationError
	switch {
	case errors.As(err, &p):
		return p
	case errors.Is(err, registry.ErrUnauthenticated):
		return &problem{status: http.StatusUnauthorized, slug: "unauthenticated", title: "Authentication required",
			detail: "the X-Hub-Signature-256 header is missing or does not match a configured secret"}
	case errors.Is(err, webhook.ErrBusy):
		return &problem{status: http.StatusServiceUnavailable, slug: "unavailable", title: "Service unavailable",
			detail: "too many delivery bodies are being read at once; retry after the number of seconds in Retry-After"}
	case errors.Is(err, webhook.ErrBodyTimeout):
		return &problem{status: http.StatusRequestTimeout, slug: "timeout", title: "Request timeout",
			detail: "the body did not arrive in time"}
	case errors.Is(err, registry.ErrTooLarge):
		return &problem{status: http.StatusRequestEntityTooLarge, slug: "too-large", title: "Request too large",
			detail: "the body is over the limit of " + strconv.Itoa(webhook.MaxBodyBytes) + " bytes"}
	case errors.As(err, &ve):
		return &problem{status: http.StatusBadRequest, slug: "validation", title: "Invalid input",
			detail: "the delivery was refused: see errors", fields: ve.Fields}
	case errors.Is(err, registry.ErrInvalid):
		return &problem{status: http.StatusBadRequest, slug: "validation", title: "Invalid input", detail: "the delivery was refused"}
	case errors.Is(err, registry.ErrNotFound):
		return &problem{status: http.StatusNotFound, slug: "not-found", title: "Not found", detail: "no such delivery"}
	}
	return &problem{status: http.StatusInternalServerError, slug: "internal", title: "Internal error",
		detail: "the server failed to handle the request; quote the request id when reporting it"}
}

// writeProblem answers r with the RFC 9457 problem for err, in the API's
// format, logging server-side failures once, here.
func writeProblem(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	p := problemFor(err)
	out := api.Problem{Type: api.ProblemTypePrefix + p.slug, Title: p.title, Status: p.status,
		Detail: p.detail, RequestID: api.RequestIDFrom(r.Context())}
	for _, f := range p.fields {
		out.Errors = append(out.Errors, api.ProblemField{Path: safeText(f.Path, 200), Line: f.Line, Message: safeText(f.Message, 500)})
	}
	level := slog.LevelDebug
	switch {
	case p.status == http.StatusServiceUnavailable || p.status == http.StatusRequestTimeout:
		// Under a flood of bodies, or from a slow client: worth seeing,
		// not a failure of the server.
		level = slog.LevelWarn
	case p.status >= 500:
		level = slog.LevelError
	}
	log.LogAttrs(r.Context(), level, "webhook request refused", slog.String("request_id", out.RequestID),
		slog.Int("status", p.status), slog.String("type", out.Type), slog.String("error", errText(err)))
	body, mErr := json.Marshal(out)
	if mErr != nil {
		body = []byte(`{"type":"` + api.ProblemTypePrefix + `internal","title":"Internal error","status":500}`)
		p.status = http.StatusInternalServerError
	}
	body = append(body, '\n')
	h := w.Header()
	switch p.status {
	case http.StatusUnauthorized:
		h.Set("Www-Authenticate", `HMAC-SHA256 realm="registryd", header="X-Hub-Signature-256"`)
	case http.StatusServiceUnavailable:
		h.Set("Retry-After", busyRetryAfter)
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(p.status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
