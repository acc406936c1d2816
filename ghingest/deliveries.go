package ghingest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/registryd/registryd/listing"
	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
	"github.com/registryd/registryd/storage"
)

// DeliveryReader is the part of storage.Reader the deliveries listing uses.
type DeliveryReader interface {
	Delivery(ctx context.Context, id string) (registry.Delivery, error)
	Deliveries(ctx context.Context, p storage.Page) ([]registry.Delivery, string, error)
}

// DeliveriesPath is where Deliveries is mounted.
const DeliveriesPath = "/v1/webhooks/deliveries"

// Deliveries serves GET /v1/webhooks/deliveries (recent deliveries, newest
// first, paged with ?limit= and ?cursor=) and GET
// /v1/webhooks/deliveries/{id} (one delivery). It does not authenticate:
// mount it behind a maintainer check (api.Deps.Deliveries is). It is safe
// for concurrent use.
type Deliveries struct {
	reader DeliveryReader
	public string
	log    *slog.Logger
}

// NewDeliveries returns the listing handler over reader. publicURL, when
// set, makes the report links absolute.
func NewDeliveries(reader DeliveryReader, publicURL string, logger *slog.Logger) *Deliveries {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Deliveries{reader: reader, public: strings.TrimRight(publicURL, "/"), log: logger}
}

// DeliveryJSON is one delivery as the listing shows it. The payload is not
// shown.
type DeliveryJSON struct {
	ID          string           `json:"id"`
	Event       string           `json:"event"`
	Action      string           `json:"action"`
	Repository  string           `json:"repository"`
	Status      string           `json:"status"`
	Error       string           `json:"error"`
	Submissions []SubmissionLink `json:"submissions"`
	ReceivedAt  time.Time        `json:"received_at"`
	UpdatedAt   time.Time        `json:"updated_at"`
}

// SubmissionLink names a submission a delivery produced and its report.
type SubmissionLink struct {
	ID        string `json:"id"`
	ReportURL string `json:"report_url"`
}

// DeliveryList is a page of deliveries; NextCursor is null on the last.
type DeliveryList struct {
	Items      []DeliveryJSON `json:"items"`
	NextCursor *string        `json:"next_cursor"`
}

func (h *Deliveries) wire(d registry.Delivery) DeliveryJSON {
	out := DeliveryJSON{
		ID: d.ID, Event: d.Event, Action: d.Action, Repository: d.Repo, Status: string(d.Status),
		Error: safeText(d.Error, maxErrorBytes), Submissions: make([]SubmissionLink, 0, len(d.Submissions)),
		ReceivedAt: d.ReceivedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(),
	}
	for _, id := range d.Submissions {
		out.Submissions = append(out.Submissions, SubmissionLink{ID: id, ReportURL: h.public + registry.SubmissionReportPath(id)})
	}
	return out
}

// ServeHTTP answers GET and HEAD; any other method is 405.
func (h *Deliveries) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.serve(w, r); err != nil {
		writeProblem(w, r, h.log, err)
	}
}

func (h *Deliveries) serve(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return problem.MethodNotAllowed("GET, HEAD")
	}
	rest, ok := strings.CutPrefix(r.URL.Path, DeliveriesPath)
	if !ok {
		return problem.NotFound("no such resource")
	}
	switch {
	case rest == "" || rest == "/":
		return h.list(w, r)
	case strings.Count(rest, "/") == 1:
		return h.one(w, r, rest[1:])
	}
	return problem.NotFound("no such resource")
}

func (h *Deliveries) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	for k, vs := range q {
		if k != "limit" && k != "cursor" {
			name := k
			if len(name) > 64 || !safetext.Valid(name, 0) || strings.ContainsAny(name, "<>\"'&`") {
				name = ""
			}
			return badParam(name, "unknown query parameter")
		}
		if len(vs) > 1 {
			return badParam(k, "must be given once")
		}
	}
	cursor := q.Get("cursor")
	if len(cursor) > 512 || !safetext.Valid(cursor, 0) || strings.ContainsAny(cursor, " <>\"'&`") {
		return badParam("cursor", "is not a cursor this server returned")
	}
	scope := listing.Scope(r, "")
	var p storage.Page
	var err error
	if p.Cursor, err = listing.StoreCursor(cursor, scope); err != nil {
		return err
	}
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 1 || n > storage.MaxLimit {
			return badParam("limit", "must be an integer from 1 to "+strconv.Itoa(storage.MaxLimit))
		}
		p.Limit = n
	}
	ds, next, err := h.reader.Deliveries(r.Context(), p)
	if err != nil {
		if isInvalid(err) {
			return badParam("cursor", "is not a cursor this server returned")
		}
		return err
	}
	out := DeliveryList{Items: make([]DeliveryJSON, 0, len(ds))}
	for _, d := range ds {
		out.Items = append(out.Items, h.wire(d))
	}
	next = listing.Cursor(next, scope)
	if next != "" {
		out.NextCursor = &next
	}
	return listing.Write(w, r, listing.Page{Body: out, Next: next, Base: h.public, CacheControl: "private, no-cache"})
}

func (h *Deliveries) one(w http.ResponseWriter, r *http.Request, id string) error {
	if len(r.URL.Query()) > 0 {
		return badParam("", "this resource takes no query parameters")
	}
	if !validDeliveryID(id) {
		return badParam("id", "not a GitHub delivery id")
	}
	d, err := h.reader.Delivery(r.Context(), id)
	if errors.Is(err, registry.ErrNotFound) {
		return problem.NotFound("no such delivery")
	}
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, struct {
		Delivery DeliveryJSON `json:"delivery"`
	}{h.wire(d)})
}

func isInvalid(err error) bool { return errors.Is(err, registry.ErrInvalid) }
