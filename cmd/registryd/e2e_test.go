package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
)

// demoManifest has one finding, at info level (child_env at mcp.env), so it
// can be verified and still has a finding to suppress.
const demoManifest = `[addon]
name = "demo"
version = "1.0.0"
description = "Reads your notes."

[mcp]
command = "/usr/local/bin/notes-server"
args = ["--read-only"]
sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

[mcp.env]
LOG_LEVEL = "debug"

[capabilities]
network = "none"
filesystem = "read_only"
`

// TestEndToEnd runs the real command, run(), on port 0 against each
// database, through the whole review workflow over HTTP.
func TestEndToEnd(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) { endToEnd(t, b.Env(t)) })
}

func endToEnd(t *testing.T, env map[string]string) {
	getenv := envOf(env)
	sam, samID := createToken(t, getenv, "sam", "submitter")
	alice, _ := createToken(t, getenv, "alice", "maintainer")
	bob, _ := createToken(t, getenv, "bob", "admin")

	srv := startServer(t, getenv)
	c := &client{t: t, base: srv.url}

	c.expect("GET", "/healthz", "", "", "", nil, http.StatusOK)
	c.expect("GET", "/readyz", "", "", "", nil, http.StatusOK)

	// Submit: a token is needed; the author gets the report at once.
	c.expect("POST", "/v1/submissions", "", "application/toml", demoManifest, nil, http.StatusUnauthorized)
	c.expect("POST", "/v1/submissions", "rgd_not-a-token", "application/toml", demoManifest, nil, http.StatusUnauthorized)
	c.expect("POST", "/v1/submissions", sam, "application/toml", strings.Replace(demoManifest, "command", "comand", 1), nil, http.StatusUnprocessableEntity)
	resp := c.expect("POST", "/v1/submissions", sam, "application/toml", demoManifest, nil, http.StatusCreated)
	var created struct {
		Submission struct {
			ID, Status, Verdict string
		} `json:"submission"`
		Report json.RawMessage `json:"report"`
	}
	c.decode(resp, &created)
	id := created.Submission.ID
	if created.Submission.Status != "pending" || created.Submission.Verdict != "pass" {
		t.Fatalf("submission = %+v; want pending, pass", created.Submission)
	}
	if resp.header.Get("Location") == "" {
		t.Errorf("201 without a Location")
	}
	again := c.expect("POST", "/v1/submissions", sam, "application/toml", demoManifest, nil, http.StatusOK)
	c.decode(again, &created)
	if created.Submission.ID != id {
		t.Errorf("resubmitting the same bytes gave %s, want %s", created.Submission.ID, id)
	}

	// The review queue: maintainers see it, the submitter cannot decide.
	var queue struct {
		Items []struct{ ID string } `json:"items"`
	}
	c.decode(c.expect("GET", "/v1/submissions?status=pending", alice, "", "", nil, http.StatusOK), &queue)
	if len(queue.Items) != 1 || queue.Items[0].ID != id {
		t.Fatalf("review queue = %+v; want only %s", queue.Items, id)
	}
	c.expect("POST", "/v1/submissions/"+id+"/approve", sam, "application/json", `{}`, nil, http.StatusForbidden)
	c.expect("POST", "/v1/submissions/"+id+"/approve", alice, "application/json", `{"reason":"pinned binary, no network"}`, nil, http.StatusOK)
	c.expect("POST", "/v1/submissions/"+id+"/approve", bob, "application/json", `{}`, nil, http.StatusConflict)
	c.expect("POST", "/v1/submissions/"+id+"/reject", bob, "application/json", `{"reason":"late"}`, nil, http.StatusConflict)

	// Verified takes two different maintainers.
	c.expect("PUT", "/v1/addons/demo/verified", alice, "application/json", `{"verified":true,"reason":"known author"}`, nil, http.StatusAccepted)
	c.expect("PUT", "/v1/addons/demo/verified", alice, "application/json", `{"verified":true,"reason":"again"}`, nil, http.StatusConflict)
	c.expect("PUT", "/v1/addons/demo/verified", bob, "application/json", `{"verified":true,"reason":"agreed"}`, nil, http.StatusOK)

	// Install clients fetch the report without a token, with a strong ETag.
	verified := c.report("verified", 0)
	c.expect("GET", "/v1/addons/demo/report", "", "", "", map[string]string{"If-None-Match": verified.etag}, http.StatusNotModified)
	c.expect("GET", "/v1/addons/demo/versions/1.0.0/report", "", "", "", map[string]string{"If-None-Match": verified.etag}, http.StatusNotModified)

	// Suppressing the finding re-renders the report: new bytes, new ETag.
	c.expect("POST", "/v1/addons/demo/suppressions", sam, "application/json", `{"code":"child_env","path":"mcp.env","reason":"not_applicable"}`, nil, http.StatusForbidden)
	c.expect("POST", "/v1/addons/demo/suppressions", alice, "application/json",
		`{"code":"child_env","path":"mcp.env","reason":"not_applicable","note":"LOG_LEVEL only sets verbosity"}`, nil, http.StatusCreated)
	suppressed := c.report("verified", 1)
	if suppressed.etag == verified.etag {
		t.Errorf("the ETag did not change when a finding was suppressed")
	}
	c.expect("GET", "/v1/addons/demo/report", "", "", "", map[string]string{"If-None-Match": verified.etag}, http.StatusOK)

	// Revoking verified re-renders it again.
	c.expect("PUT", "/v1/addons/demo/verified", bob, "application/json", `{"verified":false,"reason":"author unreachable"}`, nil, http.StatusOK)
	revoked := c.report("community", 1)
	if revoked.etag == suppressed.etag {
		t.Errorf("the ETag did not change when verified was revoked")
	}

	// A suppression that expires: at the next start the sweep deletes it and
	// the report is rendered again without it.
	var sp struct {
		Suppression struct{ ID string } `json:"suppression"`
	}
	c.decode(c.expect("POST", "/v1/addons/demo/suppressions", alice, "application/json",
		`{"code":"child_env","path":"","reason":"mitigated"}`, nil, http.StatusCreated), &sp)
	c.expect("DELETE", "/v1/addons/demo/suppressions/"+sp.Suppression.ID, sam, "", "", nil, http.StatusForbidden)
	c.expect("DELETE", "/v1/addons/demo/suppressions/"+sp.Suppression.ID, alice, "", "", nil, http.StatusNoContent)
	var sps struct {
		Suppressions []struct{ ID string } `json:"suppressions"`
	}
	c.decode(c.expect("GET", "/v1/addons/demo", "", "", "", nil, http.StatusOK), &sps)
	if len(sps.Suppressions) != 1 {
		t.Fatalf("suppressions = %+v, want the first one only", sps.Suppressions)
	}
	c.expect("DELETE", "/v1/addons/demo/suppressions/"+sps.Suppressions[0].ID, bob, "", "", nil, http.StatusNoContent)
	unsuppressed := c.report("community", 0)
	expiry := time.Now().Add(2 * time.Second).UTC()
	c.expect("POST", "/v1/addons/demo/suppressions", alice, "application/json",
		`{"code":"child_env","path":"mcp.env","reason":"mitigated","expires_at":"`+expiry.Format(time.RFC3339Nano)+`"}`, nil, http.StatusCreated)
	expiring := c.report("community", 1)

	var log struct {
		Items []struct{ Actor, Action string } `json:"items"`
	}
	c.decode(c.expect("GET", "/v1/audit-log", alice, "", "", nil, http.StatusOK), &log)
	var actions []string
	for _, e := range log.Items {
		if e.Action != "token.create" {
			actions = append(actions, e.Actor+" "+e.Action)
		}
	}
	want := []string{"alice suppression.create", "bob suppression.delete", "alice suppression.delete", "alice suppression.create",
		"bob addon.verify.revoke", "alice suppression.create", "bob addon.verify.grant", "alice addon.verify.approve", "alice submission.approve"}
	if diff := cmp.Diff(want, actions); diff != "" {
		t.Errorf("audit log (-want +got):\n%s", diff)
	}

	// A graceful stop, then a restart on the same database serves the same
	// bytes under the same ETag.
	logs := srv.stop()
	for _, want := range []string{"shutting down", "stopped"} {
		if !strings.Contains(logs, want) {
			t.Errorf("server log lacks %q:\n%s", want, logs)
		}
	}
	for _, secret := range []string{sam, alice, bob} {
		if strings.Contains(logs, secret) {
			t.Errorf("server log contains a token secret")
		}
	}
	srv = startServer(t, getenv)
	c.base = srv.url
	if again := c.report("community", 1); !bytes.Equal(again.body, expiring.body) || again.etag != expiring.etag {
		t.Errorf("after a restart the report changed")
	}
	srv.stop()

	// Once the suppression has expired, a start sweeps it away and renders
	// the report again without it.
	for time.Now().Before(expiry.Add(100 * time.Millisecond)) {
		time.Sleep(50 * time.Millisecond)
	}
	srv = startServer(t, getenv)
	c.base = srv.url
	c.awaitReport(unsuppressed.body, srv, "the expired suppression was not swept")
	c.decode(c.expect("GET", "/v1/addons/demo", "", "", "", nil, http.StatusOK), &sps)
	if len(sps.Suppressions) != 0 {
		t.Errorf("suppressions after the sweep = %+v, want none", sps.Suppressions)
	}
	srv.stop()

	// A report an older ruleset made is rendered again in the background at
	// the next start; reads are served meanwhile.
	makeStale(t, env, "demo")
	srv = startServer(t, getenv)
	c.base = srv.url
	c.awaitReport(unsuppressed.body, srv, "the stale report was not reassessed")

	// The HTML pages are served beside the API.
	page := c.expect("GET", "/addons/demo", "", "", "", nil, http.StatusOK)
	if ct := page.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !bytes.Contains(page.body, []byte(`src="/v1/addons/demo/badge.svg"`)) {
		t.Errorf("GET /addons/demo: Content-Type %q, or no badge on the page", ct)
	}

	// A revoked token is refused at once.
	var out bytes.Buffer
	if err := run(context.Background(), []string{"token", "revoke", samID}, getenv, nil, &out, io.Discard); err != nil {
		t.Fatalf("token revoke: %v", err)
	}
	c.expect("POST", "/v1/submissions", sam, "application/toml", demoManifest, nil, http.StatusUnauthorized)
	srv.stop()
}

