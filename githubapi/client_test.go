package githubapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/githubapi"
	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/registry"
)

const (
	token = "ghs_test-token"
	head  = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	base  = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
)

// newClient returns a fake GitHub and a client for it. The client's clock
// is t0 when given, else real time.
func newClient(t *testing.T, now ...time.Time) (*githubfake.Server, *githubapi.Client) {
	t.Helper()
	fake := githubfake.NewTest(t, token)
	cfg := githubapi.Config{Token: token, BaseURL: fake.URL, HTTPClient: fake.HTTPClient()}
	if len(now) > 0 {
		t0 := now[0]
		cfg.Now = func() time.Time { return t0 }
		fake.SetClock(cfg.Now)
	}
	c, err := githubapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fake, c
}

func manyFiles(n int) []githubfake.File {
	fs := make([]githubfake.File, n)
	for i := range fs {
		fs[i] = githubfake.File{Filename: fmt.Sprintf("addons/a%04d/lean-ctx-addon.toml", i), Status: "added"}
	}
	return fs
}

func TestPullRequestFiles(t *testing.T) {
	tests := []struct {
		name      string
		files     []githubfake.File
		wantN     int
		wantCalls int
	}{
		{"none", nil, 0, 1},
		{"one page", manyFiles(7), 7, 1},
		{"exactly one full page", manyFiles(100), 100, 1},
		{"250 files over three pages", manyFiles(250), 250, 3},
		{"GitHub's 3000 cap", manyFiles(3050), 3000, 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, c := newClient(t)
			fake.AddPullRequest("octo", "registry", 7, tt.files...)
			got, err := c.PullRequestFiles(context.Background(), "octo", "registry", 7)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.wantN {
				t.Fatalf("got %d files, want %d", len(got), tt.wantN)
			}
			for i, f := range got {
				if want := tt.files[i].Filename; f.Path != want || f.Status != githubapi.FileAdded || f.SHA == "" {
					t.Fatalf("file %d = %+v, want path %q, added, with a SHA", i, f, want)
				}
			}
			if n := fake.Calls(githubfake.RoutePullFiles); n != tt.wantCalls {
				t.Errorf("%d requests, want %d", n, tt.wantCalls)
			}
		})
	}
	t.Run("statuses and renames", func(t *testing.T) {
		fake, c := newClient(t)
		fake.AddPullRequest("octo", "registry", 3,
			githubfake.File{Filename: "a/lean-ctx-addon.toml", Status: "added", SHA: strings.Repeat("a", 40)},
			githubfake.File{Filename: "b/lean-ctx-addon.toml", Status: "modified", SHA: strings.Repeat("b", 40)},
			githubfake.File{Filename: "c/lean-ctx-addon.toml", Status: "removed"},
			githubfake.File{Filename: "new/lean-ctx-addon.toml", PreviousFilename: "old/lean-ctx-addon.toml", Status: "renamed", SHA: strings.Repeat("d", 40)},
		)
		got, err := c.PullRequestFiles(context.Background(), "octo", "registry", 3)
		if err != nil {
			t.Fatal(err)
		}
		want := []githubapi.File{
			{Path: "a/lean-ctx-addon.toml", Status: githubapi.FileAdded, SHA: strings.Repeat("a", 40)},
			{Path: "b/lean-ctx-addon.toml", Status: githubapi.FileModified, SHA: strings.Repeat("b", 40)},
			{Path: "c/lean-ctx-addon.toml", Status: githubapi.FileRemoved},
			{Path: "new/lean-ctx-addon.toml", Status: githubapi.FileRenamed, PrevPath: "old/lean-ctx-addon.toml", SHA: strings.Repeat("d", 40)},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
		if got[2].Status.Present() || !got[3].Status.Present() {
			t.Errorf("Present(): removed %v renamed %v, want false true", got[2].Status.Present(), got[3].Status.Present())
		}
	})
	t.Run("unknown pull request", func(t *testing.T) {
		_, c := newClient(t)
		_, err := c.PullRequestFiles(context.Background(), "octo", "registry", 99)
		assertPermanent(t, err, registry.ErrNotFound)
	})
}

