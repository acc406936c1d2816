package api_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

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
				b.Run(name+"/api", func(b *testing.B) { benchGETAs(b, e.srv.URL+path, len(body), true) })
				b.Run(name+"/bare", func(b *testing.B) { benchGETAs(b, bare.URL+path, len(body), true) })
			}
		})
	}
}
