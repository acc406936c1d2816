package githubapi_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/githubapi"
)

func TestSelect(t *testing.T) {
	isManifest := func(p string) bool { return strings.HasSuffix(p, "/lean-ctx-addon.toml") }
	f := func(status githubapi.FileStatus, path, prev string) githubapi.File {
		return githubapi.File{Path: path, Status: status, PrevPath: prev}
	}
	tests := []struct {
		name      string
		files     []githubapi.File
		wantFetch []githubapi.File
		wantGone  []string
	}{
		{"nothing", nil, []githubapi.File{}, []string{}},
		{"no manifest touched", []githubapi.File{f(githubapi.FileModified, "README.md", "")}, []githubapi.File{}, []string{}},
		{
			"added, modified, removed",
			[]githubapi.File{
				f(githubapi.FileAdded, "a/lean-ctx-addon.toml", ""),
				f(githubapi.FileModified, "b/lean-ctx-addon.toml", ""),
				f(githubapi.FileRemoved, "c/lean-ctx-addon.toml", ""),
				f(githubapi.FileRemoved, "c/README.md", ""),
			},
			[]githubapi.File{f(githubapi.FileAdded, "a/lean-ctx-addon.toml", ""), f(githubapi.FileModified, "b/lean-ctx-addon.toml", "")},
			[]string{"c/lean-ctx-addon.toml"},
		},
		{
			"renamed between manifest paths",
			[]githubapi.File{f(githubapi.FileRenamed, "new/lean-ctx-addon.toml", "old/lean-ctx-addon.toml")},
			[]githubapi.File{f(githubapi.FileRenamed, "new/lean-ctx-addon.toml", "old/lean-ctx-addon.toml")},
			[]string{"old/lean-ctx-addon.toml"},
		},
		{
			"renamed away from a manifest path",
			[]githubapi.File{f(githubapi.FileRenamed, "old/lean-ctx-addon.toml.bak", "old/lean-ctx-addon.toml")},
			[]githubapi.File{},
			[]string{"old/lean-ctx-addon.toml"},
		},
		{
			"renamed onto a manifest path",
			[]githubapi.File{f(githubapi.FileRenamed, "x/lean-ctx-addon.toml", "x/draft.toml")},
			[]githubapi.File{f(githubapi.FileRenamed, "x/lean-ctx-addon.toml", "x/draft.toml")},
			[]string{},
		},
		{
			"copied, changed and unchanged",
			[]githubapi.File{
				f(githubapi.FileCopied, "y/lean-ctx-addon.toml", "x/lean-ctx-addon.toml"),
				f(githubapi.FileChanged, "z/lean-ctx-addon.toml", ""),
				f(githubapi.FileUnchanged, "w/lean-ctx-addon.toml", ""),
			},
			[]githubapi.File{
				f(githubapi.FileCopied, "y/lean-ctx-addon.toml", "x/lean-ctx-addon.toml"),
				f(githubapi.FileChanged, "z/lean-ctx-addon.toml", ""),
			},
			[]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fetch, gone := githubapi.Select(tt.files, isManifest)
			if diff := cmp.Diff(tt.wantFetch, fetch); diff != "" {
				t.Errorf("fetch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantGone, gone); diff != "" {
				t.Errorf("gone (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzShortenDescription checks the contract of ShortenDescription on any
// input: at most MaxDescriptionRunes runes, valid UTF-8, nothing invisible
// or controlling left, and short printable input unchanged.
func FuzzShortenDescription(f *testing.F) {
	for _, s := range []string{"", "pass: 0 danger", strings.Repeat("é", 200), "a\x1b[31m", "x\u202ey", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := githubapi.ShortenDescription(in)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", in)
		}
		if n := utf8.RuneCountInString(out); n > githubapi.MaxDescriptionRunes {
			t.Fatalf("%d runes out of %q", n, in)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' || r == '\u200b' || r == '\ufeff' {
				t.Fatalf("%U left in the output for %q", r, in)
			}
		}
		plain := true
		for i := 0; i < len(in); i++ {
			if in[i] < 0x20 || in[i] > 0x7e {
				plain = false
			}
		}
		if plain && len(in) <= githubapi.MaxDescriptionRunes && out != in {
			t.Fatalf("printable ASCII %q changed to %q", in, out)
		}
	})
}
