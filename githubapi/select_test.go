package githubapi_test

import (
	"strings"
	"testing"

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
