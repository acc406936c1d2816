package problem

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
)

func TestFor(t *testing.T) {
	secret := errors.New("pq: password authentication failed for user \"registryd\"")
	tests := []struct {
		name         string
		err          error
		wantStatus   int
		wantType     string
		wantInternal bool
		wantFields   []Field
		wantHeader   http.Header
	}{
		{"not found", fmt.Errorf("load addon: %w", registry.ErrNotFound), 404, "not-found", false, nil, nil},
		{"conflict", fmt.Errorf("approve: %w", registry.ErrConflict), 409, "conflict", false, nil, nil},
		{"forbidden", registry.ErrForbidden, 403, "forbidden", false, nil, nil},
		{"unauthenticated", fmt.Errorf("token: %w", registry.ErrUnauthenticated), 401, "unauthenticated", false, nil,
			http.Header{"Www-Authenticate": {`Bearer realm="registryd"`}}},
		{"validation", fmt.Errorf("submit: %w", &registry.ValidationError{Fields: []registry.FieldError{{Path: "mcp.args[2]", Line: 7, Message: "bad"}}}),
			422, "validation", false, []Field{{Path: "mcp.args[2]", Line: 7, Message: "bad"}}, nil},
		{"too large manifest", &registry.ValidationError{TooLarge: true, Fields: []registry.FieldError{{Message: "over 262144 bytes"}}},
			413, "too-large", false, []Field{{Message: "over 262144 bytes"}}, nil},
		{"bare invalid", fmt.Errorf("reason: %w", registry.ErrInvalid), 422, "validation", false, nil, nil},
		{"max bytes", &http.MaxBytesError{Limit: 10}, 413, "too-large", false, nil, nil},
		{"deadline", context.DeadlineExceeded, 503, "unavailable", true, nil, nil},
		{"client gone", context.Canceled, 503, "unavailable", false, nil, nil},
		{"unknown", fmt.Errorf("query: %w", secret), 500, "internal", true, nil, nil},
		{"hostile field", &registry.ValidationError{Fields: []registry.FieldError{{Path: "a\u202eb", Message: "x\x1b[31m"}}},
			422, "validation", false, []Field{{Path: "a\uFFFDb", Message: "x\uFFFD[31m"}}, nil},
		{"bad request", fmt.Errorf("list: %w", BadRequest("limit", "must be a number")), 400, "bad-request", false,
			[]Field{{Path: "limit", Message: "must be a number"}}, nil},
		{"malformed body naming a key", MalformedBody("reason", "given twice"), 400, "malformed-body", false,
			[]Field{{Path: "reason", Message: "given twice"}}, nil},
		{"method", MethodNotAllowed("GET, HEAD"), 405, "method-not-allowed", false, nil, http.Header{"Allow": {"GET, HEAD"}}},
		{"a package's own status", &Error{Status: http.StatusRequestTimeout, Slug: "request-timeout", Detail: "the body arrived too slowly"},
			408, "request-timeout", false, nil, nil},
		{"a package's own 503", &Error{Status: http.StatusServiceUnavailable, Slug: "unavailable", Header: http.Header{"Retry-After": {"1"}}},
			503, "unavailable", true, nil, http.Header{"Retry-After": {"1"}}},
		{"detail and header over the table's status",
			&Error{Err: fmt.Errorf("signature: %w", registry.ErrUnauthenticated), Detail: "the signature does not match",
				Header: http.Header{"Www-Authenticate": {`HMAC-SHA256 realm="registryd"`}}},
			401, "unauthenticated", false, nil, http.Header{"Www-Authenticate": {`HMAC-SHA256 realm="registryd"`}}},
		{"fields over the table's status", &Error{Err: registry.ErrInvalid, Fields: []registry.FieldError{{Path: "x", Message: "y"}}},
			422, "validation", false, []Field{{Path: "x", Message: "y"}}, nil},
		{"no status and an internal cause", &Error{Err: secret, Detail: "leaks " + secret.Error()}, 500, "internal", true, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, h, internal := For(tt.err)
			if p.Status != tt.wantStatus || p.Type != TypePrefix+tt.wantType || internal != tt.wantInternal {
				t.Errorf("For = %d %s internal=%v, want %d %s internal=%v", p.Status, p.Type, internal, tt.wantStatus, tt.wantType, tt.wantInternal)
			}
			if diff := cmp.Diff(tt.wantFields, p.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantHeader, h); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			if p.Status >= 500 && strings.Contains(p.Detail, "password") {
				t.Errorf("5xx detail echoes the error: %q", p.Detail)
			}
			if p.Title == "" || p.Detail == "" {
				t.Errorf("title %q detail %q: want both", p.Title, p.Detail)
			}
		})
	}
}

// TestErrorIs: an *Error with a status still matches the domain error of
// that status, so callers that test errors.Is keep working.
func TestErrorIs(t *testing.T) {
	tests := []struct {
		err    error
		target error
		want   bool
	}{
		{BadRequest("x", "y"), registry.ErrInvalid, true},
		{MalformedBody("", "y"), registry.ErrInvalid, true},
		{TooLarge(1), registry.ErrTooLarge, true},
		{NotFound("x"), registry.ErrNotFound, true},
		{NotFound("x"), registry.ErrInvalid, false},
		{&Error{Err: registry.ErrConflict}, registry.ErrConflict, true},
		{UnsupportedMediaType("x"), registry.ErrInvalid, false},
	}
	for _, tt := range tests {
		if got := errors.Is(tt.err, tt.target); got != tt.want {
			t.Errorf("errors.Is(%v, %v) = %v, want %v", tt.err, tt.target, got, tt.want)
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, with punctuation: ok.", "plain text, with punctuation: ok."},
		{"tab\there", "tab\uFFFDhere"},
		{"two\nlines", "two\uFFFDlines"},
		{"bidi \u202e override", "bidi \uFFFD override"},
		{"zero\u200bwidth", "zero\uFFFDwidth"},
		{"soft\u00adhyphen", "soft\uFFFDhyphen"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"<script>", "<script>"}, // JSON encoding escapes it
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if long := clean(strings.Repeat("a", 5000)); len(long) > MaxDetail {
		t.Errorf("clean of 5000 bytes = %d bytes, want at most %d", len(long), MaxDetail)
	}
}

func TestWrite(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		r := httptest.NewRequestWithContext(WithRequestID(context.Background(), "req-1"), method, "/x", nil)
		w := httptest.NewRecorder()
		p, h, _ := For(MethodNotAllowed("GET"))
		got := Write(w, r, p, h)
		if w.Code != 405 || got.RequestID != "req-1" {
			t.Errorf("%s: status %d request id %q, want 405 req-1", method, w.Code, got.RequestID)
		}
		for k, want := range map[string]string{"Content-Type": "application/problem+json", "Cache-Control": "no-store", "Allow": "GET"} {
			if v := w.Header().Get(k); v != want {
				t.Errorf("%s: %s = %q, want %q", method, k, v, want)
			}
		}
		wantBody := method == http.MethodGet
		if (w.Body.Len() > 0) != wantBody {
			t.Errorf("%s: body of %d bytes", method, w.Body.Len())
		}
		if wantBody && !strings.Contains(w.Body.String(), `"request_id":"req-1"`) {
			t.Errorf("body %s lacks the request id", w.Body.String())
		}
	}
}
