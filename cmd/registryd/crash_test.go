package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/webhook"
)

// TestKillNineLosesNothing kills the real binary with SIGKILL while
// submitters are writing to it, starts it again on the same database, and
// checks that every submission it acknowledged (201) is there, with the
// very report bytes the acknowledgement carried.
func TestKillNineLosesNothing(t *testing.T) {
	bin := binary(t)
	for _, b := range fixture.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			env := b.Env(t)
			env["REGISTRYD_RATE_LIMIT"] = "0"
			getenv := envOf(env)
			sam, _ := createToken(t, getenv, "sam", "submitter")
			alice, _ := createToken(t, getenv, "alice", "maintainer")

			url, cmd := startBinary(t, bin, env)
			acked := submitUntilKilled(t, url, sam, cmd)
			if len(acked) < 5 {
				t.Fatalf("only %d submissions acknowledged before the kill; the test proves nothing", len(acked))
			}

			url2, cmd2 := startBinary(t, bin, env)
			defer func() { cmd2.Process.Kill(); cmd2.Wait() }()
			for id, report := range acked {
				req, _ := http.NewRequest(http.MethodGet, url2+"/v1/submissions/"+id+"/report", nil)
				req.Header.Set("Authorization", "Bearer "+alice)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("acknowledged submission %s: status %d after the restart", id, resp.StatusCode)
					continue
				}
				if !bytes.Equal(body, report) {
					t.Errorf("acknowledged submission %s: report after the restart differs from the acknowledged one", id)
				}
			}
			t.Logf("%d acknowledged submissions, all present after kill -9 and restart", len(acked))
		})
	}
}

func startBinary(t *testing.T, bin string, env map[string]string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "REGISTRYD_DATABASE_URL=", "REGISTRYD_DATA_DIR=")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	sink := &logSink{url: make(chan string, 1)}
	cmd.Stderr = sink
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	select {
	case u := <-sink.url:
		return u, cmd
	case <-time.After(60 * time.Second):
		t.Fatalf("registryd did not listen:\n%s", sink.String())
	}
	return "", nil
}

// submitUntilKilled runs eight submitters against url, kills the process
// with SIGKILL once some submissions were acknowledged (with requests still
// in flight), and returns the acknowledged submissions' IDs and reports.
func submitUntilKilled(t *testing.T, url, token string, cmd *exec.Cmd) map[string][]byte {
	t.Helper()
	var (
		mu    sync.Mutex
		acked = map[string][]byte{}
		stop  = make(chan struct{})
		wg    sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				manifest := fmt.Sprintf("[addon]\nname = \"crash-%d-%d\"\nversion = \"1.0.0\"\n\n[mcp]\ncommand = \"crash-mcp\"\nargs = [\"serve\"]\n", w, i)
				req, _ := http.NewRequest(http.MethodPost, url+"/v1/submissions", bytes.NewBufferString(manifest))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/toml")
				resp, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusCreated {
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
				mu.Lock()
				acked[created.Submission.ID] = []byte(created.Report)
				mu.Unlock()
			}
		}()
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 40 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	out := make(map[string][]byte, len(acked))
	for k, v := range acked {
		out[k] = v
	}
	return out
}

// TestKillNineLosesNoDelivery acknowledges a burst of signed GitHub
// deliveries, kills the real binary with SIGKILL before their jobs can all
// have run, starts it again, and checks that every acknowledged delivery is
// processed: listed as done, with a commit status posted for it.
func TestKillNineLosesNoDelivery(t *testing.T) {
	bin := binary(t)
	const sha = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	fake := githubfake.NewTest(t, "ghs_crash")
	fake.AddPullRequest("Codertocat", "Hello-World", 2, githubfake.File{Filename: "addons/fs/lean-ctx-addon.toml", Status: "added"})
	fake.SetPullHead("Codertocat", "Hello-World", 2, "Codertocat", "Hello-World", sha)
	fake.PutFile("Codertocat", "Hello-World", sha, "addons/fs/lean-ctx-addon.toml", fixture.Clean("fs", "1.0.0"))
	env := map[string]string{
		"REGISTRYD_DATABASE_URL":          pgtest.NewDatabase(t),
		"REGISTRYD_GITHUB_WEBHOOK_SECRET": "crash-secret",
		"REGISTRYD_GITHUB_TOKEN":          "ghs_crash",
		"REGISTRYD_GITHUB_API_URL":        fake.URL,
		"REGISTRYD_RATE_LIMIT":            "0",
	}
	getenv := envOf(env)
	maint, _ := createToken(t, getenv, "maint", "maintainer")

	url, cmd := startBinary(t, bin, env)
	body := webhookFixture(t, "pull_request.opened.1.json")
	sig := webhook.SignatureValue(body, []byte("crash-secret"))
	var acked []string
	for i := range 20 {
		id := fmt.Sprintf("0c0ffee0-0000-4000-8000-%012d", i)
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/webhooks/github", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(webhook.EventHeader, "pull_request")
		req.Header.Set(webhook.DeliveryHeader, id)
		req.Header.Set(webhook.SignatureHeader, sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("delivery %d: status %d", i, resp.StatusCode)
		}
		acked = append(acked, id)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	before := len(fake.Statuses("Codertocat", "Hello-World"))

	url2, cmd2 := startBinary(t, bin, env)
	defer func() { cmd2.Process.Kill(); cmd2.Wait() }()
	c := &client{t: t, base: url2}
	// A job that was running when the process died stays so until the job
	// runner takes it for abandoned (jobs.StuckAfter) and runs it
	// again; every other acknowledged delivery runs once it has the pull
	// request's lock, which the killed process left behind with a lease of
	// up to 5 s (storage/postgres, lock_leases). Wait until the count of done
	// deliveries has not grown for longer than that lease.
	const steady = 5*time.Second + 3*time.Second
	deadline := time.Now().Add(60 * time.Second)
	lastDone, steadySince := -1, time.Now()
	var done, stuck int
	for {
		done, stuck = 0, 0
		for _, id := range acked {
			var out struct {
				Delivery listedDelivery `json:"delivery"`
			}
			r := c.expect("GET", "/v1/webhooks/deliveries/"+id, maint, "", "", nil, http.StatusOK)
			if err := json.Unmarshal(r.body, &out); err != nil {
				t.Fatal(err)
			}
			switch out.Delivery.Status {
			case "done":
				done++
			case "running", "queued":
				// A job the dead process had fetched: its delivery may
				// not even have been marked running yet.
				stuck++
			}
		}
		if done != lastDone {
			lastDone, steadySince = done, time.Now()
		}
		if done == len(acked) || (done+stuck == len(acked) && time.Since(steadySince) > steady) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if done+stuck != len(acked) {
		t.Fatalf("after the restart %d of %d acknowledged deliveries are done and %d were running at the kill; the rest were lost or failed", done, len(acked), stuck)
	}
	if stuck > 10 { // the worker pool: no more jobs than that can have been mid-run
		t.Errorf("%d deliveries still running after the restart, more than could have been in flight at the kill", stuck)
	}
	if got := len(fake.Statuses("Codertocat", "Hello-World")); got < done {
		t.Errorf("%d commit statuses posted for %d processed deliveries", got, done)
	}
	t.Logf("%d deliveries acknowledged, %d statuses posted before the kill; after the restart %d done, %d mid-run at the kill and left to the stuck-job rescue", len(acked), before, done, stuck)
}
