package loadtest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/registryd/registryd/internal/loadtest"
)

// A run bounded by count: 200 report GETs from 4 workers against a local
// server. Duration bounds the run too, whichever comes first.
func ExampleRun() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"sha256-00"`)
		io.WriteString(w, `{"verdict":"pass"}`)
	}))
	defer srv.Close()

	res, err := loadtest.Run(context.Background(), loadtest.Config{
		URL:         srv.URL + "/v1/addons/weather/report",
		Mode:        loadtest.ModeGet,
		Concurrency: 4,
		Duration:    time.Minute,
		MaxRequests: 200,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("requests:", res.Requests, "errors:", res.Errors, "p50 <= p99:", res.P50 <= res.P99)

	// A target that is not a loopback address is refused before any load.
	_, err = loadtest.Run(context.Background(), loadtest.Config{
		URL: "http://registry.example.org/v1/addons/weather/report", Mode: loadtest.ModeGet,
		Concurrency: 4, Duration: time.Second,
	})
	fmt.Println(err)
	// Output:
	// requests: 200 errors: 0 p50 <= p99: true
	// url: host "registry.example.org" is not a loopback address; pass the allow-remote option to load another machine
}
