package ghingest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/ghingest"
	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/workflow"
)

// statusView is the part of a posted status the tests compare.
type statusView struct {
	SHA, State, Description, Context string
	Linked                           bool
}

func statuses(f *githubfake.Server) []statusView {
	out := []statusView{}
	for _, s := range f.Statuses(owner, repoName) {
		out = append(out, statusView{SHA: s.SHA, State: s.State, Description: s.Description, Context: s.Context,
			Linked: strings.HasPrefix(s.TargetURL, publicURL+"/v1/submissions/sub_") && strings.HasSuffix(s.TargetURL, "/report")})
	}
	return out
}

// deliver sends a pull_request or push delivery and waits for its job.
func deliver(t *testing.T, in *instance, event string, body []byte) registry.Delivery {
	t.Helper()
	id := newID()
	status, ans := in.send(t, delivery{event: event, id: id, body: body})
	if status != http.StatusAccepted {
		t.Fatalf("delivery answered %d %v, want 202", status, ans)
	}
	return waitDone(t, in.store, id)
}

const (
	fsPath    = "addons/fs/lean-ctx-addon.toml"
	gitPath   = "addons/git/lean-ctx-addon.toml"
	shellPath = "addons/shell/lean-ctx-addon.toml"
	badPath   = "addons/typo/lean-ctx-addon.toml"
)

// manyFiles is a pull request of n files with manifests at the given
// positions (path -> index).
func manyFiles(n int, at map[int]string) []githubfake.File {
	files := make([]githubfake.File, n)
	for i := range files {
		files[i] = githubfake.File{Filename: fmt.Sprintf("docs/page-%04d.md", i), Status: "added"}
		if p, ok := at[i]; ok {
			files[i] = githubfake.File{Filename: p, Status: "added"}
		}
	}
	return files
}

