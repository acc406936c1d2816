package web_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/web"
)

var (
	listed     = regexp.MustCompile(`<a class="name" href="/addons/([^"]+)">`)
	facts      = regexp.MustCompile(`<div class="facts">Tier <strong class="tier">([a-z]+)</strong> · verdict <strong class="verdict verdict-[a-z]+">([a-z]+)</strong></div>`)
	addonCount = regexp.MustCompile(`<span id="addon-count">([^<]*)</span>`)
)

// The registry says how many addons the search and filters match, sorts by
// name or by recent change, shows tier and verdict as text, and offers to
// clear what narrows it.
func TestRegistryCountsSortsAndClears(t *testing.T) {
	e := newEnv(t)
	e.publish(cleanManifest)
	e.clock.Advance(time.Hour)
	e.publish(hostileManifest)
	e.clock.Advance(time.Hour)
	e.publish(unpinnedManifest)
	e.verifyClean()
	b := e.browser()

	tests := []struct {
		query   string
		count   string
		names   []string
		facts   [][2]string
		cleared bool
	}{
		{"/", "3 addons", []string{"clean-tool", "hostile", "loose-tool"},
			[][2]string{{"verified", "pass"}, {"community", "fail"}, {"community", "review"}}, false},
		// verifyClean changed clean-tool last.
		{"/?sort=updated", "3 addons", []string{"clean-tool", "loose-tool", "hostile"}, nil, true},
		{"/?q=tool", "2 addons", []string{"clean-tool", "loose-tool"}, nil, true},
		{"/?q=tool&sort=name", "2 addons", []string{"clean-tool", "loose-tool"}, nil, true},
		{"/?q=tool&sort=updated&tier=community", "1 addon", []string{"loose-tool"}, [][2]string{{"community", "review"}}, true},
		{"/?verdict=pass&tier=community", "no addons", nil, nil, true},
		// Unknown values are ignored: nothing to clear.
		{"/?sort=zzz&tier=gold", "3 addons", []string{"clean-tool", "hostile", "loose-tool"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := b.get(tt.query)
			if p.status != http.StatusOK {
				t.Fatalf("status %d", p.status)
			}
			if m := addonCount.FindStringSubmatch(p.body); m == nil || m[1] != tt.count {
				t.Errorf("count %q, want %q", m, tt.count)
			}
			var names []string
			for _, m := range listed.FindAllStringSubmatch(p.body, -1) {
				names = append(names, m[1])
			}
			if diff := cmp.Diff(tt.names, names); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
			if tt.facts != nil {
				var got [][2]string
				for _, m := range facts.FindAllStringSubmatch(p.body, -1) {
					got = append(got, [2]string{m[1], m[2]})
				}
				if diff := cmp.Diff(tt.facts, got); diff != "" {
					t.Errorf("tier and verdict as text (-want +got):\n%s", diff)
				}
			}
			if got := strings.Contains(p.body, `<a class="clear" href="/">Clear search and filters</a>`); got != tt.cleared {
				t.Errorf("clear link shown: %v, want %v", got, tt.cleared)
			}
		})
	}
}

// The count covers every page, and the pages keep the search, filters and
// order.
func TestRegistryPagesKeepTheirOrder(t *testing.T) {
	e := newEnv(t)
	var want []string
	for i := range 35 {
		name := fmt.Sprintf("tool-%02d", i)
		fixture.Publish(t, e.svc, fixture.Clean(name, "1.0.0"))
		want = append([]string{name}, want...) // recently updated first
	}
	b := e.browser()
	p := b.get("/?sort=updated&verdict=pass")
	if m := addonCount.FindStringSubmatch(p.body); m == nil || m[1] != "35 addons" {
		t.Errorf("count %q, want 35 addons", m)
	}
	var got []string
	for _, m := range listed.FindAllStringSubmatch(p.body, -1) {
		got = append(got, m[1])
	}
	next := p.link(nextLink)
	if next != "" && (!strings.Contains(next, "sort=updated") || !strings.Contains(next, "verdict=pass")) {
		t.Fatalf("the next page's link %q drops the order or the filter", next)
	}
	p = b.get(next)
	for _, m := range listed.FindAllStringSubmatch(p.body, -1) {
		got = append(got, m[1])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("two pages, recently updated first (-want +got):\n%s", diff)
	}
	if first := p.link(regexp.MustCompile(`<a href="([^"]+)">First page</a>`)); first != "/?sort=updated&verdict=pass" {
		t.Errorf("first page link %q", first)
	}
}

// The registry counts up to a bound of matches and says "more than"
// beyond; a first page that holds every match says how many it holds.
func TestRegistryCountStops(t *testing.T) {
	defer web.SetRegistryCountMax(31)()
	e := newEnv(t)
	for i := range 33 {
		fixture.Publish(t, e.svc, fixture.Clean(fmt.Sprintf("tool-%02d", i), "1.0.0"))
	}
	b := e.browser()
	for _, tt := range []struct{ query, count string }{
		{"/", "more than 31 addons"},
		{"/?q=tool-0", "10 addons"},
		{"/?q=tool-3", "3 addons"},
		{"/?q=tool&sort=name", "more than 31 addons"},
	} {
		p := b.get(tt.query)
		if m := addonCount.FindStringSubmatch(p.body); m == nil || m[1] != tt.count {
			t.Errorf("%s: count %q, want %q", tt.query, m, tt.count)
		}
		if next := p.link(nextLink); next != "" {
			if m := addonCount.FindStringSubmatch(b.get(next).body); m == nil || m[1] != tt.count {
				t.Errorf("%s, second page: count %q, want %q", tt.query, m, tt.count)
			}
		}
	}
}

// shortReader answers every list with at most seven addons and a cursor
// where more follow, as a search does that stops where it has read its
// share of the index.
type shortReader struct{ web.Reader }

func (r shortReader) Addons(ctx context.Context, f storage.AddonFilter, p storage.Page) ([]registry.Addon, string, error) {
	p.Limit = min(p.Bounded(), 7)
	return r.Reader.Addons(ctx, f, p)
}

// A page whose read stops short reads on from its cursor, a bounded number
// of times, and links to the rest from where it got to: the pages, followed,
// hold every match once, in order.
func TestRegistryFillsShortPages(t *testing.T) {
	e := newEnv(t, func(d *web.Deps) { d.Reader = shortReader{d.Reader} })
	var want []string
	for i := range 35 {
		name := fmt.Sprintf("tool-%02d", i)
		fixture.Publish(t, e.svc, fixture.Clean(name, "1.0.0"))
		want = append(want, name)
	}
	b := e.browser()
	var got []string
	var sizes []int
	for next := "/?q=tool&sort=name"; next != ""; {
		p := b.get(next)
		if p.status != http.StatusOK {
			t.Fatalf("GET %s: status %d", next, p.status)
		}
		names := listed.FindAllStringSubmatch(p.body, -1)
		for _, m := range names {
			got = append(got, m[1])
		}
		sizes = append(sizes, len(names))
		if next = p.link(nextLink); len(sizes) > 5 {
			t.Fatalf("more pages than 35 addons need: %v", sizes)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the pages followed (-want +got):\n%s", diff)
	}
	// Four reads of seven fill 28 of the page's 30; the rest follows.
	if diff := cmp.Diff([]int{28, 7}, sizes); diff != "" {
		t.Errorf("addons a page (-want +got):\n%s", diff)
	}
}
