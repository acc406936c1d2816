package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/metrics/metricstest"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/postgres"
	"github.com/registryd/registryd/transparency"
	"github.com/registryd/registryd/webhook"
)

// The tests in this file run several `registryd serve` processes (the
// real binary) on one PostgreSQL database, as a deployment behind a load
// balancer does, and check what no single process can get wrong alone.

const (
	replicaOwner  = "Codertocat"
	replicaRepo   = "Hello-World"
	replicaSecret = "replica-secret"
	replicaToken  = "ghs_replicas"
)

// replica is one running `registryd serve`.
type replica struct {
	url string
	cmd *exec.Cmd
}

// startReplicas starts n servers of bin on env (one database) and returns
// them once each listens.
func startReplicas(t *testing.T, bin string, env map[string]string, n int) []replica {
	t.Helper()
	out := make([]replica, n)
	for i := range out {
		u, cmd := startBinary(t, bin, env)
		out[i] = replica{url: u, cmd: cmd}
	}
	return out
}

// replicaEnv is the environment of replicas on database url speaking to
// the fake GitHub at apiURL.
func replicaEnv(url, apiURL string) map[string]string {
	return map[string]string{
		"REGISTRYD_DATABASE_URL":          url,
		"REGISTRYD_GITHUB_WEBHOOK_SECRET": replicaSecret,
		"REGISTRYD_GITHUB_TOKEN":          replicaToken,
		"REGISTRYD_GITHUB_API_URL":        apiURL,
		"REGISTRYD_PUBLIC_URL":            "https://registry.example",
		"REGISTRYD_RATE_LIMIT":            "0",
		"REGISTRYD_CACHEABLE_RATE_LIMIT":  "0",
	}
}

