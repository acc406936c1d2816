package ghingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/ghingest"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/webhook"
)

func ptr(s string) *string { return &s }

// TestReceiveAuthentication sends deliveries with bad, missing and rotated
// signatures: only a signature by a configured secret is accepted, and a
// refused delivery leaves nothing behind.
func TestReceiveAuthentication(t *testing.T) {
	t.Parallel()
	body := payload(t, "pull_request.opened.1.json")
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			st := b.Open(t)
			in := startInstance(t, st, instanceOpts{githubURL: "http://127.0.0.1:1/", noJobs: true})
			tests := []struct {
				name       string
				sig        *string
				wantStatus int
				wantStored bool
			}{
				{"current secret", nil, http.StatusAccepted, true},
				{"secret before rotation", ptr(webhook.SignatureValue(body, []byte(oldSecret))), http.StatusAccepted, true},
				{"missing", ptr(""), http.StatusUnauthorized, false},
				{"unknown secret", ptr(webhook.SignatureValue(body, []byte("someone-else"))), http.StatusUnauthorized, false},
				{"signature of other bytes", ptr(webhook.SignatureValue(append([]byte(" "), body...), []byte(secret))), http.StatusUnauthorized, false},
				{"sha1 scheme", ptr("sha1=" + strings.Repeat("0", 40)), http.StatusUnauthorized, false},
				{"not hex", ptr("sha256=" + strings.Repeat("z", 64)), http.StatusUnauthorized, false},
				{"truncated", ptr(webhook.SignatureValue(body, []byte(secret))[:40]), http.StatusUnauthorized, false},
				{"upper-case prefix", ptr("SHA256=" + webhook.SignatureValue(body, []byte(secret))[7:]), http.StatusUnauthorized, false},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					id := newID()
					status, ans := in.send(t, delivery{event: "pull_request", id: id, body: body, sig: tc.sig})
					if status != tc.wantStatus {
						t.Fatalf("status = %d, want %d (answer %v)", status, tc.wantStatus, ans)
					}
					_, err := st.Delivery(context.Background(), id)
					if stored := err == nil; stored != tc.wantStored {
						t.Errorf("delivery stored = %v (err %v), want %v", stored, err, tc.wantStored)
					}
					if tc.wantStatus == http.StatusUnauthorized {
						if got, want := ans["type"], "urn:registryd:problem:unauthenticated"; got != want {
							t.Errorf("problem type = %v, want %v", got, want)
						}
					}
				})
			}
			if got, want := jobCount(t, st), 2; got != want {
				t.Errorf("jobs = %d, want %d (one per accepted delivery)", got, want)
			}
		})
	}
}