// makeStale rewrites the stored report of an addon's latest version as an
// older ruleset would have left it.
func makeStale(t *testing.T, env map[string]string, addon string) {
	t.Helper()
	ctx := context.Background()
	st, err := backend.Open(ctx, storage.Config{DatabaseURL: env["REGISTRYD_DATABASE_URL"], DataDir: env["REGISTRYD_DATA_DIR"], SkipMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.PublishedReport(ctx, addon, "")
	if err != nil {
		t.Fatal(err)
	}
	old := []byte(`{"schema":"registryd.report/v0"}`)
	err = st.InTx(ctx, func(tx storage.Tx) error {
		return tx.PutReport(ctx, registry.Report{SubmissionID: r.SubmissionID, Bytes: old, SHA256: report.SHA256(old), Ruleset: "2000.1.0"}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// createToken runs `registryd token create` and returns the secret it
// printed and the token's ID.
func createToken(t *testing.T, getenv func(string) string, name, role string) (secret, id string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"token", "create", "--name", name, "--role", role}, getenv, nil, &stdout, &stderr); err != nil {
		t.Fatalf("token create: %v\n%s", err, stderr.String())
	}
	secret = strings.TrimSpace(stdout.String())
	m := regexp.MustCompile(`created token (tok_\S+)`).FindStringSubmatch(stderr.String())
	if m == nil || !strings.HasPrefix(secret, "rgd_") {
		t.Fatalf("token create printed %q / %q", stdout.String(), stderr.String())
	}
	return secret, m[1]
}

// server is a running `registryd serve`.
type server struct {
	url  string
	stop func() string // stops it gracefully and returns its log
	log  func() string // the log so far
}

var listening = regexp.MustCompile(`listening on (http://[0-9.:]+)`)

// logSink collects the server's log and reports the address it listens on.
type logSink struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	url  chan string
	sent bool
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if !l.sent {
		if m := listening.FindSubmatch(l.buf.Bytes()); m != nil {
			l.sent = true
			l.url <- string(m[1])
		}
	}
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func startServer(t *testing.T, getenv func(string) string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sink := &logSink{url: make(chan string, 1)}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--shutdown-timeout", "10s"}, getenv, nil, io.Discard, sink)
	}()
	var once sync.Once
	stop := func() string {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("serve returned %v\n%s", err, sink.String())
				}
			case <-time.After(patience):
				t.Errorf("serve did not stop within %v of its context ending", patience)
			}
		})
		return sink.String()
	}
	t.Cleanup(func() { stop() })
	select {
	case u := <-sink.url:
		return &server{url: u, stop: stop, log: sink.String}
	case err := <-done:
		t.Fatalf("serve ended before listening: %v\n%s", err, sink.String())
	case <-time.After(patience):
		t.Fatalf("serve did not listen within %v:\n%s", patience, sink.String())
	}
	return nil
}