// editPayload decodes a webhook fixture, lets fn change it and encodes it
// again: the bytes GitHub would have sent for that event.
func editPayload(t *testing.T, name string, fn func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(webhookFixture(t, name), &m); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	fn(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pullPayload is a pull_request delivery of action for pull request number
// whose head commit is sha.
func pullPayload(t *testing.T, action string, number int, sha string) []byte {
	return editPayload(t, "pull_request.opened.1.json", func(m map[string]any) {
		m["action"] = action
		m["number"] = number
		pr := m["pull_request"].(map[string]any)
		pr["number"] = number
		pr["head"].(map[string]any)["sha"] = sha
	})
}

// deliver posts a signed delivery to base and returns the status answered.
func deliver(base, event, id string, body []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/v1/webhooks/github", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhook.EventHeader, event)
	req.Header.Set(webhook.DeliveryHeader, id)
	req.Header.Set(webhook.SignatureHeader, webhook.SignatureValue(body, []byte(replicaSecret)))
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// mustDeliver is deliver that fails t unless the delivery is queued (202).
func mustDeliver(t *testing.T, base, event, id string, body []byte) {
	t.Helper()
	status, err := deliver(base, event, id, body)
	if err != nil || status != http.StatusAccepted {
		t.Fatalf("delivery %s to %s: status %d, %v; want 202", id, base, status, err)
	}
}

// awaitDone polls every replica in turn until delivery id is done, and
// fails t if it failed or is not done within 60 s.
func awaitDone(t *testing.T, rs []replica, token, id string) listedDelivery {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; ; i++ {
		c := &client{t: t, base: rs[i%len(rs)].url}
		var out struct {
			Delivery listedDelivery `json:"delivery"`
		}
		c.decode(c.expect("GET", "/v1/webhooks/deliveries/"+id, token, "", "", nil, http.StatusOK), &out)
		switch out.Delivery.Status {
		case "done":
			return out.Delivery
		case "failed":
			t.Fatalf("delivery %s failed: %s", id, out.Delivery.Error)
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery %s still %q after 60s (%s)", id, out.Delivery.Status, out.Delivery.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// shaOf makes a distinct commit SHA whose first 12 characters (what a
// comment shows) differ too.
func shaOf(i int) string { return fmt.Sprintf("%08x%032x", 0xa11ce000+i, i) }

// TestReplicasWebhooks runs three replicas on one database behind one
// GitHub: deliveries land on any of them and their jobs run on any of them.
func TestReplicasWebhooks(t *testing.T) {
	bin := binary(t)
	fake := githubfake.NewTest(t, replicaToken)
	env := replicaEnv(pgtest.NewDatabase(t), fake.URL)
	maint, _ := createToken(t, envOf(env), "maint", "maintainer")
	rs := startReplicas(t, bin, env, 3)

	// A burst of deliveries for one pull request, each to the next
	// replica, all at once: whichever replicas run them, the pull request
	// ends with one summary comment, edited rather than added again.
	t.Run("burst leaves one comment", func(t *testing.T) {
		const number = 7
		head := shaOf(number)
		path := "addons/burst/lean-ctx-addon.toml"
		fake.AddPullRequest(replicaOwner, replicaRepo, number, githubfake.File{Filename: path, Status: "added"})
		fake.SetPullHead(replicaOwner, replicaRepo, number, replicaOwner, replicaRepo, head)
		fake.PutFile(replicaOwner, replicaRepo, head, path, fixture.Clean("burst", "1.0.0"))
		actions := []string{"opened", "synchronize", "reopened", "ready_for_review"}
		var ids []string
		var wg sync.WaitGroup
		errs := make(chan error, 24)
		for i := range 24 {
			id := fmt.Sprintf("b0b0b0b0-0000-4000-8000-%012d", i)
			ids = append(ids, id)
			body := pullPayload(t, actions[i%len(actions)], number, head)
			wg.Go(func() {
				if status, err := deliver(rs[i%len(rs)].url, "pull_request", id, body); err != nil || status != http.StatusAccepted {
					errs <- fmt.Errorf("delivery %s: status %d, %v", id, status, err)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		subs := map[string]bool{}
		for _, id := range ids {
			for _, s := range awaitDone(t, rs, maint, id).Submissions {
				subs[s.ID] = true
			}
		}
		if got := fake.Comments(replicaOwner, replicaRepo, number); len(got) != 1 {
			t.Errorf("%d summary comments on the pull request after a burst of %d deliveries over %d replicas, want 1", len(got), len(ids), len(rs))
		}
		if len(subs) != 1 {
			t.Errorf("%d distinct submissions for one manifest at one commit, want 1", len(subs))
		}
		for _, st := range fake.Statuses(replicaOwner, replicaRepo) {
			if st.SHA != head || st.State != "success" {
				t.Errorf("status %+v, want success on %s", st, head)
			}
		}
	})

	// A synchronize for head B is processed, then a late delivery for the
	// older head A: the comment and B's status stay B's.
	t.Run("late delivery of an older head changes nothing", func(t *testing.T) {
		const number = 8
		older, newer := shaOf(80), shaOf(81)
		path := "addons/late/lean-ctx-addon.toml"
		fake.AddPullRequest(replicaOwner, replicaRepo, number, githubfake.File{Filename: path, Status: "added"})
		fake.PutFile(replicaOwner, replicaRepo, older, path, fixture.Clean("late", "1.0.0"))
		fake.PutFile(replicaOwner, replicaRepo, newer, path, []byte(fixture.FailingManifest("late", "1.1.0")))
		fake.SetPullHead(replicaOwner, replicaRepo, number, replicaOwner, replicaRepo, newer)

		mustDeliver(t, rs[0].url, "pull_request", "1a7e1a7e-0000-4000-8000-000000000002", pullPayload(t, "synchronize", number, newer))
		awaitDone(t, rs, maint, "1a7e1a7e-0000-4000-8000-000000000002")
		commentOf := func() string {
			cs := fake.Comments(replicaOwner, replicaRepo, number)
			if len(cs) != 1 {
				t.Fatalf("%d comments on pull request %d, want 1", len(cs), number)
			}
			return cs[0].Body
		}
		if c := commentOf(); !strings.Contains(c, newer[:12]) || !strings.Contains(c, "late@1.1.0") {
			t.Fatalf("comment after the newer head's delivery:\n%s\nwant it to describe %s (late@1.1.0)", c, newer[:12])
		}
		statusesOn := func(sha string) []githubfake.Status {
			var out []githubfake.Status
			for _, st := range fake.Statuses(replicaOwner, replicaRepo) {
				if st.SHA == sha {
					out = append(out, st)
				}
			}
			return out
		}
		newerStatuses := statusesOn(newer)
		if len(newerStatuses) != 1 || newerStatuses[0].State != "failure" {
			t.Fatalf("statuses on the newer head: %+v, want one failure", newerStatuses)
		}

		// The older head's delivery arrives late, at another replica.
		mustDeliver(t, rs[1].url, "pull_request", "1a7e1a7e-0000-4000-8000-000000000001", pullPayload(t, "opened", number, older))
		awaitDone(t, rs, maint, "1a7e1a7e-0000-4000-8000-000000000001")
		if c := commentOf(); !strings.Contains(c, newer[:12]) || strings.Contains(c, older[:12]) {
			t.Errorf("a late delivery for the older head %s rewrote the comment:\n%s", older[:12], c)
		}
		if got := statusesOn(newer); len(got) != 1 {
			t.Errorf("statuses on the newer head after the late delivery: %+v, want the one posted before", got)
		}
		if got := statusesOn(older); len(got) != 0 {
			t.Errorf("the late delivery posted %+v on the superseded head %s, want nothing", got, older[:12])
		}
	})

	// A push that creates the default branch has no commit before it (its
	// "before" is all zeros) and lists at most 20 commits: every manifest
	// in the branch is new, listed in the payload or not.
	t.Run("push creating the default branch publishes its manifests", func(t *testing.T) {
		after := shaOf(90)
		fake.PutFile(replicaOwner, replicaRepo, after, "README.md", []byte("# Hello\n"))
		fake.PutFile(replicaOwner, replicaRepo, after, "addons/first/lean-ctx-addon.toml", fixture.Clean("first", "1.0.0"))
		fake.PutFile(replicaOwner, replicaRepo, after, "addons/second/lean-ctx-addon.toml", fixture.Clean("second", "2.0.0"))
		body := editPayload(t, "push.event.5.json", func(m map[string]any) {
			if m["created"] != true || m["before"] != strings.Repeat("0", 40) {
				t.Fatalf("push.event.5.json is not a push creating a branch")
			}
			m["after"] = after
			// The 20 commits GitHub lists are the last ones; the manifests
			// came in earlier commits.
			var commits []any
			for i := range 20 {
				commits = append(commits, map[string]any{
					"id": fmt.Sprintf("%040x", 0xc0ffee00+i), "tree_id": fmt.Sprintf("%040x", 0xbeef00+i),
					"distinct": true, "message": "docs", "timestamp": "2026-11-30T12:00:00Z",
					"url":    "https://github.com/Codertocat/Hello-World/commit/" + fmt.Sprintf("%040x", 0xc0ffee00+i),
					"author": map[string]any{"name": "Codertocat", "email": "c@example.com", "username": "Codertocat"},
					"added":  []string{fmt.Sprintf("docs/%d.md", i)}, "removed": []string{}, "modified": []string{},
				})
			}
			m["commits"] = commits
			m["head_commit"] = commits[19]
		})
		mustDeliver(t, rs[2].url, "push", "c4ea7ed0-0000-4000-8000-000000000001", body)
		d := awaitDone(t, rs, maint, "c4ea7ed0-0000-4000-8000-000000000001")
		if len(d.Submissions) != 2 || d.Error != "" {
			t.Errorf("the push that created the default branch: %+v; want two submissions published and no error", d)
		}
		for i, name := range []string{"first", "second"} {
			c := &client{t: t, base: rs[i%len(rs)].url}
			c.expect("GET", "/v1/addons/"+name+"/report", "", "", "", nil, http.StatusOK)
		}
	})
}

// load submits manifests to every replica from several workers until
// stopped, each submission followed by a read of a published report, and
// keeps what was acknowledged.
type load struct {
	mu    sync.Mutex
	acked map[string][]byte // submission ID → the report the 201 carried
	per   []int             // acknowledgements per replica
	stop  chan struct{}
	wg    sync.WaitGroup
}

func startLoad(t *testing.T, rs []replica, token string, workers int) *load {
	l := &load{acked: map[string][]byte{}, per: make([]int, len(rs)), stop: make(chan struct{})}
	client := &http.Client{Timeout: 10 * time.Second}
	for w := range workers {
		l.wg.Go(func() {
			r := w % len(rs)
			for i := 0; ; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				manifest := fmt.Sprintf("[addon]\nname = \"load-%d-%d\"\nversion = \"1.0.0\"\n\n[mcp]\ncommand = \"load-mcp\"\nargs = [\"serve\"]\n", w, i)
				req, _ := http.NewRequest(http.MethodPost, rs[r].url+"/v1/submissions", strings.NewReader(manifest))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/toml")
				resp, err := client.Do(req)
				if err != nil {
					continue // refused while the database is away: not acknowledged
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusCreated {
					if resp.StatusCode != http.StatusCreated && resp.StatusCode < 500 {
						t.Errorf("submission to replica %d: status %d: %s", r, resp.StatusCode, body)
						return
					}
					// A 5xx is a write that did not happen; wait for the
					// next one rather than spin.
					select {
					case <-l.stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
					continue
				}
				var created struct {
					Submission struct {
						ID string `json:"id"`
					} `json:"submission"`
					Report json.RawMessage `json:"report"`
				}
				if err := json.Unmarshal(body, &created); err != nil {
					t.Errorf("decode 201: %v", err)
					return
				}
				l.mu.Lock()
				l.acked[created.Submission.ID] = []byte(created.Report)
				l.per[r]++
				l.mu.Unlock()
				if resp, err := client.Get(rs[r].url + "/v1/addons/steady/report"); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		})
	}
	return l
}

// counts returns the acknowledgements so far, per replica.
func (l *load) counts() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.per...)
}

// finish stops the load and returns every acknowledged submission.
func (l *load) finish() map[string][]byte {
	close(l.stop)
	l.wg.Wait()
	return l.acked
}

// awaitCounts waits until every replica has acknowledged at least more
// submissions than in since.
func (l *load) awaitGrowth(t *testing.T, since []int, what string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		now := l.counts()
		grown := true
		for i := range now {
			grown = grown && now[i] > since[i]
		}
		if grown {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: acknowledgements per replica went from %v to %v in 60s; want every replica to acknowledge more", what, since, now)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ready returns the status of GET /readyz at base (0 when nothing answers).
func ready(base string) int {
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(base + "/readyz")
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// awaitReady waits until /readyz of every replica answers want (200) or
// anything else (want 0), and fails t after 60 s.
func awaitReady(t *testing.T, rs []replica, wantReady bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for i := range rs {
		for {
			got := ready(rs[i].url)
			if (got == http.StatusOK) == wantReady && got != 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %d: /readyz answers %d after 60s; want ready=%v", i, got, wantReady)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// publishThrough submits addon name@version as submitter through rs[0] and
// approves it as approver through rs[1%len]; it returns the report of the
// submission.
func publishThrough(t *testing.T, rs []replica, submitter, approver, name, version string) []byte {
	_, rep := publishID(t, rs, submitter, approver, name, version)
	return rep
}

// publishID is publishThrough that also returns the submission's ID.
func publishID(t *testing.T, rs []replica, submitter, approver, name, version string) (string, []byte) {
	t.Helper()
	c := &client{t: t, base: rs[0].url}
	var created struct {
		Submission struct {
			ID string `json:"id"`
		} `json:"submission"`
		Report json.RawMessage `json:"report"`
	}
	c.decode(c.expect("POST", "/v1/submissions", submitter, "application/toml", string(fixture.Clean(name, version)), nil, http.StatusCreated), &created)
	a := &client{t: t, base: rs[1%len(rs)].url}
	a.expect("POST", "/v1/submissions/"+created.Submission.ID+"/approve", approver, "application/json", `{"reason":"pinned binary, no network"}`, nil, http.StatusOK)
	return created.Submission.ID, created.Report
}

// awaitLatest waits until every replica serves want as name's latest
// report, and fails t after 10 s.
func awaitLatest(t *testing.T, rs []replica, name string, want []byte) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i, r := range rs {
		c := &client{t: t, base: r.url}
		for {
			got := c.expect("GET", "/v1/addons/"+name+"/report", "", "", "", nil, http.StatusOK)
			if bytes.Equal(got.body, want) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %d still serves for %s:\n%s\nwant\n%s", i, name, got.body, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestReplicasPostgresRestart restarts the PostgreSQL server of three
// replicas while they take writes and reads: each says it is not ready
// while the database is away and ready again once it is back, takes writes
// again without being restarted itself, hears changes made through the
// others again (the report cache's listener reconnected), and every
// submission acknowledged before, during or after the restart is stored
// with the very report bytes its acknowledgement carried.
func TestReplicasPostgresRestart(t *testing.T) {
	bin := binary(t)
	cluster := pgtest.NewCluster(t)
	env := map[string]string{
		"REGISTRYD_DATABASE_URL":         cluster.NewDatabase(t),
		"REGISTRYD_RATE_LIMIT":           "0",
		"REGISTRYD_CACHEABLE_RATE_LIMIT": "0",
	}
	sam, _ := createToken(t, envOf(env), "sam", "submitter")
	alice, _ := createToken(t, envOf(env), "alice", "maintainer")
	rs := startReplicas(t, bin, env, 3)
	awaitReady(t, rs, true)

	// A published report each replica serves, from its cache once its
	// listener is up.
	v1 := publishThrough(t, rs, sam, alice, "steady", "1.0.0")
	awaitLatest(t, rs, "steady", v1)

	l := startLoad(t, rs, sam, 6)
	l.awaitGrowth(t, []int{19, 19, 19}, "before the restart")

	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	awaitReady(t, rs, false)
	before := l.counts()
	if err := cluster.Start(); err != nil {
		t.Fatal(err)
	}
	awaitReady(t, rs, true)
	l.awaitGrowth(t, before, "after the restart")
	acked := l.finish()

	// Changes made after the restart reach every replica's cache.
	v2 := publishThrough(t, rs, sam, alice, "steady", "1.1.0")
	awaitLatest(t, rs, "steady", v2)

	i := 0
	for id, want := range acked {
		c := &client{t: t, base: rs[i%len(rs)].url}
		i++
		got := c.expect("GET", "/v1/submissions/"+id+"/report", alice, "", "", nil, http.StatusOK)
		if !bytes.Equal(got.body, want) {
			t.Errorf("acknowledged submission %s: the stored report differs from the acknowledged one", id)
		}
	}
	t.Logf("%d submissions acknowledged by 3 replicas across a PostgreSQL restart (per replica before the stop %v), all stored", len(acked), before)
}

// TestReplicasTransparencyLog publishes addons through three replicas at
// once, each submission approved on another replica than the one that took
// it, so that every replica appends to the transparency log while the
// others do. The log they leave is one log: its leaves are numbered from 0
// without a gap, every published submission has its leaf, the head the
// database holds is the RFC 6962 root of those leaves (recomputed here
// from the leaves alone), every head seen while the replicas were
// appending is the root of a prefix of them (no fork), every checkpoint
// seen verifies with the replicas' one signing key and signs such a root,
// the checkpoints seen never go back to a smaller tree, one of the whole
// log is signed shortly after the last append, and the store's inclusion
// and consistency proofs verify against the recomputed roots.
func TestReplicasTransparencyLog(t *testing.T) {
	bin := binary(t)
	url := pgtest.NewDatabase(t)
	// The replicas share one signing key, as they must: each checkpoint is
	// signed by a replica that appended, shortly after.
	const origin = "registry.example/log"
	keyFile := filepath.Join(t.TempDir(), "signing.key")
	var vkey, stderr bytes.Buffer
	if err := run(context.Background(), []string{"key", "generate", "--name", origin, "--out", keyFile}, envOf(nil), nil, &vkey, &stderr); err != nil {
		t.Fatalf("key generate: %v\n%s", err, stderr.String())
	}
	verifier, err := transparency.ParseVerifierKey(strings.TrimSpace(vkey.String()))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"REGISTRYD_DATABASE_URL":         url,
		"REGISTRYD_SIGNING_KEY_FILE":     keyFile,
		"REGISTRYD_RATE_LIMIT":           "0",
		"REGISTRYD_CACHEABLE_RATE_LIMIT": "0",
	}
	sam, _ := createToken(t, envOf(env), "sam", "submitter")
	alice, _ := createToken(t, envOf(env), "alice", "maintainer")
	rs := startReplicas(t, bin, env, 3)
	ctx := context.Background()
	st, err := postgres.Open(ctx, storage.Config{DatabaseURL: url, MaxConns: 4, SkipMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	type head struct {
		size       uint64
		root       []byte
		checkpoint []byte
	}
	var heads []head
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			var h head
			if err := st.Pool().QueryRow(ctx, `SELECT size, root, checkpoint FROM log_head`).Scan(&h.size, &h.root, &h.checkpoint); err != nil {
				t.Errorf("read the log head: %v", err)
				return
			}
			heads = append(heads, h)
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()

	const workers, each = 6, 15
	published := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			// Submitted on one replica, approved on the next.
			order := []replica{rs[w%len(rs)], rs[(w+1)%len(rs)]}
			for i := range each {
				id, _ := publishID(t, order, sam, alice, fmt.Sprintf("logged-%d-%02d", w, i), "1.0.0")
				published[w] = append(published[w], id)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-watched
	if t.Failed() {
		t.FailNow()
	}

	rows, err := st.Pool().Query(ctx, `SELECT id / 2, submission_id, leaf FROM log_nodes WHERE leaf IS NOT NULL ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var (
		roots    = map[uint64][]byte{0: rfc6962.DefaultHasher.EmptyRoot()}
		rng      = (&compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}).NewEmptyRange(0)
		leafHash = map[string][]byte{}
		n        uint64
	)
	for rows.Next() {
		var (
			idx  uint64
			sub  string
			leaf []byte
		)
		if err := rows.Scan(&idx, &sub, &leaf); err != nil {
			t.Fatal(err)
		}
		if idx != n {
			t.Fatalf("leaf %d follows leaf %d: the log has a gap or a duplicate", idx, n-1)
		}
		h := rfc6962.DefaultHasher.HashLeaf(leaf)
		if err := rng.Append(h, nil); err != nil {
			t.Fatal(err)
		}
		n++
		if roots[n], err = rng.GetRootHash(nil); err != nil {
			t.Fatal(err)
		}
		leafHash[sub] = h
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for _, ids := range published {
		for _, id := range ids {
			if leafHash[id] == nil {
				t.Errorf("published submission %s has no leaf in the log", id)
			}
		}
	}
	var final head
	if err := st.Pool().QueryRow(ctx, `SELECT size, root FROM log_head`).Scan(&final.size, &final.root); err != nil {
		t.Fatal(err)
	}
	// The last append's checkpoint is signed after its commit.
	deadline := time.Now().Add(10 * time.Second)
	for {
		cp, err := st.Checkpoint(ctx)
		if err == nil && cp.Size >= final.size {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint of the whole log (%d leaves) 10 s after the last append: size %d, %v", final.size, cp.Size, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := st.Pool().QueryRow(ctx, `SELECT size, root FROM log_head`).Scan(&final.size, &final.root); err != nil {
		t.Fatal(err)
	}
	if final.size != n || !bytes.Equal(final.root, roots[n]) {
		t.Fatalf("the log head says size %d root %x; its %d leaves make root %x", final.size, final.root, n, roots[n])
	}
	distinct := map[uint64]bool{}
	var signedSize uint64
	for _, h := range heads {
		distinct[h.size] = true
		if want, ok := roots[h.size]; !ok || !bytes.Equal(h.root, want) {
			t.Errorf("a head seen during the appends (size %d, root %x) is not the root of the log's first %d leaves: a fork", h.size, h.root, h.size)
		}
		if h.checkpoint == nil {
			continue
		}
		c, _, err := transparency.OpenCheckpoint(h.checkpoint, origin, verifier)
		if err != nil {
			t.Errorf("a checkpoint seen during the appends (size %d) does not verify with the shared key: %v", h.size, err)
		} else if want := roots[c.Size]; !bytes.Equal(c.Hash, want) {
			t.Errorf("a checkpoint seen during the appends signs size %d root %x; the first %d leaves make root %x", c.Size, c.Hash, c.Size, want)
		} else if c.Size < signedSize || c.Size > h.size {
			t.Errorf("a checkpoint of size %d seen after one of %d, with the head at %d", c.Size, signedSize, h.size)
		} else {
			signedSize = c.Size
		}
	}

	cp, err := st.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Size != n || !bytes.Equal(cp.Root, roots[n]) {
		t.Errorf("checkpoint of size %d root %x; the leaves make size %d root %x", cp.Size, cp.Root, n, roots[n])
	}
	if c, _, err := transparency.OpenCheckpoint(cp.Signed, origin, verifier); err != nil || c.Size != n || !bytes.Equal(c.Hash, roots[n]) {
		t.Errorf("the last checkpoint, opened with the shared key: size %d, root %x, %v; want size %d root %x", c.Size, c.Hash, err, n, roots[n])
	}
	for w := range workers {
		name := fmt.Sprintf("logged-%d-%02d", w, each-1)
		inc, err := st.InclusionProof(ctx, name, "1.0.0")
		if err != nil {
			t.Fatalf("inclusion proof of %s: %v", name, err)
		}
		if err := proof.VerifyInclusion(rfc6962.DefaultHasher, inc.LeafIndex, inc.TreeSize, rfc6962.DefaultHasher.HashLeaf(inc.Leaf), inc.Hashes, roots[inc.TreeSize]); err != nil {
			t.Errorf("inclusion of %s at %d in %d: %v", name, inc.LeafIndex, inc.TreeSize, err)
		}
	}
	for size := range distinct {
		if size == 0 || size == n {
			continue
		}
		hashes, err := st.ConsistencyProof(ctx, size, n)
		if err != nil {
			t.Fatalf("consistency proof %d → %d: %v", size, n, err)
		}
		if err := proof.VerifyConsistency(rfc6962.DefaultHasher, size, n, hashes, roots[size], roots[n]); err != nil {
			t.Errorf("consistency %d → %d: %v", size, n, err)
		}
	}
	t.Logf("%d leaves appended by 3 replicas for %d publications; %d distinct heads seen on the way, each a prefix of the final log", n, workers*each, len(distinct))
}

// startReplicasAtOnce starts n servers of bin on env without waiting for
// one to listen before starting the next, so that what they do at start
// they do at the same time, and calls onListen(i, r) as soon as replica i
// listens (from a goroutine of its own).
func startReplicasAtOnce(t *testing.T, bin string, env map[string]string, n int, onListen func(int, replica)) []replica {
	t.Helper()
	out := make([]replica, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			u, cmd := startBinary(t, bin, env)
			out[i] = replica{url: u, cmd: cmd}
			onListen(i, out[i])
		})
	}
	wg.Wait()
	for i, r := range out {
		if r.url == "" {
			t.Fatalf("replica %d did not start", i)
		}
	}
	return out
}

// TestReplicasReassess publishes addons, makes every stored report stale
// as a ruleset change does, and starts three replicas at once: each
// re-assesses at start, all at the same time. Every report is rendered
// once in all (the replicas' counters add up to the number of reports),
// and a reader on each replica sees each report change within a second of
// the first reader that saw it.
func TestReplicasReassess(t *testing.T) {
	bin := binary(t)
	url := pgtest.NewDatabase(t)
	env := map[string]string{
		"REGISTRYD_DATABASE_URL":         url,
		"REGISTRYD_RATE_LIMIT":           "0",
		"REGISTRYD_CACHEABLE_RATE_LIMIT": "0",
	}
	sam, _ := createToken(t, envOf(env), "sam", "submitter")
	alice, _ := createToken(t, envOf(env), "alice", "maintainer")

	const addons = 1000
	seed := startReplicas(t, bin, env, 1)
	fresh := make([][]byte, addons)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < addons; i += 8 {
				fresh[i] = publishThrough(t, []replica{seed[0]}, sam, alice, fmt.Sprintf("re-%04d", i), "1.0.0")
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	seed[0].cmd.Process.Kill()
	seed[0].cmd.Wait()

	// What a server of an earlier ruleset stored: other bytes, another
	// ruleset.
	st, err := postgres.Open(context.Background(), storage.Config{DatabaseURL: url, MaxConns: 2, SkipMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	conn := st.Pool()
	stale := func(name string) []byte { return []byte(`{"stale":"` + name + `"}`) }
	tag, err := conn.Exec(context.Background(), `UPDATE reports r SET ruleset = '2026.1.0',
		bytes = convert_to('{"stale":"' || s.addon || '"}', 'UTF8'),
		sha256 = encode(sha256(convert_to('{"stale":"' || s.addon || '"}', 'UTF8')), 'hex')
		FROM submissions s WHERE s.id = r.submission_id`)
	if err != nil || tag.RowsAffected() != addons {
		t.Fatalf("make the reports stale: %v (%d rows)", err, tag.RowsAffected())
	}

	// A reader per replica, started as soon as its replica listens (and
	// re-assesses), goes round a sample of the addons and notes when it
	// last saw each one's old report (when it asked) and first saw the new
	// one (when the answer came): a replica that served the old report
	// after another served the new one did so between those times.
	const replicas = 3
	var sample []int
	for i := 0; i < addons; i += addons / 50 {
		sample = append(sample, i)
	}
	seen := make([][]time.Time, replicas)    // [replica][sample index]: new report first answered
	lastOld := make([][]time.Time, replicas) // [replica][sample index]: old report last asked for
	for ri := range replicas {
		seen[ri] = make([]time.Time, len(sample))
		lastOld[ri] = make([]time.Time, len(sample))
	}
	var readers sync.WaitGroup
	read := func(ri int, r replica) {
		readers.Go(func() {
			client := &http.Client{Timeout: 10 * time.Second}
			left, deadline := len(sample), time.Now().Add(2*time.Minute)
			for left > 0 && time.Now().Before(deadline) {
				for si, i := range sample {
					if !seen[ri][si].IsZero() {
						continue
					}
					name := fmt.Sprintf("re-%04d", i)
					asked := time.Now()
					resp, err := client.Get(r.url + "/v1/addons/" + name + "/report")
					if err != nil {
						t.Errorf("replica %d: %v", ri, err)
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					switch {
					case resp.StatusCode != http.StatusOK:
						t.Errorf("replica %d: %s: status %d", ri, name, resp.StatusCode)
						return
					case bytes.Equal(body, fresh[i]):
						seen[ri][si] = time.Now()
						left--
					case bytes.Equal(body, stale(name)):
						lastOld[ri][si] = asked
					default:
						t.Errorf("replica %d serves for %s neither the stale nor the new report:\n%s", ri, name, body)
						return
					}
				}
			}
		})
	}
	rs := startReplicasAtOnce(t, bin, env, replicas, read)
	readers.Wait()

	// Every report rendered once, across the replicas.
	deadline := time.Now().Add(2 * time.Minute)
	var total float64
	for {
		total = 0
		running := false
		for _, r := range rs {
			f := metricstest.Scrape(t, r.url+"/metrics")
			n, _ := f.Value("registryd_reassess_reports_total", nil)
			on, _ := f.Value("registryd_reassess_running", nil)
			total += n
			running = running || on != 0
		}
		if !running || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var left int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM reports WHERE ruleset <> $1`, assess.Ruleset).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 || total != addons {
		t.Errorf("after three replicas re-assessed at once: %d reports rendered in all and %d left stale; want %d rendered once each and none left", int(total), left, addons)
		rows, _ := conn.Query(context.Background(), `SELECT x.n, x.addon, x.ruleset FROM (SELECT row_number() OVER (ORDER BY s.created_at, s.id) AS n, s.addon, r.ruleset FROM submissions s JOIN reports r ON r.submission_id = s.id) x WHERE x.ruleset <> $1`, assess.Ruleset)
		for rows.Next() {
			var n int
			var a, rl string
			rows.Scan(&n, &a, &rl)
			t.Logf("stale: #%d %s %s", n, a, rl)
		}
		rows.Close()
		for i, r := range rs {
			for _, line := range strings.Split(r.cmd.Stderr.(*logSink).String(), "\n") {
				if !strings.Contains(line, "msg=request") && line != "" {
					t.Logf("replica %d: %s", i, line)
				}
			}
		}
	}
	var worst time.Duration
	watched := 0 // sampled reports a reader saw change
	for si, i := range sample {
		first, old := seen[0][si], time.Time{}
		for ri := range rs {
			if seen[ri][si].IsZero() {
				t.Fatalf("replica %d never served the new report of re-%04d", ri, i)
			}
			if seen[ri][si].Before(first) {
				first = seen[ri][si]
			}
			if lastOld[ri][si].After(old) {
				old = lastOld[ri][si]
			}
		}
		if !old.IsZero() {
			watched++
		}
		worst = max(worst, old.Sub(first))
	}
	if worst > time.Second {
		t.Errorf("a replica served an old report %s after another replica served the new one; want at most 1s", worst)
	}
	t.Logf("%d reports re-assessed by 3 replicas at once; %d of the %d sampled were seen changing; the longest a replica served an old report after another served the new one: %s", addons, watched, len(sample), worst)
}