func assertPermanent(t *testing.T, err error, want error) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one matching %v", want)
	}
	if !errors.Is(err, want) {
		t.Errorf("error %v does not match %v", err, want)
	}
	if retry, d := githubapi.IsRetryable(err); retry || d != 0 {
		t.Errorf("IsRetryable(%v) = %v, %v; want false, 0", err, retry, d)
	}
	var ae *githubapi.Error
	if !errors.As(err, &ae) {
		t.Errorf("error %T is not a *githubapi.Error", err)
	}
}

func TestFileContent(t *testing.T) {
	binary := make([]byte, 300)
	for i := range binary {
		binary[i] = byte(i)
	}
	limit := githubapi.DefaultMaxFileBytes
	tests := []struct {
		name    string
		path    string
		ref     string
		content []byte
	}{
		{"manifest", "addons/x/lean-ctx-addon.toml", head, []byte("[addon]\nname = \"x\"\n")},
		{"empty file", "e/lean-ctx-addon.toml", head, []byte{}},
		{"binary bytes", "bin/data", head, binary},
		{"long enough to wrap base64 lines", "long.toml", head, bytes.Repeat([]byte("abcdefghij"), 5000)},
		{"exactly the limit", "big/lean-ctx-addon.toml", head, bytes.Repeat([]byte("x"), limit)},
		{"path needing escapes", "dir with space/ü?#%/lean-ctx-addon.toml", head, []byte("ok")},
		{"branch ref with slash", "a.toml", "feature/new-addon", []byte("ok")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, c := newClient(t)
			fake.PutFile("octo", "registry", tt.ref, tt.path, tt.content)
			got, err := c.FileContent(context.Background(), "octo", "registry", tt.path, tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.content) {
				t.Errorf("got %d bytes, want the %d stored", len(got), len(tt.content))
			}
		})
	}

	refusals := []struct {
		name string
		path string
		ref  string
		want error
	}{
		{"one byte over the limit", "over.toml", head, githubapi.ErrFileTooLarge},
		{"over 1 MB (no content sent)", "huge.toml", head, githubapi.ErrFileTooLarge},
		{"directory", "addons", head, githubapi.ErrNotFile},
		{"missing path", "nope.toml", head, registry.ErrNotFound},
		{"missing ref", "over.toml", base, registry.ErrNotFound},
		{"dot-dot path", "../x", head, registry.ErrInvalid},
		{"absolute path", "/etc/passwd", head, registry.ErrInvalid},
		{"control character in path", "a\x1b[2J.toml", head, registry.ErrInvalid},
		{"empty ref", "over.toml", "", registry.ErrInvalid},
		{"ref with range", "over.toml", "a..b", registry.ErrInvalid},
	}
	fake, c := newClient(t)
	fake.PutFile("octo", "registry", head, "over.toml", bytes.Repeat([]byte("x"), limit+1))
	fake.PutFile("octo", "registry", head, "huge.toml", bytes.Repeat([]byte("x"), 2<<20))
	fake.PutFile("octo", "registry", head, "addons/x/lean-ctx-addon.toml", []byte("x"))
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			before := fake.Calls(githubfake.RouteContents)
			got, err := c.FileContent(context.Background(), "octo", "registry", tt.path, tt.ref)
			if got != nil {
				t.Errorf("got %d bytes with the error", len(got))
			}
			assertPermanent(t, err, tt.want)
			if errors.Is(tt.want, registry.ErrInvalid) && tt.want != githubapi.ErrNotFile {
				if n := fake.Calls(githubfake.RouteContents) - before; n != 0 {
					t.Errorf("invalid input reached GitHub (%d requests)", n)
				}
			}
		})
	}
	t.Run("configured smaller limit", func(t *testing.T) {
		fake := githubfake.NewTest(t, "")
		c, err := githubapi.New(githubapi.Config{BaseURL: fake.URL, MaxFileBytes: 10})
		if err != nil {
			t.Fatal(err)
		}
		fake.PutFile("o", "r", head, "a", []byte("0123456789"))
		fake.PutFile("o", "r", head, "b", []byte("0123456789X"))
		if _, err := c.FileContent(context.Background(), "o", "r", "a", head); err != nil {
			t.Errorf("10 bytes at limit 10: %v", err)
		}
		if _, err := c.FileContent(context.Background(), "o", "r", "b", head); !errors.Is(err, registry.ErrTooLarge) {
			t.Errorf("11 bytes at limit 10: %v, want ErrTooLarge", err)
		}
	})
}

