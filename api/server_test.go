package api_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/registryd/registryd/api"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/sqlite"
	"github.com/registryd/registryd/workflow"
)

func TestNewHTTPServerSetsEveryTimeout(t *testing.T) {
	srv := api.NewHTTPServer(":0", http.NotFoundHandler(), nil)
	for _, tc := range []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		{"ReadHeaderTimeout", srv.ReadHeaderTimeout, api.ReadHeaderTimeout},
		{"ReadTimeout", srv.ReadTimeout, api.ReadTimeout},
		{"WriteTimeout", srv.WriteTimeout, api.WriteTimeout},
		{"IdleTimeout", srv.IdleTimeout, api.IdleTimeout},
	} {
		if tc.got != tc.want || tc.got <= 0 {
			t.Errorf("%s = %v, want %v (> 0)", tc.name, tc.got, tc.want)
		}
	}
	if srv.MaxHeaderBytes != api.MaxHeaderBytes {
		t.Errorf("MaxHeaderBytes = %d, want %d", srv.MaxHeaderBytes, api.MaxHeaderBytes)
	}
}

func TestNewPanicsWithoutDependencies(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("api.New(Deps{}) did not panic")
		}
	}()
	api.New(api.Deps{})
}

// ExampleNew serves the API over an embedded SQLite database and asks it
// for the rule table.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "registryd-example")
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(context.Background(), storage.Config{DataDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()

	h := api.New(api.Deps{Reader: store, Workflow: workflow.New(store, workflow.Options{}), RateLimit: 600})
	srv := httptest.NewServer(h)
	defer srv.Close()

	res, err := http.Get(srv.URL + "/v1/addons/unknown")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println(res.StatusCode, res.Header.Get("Content-Type"))
	fmt.Println(len(body) > 0)
	// Output:
	// 404 application/problem+json
	// true
}
