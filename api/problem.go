package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
)

// ProblemTypePrefix starts every problem's `type`. The slug that follows
// (not-found, conflict, validation, …) is stable: clients may switch on it.
const ProblemTypePrefix = problem.TypePrefix

// Problem is the body of every error response (RFC 9457,
// application/problem+json); see problem.Problem.
type Problem = problem.Problem

// ProblemField is one refused field of a Problem; see problem.Field.
type ProblemField = problem.Field

// ProblemFinding is one finding that blocks publication, in a Problem;
// see problem.Finding.
type ProblemFinding = problem.Finding

// The API's own refusals, by the names its handlers use.
var (
	badRequest           = problem.BadRequest
	unsupportedMediaType = problem.UnsupportedMediaType
	tooLarge             = problem.TooLarge
)

// malformedBody refuses a body that is not the syntax it claims.
func malformedBody(msg string) error { return problem.MalformedBody("", msg) }

// invalid refuses a body whose fields are wrong.
func invalid(fields ...registry.FieldError) error {
	return &registry.ValidationError{Fields: fields}
}

// notFoundAs replaces a not-found error with a 404 problem saying what is
// missing; any other error is returned as is.
func notFoundAs(err error, detail string) error {
	if errors.Is(err, registry.ErrNotFound) {
		return problem.NotFound(detail)
	}
	return err
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
	p, h, internal := problem.For(err)
	p.RequestID = requestIDFrom(r.Context())
	if internal {
		s.log.LogAttrs(r.Context(), slog.LevelError, "request failed",
			slog.String("request_id", p.RequestID), slog.String("method", r.Method),
			slog.String("route", routePattern(r)), slog.Int("status", p.Status), slog.Any("error", err))
	} else {
		s.log.LogAttrs(r.Context(), slog.LevelDebug, "request refused",
			slog.String("request_id", p.RequestID), slog.Int("status", p.Status), slog.String("type", p.Type))
	}
	problem.Write(w, r, p, h)
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
