package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/registryd/registryd/registry"
)

// ProblemTypePrefix starts every problem's `type`. The slug that follows
// (not-found, conflict, validation, …) is stable: clients may switch on it.
const ProblemTypePrefix = "urn:registryd:problem:"

// Problem is the body of every error response (RFC 9457,
// application/problem+json). Errors lists the refused fields of a
// validation error (status 422, 400 or 413); it is omitted otherwise.
type Problem struct {
	Type      string         `json:"type"`
	Title     string         `json:"title"`
	Status    int            `json:"status"`
	Detail    string         `json:"detail"`
	RequestID string         `json:"request_id"`
	Errors    []ProblemField `json:"errors,omitempty"`
}

// ProblemField is one refused field: its path (`mcp.args[2]`, `reason`,
// `cursor`; empty for the document as a whole), its 1-based line in the
// submitted document (0 when unknown) and a message safe to show.
type ProblemField struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// apiError is an error the API itself raises, with the status and problem
// type it answers with.
type apiError struct {
	status int
	slug   string
	detail string
	fields []registry.FieldError
	header http.Header
}

func (e *apiError) Error() string { return e.detail }

// badRequest refuses a malformed parameter named by path.
func badRequest(path, msg string) error {
	return &apiError{status: http.StatusBadRequest, slug: "bad-request", detail: "the request has a malformed parameter",
		fields: []registry.FieldError{{Path: path, Message: msg}}}
}

// malformedBody refuses a body that is not the syntax it claims.
func malformedBody(msg string) error {
	return &apiError{status: http.StatusBadRequest, slug: "malformed-body", detail: msg}
}

// unsupportedMediaType refuses a body in a format the endpoint does not take.
func unsupportedMediaType(want string) error {
	return &apiError{status: http.StatusUnsupportedMediaType, slug: "unsupported-media-type",
		detail: "the body must be " + want}
}

// tooLarge refuses a body over the size limit.
func tooLarge(limit int64) error {
	return &apiError{status: http.StatusRequestEntityTooLarge, slug: "too-large",
		detail: "the body is over the limit of " + strconv.FormatInt(limit, 10) + " bytes"}
}

// invalid refuses a body whose fields are wrong.
func invalid(fields ...registry.FieldError) error {
	return &registry.ValidationError{Fields: fields}
}

// notFoundAs replaces a not-found error with a 404 problem saying what is
// missing; any other error is returned as is.
func notFoundAs(err error, detail string) error {
	if errors.Is(err, registry.ErrNotFound) {
		return &apiError{status: http.StatusNotFound, slug: "not-found", detail: detail}
	}
	return err
}

// errorRow is one line of the domain error table.
type errorRow struct {
	target error
	status int
	slug   string
	title  string
}

// errorTable maps the domain's sentinel errors to statuses, in the order
// they are tried: ErrTooLarge comes before ErrInvalid because an oversized
// manifest matches both.
var errorTable = []errorRow{
	{registry.ErrTooLarge, http.StatusRequestEntityTooLarge, "too-large", "Request too large"},
	{registry.ErrInvalid, http.StatusUnprocessableEntity, "validation", "Invalid input"},
	{registry.ErrUnauthenticated, http.StatusUnauthorized, "unauthenticated", "Authentication required"},
	{registry.ErrForbidden, http.StatusForbidden, "forbidden", "Forbidden"},
	{registry.ErrNotFound, http.StatusNotFound, "not-found", "Not found"},
	{registry.ErrConflict, http.StatusConflict, "conflict", "Conflict"},
}

// titles names the API's own problem types.
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

// problemFor maps err to the problem the client sees, and reports whether
// it is a server-side failure.
func problemFor(err error) (Problem, http.Header, bool) {
	var ae *apiError
	if errors.As(err, &ae) {
		p := Problem{Type: ProblemTypePrefix + ae.slug, Title: titles[ae.slug], Status: ae.status, Detail: safeText(ae.detail)}
		p.Errors = fieldsOf(ae.fields)
		return p, ae.header, ae.status >= 500
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// A client that went away is not a server failure; a deadline is.
		return Problem{Type: ProblemTypePrefix + "unavailable", Title: titles["unavailable"], Status: http.StatusServiceUnavailable,
			Detail: "the request was cancelled or timed out"}, nil, !errors.Is(err, context.Canceled)
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return problemFor(tooLarge(mbe.Limit))
	}
	for _, row := range errorTable {
		if !errors.Is(err, row.target) {
			continue
		}
		p := Problem{Type: ProblemTypePrefix + row.slug, Title: row.title, Status: row.status, Detail: safeText(err.Error())}
		if row.status == http.StatusNotFound {
			// The store's wording names the backend; the handler says
			// what is missing through notFoundAs.
			p.Detail = "the resource does not exist"
		}
		var ve *registry.ValidationError
		if errors.As(err, &ve) {
			p.Errors = fieldsOf(ve.Fields)
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
	return Problem{Type: ProblemTypePrefix + "internal", Title: titles["internal"], Status: http.StatusInternalServerError,
		Detail: "the server failed to handle the request; quote the request id when reporting it"}, nil, true
}

func fieldsOf(fs []registry.FieldError) []ProblemField {
	if len(fs) == 0 {
		return nil
	}
	out := make([]ProblemField, len(fs))
	for i, f := range fs {
		out[i] = ProblemField{Path: safeText(f.Path), Line: f.Line, Message: safeText(f.Message)}
	}
	return out
}

// maxDetail bounds the text of a problem's detail and messages.
const maxDetail = 1000

// safeText makes s safe to show in a terminal or a page: invalid UTF-8,
// control, format (bidi overrides, zero-width) and other invisible
// characters become U+FFFD, and the text is cut at maxDetail bytes. JSON
// encoding then escapes what HTML would read.
func safeText(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
			clean = false
			break
		}
	}
	if clean && len(s) <= maxDetail {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= maxDetail {
			b.WriteString("…")
			break
		}
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// handlerFunc is an API handler: it writes a successful response itself and
// returns any failure for writeError.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts fn to http.Handler: the one place where errors become
// responses.
func (s *server) handle(fn handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}
}

// writeError answers r with the problem for err, logging server-side
// failures once, here.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	p, h, internal := problemFor(err)
	p.RequestID = requestIDFrom(r.Context())
	if internal {
		s.log.LogAttrs(r.Context(), slog.LevelError, "request failed",
			slog.String("request_id", p.RequestID), slog.String("method", r.Method),
			slog.String("route", routePattern(r)), slog.Int("status", p.Status), slog.Any("error", err))
	} else {
		s.log.LogAttrs(r.Context(), slog.LevelDebug, "request refused",
			slog.String("request_id", p.RequestID), slog.Int("status", p.Status), slog.String("type", p.Type))
	}
	body, mErr := json.Marshal(p)
	if mErr != nil {
		body = []byte(`{"type":"` + ProblemTypePrefix + `internal","title":"Internal error","status":500}`)
		p.Status = http.StatusInternalServerError
	}
	for k, vs := range h {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	if r.Method != http.MethodHead {
		w.Write(body)
		w.Write([]byte("\n"))
	}
}

// writeJSON encodes v into a buffer and only then writes the header, so an
// encoding failure still becomes a clean 500.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	if w.Header().Get("Cache-Control") == "" {
		w.Header().Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
	return nil
}