// TestForkPullRequest follows a pull request from a fork: the files are
// listed on the base repository and the status posted there; the content
// at the head SHA is readable from the fork and, as on GitHub, from the
// base repository, which keeps serving it after the fork is deleted.
func TestForkPullRequest(t *testing.T) {
	fake, c := newClient(t)
	ctx := context.Background()
	const path = "addons/x/lean-ctx-addon.toml"
	fake.AddPullRequest("registry-org", "addons", 12, githubfake.File{Filename: path, Status: "added"})
	fake.PutFile("contributor", "addons", head, path, []byte("[addon]\n"))
	fake.SetPullHead("registry-org", "addons", 12, "contributor", "addons", head)

	files, err := c.PullRequestFiles(ctx, "registry-org", "addons", 12)
	if err != nil || len(files) != 1 {
		t.Fatalf("PullRequestFiles = %v, %v", files, err)
	}
	reads := []struct {
		name, owner, ref string
		wantErr          error
	}{
		{"from the fork", "contributor", head, nil},
		{"from the base at the head SHA", "registry-org", head, nil},
		{"from the base at the pull ref", "registry-org", "refs/pull/12/head", nil},
		{"from the base at another SHA", "registry-org", base, registry.ErrNotFound},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			got, err := c.FileContent(ctx, r.owner, "addons", files[0].Path, r.ref)
			if r.wantErr != nil {
				assertPermanent(t, err, r.wantErr)
				return
			}
			if err != nil || string(got) != "[addon]\n" {
				t.Fatalf("content = %q, %v", got, err)
			}
		})
	}
	t.Run("status on the base repository", func(t *testing.T) {
		if err := c.SetStatus(ctx, "registry-org", "addons", head, githubapi.Status{State: githubapi.StateSuccess}); err != nil {
			t.Fatal(err)
		}
		if n := len(fake.Statuses("registry-org", "addons")); n != 1 {
			t.Errorf("%d statuses on the base repository, want 1", n)
		}
	})
	t.Run("fork deleted", func(t *testing.T) {
		fake.DeleteRepo("contributor", "addons")
		if _, err := c.FileContent(ctx, "contributor", "addons", path, head); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("read from the deleted fork: %v, want ErrNotFound", err)
		}
		got, err := c.FileContent(ctx, "registry-org", "addons", path, head)
		if err != nil || string(got) != "[addon]\n" {
			t.Errorf("read from the base after the fork is gone = %q, %v", got, err)
		}
	})
}