// TestReceiveBadInput: malformed deliveries are refused with the field
// named and no value echoed, and nothing is stored.
func TestReceiveBadInput(t *testing.T) {
	t.Parallel()
	body := payload(t, "pull_request.opened.1.json")
	st := fixture.SQLite.Open(t)
	in := startInstance(t, st, instanceOpts{githubURL: "http://127.0.0.1:1/", noJobs: true})
	evil := "\x1b]0;pwned\x07<script>"
	// Go's client refuses control characters in header values; send the
	// rest of the hostile text there.
	headerEvil := "<script>\u202e"
	tests := []struct {
		name       string
		d          delivery
		wantStatus int
		wantPath   string
	}{
		{"no delivery id", delivery{event: "pull_request", body: body}, 400, webhook.DeliveryHeader},
		{"hostile delivery id", delivery{event: "pull_request", id: "x" + headerEvil, body: body}, 400, webhook.DeliveryHeader},
		{"no event", delivery{id: newID(), body: body}, 400, webhook.EventHeader},
		{"hostile event", delivery{event: "pull_request" + headerEvil, id: newID(), body: body}, 400, webhook.EventHeader},
		{"xml", delivery{event: "pull_request", id: newID(), body: body, contentType: "application/xml"}, 400, "Content-Type"},
		{"not json", delivery{event: "pull_request", id: newID(), body: []byte("{" + evil)}, 400, "payload"},
		// A well-formed payload with refused fields is a validation error,
		// 422 as from the API.
		{"head sha hostile", delivery{event: "pull_request", id: newID(), body: edit(t, body, func(m map[string]any) {
			obj(obj(m, "pull_request"), "head")["sha"] = evil
		})}, 422, "pull_request.head.sha"},
		{"repository missing", delivery{event: "pull_request", id: newID(), body: edit(t, body, func(m map[string]any) {
			delete(m, "repository")
		})}, 422, "repository"},
		{"path traversal in push", delivery{event: "push", id: newID(), body: pushOf(t, []string{"../../etc/lean-ctx-addon.toml"}, nil, nil)}, 422, "commits[0].added[0]"},
		{"duplicate key", delivery{event: "pull_request", id: newID(),
			body: []byte(`{"action":"opened","action":"closed","repository":{"full_name":"o/r"}}`)}, 400, "payload"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, ans := in.send(t, tc.d)
			if status != tc.wantStatus {
				t.Fatalf("status = %d, want %d (answer %v)", status, tc.wantStatus, ans)
			}
			errs, _ := ans["errors"].([]any)
			if len(errs) == 0 {
				t.Fatalf("answer names no field: %v", ans)
			}
			if got := errs[0].(map[string]any)["path"]; got != tc.wantPath {
				t.Errorf("field = %v, want %v", got, tc.wantPath)
			}
			all := ans["detail"].(string)
			for _, e := range errs {
				em := e.(map[string]any)
				all += em["path"].(string) + em["message"].(string)
			}
			if strings.ContainsAny(all, "\x1b\x07<\u202e") {
				t.Errorf("answer echoes hostile input: %q", all)
			}
		})
	}
	ds, _, err := st.Deliveries(context.Background(), storage.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 0 {
		t.Errorf("%d deliveries stored from refused requests, want 0", len(ds))
	}
}

