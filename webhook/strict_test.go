package webhook

import (
	"errors"
	"net/url"
	"testing"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
)

// TestParseAnswers: Parse's refusals get the answer every part of registryd
// gives the same fault: a malformed header or a payload that is not one
// JSON object without repeated keys is 400, a refused field of a
// well-formed payload 422.
func TestParseAnswers(t *testing.T) {
	okPR := `{"action":"opened","repository":{"full_name":"o/r","default_branch":"main"},"pull_request":{"number":1,"head":{"sha":"` + sha1 + `","ref":"f"},"base":{"ref":"main"}}}`
	tests := []struct {
		name, contentType, body, event string
		wantStatus                     int
		wantType, wantPath             string
	}{
		{"duplicate top-level key", "application/json", `{"action":"opened","action":"closed"}`, "pull_request", 400, "malformed-body", "payload"},
		{"duplicate nested key", "application/json",
			`{"action":"opened","repository":{"full_name":"o/r","full_name":"evil/r"},"pull_request":{"number":1,"head":{"sha":"` + sha1 + `"},"base":{"ref":"main"}}}`,
			"pull_request", 400, "malformed-body", "payload"},
		{"duplicate key in the form's payload", "application/x-www-form-urlencoded",
			url.Values{"payload": {`{"zen":"a","zen":"b","hook_id":1}`}}.Encode(), "ping", 400, "malformed-body", "payload"},
		{"not json", "application/json", "{", "pull_request", 400, "malformed-body", "payload"},
		{"no event header", "application/json", okPR, "", 400, "bad-request", EventHeader},
		{"xml", "application/xml", okPR, "pull_request", 400, "bad-request", "Content-Type"},
		{"bad head sha", "application/json", `{"action":"opened","repository":{"full_name":"o/r"},"pull_request":{"number":1,"head":{"sha":"x"},"base":{"ref":"main"}}}`,
			"pull_request", 422, "validation", "pull_request.head.sha"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.contentType, []byte(tt.body), tt.event)
			if !errors.Is(err, registry.ErrInvalid) {
				t.Fatalf("Parse = %v, want an error matching ErrInvalid", err)
			}
			p, _, _ := problem.For(err)
			if p.Status != tt.wantStatus || p.Slug() != tt.wantType {
				t.Errorf("answer %d %s, want %d %s", p.Status, p.Slug(), tt.wantStatus, tt.wantType)
			}
			if len(p.Errors) == 0 || p.Errors[0].Path != tt.wantPath {
				t.Errorf("fields %+v, want the first named %q", p.Errors, tt.wantPath)
			}
			assertSafe(t, err.Error())
		})
	}
	if _, err := Parse("application/json", []byte(okPR), "pull_request"); err != nil {
		t.Fatalf("the same payload without a repeated key is refused: %v", err)
	}
}
