package ghingest_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/webhook"
)

// burstSizes are how many deliveries are in flight at once in
// BenchmarkAck: GitHub sends a repository's deliveries concurrently.
var burstSizes = []int{1, 8, 32}

// BenchmarkAck measures the acknowledgement of signed pull_request
// deliveries (28 KB, GitHub's own synchronize example) sent in bursts of
// concurrent requests to the real handler chain on a real listener: read,
// verify, parse, record the delivery and enqueue its job in one
// transaction, answer. It reports p50 and p99 latency per burst size. The
// workers do not run, so only the intake is measured. "bare" is the
// ceiling on the same machine: a net/http handler that only reads the body
// and checks its signature.
func BenchmarkAck(b *testing.B) {
	body := payload(b, "pull_request.synchronize.1.json")
	sig := webhook.SignatureValue(body, []byte(secret))
	targets := []struct {
		name string
		url  func(b *testing.B) string
	}{
		{"bare", func(b *testing.B) string {
			budget, err := webhook.NewBodyBudget(webhook.DefaultBodyBudget)
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, err := budget.Read(r.Body, r.ContentLength)
				if err == nil {
					err = body.Verify(r.Header.Get(webhook.SignatureHeader), [][]byte{[]byte(secret)})
					body.Release()
				}
				if err != nil {
					http.Error(w, "refused", http.StatusUnauthorized)
					return
				}
				w.WriteHeader(http.StatusAccepted)
			}))
			b.Cleanup(srv.Close)
			return srv.URL
		}},
	}
	for _, be := range fixture.Backends() {
		targets = append(targets, struct {
			name string
			url  func(b *testing.B) string
		}{be.Name, func(b *testing.B) string {
			st := be.Open(b)
			return startInstance(b, st, instanceOpts{githubURL: "http://127.0.0.1:1/", noJobs: true}).srv.URL
		}})
	}
	for _, tg := range targets {
		for _, burst := range burstSizes {
			b.Run(fmt.Sprintf("%s/burst-%d", tg.name, burst), func(b *testing.B) {
				base := tg.url(b)
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: burst}}
				b.SetBytes(int64(len(body)))
				b.ResetTimer()
				lat := make([]time.Duration, b.N)
				next := make(chan int)
				var wg sync.WaitGroup
				for range burst {
					wg.Go(func() {
						for i := range next {
							req, _ := http.NewRequest("POST", base+"/v1/webhooks/github", bytes.NewReader(body))
							req.Header.Set("Content-Type", "application/json")
							req.Header.Set(webhook.EventHeader, "pull_request")
							req.Header.Set(webhook.DeliveryHeader, newID())
							req.Header.Set(webhook.SignatureHeader, sig)
							start := time.Now()
							resp, err := client.Do(req)
							if err != nil {
								b.Error(err)
								return
							}
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							lat[i] = time.Since(start)
							if resp.StatusCode != http.StatusAccepted {
								b.Errorf("status %d", resp.StatusCode)
							}
						}
					})
				}
				for i := 0; i < b.N; i++ {
					next <- i
				}
				close(next)
				wg.Wait()
				b.StopTimer()
				reportPercentiles(b, lat)
			})
		}
	}
}

// BenchmarkDeliveryToStatus measures one delivery from the POST to the
// commit status arriving at (the fake) GitHub: receive, enqueue, River
// picks the job, list files, fetch the manifest, ingest it, post the
// status (the summary comment follows). Deliveries are sent one at a time.
func BenchmarkDeliveryToStatus(b *testing.B) {
	body := payload(b, "pull_request.opened.1.json")
	for _, be := range fixture.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			fake := newFake(b, githubfake.File{Filename: fsPath, Status: "added"})
			fake.PutFile(owner, repoName, headSHA, fsPath, fixture.Clean("fs", "1.0.0"))
			st := be.Open(b)
			in := startInstance(b, st, instanceOpts{githubURL: fake.URL})
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if status, ans := in.send(b, delivery{event: "pull_request", id: newID(), body: body}); status != http.StatusAccepted {
					b.Fatalf("answer %d %v", status, ans)
				}
				for len(fake.Statuses(owner, repoName)) <= i {
					if time.Since(start) > time.Minute {
						b.Fatal("no status within a minute")
					}
					time.Sleep(200 * time.Microsecond)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			reportPercentiles(b, lat)
		})
	}
}

// reportPercentiles adds p50, p99 and max latency in milliseconds.
func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(p float64) float64 {
		i := min(int(float64(len(lat))*p), len(lat)-1)
		return float64(lat[i].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}
