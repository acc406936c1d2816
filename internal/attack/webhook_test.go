package attack

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/internal/sharedtest"
)

// hookSecret is the webhook secret the servers of these tests verify.
const hookSecret = "attack-suite-webhook-secret"

// attackBody is the size of each hostile body: GitHub's own limit is 25 MB,
// so a body this size is not refused for its size alone.
const attackBody = 25_000_000

// withWebhook returns settings that mount the webhook, with GitHub's API
// pointed where nothing answers (no test here needs a job to succeed), plus
// extra.
func withWebhook(extra Settings) Settings {
	s := Settings{
		"REGISTRYD_GITHUB_WEBHOOK_SECRET": hookSecret,
		"REGISTRYD_GITHUB_API_URL":        "http://127.0.0.1:1/",
	}
	for k, v := range extra {
		s[k] = v
	}
	return s
}

// signature is X-Hub-Signature-256 for body under secret, as GitHub
// computes it.
func signature(body []byte, secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// wrongSignature is well formed (sha256= and 64 hex digits) and matches
// nothing.
var wrongSignature = "sha256=" + strings.Repeat("5a", 32)

// hookClient returns an HTTP client whose connections come from the
// loopback address local, so that a test can play several clients.
func hookClient(local string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}}
}

// delivery is one POST to the webhook.
type delivery struct {
	event, id, sig string
	body           io.Reader
	// length is the Content-Length to declare; -1 sends the body chunked.
	length int64
}

var deliveryCount atomic.Int64

// newDeliveryID returns a fresh id in GitHub's GUID format.
func newDeliveryID() string {
	return fmt.Sprintf("a77ac4e0-0000-4000-8000-%012d", deliveryCount.Add(1))
}

// post sends d to s with c and returns the answer's status and headers,
// having read the answer's body. A transport error is returned: the server
// may close a connection whose body it refused to read.
func post(ctx context.Context, c *http.Client, s *Server, d delivery) (int, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/webhooks/github", d.body)
	if err != nil {
		return 0, nil, err
	}
	req.ContentLength = d.length
	if d.length < 0 {
		req.ContentLength = 0
		req.TransferEncoding = []string{"chunked"}
	}
	req.Header.Set("Content-Type", "application/json")
	if d.event != "" {
		req.Header.Set("X-GitHub-Event", d.event)
	}
	if d.id != "" {
		req.Header.Set("X-GitHub-Delivery", d.id)
	}
	if d.sig != "" {
		req.Header.Set("X-Hub-Signature-256", d.sig)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header, nil
}

// signedPing is a ping delivery GitHub would send, signed with hookSecret.
func signedPing(t *testing.T) delivery {
	t.Helper()
	body := sharedtest.File(t, "fixtures/github-webhooks", "ping.event.1.json")
	return delivery{event: "ping", id: newDeliveryID(), sig: signature(body, hookSecret), body: strings.NewReader(string(body)), length: int64(len(body))}
}

// filler is n bytes of JSON-looking text, produced without holding them.
type filler struct{ left int64 }

var fillerChunk = []byte(strings.Repeat(`{"a":"bcdefgh"},`, 4096))

func (f *filler) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, io.EOF
	}
	n := copy(p, fillerChunk)
	if int64(n) > f.left {
		n = int(f.left)
	}
	f.left -= int64(n)
	return n, nil
}