// TestPullRequest runs the fixtures' pull request through the whole path
// (signed delivery, job, fake GitHub) with none, one and many manifests,
// a refused one, and from a fork.
func TestPullRequest(t *testing.T) {
	t.Parallel()
	opened := payload(t, "pull_request.opened.1.json")
	type want struct {
		statuses    []statusView
		submissions int
		comment     []string // substrings of the one summary comment; nil: no comment
		problems    string
		listCalls   int
	}
	tests := []struct {
		name  string
		files []githubfake.File
		put   map[string][]byte // path -> content at the head commit
		fork  bool
		want  want
	}{
		{
			name:  "no manifest",
			files: []githubfake.File{{Filename: "README.md", Status: "modified"}, {Filename: "addons/fs/README.md", Status: "added"}, {Filename: "lean-ctx-addon.toml.bak", Status: "added"}},
			want:  want{statuses: []statusView{}, listCalls: 1},
		},
		{
			name:  "one manifest",
			files: []githubfake.File{{Filename: "README.md", Status: "modified"}, {Filename: fsPath, Status: "added"}},
			put:   map[string][]byte{fsPath: fixture.Clean("fs", "1.0.0")},
			want: want{
				statuses:    []statusView{{SHA: headSHA, State: "success", Description: "pass: fs@1.0.0, 0 danger, 0 warn, 0 info", Context: "registryd/audit", Linked: true}},
				submissions: 1, listCalls: 1,
				comment: []string{ghingest.CommentMarker, "`addons/fs/lean-ctx-addon.toml` | fs@1.0.0 | pass", "overall **pass**"},
			},
		},
		{
			name:  "many manifests across pages",
			files: manyFiles(250, map[int]string{3: fsPath, 140: gitPath, 249: shellPath}),
			put:   map[string][]byte{fsPath: fixture.Clean("fs", "1.0.0"), gitPath: fixture.Clean("git", "2.1.0"), shellPath: risky("shell", "0.1.0")},
			want: want{
				statuses:    []statusView{{SHA: headSHA, State: "failure", Description: "fail: 3 manifests, 3 danger, 1 warn, 0 info", Context: "registryd/audit", Linked: true}},
				submissions: 3, listCalls: 3,
				comment: []string{"| `addons/git/lean-ctx-addon.toml` | git@2.1.0 | pass", "| `addons/shell/lean-ctx-addon.toml` | shell@0.1.0 | fail", "overall **fail**"},
			},
		},
		{
			name:  "refused manifest",
			files: []githubfake.File{{Filename: fsPath, Status: "modified"}, {Filename: badPath, Status: "added"}},
			put:   map[string][]byte{fsPath: fixture.Clean("fs", "1.0.0"), badPath: refusedManifest("typo")},
			want: want{
				statuses:    []statusView{{SHA: headSHA, State: "failure", Description: "refused: addons/typo/lean-ctx-addon.toml: mcp.comand: unknown key (line 6)", Context: "registryd/audit"}},
				submissions: 1, listCalls: 1,
				problems: "addons/typo/lean-ctx-addon.toml: mcp.comand: unknown key (line 6)",
				comment:  []string{"**`addons/typo/lean-ctx-addon.toml`** was refused at `mcp.comand`", "(1 refused)"},
			},
		},
		{
			name:  "from a fork",
			files: []githubfake.File{{Filename: fsPath, Status: "added"}},
			put:   map[string][]byte{fsPath: fixture.Clean("fs", "1.0.0")},
			fork:  true,
			want: want{
				statuses:    []statusView{{SHA: headSHA, State: "success", Description: "pass: fs@1.0.0, 0 danger, 0 warn, 0 info", Context: "registryd/audit", Linked: true}},
				submissions: 1, listCalls: 1,
				comment: []string{"fs@1.0.0 | pass"},
			},
		},
	}
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					fake := newFake(t, tc.files...)
					body := opened
					headOwner := owner
					if tc.fork {
						headOwner = "forker"
						fake.SetPullHead(owner, repoName, prNumber, headOwner, repoName, headSHA)
						body = edit(t, opened, func(m map[string]any) {
							head := obj(obj(m, "pull_request"), "head")
							obj(head, "repo")["full_name"] = headOwner + "/" + repoName
							obj(obj(head, "repo"), "owner")["login"] = headOwner
						})
					}
					for p, c := range tc.put {
						fake.PutFile(headOwner, repoName, headSHA, p, c)
					}
					st := b.Open(t)
					in := startInstance(t, st, instanceOpts{githubURL: fake.URL})
					d := deliver(t, in, "pull_request", body)
					if d.Status != registry.DeliveryDone {
						t.Fatalf("delivery %s (error %q), want done", d.Status, d.Error)
					}
					if d.Error != tc.want.problems {
						t.Errorf("delivery error = %q, want %q", d.Error, tc.want.problems)
					}
					if diff := cmp.Diff(tc.want.statuses, statuses(fake)); diff != "" {
						t.Errorf("statuses (-want +got):\n%s", diff)
					}
					if got := len(d.Submissions); got != tc.want.submissions {
						t.Errorf("submissions = %d, want %d", got, tc.want.submissions)
					}
					if got := fake.Calls(githubfake.RoutePullFiles); got != tc.want.listCalls {
						t.Errorf("pull request file pages fetched = %d, want %d", got, tc.want.listCalls)
					}
					for _, id := range d.Submissions {
						sub, err := st.Submission(context.Background(), id)
						if err != nil {
							t.Fatal(err)
						}
						g := sub.GitHub
						if sub.Source != registry.SourceGitHub || sub.Status != registry.StatusPending || g == nil ||
							g.Repo != fullName || g.PR != prNumber || g.CommitID != headSHA || g.Author != "Codertocat" || sub.Submitter != "Codertocat" {
							t.Errorf("submission %s = %+v (origin %+v), want a pending github submission of %s#%d at %s by Codertocat", id, sub, g, fullName, prNumber, headSHA)
						}
					}
					comments := fake.Comments(owner, repoName, prNumber)
					if tc.want.comment == nil {
						if len(comments) != 0 {
							t.Errorf("%d comments, want none", len(comments))
						}
						return
					}
					if len(comments) != 1 {
						t.Fatalf("%d comments, want 1", len(comments))
					}
					for _, s := range tc.want.comment {
						if !strings.Contains(comments[0].Body, s) {
							t.Errorf("comment lacks %q:\n%s", s, comments[0].Body)
						}
					}
				})
			}
		})
	}
}

