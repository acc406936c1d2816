package web_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/internal/fixture"
	"github.com/registryd/registryd/registry"
)

// The queue shows how long each submission has waited, its findings by
// level, whether it updates a published addon and from which version, and
// its source; it sorts by age or verdict and filters by status, verdict
// and source.
func TestBrowserReviewQueue(t *testing.T) {
	e := newEnv(t)
	e.publish(cleanManifest)
	update := e.submit(strings.Replace(cleanManifest, `version = "1.0.0"`, `version = "1.1.0"`, 1))
	e.clock.Advance(70 * time.Hour)
	failing := e.submit(fixture.FailingManifest("piped", "0.1.0"))
	e.clock.Advance(2 * time.Hour)
	loose := e.submit(unpinnedManifest)
	e.clock.Advance(5 * time.Minute)
	b := e.tab(1200, 900)
	b.signIn("alice")
	b.open("/review")

	type row struct{ Addon, Marker, Version, Verdict, Findings, Status, Source, Submitter, Age, DateTime, Exact string }
	rows := func() []row {
		t.Helper()
		return eval[[]row](b, `[...document.querySelectorAll('#queue tbody tr')].map(tr => {
			const c = [...tr.cells].map(td => td.textContent.trim()), time = tr.querySelector('time');
			return {Addon: tr.cells[0].querySelector('a').textContent, Marker: tr.cells[0].querySelector('.marker').textContent,
				Version: c[1], Verdict: c[2], Findings: c[3].replace(/\s+/g, ' '), Status: c[4], Source: c[5], Submitter: c[6],
				Age: c[7], DateTime: time.dateTime, Exact: time.title};
		})`)
	}
	// counts is what the queue must say of a submission's findings,
	// counted from the store.
	counts := func(id string) string {
		n := map[registry.Level]int{}
		for _, f := range mustFindings(t, e, id) {
			if !f.Suppressed {
				n[f.Level]++
			}
		}
		var parts []string
		for _, l := range []registry.Level{registry.LevelDanger, registry.LevelWarn, registry.LevelInfo} {
			if n[l] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n[l], l))
			}
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, " ")
	}
	when := func(s registry.Submission) (string, string) {
		return s.CreatedAt.UTC().Format(time.RFC3339), s.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	want := []row{
		{Addon: "clean-tool", Marker: "update of clean-tool 1.0.0", Version: "1.1.0", Verdict: "pass", Findings: counts(update.ID), Age: "3 days ago"},
		{Addon: "piped", Marker: "new addon", Version: "0.1.0", Verdict: "fail", Findings: counts(failing.ID), Age: "2 h ago"},
		{Addon: "loose-tool", Marker: "update of loose-tool 0.3.0", Version: "0.3.0", Verdict: "review", Findings: counts(loose.ID), Age: "5 min ago"},
	}
	for i, s := range []registry.Submission{update, failing, loose} {
		want[i].Status, want[i].Source, want[i].Submitter = "pending", "REST", "sam"
		want[i].DateTime, want[i].Exact = when(s)
	}
	// loose-tool was never published: it is new, not an update.
	want[2].Marker = "new addon"
	if !strings.Contains(want[1].Findings, "danger") || want[2].Findings == "none" {
		t.Fatalf("the manifests do not have the findings this test needs: %q, %q", want[1].Findings, want[2].Findings)
	}
	if diff := cmp.Diff(want, rows()); diff != "" {
		t.Errorf("the pending queue, oldest first (-want +got):\n%s", diff)
	}

	b.do(chromedp.SetValue(chromedp.CSS(`select[name=sort]`), "verdict"))
	b.follow(`form.filters button[type=submit]`)
	if got := rows(); len(got) != 3 || got[0].Addon != "piped" || got[1].Addon != "loose-tool" || got[2].Addon != "clean-tool" {
		t.Errorf("worst verdict first: %+v", got)
	}
	b.do(chromedp.SetValue(chromedp.CSS(`select[name=sort]`), "newest"))
	b.follow(`form.filters button[type=submit]`)
	if got := rows(); len(got) != 3 || got[0].Addon != "loose-tool" || got[2].Addon != "clean-tool" {
		t.Errorf("newest first: %+v", got)
	}
	b.do(chromedp.SetValue(chromedp.CSS(`select[name=verdict]`), "fail"))
	b.follow(`form.filters button[type=submit]`)
	if got := rows(); len(got) != 1 || got[0].Addon != "piped" {
		t.Errorf("verdict fail: %+v", got)
	}
	b.do(chromedp.SetValue(chromedp.CSS(`select[name=verdict]`), ""), chromedp.SetValue(chromedp.CSS(`select[name=source]`), "github"))
	b.follow(`form.filters button[type=submit]`)
	if got := b.text("main"); !strings.Contains(got, "Nothing here.") {
		t.Errorf("source github: %q", got)
	}
	b.do(chromedp.SetValue(chromedp.CSS(`select[name=source]`), ""), chromedp.SetValue(chromedp.CSS(`select[name=status]`), "approved"))
	b.follow(`form.filters button[type=submit]`)
	if got := rows(); len(got) != 1 || got[0].Addon != "clean-tool" || got[0].Version != "1.0.0" || got[0].Marker != "new addon" || got[0].Status != "approved" {
		t.Errorf("approved: %+v", got)
	}
	b.follow(`a.clear`)
	if got := rows(); len(got) != 3 || got[0].Addon != "clean-tool" {
		t.Errorf("back to the pending queue: %+v", got)
	}
}