// TestWebhookBodyExhaustion floods the webhook with 25 MB bodies nobody
// signed: 16 unsigned ones sent chunked, and 16 with a well-formed but wrong
// signature (half chunked, half declaring their length), all at once and
// again as soon as each is answered. Meanwhile GitHub's signed deliveries
// must all be accepted, the server's resident memory must stay within
// 100 MB of what it was idle, and it must come back down afterwards.
func TestWebhookBodyExhaustion(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		s := Start(t, st, withWebhook(nil))
		github := hookClient("127.0.0.1")
		ctx := context.Background()
		for range 3 {
			if status, _, err := post(ctx, github, s, signedPing(t)); err != nil || status != http.StatusOK {
				t.Fatalf("signed ping before the attack: status %d, %v", status, err)
			}
		}
		idle := s.RSS()
		resetPeakRSS(t, s)

		type attacker struct {
			name   string
			sig    string
			length int64
		}
		var attackers []attacker
		for range 16 {
			attackers = append(attackers, attacker{"unsigned, chunked", "", -1})
		}
		for range 8 {
			attackers = append(attackers, attacker{"wrong signature, chunked", wrongSignature, -1})
			attackers = append(attackers, attacker{"wrong signature, Content-Length", wrongSignature, attackBody})
		}
		attackCtx, stopAttack := context.WithCancel(ctx)
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			outcomes = map[string]int{}
			rounds   = make([]atomic.Int32, len(attackers))
		)
		for i, a := range attackers {
			c := hookClient("127.0.0.2")
			wg.Go(func() {
				for attackCtx.Err() == nil {
					status, _, err := post(attackCtx, c, s, delivery{event: "push", id: newDeliveryID(), sig: a.sig, body: &filler{left: attackBody}, length: a.length})
					outcome := strconv.Itoa(status)
					if err != nil {
						outcome = "connection closed"
						if attackCtx.Err() != nil {
							return
						}
					}
					mu.Lock()
					outcomes[a.name+": "+outcome]++
					mu.Unlock()
					rounds[i].Add(1)
				}
			})
		}
		sampled := sampleRSS(t, s, attackCtx)

		// GitHub keeps delivering, at a pace of its own, until every
		// attacker has had at least one body answered.
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(5 * time.Minute)
		var signed int
		for done := false; !done; {
			status, h, err := post(ctx, github, s, signedPing(t))
			if err != nil || status != http.StatusOK {
				t.Errorf("signed ping %d during the attack: status %d (Retry-After %q), %v", signed+1, status, h.Get("Retry-After"), err)
			}
			signed++
			done = signed >= 20
			for i := range rounds {
				done = done && rounds[i].Load() > 0
			}
			select {
			case <-tick.C:
			case <-deadline:
				t.Fatalf("the attackers did not all get an answer within 5 minutes")
			}
		}
		stopAttack()
		wg.Wait()
		peak := max(<-sampled, peakRSS(t, s))

		mu.Lock()
		t.Logf("%d signed deliveries accepted during the attack; attack outcomes: %v", signed, outcomes)
		for k, n := range outcomes {
			if strings.HasSuffix(k, ": 500") || strings.HasSuffix(k, ": 200") || strings.HasSuffix(k, ": 202") {
				t.Errorf("%d attack bodies answered %s", n, k)
			}
		}
		mu.Unlock()
		t.Logf("RSS idle %.1f MB, peak during the attack %.1f MB (+%.1f MB)", mb(idle), mb(peak), mb(peak-idle))
		if peak-idle > 100_000_000 {
			t.Errorf("RSS rose by %.1f MB during the attack, want at most 100 MB", mb(peak-idle))
		}

		// The memory goes back: within a minute of quiet the server is
		// near its idle size again.
		const settled = 10_000_000
		var after int64
		for wait := time.Now().Add(time.Minute); ; {
			after = s.RSS()
			if after-idle <= settled || time.Now().After(wait) {
				break
			}
			<-tick.C
		}
		t.Logf("RSS after the attack %.1f MB (+%.1f MB over idle)", mb(after), mb(after-idle))
		if after-idle > settled {
			t.Errorf("RSS stayed %.1f MB over idle a minute after the attack, want at most %.0f MB", mb(after-idle), mb(settled))
		}
		if status, _, err := post(ctx, github, s, signedPing(t)); err != nil || status != http.StatusOK {
			t.Errorf("signed ping after the attack: status %d, %v", status, err)
		}
	})
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// sampleRSS reads the server's RSS every few milliseconds until ctx is done,
// then sends the highest value it saw.
func sampleRSS(t *testing.T, s *Server, ctx context.Context) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if n := rss(s.PID(), "VmRSS:"); n > peak {
				peak = n
			}
			select {
			case <-ctx.Done():
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// resetPeakRSS resets the kernel's high-water mark of the server's RSS
// (VmHWM), so that peakRSS reports the peak since this call.
func resetPeakRSS(t *testing.T, s *Server) {
	t.Helper()
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.PID()), []byte("5"), 0); err != nil {
		t.Logf("cannot reset the peak RSS (%v); relying on sampling", err)
	}
}