// TestPullRequestUpdatesOneComment: a synchronize after an opened, and a
// redelivery of the same event under a new id, edit the one summary
// comment and reuse the pending submission.
func TestPullRequestUpdatesOneComment(t *testing.T) {
	t.Parallel()
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			const nextSHA = "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
			fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
			fake.PutFile(owner, repoName, headSHA, fsPath, fixture.Clean("fs", "1.0.0"))
			fake.PutFile(owner, repoName, nextSHA, fsPath, risky("fs", "1.0.1"))
			fake.AddComment(owner, repoName, prNumber, "octocat", "Looks good to me")
			st := b.Open(t)
			in := startInstance(t, st, instanceOpts{githubURL: fake.URL})

			first := deliver(t, in, "pull_request", payload(t, "pull_request.opened.1.json"))
			again := deliver(t, in, "pull_request", payload(t, "pull_request.reopened.1.json"))
			if diff := cmp.Diff(first.Submissions, again.Submissions); diff != "" || len(first.Submissions) != 1 {
				t.Errorf("same bytes gave other submissions (-first +again):\n%s", diff)
			}
			fake.SetPullHead(owner, repoName, prNumber, owner, repoName, nextSHA)
			sync := deliver(t, in, "pull_request", edit(t, payload(t, "pull_request.synchronize.1.json"), withPR(prNumber, nextSHA)))
			if len(sync.Submissions) != 1 || sync.Submissions[0] == first.Submissions[0] {
				t.Errorf("synchronize submissions = %v, want one new one", sync.Submissions)
			}
			comments := fake.Comments(owner, repoName, prNumber)
			if len(comments) != 2 {
				t.Fatalf("%d comments, want the reviewer's and one summary", len(comments))
			}
			if !strings.Contains(comments[1].Body, "fs@1.0.1 | fail") || strings.Contains(comments[1].Body, "1.0.0") {
				t.Errorf("summary not brought up to date:\n%s", comments[1].Body)
			}
			got := statuses(fake)
			want := []string{headSHA + " success", headSHA + " success", nextSHA + " failure"}
			var gotS []string
			for _, s := range got {
				gotS = append(gotS, s.SHA+" "+s.State)
			}
			if diff := cmp.Diff(want, gotS); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPush: a push to the default branch publishes the manifests it adds
// or changes, with the pusher recorded as approver, and marks removed the
// addon whose manifest it deletes; its reports stay fetchable and say so.
func TestPush(t *testing.T) {
	t.Parallel()
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fake := githubfake.NewTest(t, ghToken)
			fake.PutFile(owner, repoName, pushBefore, shellPath, fixture.Clean("shell", "1.0.0"))
			fake.PutFile(owner, repoName, pushAfter, fsPath, fixture.Clean("fs", "1.0.0"))
			fake.PutFile(owner, repoName, pushAfter, gitPath, fixture.Clean("git", "2.0.0"))
			fake.PutFile(owner, repoName, pushAfter, badPath, refusedManifest("typo"))
			st := b.Open(t)
			in := startInstance(t, st, instanceOpts{githubURL: fake.URL})
			ctx := context.Background()

			// shell was published by an earlier merge.
			earlier := pushOf(t, []string{shellPath}, nil, nil)
			earlier = edit(t, earlier, func(m map[string]any) { m["after"] = pushBefore; m["before"] = headSHA })
			if d := deliver(t, in, "push", earlier); d.Status != registry.DeliveryDone || len(d.Submissions) != 1 {
				t.Fatalf("first push: %s %q %v", d.Status, d.Error, d.Submissions)
			}
			d := deliver(t, in, "push", pushOf(t, []string{fsPath, "README.md", badPath}, []string{gitPath}, []string{shellPath}))
			if d.Status != registry.DeliveryDone {
				t.Fatalf("delivery %s (%q), want done", d.Status, d.Error)
			}
			if want := "addons/typo/lean-ctx-addon.toml: mcp.comand: unknown key (line 6)"; d.Error != want {
				t.Errorf("delivery error = %q, want %q", d.Error, want)
			}
			if len(d.Submissions) != 2 {
				t.Fatalf("submissions = %v, want 2", d.Submissions)
			}
			for _, name := range []string{"fs", "git"} {
				a, err := st.Addon(ctx, name)
				if err != nil {
					t.Fatalf("addon %s: %v", name, err)
				}
				if a.Removed || a.LatestVersion == "" {
					t.Errorf("addon %s = %+v, want published", name, a)
				}
				vs, _, err := st.Versions(ctx, name, storage.Page{})
				if err != nil || len(vs) != 1 || vs[0].PublishedBy != "Codertocat" {
					t.Errorf("versions of %s = %+v (%v), want one published by Codertocat", name, vs, err)
				}
			}
			shell, err := st.Addon(ctx, "shell")
			if err != nil || !shell.Removed {
				t.Fatalf("addon shell = %+v (%v), want removed", shell, err)
			}
			rep, err := st.PublishedReport(ctx, "shell", "1.0.0")
			if err != nil {
				t.Fatalf("report of a removed addon: %v", err)
			}
			if !strings.Contains(string(rep.Bytes), `"removed":true`) {
				t.Errorf("report of a removed addon does not say so: %s", rep.Bytes)
			}
			log, _, err := st.AuditLog(ctx, storage.AuditFilter{}, storage.Page{})
			if err != nil {
				t.Fatal(err)
			}
			var actions []string
			for _, e := range log {
				actions = append(actions, e.Actor+" "+e.Action+" "+e.Target[:strings.IndexByte(e.Target, '/')])
			}
			wantActions := []string{"Codertocat addon.remove addon", "Codertocat submission.publish submission", "Codertocat submission.publish submission", "Codertocat submission.publish submission"}
			if diff := cmp.Diff(wantActions, actions); diff != "" {
				t.Errorf("audit log (-want +got):\n%s", diff)
			}
			// The same push again (a retried job) changes nothing.
			again := deliver(t, in, "push", pushOf(t, []string{fsPath, "README.md", badPath}, []string{gitPath}, []string{shellPath}))
			if diff := cmp.Diff(d.Submissions, again.Submissions); diff != "" || again.Status != registry.DeliveryDone {
				t.Errorf("replayed push: %s, submissions (-first +again):\n%s", again.Status, diff)
			}
			if len(fake.Statuses(owner, repoName)) != 0 {
				t.Errorf("a push posted statuses")
			}
		})
	}
}