func TestSetStatus(t *testing.T) {
	long := strings.Repeat("é", 200)
	tests := []struct {
		name string
		in   githubapi.Status
		want githubfake.Status
	}{
		{
			"success with link",
			githubapi.Status{State: githubapi.StateSuccess, Description: "pass: 0 danger, 0 warn, 1 info", TargetURL: "https://registry.example/v1/reports/x@1.0.0", Context: "registryd/audit"},
			githubfake.Status{SHA: head, State: "success", Description: "pass: 0 danger, 0 warn, 1 info", TargetURL: "https://registry.example/v1/reports/x@1.0.0", Context: "registryd/audit", Creator: githubfake.BotLogin},
		},
		{
			"default context",
			githubapi.Status{State: githubapi.StatePending, Description: "auditing"},
			githubfake.Status{SHA: head, State: "pending", Description: "auditing", Context: githubapi.DefaultStatusContext, Creator: githubfake.BotLogin},
		},
		{
			"failure naming the field",
			githubapi.Status{State: githubapi.StateFailure, Description: "addons/x/lean-ctx-addon.toml: mcp.args[2] refused"},
			githubfake.Status{SHA: head, State: "failure", Description: "addons/x/lean-ctx-addon.toml: mcp.args[2] refused", Context: githubapi.DefaultStatusContext, Creator: githubfake.BotLogin},
		},
		{
			"long description shortened to 140 runes",
			githubapi.Status{State: githubapi.StateError, Description: long},
			githubfake.Status{SHA: head, State: "error", Description: strings.Repeat("é", 139) + "…", Context: githubapi.DefaultStatusContext, Creator: githubfake.BotLogin},
		},
		{
			"bidi override and zero-width blanked",
			githubapi.Status{State: githubapi.StateFailure, Description: "a/\u202elmot.exe/\u200b\ufeffx"},
			githubfake.Status{SHA: head, State: "failure", Description: "a/ lmot.exe/  x", Context: githubapi.DefaultStatusContext, Creator: githubfake.BotLogin},
		},
		{
			"control characters blanked",
			githubapi.Status{State: githubapi.StateFailure, Description: "bad\x1b[31mfile\nname"},
			githubfake.Status{SHA: head, State: "failure", Description: "bad [31mfile name", Context: githubapi.DefaultStatusContext, Creator: githubfake.BotLogin},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, c := newClient(t)
			fake.AddPullRequest("octo", "registry", 1)
			if err := c.SetStatus(context.Background(), "octo", "registry", head, tt.in); err != nil {
				t.Fatal(err)
			}
			got := fake.Statuses("octo", "registry")
			if len(got) != 1 {
				t.Fatalf("%d statuses recorded, want 1", len(got))
			}
			got[0].ID = 0
			if diff := cmp.Diff(tt.want, got[0]); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}

	refusals := []struct {
		name string
		sha  string
		in   githubapi.Status
	}{
		{"unknown state", head, githubapi.Status{State: "passed"}},
		{"empty state", head, githubapi.Status{}},
		{"short sha", head[:7], githubapi.Status{State: githubapi.StateSuccess}},
		{"upper-case sha", strings.ToUpper(head), githubapi.Status{State: githubapi.StateSuccess}},
		{"relative target URL", head, githubapi.Status{State: githubapi.StateSuccess, TargetURL: "/v1/reports/x"}},
		{"javascript target URL", head, githubapi.Status{State: githubapi.StateSuccess, TargetURL: "javascript:alert(1)"}},
		{"context with control character", head, githubapi.Status{State: githubapi.StateSuccess, Context: "a\x07"}},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			fake, c := newClient(t)
			fake.AddPullRequest("octo", "registry", 1)
			err := c.SetStatus(context.Background(), "octo", "registry", tt.sha, tt.in)
			assertPermanent(t, err, registry.ErrInvalid)
			if n := fake.Calls(githubfake.RouteCreateStatus); n != 0 {
				t.Errorf("invalid status reached GitHub (%d requests)", n)
			}
		})
	}
	t.Run("unknown repository", func(t *testing.T) {
		_, c := newClient(t)
		err := c.SetStatus(context.Background(), "octo", "missing", head, githubapi.Status{State: githubapi.StateSuccess})
		assertPermanent(t, err, registry.ErrNotFound)
	})
}