// peakRSS is the server's RSS high-water mark (VmHWM) in bytes, or 0.
func peakRSS(t *testing.T, s *Server) int64 {
	t.Helper()
	return rss(s.PID(), "VmHWM:")
}

// rss reads one kB figure of /proc/PID/status, or 0 if it cannot.
func rss(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			fields := strings.Fields(rest)
			if len(fields) == 2 && fields[1] == "kB" {
				kb, _ := strconv.ParseInt(fields[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// TestWebhookFailuresAreRateLimited: an address whose deliveries fail the
// signature check is limited like any other client, and then refused before
// its bodies are read; GitHub's signed deliveries, from another address,
// are never charged, so they go on being accepted beyond the limit.
func TestWebhookFailuresAreRateLimited(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		const limit = 5
		s := Start(t, st, withWebhook(Settings{"REGISTRYD_RATE_LIMIT": strconv.Itoa(limit)}))
		attacker, github := hookClient("127.0.0.2"), hookClient("127.0.0.3")
		ctx := context.Background()
		guess := func() delivery {
			d := signedPing(t)
			d.sig = wrongSignature
			return d
		}
		for i := range limit {
			if status, _, err := post(ctx, attacker, s, guess()); err != nil || status != http.StatusUnauthorized {
				t.Fatalf("wrong signature %d: status %d, %v; want 401", i+1, status, err)
			}
		}
		for _, d := range []delivery{
			guess(),
			{event: "push", id: newDeliveryID(), sig: wrongSignature, body: &filler{left: attackBody}, length: -1},
			signedPing(t),
		} {
			status, h, err := post(ctx, attacker, s, d)
			if err != nil || status != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
				t.Errorf("delivery from the limited address: status %d, Retry-After %q, %v; want 429 with Retry-After", status, h.Get("Retry-After"), err)
			}
		}
		for i := range 3 * limit {
			if status, _, err := post(ctx, github, s, signedPing(t)); err != nil || status != http.StatusOK {
				t.Fatalf("signed delivery %d from GitHub's address: status %d, %v; want 200", i+1, status, err)
			}
		}
	})
}

// TestWebhookSlowBody: a delivery whose body stops arriving is answered 408
// once the body timeout (10 seconds) passes, never 500, and the server logs
// it as a warning at most.
func TestWebhookSlowBody(t *testing.T) {
	fixture.EachBackend(t, func(t *testing.T, st Store) {
		s := Start(t, st, withWebhook(nil))
		c := hookClient("127.0.0.1")
		for _, length := range []int64{1000, -1} {
			stall := make(chan struct{})
			d := signedPing(t)
			d.body = io.MultiReader(strings.NewReader(`{"zen":"`), stalled(stall))
			d.length = length
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			status, _, err := post(ctx, c, s, d)
			cancel()
			close(stall)
			if err != nil || status != http.StatusRequestTimeout {
				t.Errorf("body that stops arriving (Content-Length %d): status %d, %v; want 408", length, status, err)
			}
		}
		if log := s.Log(); strings.Contains(log, "level=ERROR") {
			t.Errorf("the server logged an error for a slow body:\n%s", log)
		}
	})
}

// stalled is a body that sends nothing more until its channel is closed.
type stalled chan struct{}

func (s stalled) Read([]byte) (int, error) {
	<-s
	return 0, io.ErrClosedPipe
}
