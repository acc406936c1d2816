package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
)

var (
	nextLink  = regexp.MustCompile(`<a href="([^"]+)" rel="next">`)
	firstLink = regexp.MustCompile(`<a href="([^"]+)">Newest entries</a>`)
	auditRow  = regexp.MustCompile(`<td data-label="Who" class="name"><a href="[^"]*">([^<]*)</a></td>`)
)

// link returns the unescaped href that re captures on p, or "".
func (p page) link(re *regexp.Regexp) string {
	if m := re.FindStringSubmatch(p.body); m != nil {
		return html.UnescapeString(m[1])
	}
	return ""
}

// The audit log is filtered by actor, action and addon, and pages through
// the filtered entries keeping the filters.
func TestAuditLogFiltersAndPages(t *testing.T) {
	e := newEnv(t)
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	err := e.store.InTx(context.Background(), func(tx storage.Tx) error {
		for i := range 130 {
			en := registry.AuditEntry{ID: fmt.Sprintf("aud_%03d", i), At: t0.Add(time.Duration(i) * time.Minute),
				Actor: "carol", Action: "addon.verify.grant", Target: "addon/alpha", Reason: fmt.Sprintf("entry %d", i)}
			if i%2 == 1 {
				en.Actor, en.Target = "dave", "addon/beta"
			}
			if err := tx.AppendAudit(context.Background(), en); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	b.signIn("alice")

	p := b.get("/review/audit-log?actor=carol&action=addon.verify.grant")
	if p.status != http.StatusOK {
		t.Fatalf("status %d", p.status)
	}
	var who []string
	pages := 0
	for {
		pages++
		for _, m := range auditRow.FindAllStringSubmatch(p.body, -1) {
			who = append(who, m[1])
		}
		next := p.link(nextLink)
		if next == "" {
			break
		}
		if !strings.Contains(next, "actor=carol") || !strings.Contains(next, "action=addon.verify.grant") {
			t.Fatalf("the next page's link %q drops the filters", next)
		}
		if p = b.get(next); p.status != http.StatusOK {
			t.Fatalf("GET %s: status %d", next, p.status)
		}
		if first := p.link(firstLink); first != "/review/audit-log?action=addon.verify.grant&actor=carol" {
			t.Errorf("link to the newest entries = %q", first)
		}
	}
	if len(who) != 65 || pages != 2 || strings.Count(strings.Join(who, ","), "carol") != 65 {
		t.Errorf("carol's entries: %d on %d pages (%q), want 65 on 2", len(who), pages, who)
	}
	if !strings.Contains(p.body, "entry 0<") {
		t.Errorf("the last page lacks the oldest entry")
	}

	tests := []struct {
		query string
		rows  int
		want  []string
	}{
		{"?addon=beta", 50, []string{`value="beta"`, `<a class="clear" href="/review/audit-log">Clear filters</a>`}},
		{"?addon=gamma", 0, []string{"No entries match these filters."}},
		// A value the log does not hold is still shown as the filter.
		{"?actor=mallory", 0, []string{`<option value="mallory" selected>mallory</option>`}},
		{"", 50, []string{`<option value="carol">carol</option>`, `<option value="dave">dave</option>`,
			`<option value="addon.verify.grant">addon.verify.grant</option>`}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := b.get("/review/audit-log" + tt.query)
			if p.status != http.StatusOK {
				t.Fatalf("status %d", p.status)
			}
			if n := len(auditRow.FindAllString(p.body, -1)); n != tt.rows {
				t.Errorf("%d rows, want %d", n, tt.rows)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.body, w) {
					t.Errorf("page lacks %s", w)
				}
			}
		})
	}
	for _, q := range []string{"?addon=%3Cb%3E", "?actor=%1b%5b31m", "?action=" + strings.Repeat("a", 201)} {
		p := b.get("/review/audit-log" + q)
		if p.status != http.StatusBadRequest || strings.Contains(p.body, "<b>") || strings.Contains(p.body, "\x1b") {
			t.Errorf("%s: status %d, want 400 without the value echoed", q, p.status)
		}
	}
}

// The audit log reads as a table: times in <time> elements with the exact
// time on hover, action names on one line, objects linked to their pages;
// and the filters narrow it.
func TestBrowserAuditLog(t *testing.T) {
	e := newEnv(t)
	e.seed()
	b := e.tab(1200, 900)
	b.signIn("alice")
	b.open("/review/audit-log")

	type row struct{ When, DateTime, Exact, Who, Action, Object, Link, Why string }
	rows := func() []row {
		t.Helper()
		return eval[[]row](b, `[...document.querySelectorAll('#audit-log tbody tr')].map(tr => {
			const c = tr.cells, time = c[0].querySelector('time'), a = c[3].querySelector('a');
			return {When: time.textContent, DateTime: time.dateTime, Exact: time.title, Who: c[1].textContent,
				Action: c[2].textContent, Object: c[3].textContent.trim(), Link: a ? a.getAttribute('href') : '', Why: c[4].textContent};
		})`)
	}
	all := rows()
	if len(all) < 8 {
		t.Fatalf("%d rows: %+v", len(all), all)
	}
	for _, r := range all {
		at, err := time.Parse(time.RFC3339, r.DateTime)
		if err != nil || r.Exact != at.UTC().Format("2006-01-02 15:04:05 UTC") || r.When != at.UTC().Format("2006-01-02 15:04 UTC") {
			t.Errorf("time %q datetime %q title %q: want the minute shown, RFC 3339 and the exact time on hover", r.When, r.DateTime, r.Exact)
		}
	}
	// The newest entry is the rejection; its object is the submission,
	// named by addon and version.
	want := row{Who: "alice", Action: "submission.reject", Object: "piped 0.0.9", Why: "pipes a download into a shell"}
	got := all[0]
	got.When, got.DateTime, got.Exact = "", "", ""
	if got.Link == "" || !strings.HasPrefix(got.Link, "/review/submissions/sub_") {
		t.Errorf("the rejection's object links to %q, want its submission's page", got.Link)
	}
	got.Link = ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("newest entry (-want +got):\n%s", diff)
	}
	// No action name breaks across lines.
	if broken := eval[[]string](b, `[...document.querySelectorAll('code.action')].filter(c => c.getClientRects().length !== 1).map(c => c.textContent)`); len(broken) > 0 {
		t.Errorf("action names broken across lines: %q", broken)
	}

	// Filter by action, then by addon, with the form.
	b.do(chromedp.SetValue(chromedp.CSS(`select[name=action]`), "suppression.create"))
	b.follow(`form.filters button[type=submit]`)
	got2 := rows()
	if len(got2) != 1 || got2[0].Action != "suppression.create" || got2[0].Object != "loose-toolunpinned at mcp.args[1]" || got2[0].Link != "/addons/loose-tool" {
		t.Errorf("filtered by suppression.create: %+v", got2)
	}
	b.follow(`a.clear`)
	b.do(chromedp.SetValue(chromedp.CSS(`input[name=addon]`), "piped"))
	b.follow(`form.filters button[type=submit]`)
	piped := rows()
	if len(piped) == 0 {
		t.Error("filtered by addon piped, the log is empty")
	}
	for _, r := range piped {
		if !strings.HasPrefix(r.Object, "piped ") {
			t.Errorf("filtered by addon piped, the log shows %+v", r)
		}
	}
}
