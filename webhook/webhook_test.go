package webhook

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v89/github"

	"github.com/registryd/registryd/internal/sharedtest"
	"github.com/registryd/registryd/registry"
)

// fixturesDir is where GitHub's example payloads are (shared/fixtures).
// They are a required input: their absence fails the test rather than
// skipping it.
func fixturesDir(t testing.TB) string {
	t.Helper()
	return sharedtest.Dir(t, "fixtures/github-webhooks")
}

type fixture struct {
	file  string
	event string
	body  []byte
}

func loadFixtures(t *testing.T) []fixture {
	t.Helper()
	dir := fixturesDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("found %d fixtures in %s, want the whole set (at least 30)", len(files), dir)
	}
	var out []fixture
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(f)
		out = append(out, fixture{file: base, event: base[:strings.IndexByte(base, '.')], body: b})
	}
	return out
}

func formBody(payload []byte) []byte {
	return []byte(url.Values{"payload": {string(payload)}}.Encode())
}

// expectFromGoGitHub derives the Event that Parse must produce from
// go-github's own typed decoding of the same payload, so the two decoders
// check each other.
func expectFromGoGitHub(t *testing.T, event string, body []byte) *Event {
	t.Helper()
	v, err := github.ParseWebHook(event, body)
	if err != nil {
		t.Fatalf("go-github cannot parse the fixture: %v", err)
	}
	e := &Event{Name: event}
	setRepo := func(full, def string) {
		e.Repo, e.DefaultBranch = full, def
		e.RepoOwner, e.RepoName, _ = strings.Cut(full, "/")
	}
	switch ev := v.(type) {
	case *github.PullRequestEvent:
		e.Action = ev.GetAction()
		setRepo(ev.GetRepo().GetFullName(), ev.GetRepo().GetDefaultBranch())
		e.Sender = ev.GetSender().GetLogin()
		e.InstallationID = ev.GetInstallation().GetID()
		pr := ev.GetPullRequest()
		e.PR = &PullRequest{
			Number:           pr.GetNumber(),
			HeadSHA:          pr.GetHead().GetSHA(),
			HeadRef:          pr.GetHead().GetRef(),
			HeadRepoFullName: pr.GetHead().GetRepo().GetFullName(),
			BaseRef:          pr.GetBase().GetRef(),
			BaseSHA:          pr.GetBase().GetSHA(),
			Author:           pr.GetUser().GetLogin(),
			Draft:            pr.GetDraft(),
			HTMLURL:          pr.GetHTMLURL(),
		}
	case *github.PushEvent:
		setRepo(ev.GetRepo().GetFullName(), ev.GetRepo().GetDefaultBranch())
		e.Sender = ev.GetSender().GetLogin()
		e.InstallationID = ev.GetInstallation().GetID()
		p := &Push{
			Ref: ev.GetRef(), Before: ev.GetBefore(), After: ev.GetAfter(),
			Pusher: ev.GetPusher().GetName(), Created: ev.GetCreated(),
			Deleted: ev.GetDeleted(), Forced: ev.GetForced(), Compare: ev.GetCompare(),
			Commits: []Commit{},
		}
		for _, c := range ev.Commits {
			p.Commits = append(p.Commits, Commit{ID: c.GetID(), Added: nonNil(c.Added), Modified: nonNil(c.Modified), Removed: nonNil(c.Removed)})
		}
		p.Truncated = p.Forced || len(p.Commits) >= MaxPushCommits
		e.Push = p
	case *github.PingEvent:
		if ev.Repo != nil {
			setRepo(ev.GetRepo().GetFullName(), ev.GetRepo().GetDefaultBranch())
		}
		e.Sender = ev.GetSender().GetLogin()
		e.InstallationID = ev.GetInstallation().GetID()
		e.Ping = &Ping{HookID: ev.GetHookID(), Zen: ev.GetZen()}
	default:
		t.Fatalf("unexpected go-github type %T", v)
	}
	return e
}