// TestPushTruncatedUsesCompare: a push whose commit list GitHub cut short
// is read through the compare API.
func TestPushTruncatedUsesCompare(t *testing.T) {
	t.Parallel()
	fake := githubfake.NewTest(t, ghToken)
	fake.PutFile(owner, repoName, pushAfter, fsPath, fixture.Clean("fs", "1.0.0"))
	fake.SetCompare(owner, repoName, pushBefore, pushAfter, githubfake.File{Filename: fsPath, Status: "added"}, githubfake.File{Filename: "x.md", Status: "added"})
	st := fixture.SQLite.Open(t)
	in := startInstance(t, st, instanceOpts{githubURL: fake.URL})
	forced := edit(t, pushOf(t, nil, nil, nil), func(m map[string]any) { m["forced"] = true })
	d := deliver(t, in, "push", forced)
	if d.Status != registry.DeliveryDone || len(d.Submissions) != 1 {
		t.Fatalf("delivery %s %q %v, want done with one submission", d.Status, d.Error, d.Submissions)
	}
	if got := fake.Calls(githubfake.RouteCompare); got != 1 {
		t.Errorf("compare calls = %d, want 1", got)
	}
}

// TestGitHubFailures: the API failing and then recovering, rate limits
// honoured through River, and permanent errors ending the job with the
// error recorded.
func TestGitHubFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		route     githubfake.Route
		n         int
		failure   githubfake.Failure
		wantState registry.DeliveryStatus
		wantError string // substring of the recorded error
		wantCalls int    // calls reaching the route
		statuses  int    // statuses posted: a rerun posts its status again
	}{
		{"5xx then recovery", githubfake.RoutePullFiles, 2, githubfake.ServerError(), registry.DeliveryDone, "", 3, 1},
		{"bad gateway beyond in-process retries", githubfake.RouteContents, 4, githubfake.BadGateway(), registry.DeliveryDone, "", 5, 1},
		{"secondary rate limit with Retry-After", githubfake.RouteCreateStatus, 1, githubfake.SecondaryRateLimit(time.Second), registry.DeliveryDone, "", 2, 1},
		{"429 with Retry-After", githubfake.RouteListComments, 1, githubfake.TooManyRequests(time.Second), registry.DeliveryDone, "", 2, 2},
		{"primary rate limit until reset", githubfake.RoutePullFiles, 1, githubfake.PrimaryRateLimit(time.Now().Add(time.Second)), registry.DeliveryDone, "", 2, 1},
		{"token lacks permission", githubfake.RouteCreateStatus, 1, githubfake.Forbidden(), registry.DeliveryFailed, "create commit status: HTTP 403", 1, 0},
		{"pull request gone", githubfake.RoutePullFiles, 1, githubfake.NotFound(), registry.DeliveryFailed, "list pull request files: HTTP 404", 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
			fake.PutFile(owner, repoName, headSHA, fsPath, fixture.Clean("fs", "1.0.0"))
			fake.FailNext(tc.route, tc.n, tc.failure)
			st := fixture.SQLite.Open(t)
			in := startInstance(t, st, instanceOpts{githubURL: fake.URL})
			d := deliver(t, in, "pull_request", payload(t, "pull_request.opened.1.json"))
			if d.Status != tc.wantState || !strings.Contains(d.Error, tc.wantError) {
				t.Fatalf("delivery %s %q, want %s containing %q", d.Status, d.Error, tc.wantState, tc.wantError)
			}
			if got := fake.Calls(tc.route); got != tc.wantCalls {
				t.Errorf("calls to %s = %d, want %d", tc.route, got, tc.wantCalls)
			}
			if got := len(fake.Statuses(owner, repoName)); got != tc.statuses {
				t.Errorf("statuses = %d, want %d", got, tc.statuses)
			}
			if tc.wantState == registry.DeliveryDone && len(fake.Comments(owner, repoName, prNumber)) != 1 {
				t.Errorf("want exactly one summary comment after recovery")
			}
		})
	}
}