// TestReceiveEncodings: both payload encodings GitHub offers are accepted
// and recorded as the same event.
func TestReceiveEncodings(t *testing.T) {
	t.Parallel()
	body := payload(t, "pull_request.synchronize.1.json")
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			st := b.Open(t)
			in := startInstance(t, st, instanceOpts{githubURL: "http://127.0.0.1:1/", noJobs: true})
			var events []string
			for _, ct := range []string{"application/json", "application/x-www-form-urlencoded", "application/json; charset=utf-8"} {
				id := newID()
				status, ans := in.send(t, delivery{event: "pull_request", id: id, body: body, contentType: ct})
				if status != http.StatusAccepted || ans["status"] != ghingest.OutcomeQueued {
					t.Fatalf("%s: status %d, answer %v; want 202 queued", ct, status, ans)
				}
				d, err := st.Delivery(context.Background(), id)
				if err != nil {
					t.Fatalf("%s: %v", ct, err)
				}
				events = append(events, d.Event+"/"+d.Action+"/"+d.Repo+"/"+string(d.Status))
				payloadless := d.Payload
				if bytes.Contains(payloadless, []byte("Hookshot")) {
					t.Errorf("stored payload carries the raw body")
				}
			}
			want := []string{
				"pull_request/synchronize/Codertocat/Hello-World/queued",
				"pull_request/synchronize/Codertocat/Hello-World/queued",
				"pull_request/synchronize/Codertocat/Hello-World/queued",
			}
			if diff := cmp.Diff(want, events); diff != "" {
				t.Errorf("recorded deliveries (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReceiveOversized: a body over GitHub's 25 MB cap is refused, whether
// it announces its length or streams it.
//
// A streamed body is refused once the limit is read, so 25 MB must arrive
// first; a body slower than the body timeout is refused 408 before that,
// as it should be (TestReceiveSlowBody). Sending 25 MB chunked under the
// race detector on a busy machine can take longer than the default 10 s,
// so the timeout here is one that only a server that stopped reading
// reaches.
func TestReceiveOversized(t *testing.T) {
	t.Parallel()
	st := fixture.SQLite.Open(t)
	in := startInstance(t, st, instanceOpts{githubURL: "http://127.0.0.1:1/", noJobs: true, bodyTimeout: 10 * time.Minute})
	big := bytes.Repeat([]byte(" "), webhook.MaxBodyBytes+1)
	for _, chunked := range []bool{false, true} {
		name := "content-length"
		if chunked {
			name = "chunked"
		}
		t.Run(name, func(t *testing.T) {
			var r io.Reader = bytes.NewReader(big)
			if chunked {
				r = io.MultiReader(r) // hides the length: sent chunked
			}
			req := rawDelivery(t, context.Background(), in.srv.URL, "push", r, big)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				// The server may close the connection once it has refused.
				t.Logf("send: %v", err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("status = %d, want 413", resp.StatusCode)
			}
		})
	}
	ds, _, _ := st.Deliveries(context.Background(), storage.Page{})
	if len(ds) != 0 {
		t.Errorf("%d deliveries stored, want 0", len(ds))
	}
}

// TestReceiveRedeliveryAndIgnored: a redelivery answers 200 and creates no
// work; ping and events registryd does not act on are recorded and
// acknowledged without a job.
func TestReceiveRedeliveryAndIgnored(t *testing.T) {
	t.Parallel()
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			st := b.Open(t)
			in := startInstance(t, st, instanceOpts{githubURL: "http://127.0.0.1:1/", noJobs: true})
			opened := payload(t, "pull_request.opened.1.json")
			id := newID()
			tests := []struct {
				name       string
				d          delivery
				wantStatus int
				wantOut    string
				wantStored registry.DeliveryStatus
			}{
				{"first delivery", delivery{event: "pull_request", id: id, body: opened}, 202, ghingest.OutcomeQueued, registry.DeliveryQueued},
				{"redelivery", delivery{event: "pull_request", id: id, body: opened}, 200, ghingest.OutcomeDuplicate, registry.DeliveryQueued},
				{"redelivery as form", delivery{event: "pull_request", id: id, body: opened, contentType: "application/x-www-form-urlencoded"}, 200, ghingest.OutcomeDuplicate, registry.DeliveryQueued},
				{"ping", delivery{event: "ping", id: newID(), body: payload(t, "ping.event.1.json")}, 200, ghingest.OutcomeIgnored, registry.DeliveryIgnored},
				{"closed", delivery{event: "pull_request", id: newID(), body: payload(t, "pull_request.closed.1.json")}, 200, ghingest.OutcomeIgnored, registry.DeliveryIgnored},
				{"labeled", delivery{event: "pull_request", id: newID(), body: payload(t, "pull_request.labeled.1.json")}, 200, ghingest.OutcomeIgnored, registry.DeliveryIgnored},
				{"tag push", delivery{event: "push", id: newID(), body: payload(t, "push.event.1.json")}, 200, ghingest.OutcomeIgnored, registry.DeliveryIgnored},
				{"branch deleted", delivery{event: "push", id: newID(), body: payload(t, "push.event.2.json")}, 200, ghingest.OutcomeIgnored, registry.DeliveryIgnored},
				{"unknown event", delivery{event: "issues", id: newID(), body: payload(t, "pull_request.labeled.1.json")}, 200, ghingest.OutcomeIgnored, registry.DeliveryIgnored},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					status, ans := in.send(t, tc.d)
					if status != tc.wantStatus || ans["status"] != tc.wantOut {
						t.Fatalf("got %d %v, want %d %s", status, ans["status"], tc.wantStatus, tc.wantOut)
					}
					d, err := st.Delivery(context.Background(), tc.d.id)
					if err != nil {
						t.Fatal(err)
					}
					if d.Status != tc.wantStored {
						t.Errorf("stored status = %s, want %s", d.Status, tc.wantStored)
					}
				})
			}
			if got := jobCount(t, st); got != 1 {
				t.Errorf("jobs = %d, want 1", got)
			}
		})
	}
}

