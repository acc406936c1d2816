package api_test

import (
	"fmt"
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

// BenchmarkTrustGET measures what an install client fetches to verify a
// report — the signed envelope (report.dsse) and the inclusion proof, by
// version, as the latest and by the manifest's digest — and the report
// itself, through the whole API on each store over a real listener, each
// next to a bare net/http handler writing the same bytes from memory (the
// ceiling), with the same client and parallelism.
//
//	go test ./api -run '^$' -bench TrustGET -benchtime 3s
func BenchmarkTrustGET(b *testing.B) {
	for _, be := range fixture.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			e := newEnv(b, be)
			first := manifest("weather", "1.0.0")
			e.publish(b, first)
			// A log of a few leaves, so the proof has hashes.
			for _, v := range []string{"1.0.1", "1.0.2", "1.0.3", "1.0.4"} {
				e.publish(b, manifest("weather", v))
			}
			for _, read := range []struct{ name, path string }{
				{"report", "/v1/addons/weather/versions/1.0.0/report"},
				{"report.dsse", "/v1/addons/weather/versions/1.0.0/report.dsse"},
				{"proof", "/v1/addons/weather/versions/1.0.0/proof"},
				{"proof-latest", "/v1/addons/weather/proof"},
				{"proof-by-sha256", fmt.Sprintf("/v1/reports/sha256/%x/proof", sha256Sum([]byte(first)))},
			} {
				path := read.path
				got := e.do(b, req{method: "GET", path: path})
				if got.status != 200 {
					b.Fatalf("GET %s = %d", path, got.status)
				}
				body, header := got.body, got.header
				bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					for _, k := range []string{"Content-Type", "ETag", "Cache-Control"} {
						w.Header().Set(k, header.Get(k))
					}
					w.Header().Set("Content-Length", strconv.Itoa(len(body)))
					w.Write(body)
				}))
				b.Cleanup(bare.Close)
				b.Run(read.name+"/api", func(b *testing.B) { benchGET(b, e.srv.URL+path, len(body)) })
				b.Run(read.name+"/bare", func(b *testing.B) { benchGET(b, bare.URL+path, len(body)) })
			}
		})
	}
}

// benchGET fetches url from parallel clients and reports the p99 latency.
func benchGET(b *testing.B, url string, size int) { benchGETAs(b, url, size, false) }

// benchGETAs is benchGET, with compression off when identity is set: the
// clients then do not accept gzip, and an encoded answer is an error.
func benchGETAs(b *testing.B, url string, size int, identity bool) {
	tr := &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: identity}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	var mu sync.Mutex
	var lat []time.Duration
	b.SetBytes(int64(size))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		local := make([]time.Duration, 0, 1024)
		for pb.Next() {
			start := time.Now()
			res, err := client.Get(url)
			if err != nil {
				b.Error(err)
				return
			}
			n, _ := io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || n != int64(size) || (identity && res.Header.Get("Content-Encoding") != "") {
				b.Errorf("status %d, %d bytes, Content-Encoding %q", res.StatusCode, n, res.Header.Get("Content-Encoding"))
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
}