// TestGitHubTimeout: a GitHub call that never answers times out and is
// retried; the delivery completes.
func TestGitHubTimeout(t *testing.T) {
	t.Parallel()
	fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
	fake.PutFile(owner, repoName, headSHA, fsPath, fixture.Clean("fs", "1.0.0"))
	g := newGate(t, fake.URL)
	g.holdFirst("GET /repos/" + owner + "/" + repoName + "/contents/")
	st := fixture.SQLite.Open(t)
	in := startInstance(t, st, instanceOpts{githubURL: g.srv.URL + "/", httpTimeout: 500 * time.Millisecond})
	d := deliver(t, in, "pull_request", payload(t, "pull_request.opened.1.json"))
	select {
	case <-g.arrived:
	default:
		t.Fatal("the held request never arrived")
	}
	if d.Status != registry.DeliveryDone || len(d.Submissions) != 1 {
		t.Fatalf("delivery %s %q %v, want done after the timeout", d.Status, d.Error, d.Submissions)
	}
	if got := fake.Calls(githubfake.RouteContents); got != 1 {
		t.Errorf("contents calls reaching GitHub = %d, want 1 (the timed-out one never did)", got)
	}
}

// TestGitHubDownForGood: a GitHub that keeps failing with 5xx exhausts
// the job's attempts and the delivery ends failed with the last error.
func TestGitHubDownForGood(t *testing.T) {
	t.Parallel()
	fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
	fake.FailNext(githubfake.RoutePullFiles, 1000, githubfake.ServerError())
	st := fixture.SQLite.Open(t)
	in := startInstance(t, st, instanceOpts{githubURL: fake.URL, maxAttempts: 2})
	d := deliver(t, in, "pull_request", payload(t, "pull_request.opened.1.json"))
	if d.Status != registry.DeliveryFailed || !strings.Contains(d.Error, "list pull request files: HTTP 500") {
		t.Fatalf("delivery %s %q, want failed with the 500", d.Status, d.Error)
	}
	// Two River attempts of three in-process calls each.
	if got := fake.Calls(githubfake.RoutePullFiles); got != 6 {
		t.Errorf("calls = %d, want 6", got)
	}
}

// TestManifestGlob: REGISTRYD_MANIFEST_GLOB decides which files are
// manifests.
func TestManifestGlob(t *testing.T) {
	t.Parallel()
	fake := newFake(t,
		githubfake.File{Filename: "registry/fs.toml", Status: "added"},
		githubfake.File{Filename: "registry/nested/git.toml", Status: "added"},
		githubfake.File{Filename: fsPath, Status: "added"},
	)
	fake.PutFile(owner, repoName, headSHA, "registry/fs.toml", fixture.Clean("fs", "1.0.0"))
	st := fixture.SQLite.Open(t)
	in := startInstance(t, st, instanceOpts{githubURL: fake.URL, glob: "registry/*.toml"})
	d := deliver(t, in, "pull_request", payload(t, "pull_request.opened.1.json"))
	if d.Status != registry.DeliveryDone || len(d.Submissions) != 1 {
		t.Fatalf("delivery %s %q %v, want done with only registry/fs.toml", d.Status, d.Error, d.Submissions)
	}
	if got := fake.Calls(githubfake.RouteContents); got != 1 {
		t.Errorf("files fetched = %d, want 1", got)
	}
}

