package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
)

func TestProblemFor(t *testing.T) {
	secret := errors.New("pq: password authentication failed for user \"registryd\"")
	tests := []struct {
		name         string
		err          error
		wantStatus   int
		wantType     string
		wantInternal bool
		wantFields   []ProblemField
		wantAuth     bool
	}{
		{"not found", fmt.Errorf("load addon: %w", registry.ErrNotFound), 404, "not-found", false, nil, false},
		{"conflict", fmt.Errorf("approve: %w", registry.ErrConflict), 409, "conflict", false, nil, false},
		{"forbidden", registry.ErrForbidden, 403, "forbidden", false, nil, false},
		{"unauthenticated", fmt.Errorf("token: %w", registry.ErrUnauthenticated), 401, "unauthenticated", false, nil, true},
		{"validation", fmt.Errorf("submit: %w", &registry.ValidationError{Fields: []registry.FieldError{{Path: "mcp.args[2]", Line: 7, Message: "bad"}}}),
			422, "validation", false, []ProblemField{{Path: "mcp.args[2]", Line: 7, Message: "bad"}}, false},
		{"too large manifest", &registry.ValidationError{TooLarge: true, Fields: []registry.FieldError{{Message: "over 262144 bytes"}}},
			413, "too-large", false, []ProblemField{{Message: "over 262144 bytes"}}, false},
		{"bare invalid", fmt.Errorf("reason: %w", registry.ErrInvalid), 422, "validation", false, nil, false},
		{"max bytes", &http.MaxBytesError{Limit: 10}, 413, "too-large", false, nil, false},
		{"deadline", context.DeadlineExceeded, 503, "unavailable", true, nil, false},
		{"client gone", context.Canceled, 503, "unavailable", false, nil, false},
		{"unknown", fmt.Errorf("query: %w", secret), 500, "internal", true, nil, false},
		{"hostile field", &registry.ValidationError{Fields: []registry.FieldError{{Path: "a\u202eb", Message: "x\x1b[31m"}}},
			422, "validation", false, []ProblemField{{Path: "a\uFFFDb", Message: "x\uFFFD[31m"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, h, internal := problemFor(tt.err)
			if p.Status != tt.wantStatus || p.Type != ProblemTypePrefix+tt.wantType || internal != tt.wantInternal {
				t.Errorf("problemFor = %d %s internal=%v, want %d %s internal=%v", p.Status, p.Type, internal, tt.wantStatus, tt.wantType, tt.wantInternal)
			}
			if diff := cmp.Diff(tt.wantFields, p.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if got := h.Get("WWW-Authenticate") != ""; got != tt.wantAuth {
				t.Errorf("WWW-Authenticate present = %v, want %v", got, tt.wantAuth)
			}
			if p.Status >= 500 && p.Detail == tt.err.Error() {
				t.Errorf("5xx detail echoes the error: %q", p.Detail)
			}
			if p.Title == "" || p.Detail == "" {
				t.Errorf("title %q detail %q: want both", p.Title, p.Detail)
			}
		})
	}
}

func TestSafeText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, with punctuation: ok.", "plain text, with punctuation: ok."},
		{"tab\there", "tab\uFFFDhere"},
		{"bidi \u202e override", "bidi \uFFFD override"},
		{"zero\u200bwidth", "zero\uFFFDwidth"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"<script>", "<script>"}, // JSON encoding escapes it
	}
	for _, tt := range tests {
		if got := safeText(tt.in); got != tt.want {
			t.Errorf("safeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := safeText(string(make([]byte, 5000)))
	if len(long) > maxDetail+len("…")+4 {
		t.Errorf("safeText of 5000 bytes = %d bytes, want at most about %d", len(long), maxDetail)
	}
}

func TestEtagMatches(t *testing.T) {
	const etag = `"sha256-ab"`
	tests := []struct {
		header string
		want   bool
	}{
		{"", false},
		{etag, true},
		{`W/"sha256-ab"`, true},
		{`"x", "sha256-ab"`, true},
		{"*", true},
		{`"sha256-ac"`, false},
		{`sha256-ab`, false},
	}
	for _, tt := range tests {
		if got := etagMatches(tt.header, etag); got != tt.want {
			t.Errorf("etagMatches(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
