package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/internal/buildinfo"
	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/metrics"
)

// BenchmarkHotChain measures what the API does per hot read beyond the
// HTTP stack: the whole handler chain (request id, client, access log
// formatted as text and discarded, metrics, both rate limits on with a
// budget never reached, CORS, routing, authentication) and the handler,
// answered from memory, called in the process without a connection. The
// reads are those clients repeat: a report, its revalidation (304), and
// a badge as SVG and as JSON, on each store. ns/op, B/op and allocs/op
// are the chain's own cost (cpu-ns/op is the process's CPU time, the
// steadier figure on a shared machine); the connection's is in BenchmarkReportGET
// and the load comparison (docs/benchmarks.md, "Hot reads from memory").
//
//	go test ./api -run '^$' -bench HotChain -benchmem
func BenchmarkHotChain(b *testing.B) {
	for _, be := range fixture.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			e := newEnv(b, be)
			e.publish(b, manifest("weather", "1.0.0"))
			h := api.New(api.Deps{
				Reader:             e.store,
				Workflow:           e.wf,
				Logger:             slog.New(slog.NewTextHandler(io.Discard, nil)),
				Ready:              e.store.Ping,
				RateLimit:          1 << 30,
				CacheableRateLimit: 1 << 30,
				Metrics:            metrics.New(buildinfo.Info{}),
			})
			etag := e.do(b, req{method: "GET", path: "/v1/addons/weather/report"}).header.Get("ETag")
			for _, c := range []struct {
				name, path, inm string
				status          int
			}{
				{"report", "/v1/addons/weather/report", "", http.StatusOK},
				{"revalidate", "/v1/addons/weather/report", etag, http.StatusNotModified},
				{"badge.svg", "/v1/addons/weather/badge.svg", "", http.StatusOK},
				{"badge.json", "/v1/addons/weather/badge.json", "", http.StatusOK},
			} {
				b.Run(c.name, func(b *testing.B) {
					r := httptest.NewRequest(http.MethodGet, c.path, nil)
					r.RemoteAddr = "127.0.0.1:40000"
					r.Header.Set("User-Agent", "Go-http-client/1.1")
					r.Header.Set("Accept-Encoding", "gzip")
					if c.inm != "" {
						r.Header.Set("If-None-Match", c.inm)
					}
					w := &sinkWriter{header: http.Header{}}
					h.ServeHTTP(w, r)
					if w.status != c.status {
						b.Fatalf("GET %s = %d, want %d", c.path, w.status, c.status)
					}
					b.ReportAllocs()
					cpu0 := processCPU(b)
					n := 0
					b.ResetTimer()
					for b.Loop() {
						w.header = make(http.Header) // net/http gives each response its own
						w.status = 0
						h.ServeHTTP(w, r)
						n++
					}
					b.StopTimer()
					b.ReportMetric(float64(processCPU(b)-cpu0)/float64(n), "cpu-ns/op")
					if w.status != c.status {
						b.Fatalf("GET %s = %d, want %d", c.path, w.status, c.status)
					}
				})
			}
		})
	}
}

// processCPU returns the user and system CPU time this process has used:
// on a shared machine, CPU time per operation varies far less than
// wall-clock time.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sinkWriter is a ResponseWriter that keeps the status and discards the
// body.
type sinkWriter struct {
	header http.Header
	status int
}

func (w *sinkWriter) Header() http.Header { return w.header }

func (w *sinkWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *sinkWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(b), nil
}