// TestReceiveObserved: every delivery is reported with its event and
// outcome, refusals included, so that the metrics count them.
func TestReceiveObserved(t *testing.T) {
	t.Parallel()
	st := fixture.SQLite.Open(t)
	var mu sync.Mutex
	var got []string
	in := startInstance(t, st, instanceOpts{githubURL: "http://127.0.0.1:1/", noJobs: true, observe: func(event, outcome string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, event+" "+outcome)
	}})
	opened := payload(t, "pull_request.opened.1.json")
	id := newID()
	for _, d := range []delivery{
		{event: "pull_request", id: id, body: opened},
		{event: "pull_request", id: id, body: opened},
		{event: "ping", id: newID(), body: payload(t, "ping.event.1.json")},
		{event: "pull_request", id: newID(), body: opened, sig: ptr("")},
		{event: "pull_request", body: opened},
		{event: "push", id: newID(), body: []byte("{"), sig: ptr(webhook.SignatureValue([]byte("{"), []byte(secret)))},
	} {
		in.send(t, d)
	}
	want := []string{
		"pull_request " + ghingest.OutcomeQueued,
		"pull_request " + ghingest.OutcomeDuplicate,
		"ping " + ghingest.OutcomeIgnored,
		"pull_request " + ghingest.RefusedUnauthenticated,
		"pull_request " + ghingest.RefusedMalformed,
		"push " + ghingest.RefusedMalformed,
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
}

func TestNewReceiverRefusesNoSecret(t *testing.T) {
	t.Parallel()
	st := fixture.SQLite.Open(t)
	for _, secrets := range [][][]byte{nil, {}, {[]byte("")}} {
		_, err := ghingest.NewReceiver(ghingest.ReceiverConfig{Secrets: secrets, Store: st})
		if !errors.Is(err, registry.ErrInvalid) {
			t.Errorf("NewReceiver(%q) error = %v, want ErrInvalid", secrets, err)
		}
	}
}

// heldBody is a request body that says when it is first read and then
// blocks until released, when it ends cut short.
type heldBody struct {
	started, release chan struct{}
	once             sync.Once
}

func newHeldBody() *heldBody {
	return &heldBody{started: make(chan struct{}), release: make(chan struct{})}
}

func (h *heldBody) Read(p []byte) (int, error) {
	h.once.Do(func() { close(h.started) })
	<-h.release
	return 0, io.ErrUnexpectedEOF
}

// untouchable is a request body that fails the test if it is read.
type untouchable struct{ t *testing.T }

func (u untouchable) Read([]byte) (int, error) {
	u.t.Errorf("the body was read")
	return 0, io.EOF
}

