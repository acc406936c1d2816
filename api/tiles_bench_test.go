package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/storage/storetest"
)

// BenchmarkTileGET measures what a mirror or witness fetches to copy the
// log — a full level-0 tile, a partial one and a full entry bundle —
// through the whole API on each store over a real listener, each next to a
// bare net/http handler writing the same bytes from memory (the ceiling),
// with the same client and parallelism. Both are fetched uncompressed, so
// that the bundle's gzip does not weigh on one side only.
//
//	go test ./api -run '^$' -bench TileGET -benchtime 3s
func BenchmarkTileGET(b *testing.B) {
	for _, be := range fixture.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			e := newEnv(b, be)
			storetest.PublishLeaves(b, e.store, "bulk", 0, 300)
			for _, path := range []string{"/v1/log/tile/0/000", "/v1/log/tile/0/001.p/44", "/v1/log/tile/entries/000"} {
				got := e.do(b, req{method: "GET", path: path, header: identity})
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
				name := strings.NewReplacer("/v1/log/tile/", "", "/", "_").Replace(path)
				b.Run(name+"/api", func(b *testing.B) { benchGETIdentity(b, e.srv.URL+path, len(body)) })
				b.Run(name+"/bare", func(b *testing.B) { benchGETIdentity(b, bare.URL+path, len(body)) })
			}
		})
	}
}

// benchGETIdentity is benchGET with compression off: it fetches url from
// parallel clients that do not accept gzip and reports the p99 latency.
func benchGETIdentity(b *testing.B, url string, size int) {
	tr := &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}
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
			if res.StatusCode != 200 || n != int64(size) || res.Header.Get("Content-Encoding") != "" {
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
