package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/workflow"
)

// Labels and queries are free text: a client asking for ever new ones
// must not grow the caches of answers past their bounds, while the
// answers keep being kept (the caches are on).
func TestAnswerCachesBounded(t *testing.T) {
	st := fixture.SQLite.Open(t)
	wf := workflow.New(st, workflow.Options{})
	m := []byte("[addon]\nname = \"weather\"\nversion = \"1.0.0\"\ndescription = \"d\"\n\n[mcp]\ncommand = \"weather-server\"\n")
	if _, _, err := wf.Publish(context.Background(), workflow.Actor{Name: "carol", Role: registry.RoleMaintainer}, m, workflow.FormatTOML, nil); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	s := newServer(Deps{Reader: st, Workflow: wf})
	srv := httptest.NewServer(s.routes())
	t.Cleanup(srv.Close)
	get := func(path string) {
		t.Helper()
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d", path, res.StatusCode)
		}
	}
	for i := range maxCachedBadges + 200 {
		get("/v1/addons/weather/badge.svg?label=" + url.QueryEscape(fmt.Sprintf("label %d", i)))
		if n := s.badges.Len(); n > maxCachedBadges {
			t.Fatalf("after %d labels the badge cache holds %d answers, over its bound %d", i+1, n, maxCachedBadges)
		}
	}
	for i := range maxCachedLists + 50 {
		get(fmt.Sprintf("/v1/addons?limit=30&q=query%d", i))
		if n := s.lists.Len(); n > maxCachedLists {
			t.Fatalf("after %d queries the page cache holds %d answers, over its bound %d", i+1, n, maxCachedLists)
		}
	}
	if s.badges.Len() != maxCachedBadges || s.lists.Len() != maxCachedLists {
		t.Errorf("caches hold %d badges and %d pages, want them full (%d, %d): answers are not being kept",
			s.badges.Len(), s.lists.Len(), maxCachedBadges, maxCachedLists)
	}
}