// TestReceiveRefusesBeforeReading: while one large delivery holds most of
// the body budget, requests that cannot be deliveries and large bodies the
// budget cannot hold are refused without a byte of their body read, and a
// small signed delivery is still accepted.
func TestReceiveRefusesBeforeReading(t *testing.T) {
	t.Parallel()
	st := fixture.SQLite.Open(t)
	rc, err := ghingest.NewReceiver(ghingest.ReceiverConfig{Secrets: [][]byte{[]byte(secret)}, Store: st, BodyBudget: webhook.MinBodyBudget})
	if err != nil {
		t.Fatal(err)
	}
	ping := payload(t, "ping.event.1.json")
	request := func(body io.Reader, length int64, header map[string]string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/v1/webhooks/github", body)
		r.ContentLength = length
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(webhook.SignatureHeader, webhook.SignatureValue(ping, []byte(secret)))
		r.Header.Set(webhook.EventHeader, "ping")
		r.Header.Set(webhook.DeliveryHeader, newID())
		for k, v := range header {
			r.Header.Set(k, v)
		}
		return r
	}

	// The holder declares GitHub's largest body and stops sending after
	// its headers: the budget keeps only its reserve free.
	held := newHeldBody()
	holder := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		rc.ServeHTTP(holder, request(held, webhook.MaxBodyBytes, nil))
	}()
	<-held.started

	tests := []struct {
		name       string
		header     map[string]string
		length     int64
		wantStatus int
		wantType   string
		wantHeader string
	}{
		{"no signature", map[string]string{webhook.SignatureHeader: ""}, 100, 401, "unauthenticated", "Www-Authenticate"},
		{"signature not sha256= and 64 hex", map[string]string{webhook.SignatureHeader: "sha256=" + strings.Repeat("x", 64)}, 100, 401, "unauthenticated", "Www-Authenticate"},
		{"no event", map[string]string{webhook.EventHeader: ""}, 100, 400, "bad-request", ""},
		{"no delivery id", map[string]string{webhook.DeliveryHeader: ""}, 100, 400, "bad-request", ""},
		{"declared over the limit", nil, webhook.MaxBodyBytes + 1, 413, "too-large", ""},
		{"large body beyond the budget", nil, 2 << 20, 503, "unavailable", "Retry-After"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			rc.ServeHTTP(w, request(untouchable{t}, tc.length, tc.header))
			var p map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
				t.Fatalf("answer %d is not JSON: %q", w.Code, w.Body)
			}
			if w.Code != tc.wantStatus || p["type"] != "urn:registryd:problem:"+tc.wantType {
				t.Errorf("answer %d %v, want %d %s", w.Code, p["type"], tc.wantStatus, tc.wantType)
			}
			if tc.wantHeader != "" && w.Header().Get(tc.wantHeader) == "" {
				t.Errorf("no %s header", tc.wantHeader)
			}
		})
	}
	t.Run("small signed delivery uses the reserve", func(t *testing.T) {
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, request(bytes.NewReader(ping), int64(len(ping)), nil))
		if w.Code != http.StatusOK {
			t.Errorf("signed ping while the budget is held: %d %s", w.Code, w.Body)
		}
	})
	close(held.release)
	<-done
	if holder.Code != http.StatusBadRequest {
		t.Errorf("the body cut short: %d, want 400: %s", holder.Code, holder.Body)
	}
}

// levels counts the log records at each level.
type levels struct {
	mu sync.Mutex
	n  map[slog.Level]int
}

func (l *levels) Enabled(context.Context, slog.Level) bool { return true }
func (l *levels) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[slog.Level]int{}
	}
	l.n[r.Level]++
	return nil
}
func (l *levels) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *levels) WithGroup(string) slog.Handler      { return l }

func (l *levels) count(lv slog.Level) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[lv]
}

// TestReceiveSlowBody: a body that stops arriving is answered 408 once the
// body timeout passes, over a real connection, and logged as a warning.
func TestReceiveSlowBody(t *testing.T) {
	t.Parallel()
	st := fixture.SQLite.Open(t)
	logs := &levels{}
	in := startInstance(t, st, instanceOpts{githubURL: "http://127.0.0.1:1/", noJobs: true, bodyTimeout: 50 * time.Millisecond, logger: slog.New(logs)})
	ping := payload(t, "ping.event.1.json")
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			stall := make(chan struct{})
			defer close(stall)
			body := io.MultiReader(bytes.NewReader(ping[:100]), blockedReader(stall))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			req := rawDelivery(t, ctx, in.srv.URL, "ping", body, ping)
			if !chunked {
				req.ContentLength = int64(len(ping))
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("no answer to a stalled body: %v", err)
			}
			defer resp.Body.Close()
			var p map[string]any
			json.NewDecoder(resp.Body).Decode(&p)
			if resp.StatusCode != http.StatusRequestTimeout || p["type"] != "urn:registryd:problem:timeout" {
				t.Errorf("answer %d %v, want 408 timeout", resp.StatusCode, p["type"])
			}
		})
	}
	if n := logs.count(slog.LevelError); n != 0 {
		t.Errorf("%d errors logged for slow bodies, want none", n)
	}
	if n := logs.count(slog.LevelWarn); n != 2 {
		t.Errorf("%d warnings logged, want one per slow body", n)
	}
}

// blockedReader blocks until stall is closed, then fails.
type blockedReader chan struct{}

func (b blockedReader) Read([]byte) (int, error) {
	<-b
	return 0, io.ErrClosedPipe
}