func TestParseFixtures(t *testing.T) {
	wantActionable := map[string]bool{
		"pull_request.opened.1.json": true, "pull_request.opened.2.json": true,
		"pull_request.opened.3.json": true, "pull_request.opened.4.json": true,
		"pull_request.synchronize.1.json": true,
		"pull_request.reopened.1.json":    true, "pull_request.reopened.2.json": true,
		"pull_request.ready_for_review.1.json": true, "pull_request.ready_for_review.2.json": true,
		"pull_request.ready_for_review.3.json": true,
		"push.event.5.json":                    true, "push.event.6.json": true,
	}
	seen := map[string]int{}
	for _, f := range loadFixtures(t) {
		seen[f.event]++
		want := expectFromGoGitHub(t, f.event, f.body)
		encodings := []struct {
			name, contentType string
			body              []byte
		}{
			{"json", "application/json", f.body},
			{"json-charset", "application/json; charset=utf-8", f.body},
			{"form", "application/x-www-form-urlencoded", formBody(f.body)},
		}
		for _, enc := range encodings {
			t.Run(f.file+"/"+enc.name, func(t *testing.T) {
				got, err := Parse(enc.contentType, enc.body, f.event)
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Parse mismatch with go-github's decoding (-want +got):\n%s", diff)
				}
				if g, w := got.Actionable(), wantActionable[f.file]; g != w {
					t.Errorf("Actionable() = %v, want %v", g, w)
				}
			})
		}
	}
	for _, ev := range []string{EventPing, EventPullRequest, EventPush} {
		if seen[ev] == 0 {
			t.Errorf("no %s fixture was exercised", ev)
		}
	}
}

// TestParseFixtureFacts pins a few values by hand, independent of go-github.
func TestParseFixtureFacts(t *testing.T) {
	dir := fixturesDir(t)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Run("pull_request.opened.2", func(t *testing.T) {
		e, err := Parse("application/json", read("pull_request.opened.2.json"), "pull_request")
		if err != nil {
			t.Fatal(err)
		}
		want := &PullRequest{
			Number: 2, HeadSHA: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", HeadRef: "changes",
			HeadRepoFullName: "Codertocat/Hello-World", BaseRef: "master",
			BaseSHA: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e", Author: "Codertocat",
			HTMLURL: "https://github.com/Codertocat/Hello-World/pull/2",
		}
		if diff := cmp.Diff(want, e.PR); diff != "" {
			t.Errorf("PR (-want +got):\n%s", diff)
		}
		if e.Repo != "Codertocat/Hello-World" || e.RepoOwner != "Codertocat" || e.RepoName != "Hello-World" || e.DefaultBranch != "master" {
			t.Errorf("repo = %q %q %q %q", e.Repo, e.RepoOwner, e.RepoName, e.DefaultBranch)
		}
		if e.InstallationID == 0 {
			t.Errorf("InstallationID = 0, want the installation's id")
		}
		if e.FromFork() {
			t.Errorf("FromFork() = true for a same-repository pull request")
		}
	})
	t.Run("push.event.5", func(t *testing.T) {
		e, err := Parse("application/json", read("push.event.5.json"), "push")
		if err != nil {
			t.Fatal(err)
		}
		changed, removed := e.Push.Changes()
		if len(e.Push.Commits) != 1 || e.Push.Ref != "refs/heads/master" || e.Push.Truncated {
			t.Errorf("push = %+v, want one commit to refs/heads/master, not truncated", e.Push)
		}
		if len(changed)+len(removed) == 0 {
			t.Errorf("Changes() empty for a push with a commit")
		}
	})
	t.Run("ping.event.4 without repository", func(t *testing.T) {
		e, err := Parse("application/json", read("ping.event.4.json"), "ping")
		if err != nil {
			t.Fatal(err)
		}
		if e.Ping == nil || e.Ping.HookID == 0 || e.Repo != "" || e.Actionable() {
			t.Errorf("ping = %+v, %+v; want HookID set, no repository, not actionable", e, e.Ping)
		}
	})
}