func TestUpsertComment(t *testing.T) {
	const marker = "<!-- registryd:audit -->"
	ctx := context.Background()
	t.Run("create then edit, never duplicate", func(t *testing.T) {
		fake, c := newClient(t)
		fake.AddPullRequest("octo", "registry", 5)
		fake.AddComment("octo", "registry", 5, "alice", "looks good")

		id1, created, err := c.UpsertComment(ctx, "octo", "registry", 5, marker, marker+"\nverdict: review")
		if err != nil || !created {
			t.Fatalf("first upsert: id %d created %v err %v, want created", id1, created, err)
		}
		id2, created, err := c.UpsertComment(ctx, "octo", "registry", 5, marker, marker+"\nverdict: pass")
		if err != nil || created || id2 != id1 {
			t.Fatalf("second upsert: id %d created %v err %v, want edit of %d", id2, created, err, id1)
		}
		want := []githubfake.Comment{
			{User: "alice", Body: "looks good"},
			{ID: id1, User: githubfake.BotLogin, Body: marker + "\nverdict: pass"},
		}
		got := fake.Comments("octo", "registry", 5)
		got[0].ID = 0
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("comments (-want +got):\n%s", diff)
		}
		if n := fake.Calls(githubfake.RouteEditComment); n != 1 {
			t.Errorf("%d edits, want 1", n)
		}
		// The same body again changes nothing.
		if _, created, err := c.UpsertComment(ctx, "octo", "registry", 5, marker, marker+"\nverdict: pass"); err != nil || created {
			t.Fatalf("third upsert: created %v err %v", created, err)
		}
		if n := fake.Calls(githubfake.RouteEditComment); n != 1 {
			t.Errorf("%d edits after an unchanged upsert, want still 1", n)
		}
		if n := fake.Calls(githubfake.RouteCreateComment); n != 1 {
			t.Errorf("%d comments created, want 1", n)
		}
	})
	t.Run("marker on a later page", func(t *testing.T) {
		fake, c := newClient(t)
		fake.AddPullRequest("octo", "registry", 6)
		for i := range 150 {
			fake.AddComment("octo", "registry", 6, "bob", fmt.Sprintf("comment %d", i))
		}
		id := fake.AddComment("octo", "registry", 6, githubfake.BotLogin, marker+"\nold")
		for i := range 30 {
			fake.AddComment("octo", "registry", 6, "bob", fmt.Sprintf("later %d", i))
		}
		got, created, err := c.UpsertComment(ctx, "octo", "registry", 6, marker, marker+"\nnew")
		if err != nil || created || got != id {
			t.Fatalf("upsert: id %d created %v err %v, want edit of %d", got, created, err, id)
		}
		if n := len(fake.Comments("octo", "registry", 6)); n != 181 {
			t.Errorf("%d comments, want 181 (none added)", n)
		}
		if n := fake.Calls(githubfake.RouteListComments); n != 2 {
			t.Errorf("%d list requests, want 2 (the marker is on page 2)", n)
		}
	})
	t.Run("marker prepended when the body lacks it", func(t *testing.T) {
		fake, c := newClient(t)
		fake.AddPullRequest("octo", "registry", 8)
		if _, _, err := c.UpsertComment(ctx, "octo", "registry", 8, marker, "summary"); err != nil {
			t.Fatal(err)
		}
		if _, created, err := c.UpsertComment(ctx, "octo", "registry", 8, marker, "summary 2"); err != nil || created {
			t.Fatalf("second upsert created %v err %v, want an edit", created, err)
		}
		got := fake.Comments("octo", "registry", 8)
		if len(got) != 1 || got[0].Body != marker+"\nsummary 2" {
			t.Errorf("comments = %+v, want one with the marker and the new body", got)
		}
	})
	refusals := []struct {
		name   string
		number int
		marker string
		body   string
		want   error
	}{
		{"empty marker", 5, "", "x", registry.ErrInvalid},
		{"blank marker", 5, "  ", "x", registry.ErrInvalid},
		{"number zero", 0, marker, "x", registry.ErrInvalid},
		{"body too large", 5, marker, strings.Repeat("x", githubapi.MaxCommentBytes), registry.ErrTooLarge},
		{"unknown pull request", 404, marker, "x", registry.ErrNotFound},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			fake, c := newClient(t)
			fake.AddPullRequest("octo", "registry", 5)
			_, _, err := c.UpsertComment(ctx, "octo", "registry", tt.number, tt.marker, tt.body)
			assertPermanent(t, err, tt.want)
			if n := fake.Calls(githubfake.RouteCreateComment); n != 0 {
				t.Errorf("a comment was created")
			}
		})
	}
}