var queueLink = regexp.MustCompile(`<td data-label="Addon"><a href="/review/submissions/([^"]+)">`)

// The queue pages through a long list keeping its filters and order.
func TestReviewQueuePages(t *testing.T) {
	e := newEnv(t)
	var want []string
	for i := range 55 {
		sub := e.submit(strings.NewReplacer(`"loose-tool"`, fmt.Sprintf(`"tool-%02d"`, i)).Replace(unpinnedManifest))
		want = append([]string{sub.ID}, want...) // newest first
	}
	e.submit(cleanManifest) // passes: filtered out below
	b := e.browser()
	b.signIn("alice")
	p := b.get("/review?verdict=review&sort=newest")
	var got []string
	for pages := 1; ; pages++ {
		if p.status != http.StatusOK {
			t.Fatalf("status %d", p.status)
		}
		for _, m := range queueLink.FindAllStringSubmatch(p.body, -1) {
			got = append(got, m[1])
		}
		next := p.link(nextLink)
		if next == "" {
			if pages != 2 {
				t.Errorf("%d pages, want 2", pages)
			}
			break
		}
		if !strings.Contains(next, "verdict=review") || !strings.Contains(next, "sort=newest") {
			t.Fatalf("next page %q drops the filter or the order", next)
		}
		p = b.get(next)
		if first := p.link(regexp.MustCompile(`<a href="([^"]+)">First page</a>`)); first != "/review?sort=newest&status=pending&verdict=review" {
			t.Errorf("first page link %q", first)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("review verdicts, newest first, over two pages (-want +got):\n%s", diff)
	}
	// Unknown values are ignored, not echoed; a malformed cursor is refused
	// as a page.
	if p := b.get("/review?sort=%3Cb%3E&source=no-such-source-q9"); p.status != http.StatusOK || strings.Contains(p.body, "<b>") || strings.Contains(p.body, "no-such-source-q9") {
		t.Errorf("unknown sort and source: status %d\n%s", p.status, p.body)
	}
	if p := b.get("/review?cursor=%25%25"); p.status != http.StatusOK || len(queueLink.FindAllString(p.body, -1)) != 50 {
		t.Errorf("malformed cursor: status %d, want the first page", p.status)
	}
}