func TestParseForkAndDeletedFork(t *testing.T) {
	dir := fixturesDir(t)
	body, err := os.ReadFile(filepath.Join(dir, "pull_request.opened.2.json"))
	if err != nil {
		t.Fatal(err)
	}
	fork := bytes.Replace(body, []byte(`"full_name": "Codertocat/Hello-World"`), []byte(`"full_name": "someone/Hello-World"`), 1)
	if bytes.Equal(fork, body) {
		t.Fatal("fixture layout changed: head repo full_name not found")
	}
	tests := []struct {
		name     string
		body     []byte
		wantHead string
		wantFork bool
	}{
		{"same repository", body, "Codertocat/Hello-World", false},
		{"fork", fork, "someone/Hello-World", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse("application/json", tt.body, "pull_request")
			if err != nil {
				t.Fatal(err)
			}
			if e.PR.HeadRepoFullName != tt.wantHead || e.FromFork() != tt.wantFork {
				t.Errorf("head repo %q fork %v, want %q %v", e.PR.HeadRepoFullName, e.FromFork(), tt.wantHead, tt.wantFork)
			}
			if e.Repo != "Codertocat/Hello-World" {
				t.Errorf("Repo = %q, want the base repository", e.Repo)
			}
		})
	}
	t.Run("deleted fork", func(t *testing.T) {
		p := `{"action":"opened","repository":{"full_name":"o/r","name":"r","default_branch":"main"},
			"pull_request":{"number":7,"head":{"sha":"` + strings.Repeat("a", 40) + `","ref":"x","repo":null},
			"base":{"sha":"` + strings.Repeat("b", 40) + `","ref":"main"}}}`
		e, err := Parse("application/json", []byte(p), "pull_request")
		if err != nil {
			t.Fatal(err)
		}
		if e.PR.HeadRepoFullName != "" || !e.FromFork() || !e.Actionable() {
			t.Errorf("got head %q fork %v actionable %v, want empty, true, true", e.PR.HeadRepoFullName, e.FromFork(), e.Actionable())
		}
	})
}