// TestKilledMidJob: the serving process dies (its context cancelled) while
// the job waits on GitHub; a new instance on the same database finishes
// the job.
func TestKilledMidJob(t *testing.T) {
	t.Parallel()
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
			fake.PutFile(owner, repoName, headSHA, fsPath, fixture.Clean("fs", "1.0.0"))
			g := newGate(t, fake.URL)
			g.holdRoute("POST /repos/" + owner + "/" + repoName + "/statuses/")
			cfg := b.Config(t)
			st := fixture.Open(t, cfg)
			first := startInstance(t, st, instanceOpts{githubURL: g.srv.URL + "/"})
			id := newID()
			if status, ans := first.send(t, delivery{event: "pull_request", id: id, body: payload(t, "pull_request.opened.1.json")}); status != http.StatusAccepted {
				t.Fatalf("delivery answered %d %v", status, ans)
			}
			select {
			case <-g.arrived:
			case <-time.After(60 * time.Second):
				t.Fatal("the job never reached GitHub")
			}
			first.kill()
			first.srv.Close()
			st.Close()
			if n := len(fake.Statuses(owner, repoName)); n != 0 {
				t.Fatalf("%d statuses posted before the restart", n)
			}

			g.open()
			st2 := fixture.Open(t, cfg)
			second := startInstance(t, st2, instanceOpts{githubURL: g.srv.URL + "/"})
			d := waitDone(t, second.store, id)
			if d.Status != registry.DeliveryDone || len(d.Submissions) != 1 {
				t.Fatalf("after restart: %s %q %v, want done with one submission", d.Status, d.Error, d.Submissions)
			}
			subs, _, err := st2.Submissions(context.Background(), storage.SubmissionFilter{}, storage.Page{})
			if err != nil || len(subs) != 1 {
				t.Errorf("submissions = %d (%v), want 1: the rerun reuses the first run's", len(subs), err)
			}
			if got := statuses(fake); len(got) != 1 || got[0].State != "success" {
				t.Errorf("statuses = %+v, want one success", got)
			}
		})
	}
}

// TestTwoInstancesOneDelivery: two registryd instances on one PostgreSQL
// database receive the same delivery at the same moment; it is processed
// exactly once.
func TestTwoInstancesOneDelivery(t *testing.T) {
	t.Parallel()
	fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
	fake.PutFile(owner, repoName, headSHA, fsPath, fixture.Clean("fs", "1.0.0"))
	cfg := fixture.Postgres.Config(t)
	st := fixture.Open(t, cfg)
	a := startInstance(t, st, instanceOpts{githubURL: fake.URL})
	bi := startInstance(t, fixture.Open(t, cfg), instanceOpts{githubURL: fake.URL})
	body := payload(t, "pull_request.opened.1.json")
	for round := range 5 {
		id := newID()
		start := make(chan struct{})
		answers := make(chan string, 2)
		for _, in := range []*instance{a, bi} {
			go func() {
				<-start
				status, ans := sendTo(t, in.srv.URL, delivery{event: "pull_request", id: id, body: body})
				answers <- fmt.Sprintf("%d %v", status, ans["status"])
			}()
		}
		close(start)
		got := []string{<-answers, <-answers}
		if !(cmp.Equal(got, []string{"202 queued", "200 duplicate"}) || cmp.Equal(got, []string{"200 duplicate", "202 queued"})) {
			t.Fatalf("round %d: answers %v, want one queued and one duplicate", round, got)
		}
		if d := waitDone(t, st, id); d.Status != registry.DeliveryDone {
			t.Fatalf("round %d: delivery %s %q", round, d.Status, d.Error)
		}
	}
	if got := jobCount(t, st); got != 5 {
		t.Errorf("jobs = %d, want 5", got)
	}
	if got := len(fake.Statuses(owner, repoName)); got != 5 {
		t.Errorf("statuses = %d, want 5 (one per delivery)", got)
	}
	if got := len(fake.Comments(owner, repoName, prNumber)); got != 1 {
		t.Errorf("comments = %d, want 1", got)
	}
}

