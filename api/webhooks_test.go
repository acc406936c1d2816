package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/ghingest"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/internal/sharedtest"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/webhook"
)

var webhookSecret = []byte("webhook secret for tests")

// withGitHub mounts the real GitHub receiver and the deliveries listing, as
// serve does, so their answers are checked against the OpenAPI document too.
func withGitHub(t testing.TB) envOption {
	return func(d *api.Deps) {
		st := d.Reader.(storage.Store)
		rc, err := ghingest.NewReceiver(ghingest.ReceiverConfig{Secrets: [][]byte{webhookSecret}, Store: st})
		if err != nil {
			t.Fatalf("NewReceiver: %v", err)
		}
		d.Webhook = rc
		d.Deliveries = ghingest.NewDeliveries(st, "", nil)
	}
}

func TestWebhookEndpointsMatchTheDocument(t *testing.T) {
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			e := newEnv(t, b, withGitHub(t))
			deliver := func(event, id string, body []byte, secret []byte, ctype string) resp {
				t.Helper()
				h := map[string]string{"X-GitHub-Event": event, "X-GitHub-Delivery": id}
				if secret != nil {
					h["X-Hub-Signature-256"] = webhook.SignatureValue(body, secret)
				}
				return e.do(t, req{method: http.MethodPost, path: "/v1/webhooks/github", ctype: ctype, body: body, header: h})
			}
			ping := sharedtest.File(t, "fixtures/github-webhooks", "ping.event.1.json")
			pr := sharedtest.File(t, "fixtures/github-webhooks", "pull_request.opened.1.json")

			if r := deliver("ping", "11111111-0000-4000-8000-000000000001", ping, webhookSecret, "application/json"); r.status != http.StatusOK {
				t.Fatalf("ping: status %d %s", r.status, r.body)
			}
			form := []byte("payload=" + url.QueryEscape(string(pr)))
			if r := deliver("pull_request", "11111111-0000-4000-8000-000000000002", form, webhookSecret, "application/x-www-form-urlencoded"); r.status != http.StatusAccepted {
				t.Fatalf("pull_request (form): status %d %s", r.status, r.body)
			}
			if r := deliver("pull_request", "11111111-0000-4000-8000-000000000002", form, webhookSecret, "application/x-www-form-urlencoded"); r.status != http.StatusOK || !bytes.Contains(r.body, []byte(`"duplicate"`)) {
				t.Fatalf("redelivery: status %d %s", r.status, r.body)
			}
			if r := deliver("pull_request", "11111111-0000-4000-8000-000000000003", pr, []byte("wrong"), "application/json"); r.status != http.StatusUnauthorized {
				t.Fatalf("bad signature: status %d", r.status)
			}
			if r := deliver("pull_request", "11111111-0000-4000-8000-000000000004", pr, nil, "application/json"); r.status != http.StatusUnauthorized {
				t.Fatalf("no signature: status %d", r.status)
			}

			list := e.do(t, req{method: http.MethodGet, path: "/v1/webhooks/deliveries", token: e.maintainer})
			if list.status != http.StatusOK || !bytes.Contains(list.body, []byte("11111111-0000-4000-8000-000000000002")) {
				t.Fatalf("deliveries: status %d %s", list.status, list.body)
			}
			if r := e.do(t, req{method: http.MethodGet, path: "/v1/webhooks/deliveries?limit=0", token: e.maintainer}); r.status != http.StatusBadRequest {
				t.Errorf("deliveries?limit=0: status %d", r.status)
			}
			if r := e.do(t, req{method: http.MethodGet, path: "/v1/webhooks/deliveries", token: e.submitter}); r.status != http.StatusForbidden {
				t.Errorf("deliveries as submitter: status %d", r.status)
			}
			if r := e.do(t, req{method: http.MethodGet, path: "/v1/webhooks/deliveries"}); r.status != http.StatusUnauthorized {
				t.Errorf("deliveries anonymous: status %d", r.status)
			}
			one := e.do(t, req{method: http.MethodGet, path: "/v1/webhooks/deliveries/11111111-0000-4000-8000-000000000001", token: e.maintainer})
			if one.status != http.StatusOK || !bytes.Contains(one.body, []byte(`"ignored"`)) {
				t.Errorf("one delivery: status %d %s", one.status, one.body)
			}
			if r := e.do(t, req{method: http.MethodGet, path: "/v1/webhooks/deliveries/11111111-0000-4000-8000-00000000ffff", token: e.maintainer}); r.status != http.StatusNotFound {
				t.Errorf("unknown delivery: status %d", r.status)
			}
			if r := e.do(t, req{method: http.MethodGet, path: "/v1/webhooks/deliveries/%3Cscript%3E", token: e.maintainer}); r.status != http.StatusBadRequest {
				t.Errorf("malformed delivery id: status %d", r.status)
			}
		})
	}
}

// TestWebhookFailuresAreRateLimited: an address whose deliveries fail the
// signature check is limited like any other client, before its next body is
// read, while GitHub's signed deliveries are never charged: however many
// arrive, they are accepted, even beyond the limit.
func TestWebhookFailuresAreRateLimited(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, b fixture.Backend) {
		const limit = 5
		e := newEnv(t, b, withGitHub(t), func(d *api.Deps) { d.RateLimit = limit })
		ping := sharedtest.File(t, "fixtures/github-webhooks", "ping.event.1.json")
		deliver := func(c *http.Client, i int, secret []byte) resp {
			t.Helper()
			return e.doWith(t, c, req{method: http.MethodPost, path: "/v1/webhooks/github", ctype: "application/json", body: ping,
				header: map[string]string{"X-GitHub-Event": "ping", "X-GitHub-Delivery": fmt.Sprintf("22222222-0000-4000-8000-%012d", i),
					"X-Hub-Signature-256": webhook.SignatureValue(ping, secret)}})
		}
		attacker, github := e.clientFrom("127.0.0.2"), e.clientFrom("127.0.0.3")
		for i := range limit {
			wantProblem(t, deliver(attacker, i, []byte("guessed")), http.StatusUnauthorized, "unauthenticated")
		}
		r := deliver(attacker, 100, []byte("guessed"))
		wantProblem(t, r, http.StatusTooManyRequests, "rate-limited")
		if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s <= 0 {
			t.Errorf("Retry-After = %q, want a positive number of seconds", r.header.Get("Retry-After"))
		}
		wantProblem(t, deliver(attacker, 101, webhookSecret), http.StatusTooManyRequests, "rate-limited")
		for i := range 3 * limit {
			if r := deliver(github, 200+i, webhookSecret); r.status != http.StatusOK {
				t.Fatalf("signed delivery %d from another address: %d %s", i+1, r.status, r.body)
			}
		}
	})
}