func TestParseUnknownEvent(t *testing.T) {
	dir := fixturesDir(t)
	body, err := os.ReadFile(filepath.Join(dir, "pull_request.labeled.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"issues", "check_suite", "workflow_run"} {
		t.Run(name, func(t *testing.T) {
			e, err := Parse("application/json", body, name)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if e.Name != name || e.PR != nil || e.Push != nil || e.Ping != nil || e.Actionable() {
				t.Errorf("got %+v, want Name %q and no PR/Push/Ping, not actionable", e, name)
			}
			if e.Action != "labeled" || e.Repo != "Codertocat/Hello-World" {
				t.Errorf("common fields: action %q repo %q", e.Action, e.Repo)
			}
		})
	}
}

const sha1 = "1111111111111111111111111111111111111111"
const sha2 = "2222222222222222222222222222222222222222"

func TestParseRefusals(t *testing.T) {
	okPR := `{"action":"opened","repository":{"full_name":"o/r","default_branch":"main"},"pull_request":{"number":1,"head":{"sha":"` + sha1 + `","ref":"f"},"base":{"ref":"main"}}}`
	tests := []struct {
		name        string
		contentType string
		body        string
		event       string
		wantPath    string
		tooLarge    bool
	}{
		{"no content type", "", okPR, "pull_request", "Content-Type", false},
		{"xml content type", "application/xml", okPR, "pull_request", "Content-Type", false},
		{"malformed content type", "application/json; =", okPR, "pull_request", "Content-Type", false},
		{"no event", "application/json", okPR, "", EventHeader, false},
		{"event with control chars", "application/json", okPR, "pull_request\x1b[2J", EventHeader, false},
		{"event with markup", "application/json", okPR, "<script>", EventHeader, false},
		{"not JSON", "application/json", "{\x1b[31m", "pull_request", "payload", false},
		{"JSON array", "application/json", `[1,2]`, "pull_request", "payload", false},
		{"JSON string", "application/json", `"<img src=x>"`, "pull_request", "payload", false},
		{"empty body", "application/json", ``, "pull_request", "payload", false},
		{"trailing data", "application/json", okPR + `{}`, "pull_request", "payload", false},
		{"wrong type", "application/json", `{"action":"opened","pull_request":{"number":"1"}}`, "pull_request", "payload", false},
		{"form without payload", "application/x-www-form-urlencoded", "x=1", "pull_request", "payload", false},
		{"form payload twice", "application/x-www-form-urlencoded", "payload=%7B%7D&payload=%7B%7D", "pull_request", "payload", false},
		{"form malformed", "application/x-www-form-urlencoded", "payload=%zz", "pull_request", "payload", false},
		{"form payload is JSON sent raw", "application/x-www-form-urlencoded", okPR, "pull_request", "payload", false},
		{"pr without repository", "application/json", `{"action":"opened","pull_request":{"number":1,"head":{"sha":"` + sha1 + `"},"base":{"ref":"main"}}}`, "pull_request", "repository", false},
		{"pr without pull_request", "application/json", `{"action":"opened","repository":{"full_name":"o/r"}}`, "pull_request", "pull_request", false},
		{"pr without action", "application/json", strings.Replace(okPR, `"action":"opened",`, "", 1), "pull_request", "action", false},
		{"pr action with escape", "application/json", strings.Replace(okPR, `"opened"`, `"open\u001b[0m"`, 1), "pull_request", "action", false},
		{"pr number zero", "application/json", strings.Replace(okPR, `"number":1`, `"number":0`, 1), "pull_request", "pull_request.number", false},
		{"pr head sha missing", "application/json", strings.Replace(okPR, sha1, "", 1), "pull_request", "pull_request.head.sha", false},
		{"pr head sha not hex", "application/json", strings.Replace(okPR, sha1, strings.Repeat("z", 40), 1), "pull_request", "pull_request.head.sha", false},
		{"pr head missing", "application/json", `{"action":"opened","repository":{"full_name":"o/r"},"pull_request":{"number":1,"base":{"ref":"main"}}}`, "pull_request", "pull_request.head", false},
		{"pr head ref with newline", "application/json", strings.Replace(okPR, `"ref":"f"`, `"ref":"f\nx"`, 1), "pull_request", "pull_request.head.ref", false},
		{"pr base ref missing", "application/json", strings.Replace(okPR, `"base":{"ref":"main"}`, `"base":{}`, 1), "pull_request", "pull_request.base.ref", false},
		{"pr head repo bad", "application/json", strings.Replace(okPR, `"ref":"f"`, `"ref":"f","repo":{"full_name":"../etc"}`, 1), "pull_request", "pull_request.head.repo.full_name", false},
		{"pr author with markup", "application/json", strings.Replace(okPR, `"number":1`, `"number":1,"user":{"login":"<b>x</b>"}`, 1), "pull_request", "pull_request.user.login", false},
		{"repo name with slash", "application/json", strings.Replace(okPR, `"o/r"`, `"o/r/x"`, 1), "pull_request", "repository.full_name", false},
		{"repo name without owner", "application/json", strings.Replace(okPR, `"o/r"`, `"r"`, 1), "pull_request", "repository.full_name", false},
		{"repo name with bidi override", "application/json", strings.Replace(okPR, `"o/r"`, `"o/r\u202e"`, 1), "pull_request", "repository.full_name", false},
		{"repo full_name empty", "application/json", strings.Replace(okPR, `"o/r"`, `""`, 1), "pull_request", "repository.full_name", false},
		{"default branch with escape", "application/json", strings.Replace(okPR, `"default_branch":"main"`, `"default_branch":"ma\u001bin"`, 1), "pull_request", "repository.default_branch", false},
		{"sender with escape", "application/json", strings.Replace(okPR, `"action"`, `"sender":{"login":"a\u0007"},"action"`, 1), "pull_request", "sender.login", false},
		{"push without ref", "application/json", `{"repository":{"full_name":"o/r"},"before":"` + sha1 + `","after":"` + sha2 + `"}`, "push", "ref", false},
		{"push ref not under refs", "application/json", `{"ref":"main","repository":{"full_name":"o/r"},"before":"` + sha1 + `","after":"` + sha2 + `"}`, "push", "ref", false},
		{"push bad before", "application/json", `{"ref":"refs/heads/main","repository":{"full_name":"o/r"},"before":"x","after":"` + sha2 + `"}`, "push", "before", false},
		{"push bad after", "application/json", `{"ref":"refs/heads/main","repository":{"full_name":"o/r"},"before":"` + sha1 + `"}`, "push", "after", false},
		{"push bad commit id", "application/json", `{"ref":"refs/heads/main","repository":{"full_name":"o/r"},"before":"` + sha1 + `","after":"` + sha2 + `","commits":[{"id":"nope","added":[],"modified":[],"removed":[]}]}`, "push", "commits[0].id", false},
		{"push path with escape", "application/json", `{"ref":"refs/heads/main","repository":{"full_name":"o/r"},"before":"` + sha1 + `","after":"` + sha2 + `","commits":[{"id":"` + sha2 + `","added":["a/\u001b]0;x\u0007/lean-ctx-addon.toml"],"modified":[],"removed":[]}]}`, "push", "commits[0].added[0]", false},
		{"push path dot-dot", "application/json", `{"ref":"refs/heads/main","repository":{"full_name":"o/r"},"before":"` + sha1 + `","after":"` + sha2 + `","commits":[{"id":"` + sha2 + `","added":[],"modified":["../x"],"removed":[]}]}`, "push", "commits[0].modified[0]", false},
		{"push pusher with markup", "application/json", `{"ref":"refs/heads/main","repository":{"full_name":"o/r"},"before":"` + sha1 + `","after":"` + sha2 + `","pusher":{"name":"<i>"}}`, "push", "pusher.name", false},
		{"body over the limit", "application/json", strings.Repeat(" ", MaxBodyBytes+1), "push", "body", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse(tt.contentType, []byte(tt.body), tt.event)
			if err == nil {
				t.Fatalf("Parse succeeded with %+v, want an error naming %s", e, tt.wantPath)
			}
			if e != nil {
				t.Errorf("Parse returned a partial event %+v with its error", e)
			}
			var ve *registry.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, registry.ErrInvalid) {
				t.Fatalf("error %v (%T) is not a *registry.ValidationError matching ErrInvalid", err, err)
			}
			if got := errors.Is(err, registry.ErrTooLarge); got != tt.tooLarge {
				t.Errorf("errors.Is(err, ErrTooLarge) = %v, want %v", got, tt.tooLarge)
			}
			var paths []string
			for _, f := range ve.Fields {
				paths = append(paths, f.Path)
			}
			if !contains(paths, tt.wantPath) {
				t.Errorf("error fields %q, want one named %q", paths, tt.wantPath)
			}
			assertSafe(t, err.Error())
		})
	}
}