// TestRetry: a failed delivery is queued again and succeeds; refusals for
// unknown, ignored and in-progress deliveries.
func TestRetry(t *testing.T) {
	t.Parallel()
	fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
	fake.PutFile(owner, repoName, headSHA, fsPath, fixture.Clean("fs", "1.0.0"))
	fake.FailNext(githubfake.RouteCreateStatus, 1, githubfake.Forbidden())
	st := fixture.SQLite.Open(t)
	in := startInstance(t, st, instanceOpts{githubURL: fake.URL})
	ctx := context.Background()
	d := deliver(t, in, "pull_request", payload(t, "pull_request.opened.1.json"))
	if d.Status != registry.DeliveryFailed {
		t.Fatalf("delivery %s, want failed", d.Status)
	}
	if _, err := ghingest.Retry(ctx, st, d.ID, false, time.Now()); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	again := waitDone(t, st, d.ID)
	if again.Status != registry.DeliveryDone || again.Error != "" || len(again.Submissions) != 1 {
		t.Errorf("after retry: %s %q %v, want done", again.Status, again.Error, again.Submissions)
	}

	ping := newID()
	in.send(t, delivery{event: "ping", id: ping, body: payload(t, "ping.event.1.json")})
	tests := []struct {
		name string
		id   string
		want error
	}{
		{"unknown", "00000000-0000-0000-0000-000000000000", registry.ErrNotFound},
		{"malformed", "../../x", registry.ErrInvalid},
		{"ping", ping, ghingest.ErrNotActionable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ghingest.Retry(ctx, st, tc.id, false, time.Now()); !errors.Is(err, tc.want) {
				t.Errorf("Retry error = %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("in progress", func(t *testing.T) {
		recv := startInstance(t, st, instanceOpts{githubURL: fake.URL, noJobs: true})
		in.kill()
		id := newID()
		recv.send(t, delivery{event: "pull_request", id: id, body: payload(t, "pull_request.opened.1.json")})
		if _, err := ghingest.Retry(ctx, st, id, false, time.Now()); !errors.Is(err, ghingest.ErrInProgress) {
			t.Errorf("Retry of a queued delivery: %v, want ErrInProgress", err)
		}
		if _, err := ghingest.Retry(ctx, st, id, true, time.Now()); err != nil {
			t.Errorf("forced Retry: %v", err)
		}
	})
}

// TestDeliveriesListing: maintainers see recent deliveries with what they
// produced; others are refused; bad parameters are named.
func TestDeliveriesListing(t *testing.T) {
	t.Parallel()
	fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
	fake.PutFile(owner, repoName, headSHA, fsPath, fixture.Clean("fs", "1.0.0"))
	st := fixture.SQLite.Open(t)
	in := startInstance(t, st, instanceOpts{githubURL: fake.URL})
	done := deliver(t, in, "pull_request", payload(t, "pull_request.opened.1.json"))
	in.send(t, delivery{event: "ping", id: newID(), body: payload(t, "ping.event.1.json")})
	in.send(t, delivery{event: "pull_request", id: newID(), body: payload(t, "pull_request.closed.1.json")})
	maint := fixture.Token(t, in.svc, "maint", registry.RoleMaintainer)
	sub := fixture.Token(t, in.svc, "author", registry.RoleSubmitter)

	status, page1 := getJSON(t, in.srv.URL, "/v1/webhooks/deliveries?limit=2", maint)
	if status != 200 {
		t.Fatalf("list: %d %v", status, page1)
	}
	items := page1["items"].([]any)
	next, _ := page1["next_cursor"].(string)
	if len(items) != 2 || next == "" {
		t.Fatalf("first page: %d items, next %q; want 2 and a cursor", len(items), next)
	}
	status, page2 := getJSON(t, in.srv.URL, "/v1/webhooks/deliveries?limit=2&cursor="+next, maint)
	if status != 200 || len(page2["items"].([]any)) != 1 || page2["next_cursor"] != nil {
		t.Fatalf("second page: %d %v", status, page2)
	}
	var events []string
	for _, it := range append(items, page2["items"].([]any)...) {
		m := it.(map[string]any)
		events = append(events, fmt.Sprintf("%s/%s/%s/%s", m["event"], m["action"], m["repository"], m["status"]))
	}
	want := []string{"pull_request/closed/Codertocat/Hello-World/ignored", "ping//Octocoders/Hello-World/ignored", "pull_request/opened/Codertocat/Hello-World/done"}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("deliveries, newest first (-want +got):\n%s", diff)
	}

	status, one := getJSON(t, in.srv.URL, "/v1/webhooks/deliveries/"+done.ID, maint)
	if status != 200 {
		t.Fatalf("one: %d %v", status, one)
	}
	subs := one["delivery"].(map[string]any)["submissions"].([]any)
	wantLink := map[string]any{"id": done.Submissions[0], "report_url": publicURL + "/v1/submissions/" + done.Submissions[0] + "/report"}
	if len(subs) != 1 || !cmp.Equal(subs[0], wantLink) {
		t.Errorf("submissions = %v, want [%v]", subs, wantLink)
	}

	refusals := []struct {
		name, path, bearer string
		status             int
		field              string
	}{
		{"anonymous", "/v1/webhooks/deliveries", "", 401, ""},
		{"submitter", "/v1/webhooks/deliveries", sub, 403, ""},
		{"limit zero", "/v1/webhooks/deliveries?limit=0", maint, 400, "limit"},
		{"limit huge", "/v1/webhooks/deliveries?limit=100000", maint, 400, "limit"},
		{"forged cursor", "/v1/webhooks/deliveries?cursor=bm90IGEgY3Vyc29y", maint, 400, "cursor"},
		{"unknown parameter", "/v1/webhooks/deliveries?status=done", maint, 400, "status"},
		{"hostile parameter", "/v1/webhooks/deliveries?%3Cscript%3E=1", maint, 400, ""},
		{"unknown delivery", "/v1/webhooks/deliveries/00000000-0000-0000-0000-000000000000", maint, 404, ""},
		{"malformed id", "/v1/webhooks/deliveries/%3Cscript%3E", maint, 400, "id"},
		{"nested path", "/v1/webhooks/deliveries/a/b", maint, 404, ""},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			status, ans := getJSON(t, in.srv.URL, tc.path, tc.bearer)
			if status != tc.status {
				t.Fatalf("status = %d, want %d (%v)", status, tc.status, ans)
			}
			if tc.field != "" {
				errs, _ := ans["errors"].([]any)
				if len(errs) == 0 || errs[0].(map[string]any)["path"] != tc.field {
					t.Errorf("errors = %v, want field %q", ans["errors"], tc.field)
				}
			}
			if strings.Contains(fmt.Sprint(ans), "<script>") {
				t.Errorf("answer echoes the parameter: %v", ans)
			}
		})
	}
}

