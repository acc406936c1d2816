package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestStaticServesFilesOnly: /static/ serves its files and nothing else;
// a directory, the prefix itself included, is not found rather than listed.
func TestStaticServesFilesOnly(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	tests := []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/static/style.css", http.StatusOK},
		{http.MethodHead, "/static/style.css", http.StatusOK},
		{http.MethodGet, "/static/", http.StatusNotFound},
		{http.MethodHead, "/static/", http.StatusNotFound},
		{http.MethodGet, "/static/nope.css", http.StatusNotFound},
		{http.MethodGet, "/static/style.css/", http.StatusNotFound},
		{http.MethodGet, "/static/%2e%2e/templates/layout.html", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			p := b.do(tt.method, tt.path, nil, nil)
			if p.status != tt.want {
				t.Fatalf("status = %d, want %d\n%s", p.status, tt.want, p.body)
			}
			if strings.Contains(p.body, `<a href="style.css">`) || strings.Contains(p.body, "<pre>") {
				t.Errorf("a directory listing:\n%s", p.body)
			}
			if tt.want == http.StatusOK && p.header.Get("Cache-Control") == "" {
				t.Errorf("a static file without Cache-Control")
			}
			if tt.want == http.StatusNotFound && !strings.Contains(p.header.Get("Content-Type"), "text/html") {
				t.Errorf("Content-Type = %q, want the HTML not-found page", p.header.Get("Content-Type"))
			}
		})
	}
}

// TestPagesRefuseAmbiguousQueries: a page's query with a `;` is refused
// (400, as from the API), not answered with a parameter silently dropped.
func TestPagesRefuseAmbiguousQueries(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	for _, path := range []string{"/?q=clean;verdict=fail", "/addons/clean-tool?x;y", "/static/style.css?v=1;2", "/review?a=%zz", "/?cursor=%%%"} {
		if p := b.get(path); p.status != http.StatusBadRequest {
			t.Errorf("GET %s: status %d, want 400", path, p.status)
		}
	}
	// A search for text that may not be shown is refused, as the API
	// refuses it, instead of being echoed in the search box.
	for _, q := range []string{"a%C2%ADb", "%E2%80%AEx", "%EE%82%B0", "a%1Bb"} {
		if p := b.get("/?q=" + q); p.status != http.StatusBadRequest || strings.Contains(p.body, "\u00ad") || strings.Contains(p.body, "\u202e") {
			t.Errorf("GET /?q=%s: status %d, want 400 without an echo", q, p.status)
		}
	}
	if p := b.get("/?q=a%3Bb"); p.status != http.StatusOK {
		t.Errorf("an escaped ';' is data: status %d, want 200", p.status)
	}
}