func TestCompareFiles(t *testing.T) {
	ctx := context.Background()
	fake, c := newClient(t)
	fake.SetCompare("octo", "registry", base, head,
		githubfake.File{Filename: "a/lean-ctx-addon.toml", Status: "modified", SHA: strings.Repeat("1", 40)},
		githubfake.File{Filename: "b/lean-ctx-addon.toml", Status: "removed"},
	)
	fake.SetCompare("octo", "registry", base, "main", manyFiles(400)...)
	fake.SetCompare("octo", "registry", "v1.0", "release/2", manyFiles(299)...)
	got, err := c.CompareFiles(ctx, "octo", "registry", base, head)
	if err != nil {
		t.Fatal(err)
	}
	want := []githubapi.File{
		{Path: "a/lean-ctx-addon.toml", Status: githubapi.FileModified, SHA: strings.Repeat("1", 40)},
		{Path: "b/lean-ctx-addon.toml", Status: githubapi.FileRemoved},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if got, err := c.CompareFiles(ctx, "octo", "registry", "v1.0", "release/2"); err != nil || len(got) != 299 {
		t.Errorf("refs with a slash: %d files, %v; want 299", len(got), err)
	}
	_, err = c.CompareFiles(ctx, "octo", "registry", base, "main")
	assertPermanent(t, err, githubapi.ErrTooManyFiles)
	_, err = c.CompareFiles(ctx, "octo", "registry", head, base)
	assertPermanent(t, err, registry.ErrNotFound)
	for _, bad := range [][2]string{{"", head}, {base, ""}, {"a...b", head}, {base, "x\ny"}} {
		_, err := c.CompareFiles(ctx, "octo", "registry", bad[0], bad[1])
		assertPermanent(t, err, registry.ErrInvalid)
	}
}

func TestBadNames(t *testing.T) {
	_, c := newClient(t)
	ctx := context.Background()
	for _, n := range [][2]string{{"", "r"}, {"o", ""}, {"..", "r"}, {"o", "."}, {"o/x", "r"}, {"o", "r?x=1"}, {"o", "r\x00"}} {
		t.Run(fmt.Sprintf("%q", n), func(t *testing.T) {
			_, err := c.PullRequestFiles(ctx, n[0], n[1], 1)
			assertPermanent(t, err, registry.ErrInvalid)
			_, err = c.FileContent(ctx, n[0], n[1], "a", head)
			assertPermanent(t, err, registry.ErrInvalid)
			err = c.SetStatus(ctx, n[0], n[1], head, githubapi.Status{State: githubapi.StateSuccess})
			assertPermanent(t, err, registry.ErrInvalid)
			_, _, err = c.UpsertComment(ctx, n[0], n[1], 1, "<!-- m -->", "b")
			assertPermanent(t, err, registry.ErrInvalid)
			_, err = c.CompareFiles(ctx, n[0], n[1], base, head)
			assertPermanent(t, err, registry.ErrInvalid)
		})
	}
}

func TestAuthentication(t *testing.T) {
	fake := githubfake.NewTest(t, token)
	fake.AddPullRequest("o", "r", 1, manyFiles(1)...)
	tests := []struct {
		name  string
		token string
	}{
		{"no token", ""},
		{"wrong token", "ghs_wrong"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := githubapi.New(githubapi.Config{Token: tt.token, BaseURL: fake.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.PullRequestFiles(context.Background(), "o", "r", 1)
			assertPermanent(t, err, registry.ErrUnauthenticated)
		})
	}
	if n := fake.Calls(githubfake.RoutePullFiles); n != 0 {
		t.Errorf("unauthenticated requests counted as served: %d", n)
	}
}

func TestNewConfig(t *testing.T) {
	hc := &http.Client{Timeout: time.Second}
	if _, err := githubapi.New(githubapi.Config{HTTPClient: hc, Token: "t"}); err != nil {
		t.Fatal(err)
	}
	if hc.Transport != nil {
		t.Errorf("New modified the caller's http.Client")
	}
	for _, bad := range []githubapi.Config{
		{BaseURL: "ftp://example.com/"},
		{BaseURL: "api.github.com"},
		{BaseURL: "https://"},
		{BaseURL: "://x"},
		{MaxFileBytes: -1},
		{Token: "abc\r\nX-Injected: 1"},
	} {
		t.Run(fmt.Sprintf("%+v", bad), func(t *testing.T) {
			if _, err := githubapi.New(bad); !errors.Is(err, registry.ErrInvalid) {
				t.Errorf("New = %v, want ErrInvalid", err)
			}
		})
	}
	t.Run("enterprise base URL without trailing slash", func(t *testing.T) {
		var gotPath string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotPath = r.URL.Path
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`[]`))
		}))
		t.Cleanup(srv.Close)
		c, err := githubapi.New(githubapi.Config{BaseURL: srv.URL + "/api/v3"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.PullRequestFiles(context.Background(), "o", "r", 1); err != nil {
			t.Fatal(err)
		}
		if gotPath != "/api/v3/repos/o/r/pulls/1/files" {
			t.Errorf("request path %q, want it under /api/v3/", gotPath)
		}
	})
}