// TestIngestPathMatchesREST: a manifest arriving through a pull request
// produces the same report bytes as the same manifest submitted by REST.
func TestIngestPathMatchesREST(t *testing.T) {
	t.Parallel()
	fake := newFake(t, githubfake.File{Filename: fsPath, Status: "added"})
	fake.PutFile(owner, repoName, headSHA, fsPath, risky("fs", "1.0.0"))
	st := fixture.SQLite.Open(t)
	in := startInstance(t, st, instanceOpts{githubURL: fake.URL})
	d := deliver(t, in, "pull_request", payload(t, "pull_request.opened.1.json"))
	viaPR, err := st.Report(context.Background(), d.Submissions[0])
	if err != nil {
		t.Fatal(err)
	}
	st2 := fixture.SQLite.Open(t)
	in2 := startInstance(t, st2, instanceOpts{githubURL: fake.URL, noJobs: true})
	_, rep, _, err := in2.svc.Submit(context.Background(), workflow.Actor{Name: "sam", TokenID: "tok_sam", Role: registry.RoleSubmitter}, risky("fs", "1.0.0"), "toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(rep.Bytes), string(viaPR.Bytes)); diff != "" {
		t.Errorf("report bytes differ (-rest +webhook):\n%s", diff)
	}
}

func TestNewWorkerRefusals(t *testing.T) {
	t.Parallel()
	st := fixture.SQLite.Open(t)
	svc := workflow.New(st, workflow.Options{})
	gh := ghClient(t, "http://127.0.0.1:1/")
	tests := []struct {
		name string
		cfg  ghingest.WorkerConfig
	}{
		{"no store", ghingest.WorkerConfig{Workflow: svc, GitHub: gh}},
		{"no workflow", ghingest.WorkerConfig{Store: st, GitHub: gh}},
		{"no github", ghingest.WorkerConfig{Store: st, Workflow: svc}},
		{"bad glob", ghingest.WorkerConfig{Store: st, Workflow: svc, GitHub: gh, ManifestGlob: "a//b"}},
	}
	for _, tc := range tests {
		if _, err := ghingest.NewWorker(tc.cfg); err == nil {
			t.Errorf("%s: NewWorker accepted it", tc.name)
		}
	}
}
