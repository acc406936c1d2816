package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/internal/sharedtest"
	"github.com/registryd/registryd/webhook"
)

// webhookFixture reads a shared GitHub payload (see the ghingest tests for
// where they come from).
func webhookFixture(t *testing.T, name string) []byte {
	t.Helper()
	return sharedtest.File(t, "fixtures/github-webhooks", name)
}

// TestServeWebhook runs `registryd serve` configured for GitHub against the
// fake API: a signed delivery (by the second of two rotated secrets) is
// acknowledged, processed and listed; `registryd webhook retry` runs it
// again without a duplicate submission.
func TestServeWebhook(t *testing.T) {
	const sha = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	fake := githubfake.NewTest(t, "ghs_serve")
	fake.AddPullRequest("Codertocat", "Hello-World", 2, githubfake.File{Filename: "addons/fs/lean-ctx-addon.toml", Status: "added"})
	fake.SetPullHead("Codertocat", "Hello-World", 2, "Codertocat", "Hello-World", sha)
	fake.PutFile("Codertocat", "Hello-World", sha, "addons/fs/lean-ctx-addon.toml", fixture.Clean("fs", "1.0.0"))
	env := map[string]string{
		"REGISTRYD_DATA_DIR":              t.TempDir(),
		"REGISTRYD_GITHUB_WEBHOOK_SECRET": "old-secret, new-secret",
		"REGISTRYD_GITHUB_TOKEN":          "ghs_serve",
		"REGISTRYD_GITHUB_API_URL":        fake.URL,
		"REGISTRYD_PUBLIC_URL":            "https://registry.example",
	}
	getenv := func(k string) string { return env[k] }
	srv := startServer(t, getenv)
	maint, _ := createToken(t, getenv, "maint", "maintainer")
	c := &client{t: t, base: srv.url}

	body := webhookFixture(t, "pull_request.opened.1.json")
	const id = "9a6f0c5e-0d5b-11f1-8a2b-1f2e3d4c5b6a"
	hdr := map[string]string{
		webhook.EventHeader: "pull_request", webhook.DeliveryHeader: id,
		webhook.SignatureHeader: webhook.SignatureValue(body, []byte("new-secret")),
	}
	c.expect("POST", "/v1/webhooks/github", "", "application/json", string(body), hdr, http.StatusAccepted)
	c.expect("POST", "/v1/webhooks/github", "", "application/json", string(body), hdr, http.StatusOK)
	bad := map[string]string{webhook.EventHeader: "pull_request", webhook.DeliveryHeader: id + "0",
		webhook.SignatureHeader: webhook.SignatureValue(body, []byte("not-configured"))}
	c.expect("POST", "/v1/webhooks/github", "", "application/json", string(body), bad, http.StatusUnauthorized)

	first := waitListed(t, c, maint, id)
	if len(first.Submissions) != 1 || len(fake.Statuses("Codertocat", "Hello-World")) != 1 {
		t.Fatalf("after the delivery: %+v, %d statuses; want one submission and one status", first, len(fake.Statuses("Codertocat", "Hello-World")))
	}

	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"webhook", "retry", id}, getenv, nil, &stdout, &stderr); err != nil {
		t.Fatalf("webhook retry: %v\n%s", err, stderr.String())
	}
	if want := "queued " + id + " (pull_request opened of Codertocat/Hello-World)\n"; stdout.String() != want {
		t.Errorf("retry printed %q, want %q", stdout.String(), want)
	}
	deadline := time.Now().Add(patience)
	for len(fake.Statuses("Codertocat", "Hello-World")) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	again := waitListed(t, c, maint, id)
	if len(fake.Statuses("Codertocat", "Hello-World")) != 2 || len(again.Submissions) != 1 || again.Submissions[0].ID != first.Submissions[0].ID {
		t.Errorf("after retry: %+v and %d statuses; want the same submission and a second status", again, len(fake.Statuses("Codertocat", "Hello-World")))
	}
	if got := len(fake.Comments("Codertocat", "Hello-World", 2)); got != 1 {
		t.Errorf("comments = %d, want 1", got)
	}
	srv.stop()
}

type listedDelivery struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Error       string `json:"error"`
	Submissions []struct {
		ID string `json:"id"`
	} `json:"submissions"`
}

// waitListed polls the deliveries listing until id is done.
func waitListed(t *testing.T, c *client, token, id string) listedDelivery {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		var out struct {
			Delivery listedDelivery `json:"delivery"`
		}
		r := c.expect("GET", "/v1/webhooks/deliveries/"+id, token, "", "", nil, http.StatusOK)
		if err := json.Unmarshal(r.body, &out); err != nil {
			t.Fatal(err)
		}
		if out.Delivery.Status == "done" || out.Delivery.Status == "failed" {
			return out.Delivery
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery %s still %+v after %v", id, out.Delivery, patience)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebhookRetryRefusals: the retry command's misuse and refusals.
func TestWebhookRetryRefusals(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == "REGISTRYD_DATA_DIR" {
			return dir
		}
		return ""
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no subcommand", []string{"webhook"}, 2, ""},
		{"unknown subcommand", []string{"webhook", "replay", "x"}, 2, "unknown webhook command"},
		{"no id", []string{"webhook", "retry"}, 2, "takes one delivery ID"},
		{"two ids", []string{"webhook", "retry", "a", "b"}, 2, "takes one delivery ID"},
		{"hostile id", []string{"webhook", "retry", "\x1b[31m../x"}, 2, "is not a GitHub delivery ID"},
		{"unknown id", []string{"webhook", "retry", "00000000-0000-0000-0000-000000000000"}, 1, "no delivery with ID"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tc.args, getenv, nil, &stdout, &stderr)
			if got := exitCode(err); got != tc.wantCode {
				t.Fatalf("exit code = %d (%v), want %d", got, err, tc.wantCode)
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tc.wantErr)
			}
			if strings.Contains(stderr.String(), "\x1b") {
				t.Errorf("stderr echoes a control character: %q", stderr.String())
			}
		})
	}
}

// TestServeWithoutWebhookSecret: with no secret the endpoint is not
// mounted, so nothing unauthenticated can be recorded.
func TestServeWithoutWebhookSecret(t *testing.T) {
	env := map[string]string{"REGISTRYD_DATA_DIR": t.TempDir()}
	srv := startServer(t, func(k string) string { return env[k] })
	c := &client{t: t, base: srv.url}
	body := webhookFixture(t, "ping.event.1.json")
	hdr := map[string]string{webhook.EventHeader: "ping", webhook.DeliveryHeader: "1", webhook.SignatureHeader: webhook.SignatureValue(body, []byte(""))}
	c.expect("POST", "/v1/webhooks/github", "", "application/json", string(body), hdr, http.StatusNotFound)
	srv.stop()
}
