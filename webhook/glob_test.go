package webhook

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"testing"
)

var globTests = []struct {
	pattern, name string
	want          bool
}{
	{DefaultManifestGlob, "lean-ctx-addon.toml", true},
	{DefaultManifestGlob, "addons/foo/lean-ctx-addon.toml", true},
	{DefaultManifestGlob, "a/b/c/d/e/lean-ctx-addon.toml", true},
	{DefaultManifestGlob, ".github/lean-ctx-addon.toml", true},
	{DefaultManifestGlob, "addons/foo/lean-ctx-addon.toml.bak", false},
	{DefaultManifestGlob, "addons/foo/xlean-ctx-addon.toml", false},
	{DefaultManifestGlob, "addons/lean-ctx-addon.toml/readme", false},
	{DefaultManifestGlob, "lean-ctx-addon.TOML", false},
	{DefaultManifestGlob, "", false},
	{"**", "", true},
	{"**", "a", true},
	{"**", "a/b/c", true},
	{"a/**", "a", true},
	{"a/**", "a/b/c", true},
	{"a/**", "b/a", false},
	{"a/**/b", "a/b", true},
	{"a/**/b", "a/x/y/b", true},
	{"a/**/b", "a/x/y/c", false},
	{"a/**/b", "a/x/b/c", false},
	{"**/b/**", "x/b/y", true},
	{"**/b/**", "b", true},
	{"**/b/**", "x/y", false},
	{"**/**/c", "c", true},
	{"**/**/c", "a/b/c", true},
	{"addons/*/lean-ctx-addon.toml", "addons/foo/lean-ctx-addon.toml", true},
	{"addons/*/lean-ctx-addon.toml", "addons/foo/bar/lean-ctx-addon.toml", false},
	{"addons/*/lean-ctx-addon.toml", "addons/lean-ctx-addon.toml", false},
	{"addons/*.toml", "addons/x.toml", true},
	{"addons/*.toml", "addons/x/y.toml", false},
	{"a?c", "abc", true},
	{"a?c", "a/c", false},
	{"a?c", "abbc", false},
	{"[ab]/x", "b/x", true},
	{"[ab]/x", "c/x", false},
	{"[^ab]/x", "c/x", true},
	{"[^ab]/x", "a/x", false},
	{"[^0]/x", "//x", false}, // a class never matches "/" (path.Match's can)
	{`a\*b`, "a*b", true},
	{`a\*b`, "axb", false},
	{"a**b/c", "axyb/c", true}, // "**" inside a segment acts like "*"
	{"a**b/c", "ax/yb/c", false},
	{"*", "a/b", false},
	{"*/", "a/", true},
	{"a/*", "a/", true}, // path.Match lets "*" match an empty segment
	{"[", "[", false},   // malformed: matches nothing
	{"**/[", "x/[", false},
	{"a", "a/", false},
	{"ünï/*.toml", "ünï/ç.toml", true},
}

func TestMatchGlob(t *testing.T) {
	for _, tt := range globTests {
		t.Run(tt.pattern+" "+tt.name, func(t *testing.T) {
			if got := MatchGlob(tt.pattern, tt.name); got != tt.want {
				t.Errorf("MatchGlob(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
			}
		})
	}
}

// TestMatchGlobManyStars guards against exponential backtracking: a pattern
// of many "**" against a long path that does not match.
func TestMatchGlobManyStars(t *testing.T) {
	pattern := strings.Repeat("**/", 40) + "z"
	name := strings.Repeat("a/", 200) + "b"
	if MatchGlob(pattern, name) {
		t.Errorf("MatchGlob matched a path without the final segment")
	}
	if !MatchGlob(pattern, strings.Repeat("a/", 200)+"z") {
		t.Errorf("MatchGlob missed a matching path")
	}
}

func TestValidateGlob(t *testing.T) {
	tests := []struct {
		pattern string
		ok      bool
	}{
		{DefaultManifestGlob, true},
		{"**", true},
		{"a/*/b?.toml", true},
		{"[a-z]/x", true},
		{"", false},
		{"/abs", false},
		{"trailing/", false},
		{"a//b", false},
		{"[", false},
		{"a/[z-", false},
		{`a\`, false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			err := ValidateGlob(tt.pattern)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidateGlob(%q) = %v, want ok=%v", tt.pattern, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrBadGlob) {
				t.Errorf("error %v does not match ErrBadGlob", err)
			}
		})
	}
}

// FuzzMatchGlob checks MatchGlob against path.Match, which it must agree
// with for every pattern without a "**" segment, and checks that "**"
// segments behave as "any number of segments".
func FuzzMatchGlob(f *testing.F) {
	for _, tt := range globTests {
		f.Add(tt.pattern, tt.name)
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		got := MatchGlob(pattern, name)
		hasDouble := false
		for _, seg := range strings.Split(pattern, "/") {
			if seg == "**" {
				hasDouble = true
			}
		}
		if !hasDouble {
			if ValidateGlob(pattern) != nil || strings.Contains(pattern, "[") {
				// path.Match may match a prefix of a bad pattern, and its
				// classes can match "/", which MatchGlob's never do.
				return
			}
			want, err := path.Match(pattern, name)
			if err != nil {
				t.Fatalf("ValidateGlob accepted %q but path.Match says %v", pattern, err)
			}
			if got != want {
				t.Fatalf("MatchGlob(%q, %q) = %v, path.Match says %v", pattern, name, got, want)
			}
			return
		}
		// "**/" + p matches name iff p matches name or some suffix of name
		// after a "/".
		if rest, ok := strings.CutPrefix(pattern, "**/"); ok && !strings.Contains(rest, "**") {
			want := false
			for s := name; ; {
				if MatchGlob(rest, s) {
					want = true
					break
				}
				i := strings.IndexByte(s, '/')
				if i < 0 {
					break
				}
				s = s[i+1:]
			}
			if got != want {
				t.Fatalf("MatchGlob(%q, %q) = %v, suffix search says %v", pattern, name, got, want)
			}
		}
	})
}

func ExampleMatchGlob() {
	for _, p := range []string{
		"lean-ctx-addon.toml",
		"addons/github/lean-ctx-addon.toml",
		"addons/github/README.md",
	} {
		fmt.Println(p, MatchGlob(DefaultManifestGlob, p))
	}
	// Output:
	// lean-ctx-addon.toml true
	// addons/github/lean-ctx-addon.toml true
	// addons/github/README.md false
}
