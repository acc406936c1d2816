// Package problem turns every error registryd answers over HTTP into one
// answer: a status code and an RFC 9457 problem (application/problem+json)
// with a stable type, the refused fields and the request id. The API, the
// GitHub webhook and the HTML pages all ask For, so the same error gets the
// same status wherever it happens; the pages render the problem as HTML with
// that status.
//
// One table maps the domain's errors (registry.ErrNotFound,
// *registry.ValidationError, …) to statuses. A refusal the domain has no
// word for (a malformed parameter, a body that is not JSON, a method not
// allowed, a webhook body that arrives too slowly) is an *Error, which
// carries its own status and type; an *Error without a status lends the
// table's answer for the error it wraps a detail or headers of its own.
//
// Text that reaches a problem passes through safetext: a detail or field
// message can never carry a control, bidi or invisible character, and it is
// bounded. A 5xx never carries the internal error.
package problem

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

// TypePrefix starts every problem's `type`. The slug that follows
// (not-found, conflict, validation, …) is stable: clients may switch on it.
const TypePrefix = "urn:registryd:problem:"

// Problem is the body of every error response (RFC 9457,
// application/problem+json). Errors lists the refused fields of a
// validation error or a malformed request; it is omitted otherwise.
// Blocking lists the findings that block the publication of a submission
// whose verdict is fail (a *registry.BlockedError, 409); it is omitted
// otherwise.
type Problem struct {
	Type      string    `json:"type"`
	Title     string    `json:"title"`
	Status    int       `json:"status"`
	Detail    string    `json:"detail"`
	RequestID string    `json:"request_id"`
	Errors    []Field   `json:"errors,omitempty"`
	Blocking  []Finding `json:"blocking,omitempty"`
}

// Finding is one blocking finding of a Problem: its code, level, field
// path, line and message, as in the report.
type Finding struct {
	Code    string `json:"code"`
	Level   string `json:"level"`
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Field is one refused field: its path (`mcp.args[2]`, `reason`, `cursor`,
// a header name; empty for the input as a whole), its 1-based line in the
// submitted document (0 when unknown) and a message safe to show.
type Field struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Slug returns the part of p.Type after TypePrefix ("not-found").
func (p Problem) Slug() string { return p.Type[min(len(TypePrefix), len(p.Type)):] }

// Error is an error that carries its own answer. Status and Slug choose the
// status and problem type; when Status is zero they come from the table for
// Err, and Detail, Fields and Header only add to that answer. Detail is the
// human-readable explanation (the table's when empty); Fields are the
// refused fields; Header is added to the response (Allow, Retry-After,
// WWW-Authenticate). Err, when set, is the cause, for errors.Is and logs.
type Error struct {
	Status int
	Slug   string
	Title  string
	Detail string
	Fields []registry.FieldError
	Header http.Header
	Err    error
}

// Error returns the detail, or the cause's text when there is none.
func (e *Error) Error() string {
	if e.Detail == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Detail
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is makes an *Error with a status match the domain error that the table
// maps to that status, so code that tests errors.Is(err,
// registry.ErrInvalid) keeps working on a malformed request (400) as on a
// validation error (422).
func (e *Error) Is(target error) bool {
	if e.Status == http.StatusBadRequest && target == registry.ErrInvalid {
		return true
	}
	for _, row := range table {
		if row.status == e.Status && row.target == target {
			return true
		}
	}
	return false
}

// BadRequest refuses a malformed request parameter (a query parameter, a
// path segment, a header) named by path: 400 bad-request. It wraps a
// *registry.ValidationError naming the field, so it matches
// registry.ErrInvalid and errors.As finds the field.
func BadRequest(path, msg string) *Error {
	return BadParameters(registry.FieldError{Path: path, Message: msg})
}

// BadParameters is BadRequest for several malformed parameters at once.
func BadParameters(fields ...registry.FieldError) *Error {
	return &Error{Status: http.StatusBadRequest, Slug: "bad-request", Detail: "the request has a malformed parameter",
		Fields: fields, Err: &registry.ValidationError{Fields: fields}}
}

// MalformedBody refuses a body that is not the syntax it claims (not JSON,
// a duplicate key, trailing data): 400 malformed-body. msg is the detail;
// when path is not empty it also names the refused field (a duplicate key,
// the webhook's `payload`), and the error wraps a *registry.ValidationError
// as BadRequest's does.
func MalformedBody(path, msg string) *Error {
	e := &Error{Status: http.StatusBadRequest, Slug: "malformed-body", Detail: msg}
	if path != "" {
		e.Fields = []registry.FieldError{{Path: path, Message: msg}}
		e.Err = &registry.ValidationError{Fields: e.Fields}
	}
	return e
}

// UnsupportedMediaType refuses a body in a format the endpoint does not
// take: 415.
func UnsupportedMediaType(want string) *Error {
	return &Error{Status: http.StatusUnsupportedMediaType, Slug: "unsupported-media-type", Detail: "the body must be " + want}
}

// TooLarge refuses a body over limit bytes: 413.
func TooLarge(limit int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Slug: "too-large",
		Detail: "the body is over the limit of " + strconv.FormatInt(limit, 10) + " bytes"}
}

// NotFound says what does not exist: 404.
func NotFound(detail string) *Error {
	return &Error{Status: http.StatusNotFound, Slug: "not-found", Detail: detail}
}

// MethodNotAllowed refuses a method the resource does not support, listing
// those it does in Allow: 405.
func MethodNotAllowed(allow string) *Error {
	return &Error{Status: http.StatusMethodNotAllowed, Slug: "method-not-allowed",
		Detail: "the resource does not support this method", Header: http.Header{"Allow": {allow}}}
}

// row is one line of the domain error table.
type row struct {
	target error
	status int
	slug   string
}

// table maps the domain's sentinel errors to statuses, in the order they are
// tried: ErrTooLarge comes before ErrInvalid because an oversized manifest
// matches both.
var table = []row{
	{registry.ErrTooLarge, http.StatusRequestEntityTooLarge, "too-large"},
	{registry.ErrInvalid, http.StatusUnprocessableEntity, "validation"},
	{registry.ErrUnauthenticated, http.StatusUnauthorized, "unauthenticated"},
	{registry.ErrForbidden, http.StatusForbidden, "forbidden"},
	{registry.ErrNotFound, http.StatusNotFound, "not-found"},
	{registry.ErrConflict, http.StatusConflict, "conflict"},
}

// titles names the problem types. A slug not listed is titled with the
// status text.
var titles = map[string]string{
	"bad-request":            "Bad request",
	"malformed-body":         "Malformed body",
	"unsupported-media-type": "Unsupported media type",
	"too-large":              "Request too large",
	"method-not-allowed":     "Method not allowed",
	"not-found":              "Not found",
	"rate-limited":           "Too many requests",
	"unavailable":            "Service unavailable",
	"internal":               "Internal error",
	"validation":             "Invalid input",
	"unauthenticated":        "Authentication required",
	"forbidden":              "Forbidden",
	"conflict":               "Conflict",
}

// MaxDetail bounds the text of a problem's detail and of each field's
// message, in bytes.
const MaxDetail = 1000

// internalDetail is the detail of every 5xx the server did not choose to
// explain.
const internalDetail = "the server failed to handle the request; quote the request id when reporting it"

// For returns the problem that answers err, the headers to send with it,
// and whether it is a server-side failure (which the caller logs). The
// problem has no request id; Write adds it. For never returns a 2xx or 3xx
// status; an error nothing claims is a 500 that does not echo err.
func For(err error) (Problem, http.Header, bool) {
	var e *Error
	if errors.As(err, &e) {
		if e.Status == 0 {
			p, h, internal := For(e.Err)
			if e.Detail != "" && !internal {
				p.Detail = clean(e.Detail)
			}
			if len(e.Fields) > 0 {
				p.Errors = fields(e.Fields)
			}
			return p, merge(h, e.Header), internal
		}
		p := Problem{Type: TypePrefix + e.Slug, Title: title(e.Slug, e.Title, e.Status), Status: e.Status,
			Detail: clean(e.Detail), Errors: fields(e.Fields)}
		if e.Status >= 500 && e.Detail == "" {
			p.Detail = internalDetail
		}
		return p, e.Header, e.Status >= 500
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// A client that went away is not a server failure; a deadline is.
		return Problem{Type: TypePrefix + "unavailable", Title: titles["unavailable"], Status: http.StatusServiceUnavailable,
			Detail: "the request was cancelled or timed out"}, nil, !errors.Is(err, context.Canceled)
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return For(TooLarge(mbe.Limit))
	}
	for _, row := range table {
		if err == nil || !errors.Is(err, row.target) {
			continue
		}
		p := Problem{Type: TypePrefix + row.slug, Title: titles[row.slug], Status: row.status, Detail: clean(err.Error())}
		if row.status == http.StatusNotFound {
			// The store's wording names the backend; a handler says what
			// is missing with NotFound.
			p.Detail = "the resource does not exist"
		}
		var be *registry.BlockedError
		if errors.As(err, &be) {
			p.Blocking = make([]Finding, len(be.Findings))
			for i, f := range be.Findings {
				p.Blocking[i] = Finding{Code: f.Code, Level: f.Level.String(), Path: clean(f.Path), Line: f.Line, Message: clean(f.Message)}
			}
		}
		var ve *registry.ValidationError
		if errors.As(err, &ve) {
			p.Errors = fields(ve.Fields)
			p.Detail = "the input was refused: see errors"
			if ve.TooLarge {
				p.Detail = "the input is over its size limit"
			}
		}
		var h http.Header
		if row.status == http.StatusUnauthorized {
			h = http.Header{"Www-Authenticate": {`Bearer realm="registryd"`}}
		}
		return p, h, false
	}
	return Problem{Type: TypePrefix + "internal", Title: titles["internal"], Status: http.StatusInternalServerError,
		Detail: internalDetail}, nil, true
}

func title(slug, given string, status int) string {
	if given != "" {
		return given
	}
	if t, ok := titles[slug]; ok {
		return t
	}
	return http.StatusText(status)
}

// merge returns the headers of a and b, b's winning.
func merge(a, b http.Header) http.Header {
	if len(b) == 0 {
		return a
	}
	out := a.Clone()
	if out == nil {
		out = http.Header{}
	}
	for k, vs := range b {
		out[k] = vs
	}
	return out
}

// clean makes text fit for a problem: safe to show on one line, at most
// MaxDetail bytes.
func clean(s string) string {
	return safetext.Truncate(safetext.Replace(s, 0, '\uFFFD'), MaxDetail)
}

func fields(fs []registry.FieldError) []Field {
	if len(fs) == 0 {
		return nil
	}
	out := make([]Field, len(fs))
	for i, f := range fs {
		out[i] = Field{Path: clean(f.Path), Line: f.Line, Message: clean(f.Message)}
	}
	return out
}

type ctxKey struct{}

// WithRequestID returns a copy of ctx carrying the request's id, which
// Write puts in every problem.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxKey{}, id)
}

// RequestID returns the request id ctx carries, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}

// Write answers r with p and the headers h: application/problem+json, the
// request id of r's context, Cache-Control no-store, and no body for HEAD.
// It returns p as written.
func Write(w http.ResponseWriter, r *http.Request, p Problem, h http.Header) Problem {
	p.RequestID = RequestID(r.Context())
	body, err := json.Marshal(p)
	if err != nil {
		p = Problem{Type: TypePrefix + "internal", Title: titles["internal"], Status: http.StatusInternalServerError,
			Detail: internalDetail, RequestID: p.RequestID}
		body, _ = json.Marshal(p)
	}
	body = append(body, '\n')
	hd := w.Header()
	for k, vs := range h {
		hd[k] = vs
	}
	hd.Set("Content-Type", "application/problem+json")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
	return p
}