// assertSafe fails if msg carries a control character or markup: error
// messages end up in terminals, logs and web pages.
func assertSafe(t *testing.T, msg string) {
	t.Helper()
	for _, r := range msg {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' || r == '<' || r == '>' {
			t.Errorf("error message %q carries an unsafe character %U", msg, r)
			return
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestPushChangesAndTruncation(t *testing.T) {
	commit := func(id string, added, modified, removed []string) string {
		q := func(ss []string) string {
			if ss == nil {
				return "null"
			}
			if len(ss) == 0 {
				return "[]"
			}
			return `["` + strings.Join(ss, `","`) + `"]`
		}
		return `{"id":"` + id + `","added":` + q(added) + `,"modified":` + q(modified) + `,"removed":` + q(removed) + `}`
	}
	push := func(forced bool, commits ...string) []byte {
		f := "false"
		if forced {
			f = "true"
		}
		return []byte(`{"ref":"refs/heads/main","before":"` + sha1 + `","after":"` + sha2 + `","forced":` + f +
			`,"repository":{"full_name":"o/r","name":"r","default_branch":"main"},"commits":[` + strings.Join(commits, ",") + `]}`)
	}
	many := make([]string, MaxPushCommits)
	for i := range many {
		many[i] = commit(sha2, []string{"x"}, []string{}, []string{})
	}
	tests := []struct {
		name          string
		body          []byte
		wantChanged   []string
		wantRemoved   []string
		wantTruncated bool
	}{
		{"no commits", push(false), []string{}, []string{}, false},
		{"add then modify", push(false,
			commit(sha1, []string{"a/lean-ctx-addon.toml"}, []string{}, []string{}),
			commit(sha2, []string{}, []string{"a/lean-ctx-addon.toml", "b"}, []string{})),
			[]string{"a/lean-ctx-addon.toml", "b"}, []string{}, false},
		{"add then remove", push(false,
			commit(sha1, []string{"a"}, []string{}, []string{}),
			commit(sha2, []string{}, []string{}, []string{"a"})),
			[]string{}, []string{"a"}, false},
		{"remove then re-add", push(false,
			commit(sha1, []string{}, []string{}, []string{"a", "c"}),
			commit(sha2, []string{"a"}, []string{}, []string{})),
			[]string{"a"}, []string{"c"}, false},
		{"file lists omitted", push(false, commit(sha1, nil, nil, nil)), []string{}, []string{}, true},
		{"one list omitted", push(false, commit(sha1, []string{"a"}, nil, []string{})), []string{"a"}, []string{}, true},
		{"forced", push(true, commit(sha1, []string{"a"}, []string{}, []string{})), []string{"a"}, []string{}, true},
		{"commit cap reached", push(false, many...), []string{"x"}, []string{}, true},
		{"one under the cap", push(false, many[1:]...), []string{"x"}, []string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse("application/json", tt.body, "push")
			if err != nil {
				t.Fatal(err)
			}
			changed, removed := e.Push.Changes()
			if diff := cmp.Diff(tt.wantChanged, changed); diff != "" {
				t.Errorf("changed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRemoved, removed); diff != "" {
				t.Errorf("removed (-want +got):\n%s", diff)
			}
			if e.Push.Truncated != tt.wantTruncated {
				t.Errorf("Truncated = %v, want %v", e.Push.Truncated, tt.wantTruncated)
			}
			if !e.Actionable() {
				t.Errorf("push to the default branch not actionable")
			}
		})
	}
}

func TestActionable(t *testing.T) {
	pr := func(action string) *Event {
		return &Event{Name: EventPullRequest, Action: action, Repo: "o/r", PR: &PullRequest{Number: 1, HeadSHA: sha1}}
	}
	push := func(ref, def string, deleted bool) *Event {
		return &Event{Name: EventPush, Repo: "o/r", DefaultBranch: def, Push: &Push{Ref: ref, Deleted: deleted}}
	}
	tests := []struct {
		name string
		e    *Event
		want bool
	}{
		{"pr opened", pr("opened"), true},
		{"pr synchronize", pr("synchronize"), true},
		{"pr reopened", pr("reopened"), true},
		{"pr ready_for_review", pr("ready_for_review"), true},
		{"pr closed", pr("closed"), false},
		{"pr edited", pr("edited"), false},
		{"pr labeled", pr("labeled"), false},
		{"pr converted_to_draft", pr("converted_to_draft"), false},
		{"push default branch", push("refs/heads/main", "main", false), true},
		{"push default branch deleted", push("refs/heads/main", "main", true), false},
		{"push other branch", push("refs/heads/feature", "main", false), false},
		{"push branch sharing a prefix", push("refs/heads/main2", "main", false), false},
		{"push tag named like the branch", push("refs/tags/main", "main", false), false},
		{"push without default branch", push("refs/heads/", "", false), false},
		{"ping", &Event{Name: EventPing, Ping: &Ping{}}, false},
		{"unknown", &Event{Name: "issues", Action: "opened"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.Actionable(); got != tt.want {
				t.Errorf("Actionable() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	body := []byte(`{"zen":"Keep it logically awesome."}`)
	oldSecret, newSecret := []byte("old-secret"), []byte("new-secret")
	good := SignatureValue(body, oldSecret)
	flipped := []byte(good)
	if flipped[len(flipped)-1] == '0' {
		flipped[len(flipped)-1] = '1'
	} else {
		flipped[len(flipped)-1] = '0'
	}
	tests := []struct {
		name    string
		body    []byte
		header  string
		secrets [][]byte
		want    error
	}{
		{"good", body, good, [][]byte{oldSecret}, nil},
		{"upper-case hex", body, "sha256=" + strings.ToUpper(good[len("sha256="):]), [][]byte{oldSecret}, nil},
		{"rotated: second secret matches", body, good, [][]byte{newSecret, oldSecret}, nil},
		{"rotated: new secret first", body, SignatureValue(body, newSecret), [][]byte{newSecret, oldSecret}, nil},
		{"empty secret skipped", body, good, [][]byte{{}, oldSecret}, nil},
		{"wrong secret", body, good, [][]byte{newSecret}, ErrSignatureMismatch},
		{"one digit changed", body, string(flipped), [][]byte{oldSecret}, ErrSignatureMismatch},
		{"body changed", append([]byte(" "), body...), good, [][]byte{oldSecret}, ErrSignatureMismatch},
		{"missing", body, "", [][]byte{oldSecret}, ErrSignatureMissing},
		{"sha1 header", body, "sha1=0123456789abcdef0123456789abcdef01234567", [][]byte{oldSecret}, ErrSignatureMalformed},
		{"no prefix", body, good[len("sha256="):], [][]byte{oldSecret}, ErrSignatureMalformed},
		{"short", body, good[:len(good)-2], [][]byte{oldSecret}, ErrSignatureMalformed},
		{"long", body, good + "00", [][]byte{oldSecret}, ErrSignatureMalformed},
		{"not hex", body, "sha256=" + strings.Repeat("zz", 32), [][]byte{oldSecret}, ErrSignatureMalformed},
		{"prefix upper-case", body, "SHA256=" + good[len("sha256="):], [][]byte{oldSecret}, ErrSignatureMalformed},
		{"no secrets", body, good, nil, ErrNoSecret},
		{"only empty secrets", body, SignatureValue(body, nil), [][]byte{{}, nil}, ErrNoSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(tt.body, tt.header, tt.secrets)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Verify = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
			if !errors.Is(err, registry.ErrUnauthenticated) {
				t.Errorf("Verify error %v does not match registry.ErrUnauthenticated", err)
			}
		})
	}
}

// TestVerifyMatchesGoGitHub checks the HMAC against go-github's own
// validator on a real fixture in both encodings.
func TestVerifyMatchesGoGitHub(t *testing.T) {
	fx := loadFixtures(t)[0]
	secret := []byte("s3cret")
	for _, enc := range []struct{ ct, body string }{
		{"application/json", string(fx.body)},
		{"application/x-www-form-urlencoded", string(formBody(fx.body))},
	} {
		t.Run(enc.ct, func(t *testing.T) {
			sig := SignatureValue([]byte(enc.body), secret)
			if err := Verify([]byte(enc.body), sig, [][]byte{secret}); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			payload, err := github.ValidatePayloadFromBody(enc.ct, strings.NewReader(enc.body), sig, secret)
			if err != nil {
				t.Fatalf("go-github rejects our signature: %v", err)
			}
			if _, err := Parse(enc.ct, []byte(enc.body), fx.event); err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(payload) == 0 {
				t.Errorf("go-github returned an empty payload")
			}
		})
	}
}

func TestEventJSONRoundTrip(t *testing.T) {
	for _, f := range loadFixtures(t) {
		t.Run(f.file, func(t *testing.T) {
			e, err := Parse("application/json", f.body, f.event)
			if err != nil {
				t.Fatal(err)
			}
			b, err := jsonMarshal(e)
			if err != nil {
				t.Fatal(err)
			}
			var back Event
			if err := jsonUnmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(e, &back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParse feeds arbitrary bodies and event names to Parse: it must never
// panic, and it must either refuse with a safe *registry.ValidationError or
// return an Event named as asked.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"pull_request.opened.2.json", "push.event.5.json", "ping.event.1.json"} {
		f.Add(sharedtest.File(f, "fixtures/github-webhooks", name), name[:strings.IndexByte(name, '.')], false)
	}
	f.Add([]byte(`{"action":"opened","repository":{"full_name":"o/r"},"pull_request":{"number":1,"head":{"sha":"`+sha1+`"},"base":{"ref":"main"}}}`), "pull_request", true)
	f.Add([]byte(`{"ref":"refs/heads/main","before":"`+sha1+`","after":"`+sha2+`","repository":{"full_name":"o/r","default_branch":"main"},"commits":[{"id":"`+sha2+`"}]}`), "push", false)
	f.Add([]byte(`[]`), "issues", false)
	f.Fuzz(func(t *testing.T, body []byte, event string, form bool) {
		ct := "application/json"
		if form {
			ct, body = "application/x-www-form-urlencoded", formBody(body)
		}
		e, err := Parse(ct, body, event)
		if err != nil {
			var ve *registry.ValidationError
			if !errors.As(err, &ve) || e != nil {
				t.Fatalf("Parse = %v, %v; want nil and a *registry.ValidationError", e, err)
			}
			assertSafe(t, err.Error())
			return
		}
		if e.Name != event {
			t.Fatalf("Name = %q, want %q", e.Name, event)
		}
		if e.Actionable() {
			if e.PR != nil && !shaRE.MatchString(e.PR.HeadSHA) {
				t.Fatalf("actionable pull request without a valid head SHA: %+v", e.PR)
			}
			if e.Repo == "" || e.RepoOwner == "" || e.RepoName == "" {
				t.Fatalf("actionable event without a repository: %+v", e)
			}
		}
	})
}