// client speaks to the server under test.
type client struct {
	t    *testing.T
	base string
	http http.Client
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// expect makes a request and fails the test unless it gets status.
func (c *client) expect(method, path, token, contentType, body string, header map[string]string, status int) response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	c.http.Timeout = 10 * time.Second
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	if resp.StatusCode != status {
		c.t.Fatalf("%s %s: got %d, want %d\n%s", method, path, resp.StatusCode, status, b)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func (c *client) decode(r response, v any) {
	c.t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		c.t.Fatalf("decode %s: %v", r.body, err)
	}
}

// awaitReport polls demo's latest report until it is want, for at most 30
// seconds.
func (c *client) awaitReport(want []byte, srv *server, failure string) {
	c.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		r := c.expect("GET", "/v1/addons/demo/report", "", "", "", nil, http.StatusOK)
		if bytes.Equal(r.body, want) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: the report is still\n%s\nserver log:\n%s", failure, r.body, srv.stop())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type fetched struct {
	etag string
	body []byte
}

// report fetches demo's latest report anonymously and checks its tier, its
// number of suppressed findings and that the ETag is the sha256 of the
// bytes.
func (c *client) report(tier string, suppressed int) fetched {
	c.t.Helper()
	r := c.expect("GET", "/v1/addons/demo/report", "", "", "", nil, http.StatusOK)
	etag := r.header.Get("ETag")
	if want := `"sha256-` + report.SHA256(r.body) + `"`; etag != want {
		c.t.Errorf("ETag = %s, want %s", etag, want)
	}
	dec, err := report.Decode(r.body)
	if err != nil {
		c.t.Fatalf("decode report: %v", err)
	}
	if string(dec.Tier) != tier || dec.Counts.Suppressed != suppressed {
		c.t.Errorf("report tier %s, suppressed %d; want %s, %d", dec.Tier, dec.Counts.Suppressed, tier, suppressed)
	}
	return fetched{etag: etag, body: r.body}
}

// patience is how long a test waits for the server to listen, stop or do
// what it was asked before it fails: minutes, because a busy machine with
// the race detector on makes seconds of work take tens of them, and a
// waiting test costs nothing once its condition holds.
const patience = 3 * time.Minute
