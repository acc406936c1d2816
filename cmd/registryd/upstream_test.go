package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/mcpfixture"
	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
)

// TestScheduledUpstreamSync: a server given REGISTRYD_UPSTREAM_URL imports
// the upstream's servers as pending submissions once it starts, on both
// stores, and records the high-water mark the next sync asks from.
func TestScheduledUpstreamSync(t *testing.T) {
	body := mcpfixture.Recorded(t, "list-limit100").Body
	var asked atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(up.Close)

	for _, st := range []struct {
		name string
		env  func(t *testing.T) map[string]string
	}{
		{"sqlite", func(t *testing.T) map[string]string { return map[string]string{"REGISTRYD_DATA_DIR": t.TempDir()} }},
		{"postgres", func(t *testing.T) map[string]string {
			return map[string]string{"REGISTRYD_DATABASE_URL": pgtest.NewDatabase(t)}
		}},
	} {
		t.Run(st.name, func(t *testing.T) {
			env := st.env(t)
			env["REGISTRYD_UPSTREAM_URL"] = up.URL + "/"
			env["REGISTRYD_UPSTREAM_INTERVAL"] = "1h"
			srv := startServer(t, envOf(env))
			store, err := backend.Open(context.Background(), storage.Config{DataDir: env["REGISTRYD_DATA_DIR"], DatabaseURL: env["REGISTRYD_DATABASE_URL"]})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			deadline := time.Now().Add(60 * time.Second)
			for {
				mark, err := store.UpstreamSync(context.Background(), up.URL)
				if err == nil {
					want := time.Date(2026, 11, 30, 23, 2, 26, 434676000, time.UTC)
					if !mark.HighWater.Equal(want) {
						t.Errorf("high-water mark %v, want %v", mark.HighWater, want)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no sync recorded within 60s (%v); log:\n%s", err, srv.log())
				}
				time.Sleep(50 * time.Millisecond)
			}
			subs, _, err := store.Submissions(context.Background(), storage.SubmissionFilter{Source: registry.SourceMCPRegistry}, storage.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if len(subs) != 3 {
				t.Errorf("%d submissions from the upstream, want 3", len(subs))
			}
			for _, s := range subs {
				if s.Status != registry.StatusPending || s.Upstream == nil || s.Upstream.URL != up.URL {
					t.Errorf("submission %+v", s)
				}
			}
			log := srv.stop()
			for _, want := range []string{"syncing with an upstream MCP Registry", "msg=\"upstream sync\"", "created=3", "upstream sync: skipped"} {
				if !strings.Contains(log, want) {
					t.Errorf("log lacks %q:\n%s", want, log)
				}
			}
		})
	}
}

func TestUpstreamConfig(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"REGISTRYD_UPSTREAM_URL": "ftp://x"}, "REGISTRYD_UPSTREAM_URL (--upstream-url): must be an absolute http or https URL"},
		{map[string]string{"REGISTRYD_UPSTREAM_URL": "https://u:p@x"}, "REGISTRYD_UPSTREAM_URL (--upstream-url): must be an absolute"},
		{map[string]string{"REGISTRYD_UPSTREAM_INTERVAL": "10s"}, "REGISTRYD_UPSTREAM_INTERVAL (--upstream-interval): must be a duration such as 1h, at least 1m0s"},
		{map[string]string{"REGISTRYD_UPSTREAM_INTERVAL": "soon"}, "REGISTRYD_UPSTREAM_INTERVAL (--upstream-interval)"},
	} {
		tc.env["REGISTRYD_DATA_DIR"] = t.TempDir()
		_, err := loadServeConfig(nil, envOf(tc.env), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.env, err, tc.want)
		}
	}
	c, err := loadServeConfig([]string{"--upstream-url", "https://registry.example/"}, envOf(map[string]string{"REGISTRYD_DATA_DIR": t.TempDir()}), nil)
	if err != nil || c.Upstream.URL != "https://registry.example" || c.Upstream.Interval != time.Hour {
		t.Errorf("config %+v, %v", c.Upstream, err)
	}
}