// TestConcurrentUse runs many calls on one client at once; the race
// detector checks the client and the fake.
func TestConcurrentUse(t *testing.T) {
	fake, c := newClient(t)
	fake.AddPullRequest("o", "r", 1, manyFiles(120)...)
	fake.PutFile("o", "r", head, "a.toml", []byte("a"))
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for i := range 20 {
		wg.Add(3)
		go func() {
			defer wg.Done()
			_, err := c.PullRequestFiles(context.Background(), "o", "r", 1)
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := c.FileContent(context.Background(), "o", "r", "a.toml", head)
			errs <- err
		}()
		go func() {
			defer wg.Done()
			errs <- c.SetStatus(context.Background(), "o", "r", head, githubapi.Status{State: githubapi.StatePending, Description: fmt.Sprint(i)})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := len(fake.Statuses("o", "r")); n != 20 {
		t.Errorf("%d statuses recorded, want 20", n)
	}
}

func TestPullRequestHead(t *testing.T) {
	fake, c := newClient(t)
	ctx := context.Background()
	const first, second = "ec26c3e57ca3a959ca5aad62de7213c562f8c821", "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
	fake.AddPullRequest("octo", "registry", 4)
	fake.SetPullHead("octo", "registry", 4, "octo", "registry", first)
	if got, err := c.PullRequestHead(ctx, "octo", "registry", 4); err != nil || got != first {
		t.Fatalf("head = %q, %v; want %s", got, err, first)
	}
	fake.SetPullHead("octo", "registry", 4, "fork", "registry", second)
	if got, err := c.PullRequestHead(ctx, "octo", "registry", 4); err != nil || got != second {
		t.Errorf("head after a push to the fork = %q, %v; want %s", got, err, second)
	}
	if _, err := c.PullRequestHead(ctx, "octo", "registry", 5); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("unknown pull request: %v, want ErrNotFound", err)
	}
	if _, err := c.PullRequestHead(ctx, "octo", "registry", 0); !errors.Is(err, registry.ErrInvalid) {
		t.Errorf("pull request 0: %v, want ErrInvalid", err)
	}
}

func TestTreeFiles(t *testing.T) {
	fake, c := newClient(t)
	ctx := context.Background()
	const sha = "6113728f27ae82c7b1a177c8d03f9e96e0adf246"
	for _, p := range []string{"README.md", "addons/fs/lean-ctx-addon.toml", "addons/git/lean-ctx-addon.toml"} {
		fake.PutFile("octo", "registry", sha, p, []byte(p))
	}
	got, err := c.TreeFiles(ctx, "octo", "registry", sha)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md", "addons/fs/lean-ctx-addon.toml", "addons/git/lean-ctx-addon.toml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if _, err := c.TreeFiles(ctx, "octo", "registry", "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("unknown commit: %v, want ErrNotFound", err)
	}
	if _, err := c.TreeFiles(ctx, "octo", "registry", "a..b"); !errors.Is(err, registry.ErrInvalid) {
		t.Errorf("bad ref: %v, want ErrInvalid", err)
	}
}
