package workflow

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
)

func TestNewer(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1.0.1", "1.0.0", true},
		{"1.0.0", "1.0.1", false},
		{"1.0.0", "1.0.0", false},
		{"2.0.0", "1.99.99", true},
		{"1.10.0", "1.9.0", true}, // numeric, not lexical
		{"v1.2.0", "1.1.0", true},
		{"1.0.0", "1.0.0-rc.1", true}, // a release outranks its pre-releases
		{"1.0.0-rc.1", "1.0.0", false},
		{"1.0.0-rc.2", "1.0.0-rc.1", true},
		{"1.0.0-rc.10", "1.0.0-rc.9", true}, // numeric identifiers compare as numbers
		{"1.0.0-beta", "1.0.0-1", true},     // alphanumeric outranks numeric
		{"1.0.0-alpha.1", "1.0.0-alpha", true},
		{"1.0.0+build.2", "1.0.0+build.1", false}, // build metadata does not count
		{"1.4.1", "2.0.0", false},                 // a late backport stays behind
		{"2024-06-01", "1.0.0", true},             // not semver: the later publication wins
		{"1.0.0", "nightly", true},
		{"01.0.0", "1.0.0", true}, // a leading zero is not semver
		{"1.0", "0.9.9", true},
		{"1.0.0-", "0.9.9", true},
	}
	for _, tt := range tests {
		if got := newer(tt.a, tt.b); got != tt.want {
			t.Errorf("newer(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name     string
		s        string
		max      int
		required bool
		want     []string // messages, nil when accepted
	}{
		{"plain", "fine, with tabs\tand\nnewlines", 100, true, nil},
		{"non-Latin", "проверено — 検証済み", 100, true, nil},
		{"empty optional", "", 100, false, nil},
		{"empty required", "", 100, true, []string{"must not be empty"}},
		{"at the bound", strings.Repeat("a", 10), 10, false, nil},
		{"over the bound", strings.Repeat("a", 11), 10, false, []string{"must be at most 10 bytes"}},
		{"invalid UTF-8", "a\xffb", 10, false, []string{"must be valid UTF-8"}},
		{"escape", "a\x1b[31m", 10, false, []string{"must not contain the character U+001B"}},
		{"carriage return", "a\rb", 10, false, []string{"must not contain the character U+000D"}},
		{"delete", "a\x7f", 10, false, []string{"must not contain the character U+007F"}},
		{"C1 control", "a\u0085", 10, false, []string{"must not contain the character U+0085"}},
		{"bidi override", "a\u202eb", 10, false, []string{"must not contain the character U+202E"}},
		{"bidi isolate", "a\u2067b", 10, false, []string{"must not contain the character U+2067"}},
		{"zero width space", "a\u200bb", 10, false, []string{"must not contain the character U+200B"}},
		{"byte order mark", "\ufeffa", 10, false, []string{"must not contain the character U+FEFF"}},
		{"soft hyphen", "a\u00adb", 10, false, []string{"must not contain the character U+00AD"}},
		{"line separator", "a\u2028b", 10, false, []string{"must not contain the character U+2028"}},
		{"tag character", "a\U000E0041", 10, false, []string{"must not contain the character U+E0041"}},
		{"private use", "a\uE000", 10, false, []string{"must not contain the character U+E000"}},
		{"emoji sequence", "ok 👨\u200D👩", 20, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fs fields
			fs.text("reason", tt.s, tt.max, tt.required)
			var got []string
			for _, f := range fs {
				if f.Path != "reason" {
					t.Errorf("path = %q, want reason", f.Path)
				}
				got = append(got, f.Message)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequireRole(t *testing.T) {
	tests := []struct {
		a    Actor
		min  registry.Role
		want error
	}{
		{Actor{Name: "a", Role: registry.RoleAdmin}, registry.RoleMaintainer, nil},
		{Actor{Name: "a", Role: registry.RoleMaintainer}, registry.RoleMaintainer, nil},
		{Actor{Name: "a", Role: registry.RoleSubmitter}, registry.RoleMaintainer, registry.ErrForbidden},
		{Actor{Name: "a", Role: "root"}, registry.RoleSubmitter, registry.ErrForbidden},
		{Actor{Name: "a"}, registry.RoleSubmitter, registry.ErrForbidden},
		{Actor{Role: registry.RoleAdmin}, registry.RoleSubmitter, registry.ErrUnauthenticated},
	}
	for _, tt := range tests {
		err := requireRole(tt.a, tt.min)
		if (tt.want == nil) != (err == nil) || (tt.want != nil && !errorsIs(err, tt.want)) {
			t.Errorf("requireRole(%+v, %s) = %v, want %v", tt.a, tt.min, err, tt.want)
		}
	}
}

func TestRandomID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := RandomID("sub")
		if len(id) != len("sub_")+26 || !strings.HasPrefix(id, "sub_") || strings.ToLower(id) != id {
			t.Fatalf("RandomID = %q, want sub_ and 26 lower-case base32 characters", id)
		}
		if seen[id] {
			t.Fatalf("RandomID repeated %q", id)
		}
		seen[id] = true
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }
