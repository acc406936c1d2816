package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/fixture"
)

// BenchmarkReportGET measures the install clients' hot path, GET
// /v1/addons/{name}/report through the whole API over SQLite on a real
// listener, next to a bare net/http handler writing the same bytes from
// memory. Both run with the same client and parallelism; each reports its
// p99 latency.
//
//	go test ./api -run '^$' -bench ReportGET -benchtime 5s
func BenchmarkReportGET(b *testing.B) {
	e := newEnv(b, fixture.SQLite)
	e.publish(b, manifest("weather", "1.0.0"))
	body := e.do(b, req{method: "GET", path: "/v1/addons/weather/report"}).body
	etag := e.do(b, req{method: "GET", path: "/v1/addons/weather/report"}).header.Get("ETag")

	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", etag)
		w.Header().Set("Cache-Control", "public, no-cache")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	b.Cleanup(bare.Close)

	for _, tc := range []struct{ name, url string }{
		{"api", e.srv.URL + "/v1/addons/weather/report"},
		{"bare", bare.URL + "/v1/addons/weather/report"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tr := &http.Transport{MaxIdleConnsPerHost: 256}
			b.Cleanup(tr.CloseIdleConnections)
			client := &http.Client{Transport: tr}
			var mu sync.Mutex
			var lat []time.Duration
			b.SetBytes(int64(len(body)))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				local := make([]time.Duration, 0, 1024)
				for pb.Next() {
					start := time.Now()
					res, err := client.Get(tc.url)
					if err != nil {
						b.Error(err)
						return
					}
					n, _ := io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 || n != int64(len(body)) {
						b.Errorf("status %d, %d bytes", res.StatusCode, n)
						return
					}
					local = append(local, time.Since(start))
				}
				mu.Lock()
				lat = append(lat, local...)
				mu.Unlock()
			})
			b.StopTimer()
			if len(lat) > 0 {
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			}
		})
	}
}
