package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/registryd/registryd/internal/browsertest"
)

// shots is where a failing browser test leaves a screenshot of its page.
const shots = "testdata/out"

// tab is one browser tab on an env.
type tab struct {
	t   *testing.T
	e   *env
	ctx context.Context
}

func (e *env) tab(width, height int) *tab {
	e.t.Helper()
	ctx := browsertest.Start(e.t, width, height)
	browsertest.ScreenshotOnFailure(e.t, ctx, shots)
	return &tab{t: e.t, e: e, ctx: ctx}
}

func (b *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

func (b *tab) open(path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.e.srv.URL + path))
}

func (b *tab) text(sel string) string {
	b.t.Helper()
	// textContent, not innerText: the words as written, whatever the
	// style sheet does to their case.
	b.do(chromedp.WaitReady(chromedp.CSS(sel)))
	js, _ := json.Marshal(sel)
	return strings.TrimSpace(eval[string](b, "document.querySelector("+string(js)+").textContent"))
}

func eval[T any](b *tab, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// follow clicks the link or button sel and waits until the page it leads
// to has replaced this one.
func (b *tab) follow(sel string) {
	b.t.Helper()
	b.leave(chromedp.Click(chromedp.CSS(sel)), "clicked "+sel)
}

// leave runs step, which leaves the page (a click, a key), and waits until
// the page it leads to has replaced this one. Waiting for an element
// instead would race when both pages have it (the addon page before and
// after a form on it is submitted): the marker set here lives only as long
// as the old document.
func (b *tab) leave(step chromedp.Action[chromedp.Void], what string) {
	b.t.Helper()
	eval[bool](b, `window.rgdLeaving = true`)
	b.do(step)
	// Evaluating while the tab navigates fails ("target navigated"), so
	// the condition is asked again until it holds or the tab's deadline
	// passes.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		done, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.rgdLeaving === undefined && document.readyState === 'complete'`))
		if err == nil && done {
			return
		}
		select {
		case <-b.ctx.Done():
			b.t.Fatalf("%s, but no new page loaded: %v (last error: %v)", what, b.ctx.Err(), err)
		case <-tick.C:
		}
	}
}

func (b *tab) signIn(name string) {
	b.t.Helper()
	b.open("/signin")
	b.do(
		chromedp.SetValue(chromedp.CSS(`input[name=token]`), b.e.tokens[name]),
	)
	b.follow(`form[action="/signin"] button[type=submit]`)
	b.do(chromedp.WaitVisible(chromedp.CSS(`form[action="/signout"]`)))
}

func (b *tab) signOut() {
	b.t.Helper()
	b.follow(`form[action="/signout"] button`)
	b.do(chromedp.WaitVisible(chromedp.CSS(`a[href="/signin"]`)))
}

var svgSize = regexp.MustCompile(`<svg [^>]*width="(\d+)" height="(\d+)"`)

// The registry lists the addon, its page opens from the list, and the badge
// image loads at the size the SVG declares.
func TestBrowserBrowseRegistry(t *testing.T) {
	e := newEnv(t)
	e.publish(cleanManifest)
	e.publish(unpinnedManifest)
	b := e.tab(1200, 900)

	b.open("/")
	if got := b.text("ul.addons"); !strings.Contains(got, "Clean Tool") || !strings.Contains(got, "loose-tool") {
		t.Fatalf("the registry lists %q", got)
	}
	b.follow(`a[href="/addons/clean-tool"]`)
	if got := b.text("h1"); got != "Clean Tool" {
		t.Errorf("addon page heading %q", got)
	}
	if got := b.text("#verdict"); got != "pass" {
		t.Errorf("verdict %q, want pass", got)
	}
	// Wait for the badge to load, then compare its natural size with the
	// size in the SVG the server sends.
	b.do(chromedp.Poll[chromedp.Void](`document.getElementById('badge').complete`))
	w := eval[int](b, `document.getElementById('badge').naturalWidth`)
	h := eval[int](b, `document.getElementById('badge').naturalHeight`)
	svg := e.browser().get("/v1/addons/clean-tool/badge.svg")
	m := svgSize.FindStringSubmatch(svg.body)
	if m == nil {
		t.Fatalf("badge SVG without a size:\n%s", svg.body)
	}
	wantW, _ := strconv.Atoi(m[1])
	wantH, _ := strconv.Atoi(m[2])
	if w != wantW || h != wantH || w == 0 {
		t.Errorf("badge image loaded at %dx%d, want %dx%d", w, h, wantW, wantH)
	}
	if md := b.text("#badge-markdown"); !strings.Contains(md, "/v1/addons/clean-tool/badge.svg") {
		t.Errorf("badge markdown %q", md)
	}
}

// A maintainer signs in and approves a submission; two maintainers verify
// the addon; the public page and the badge then say verified.
func TestBrowserReviewAndVerify(t *testing.T) {
	e := newEnv(t)
	sub := e.submit(cleanManifest)
	b := e.tab(1200, 900)

	b.signIn("alice")
	b.open("/review")
	b.follow(`a[href="/review/submissions/` + sub.ID + `"]`)
	b.do(chromedp.SetValue(chromedp.CSS(`form[action$="/approve"] input[name=reason]`), "binary pinned, no network"))
	b.follow(`#approve`)
	if got := b.text("main"); !strings.Contains(got, "approved") || !strings.Contains(got, "Decided by alice") {
		t.Fatalf("after approval the page says %q", got)
	}

	grant := func(reason string) {
		b.open("/addons/clean-tool")
		b.do(chromedp.SetValue(chromedp.CSS(`form[action$="/verified"] input[name=reason]`), reason))
		b.follow(`form[action$="/verified"] button`)
	}
	grant("audited the source")
	if got := b.text("main"); !strings.Contains(got, "first approval by alice") {
		t.Fatalf("no pending approval shown: %q", got)
	}
	b.signOut()
	b.signIn("bob")
	grant("second look: fine")
	b.signOut()

	b.open("/addons/clean-tool")
	if got := b.text("#tier"); got != "verified" {
		t.Errorf("public tier %q, want verified", got)
	}
	alt := eval[string](b, `document.getElementById('badge').alt`)
	if alt != "addon: verified" {
		t.Errorf("badge alt %q", alt)
	}
	b.do(chromedp.Poll[chromedp.Void](`document.getElementById('badge').complete && document.getElementById('badge').naturalWidth > 0`))
	if svg := e.browser().get("/v1/addons/clean-tool/badge.svg"); !strings.Contains(svg.body, ">verified<") {
		t.Errorf("badge does not say verified")
	}
}

// A submission whose description, args and env carry script and markup
// renders as text: no script runs, no dialog opens, no element is injected.
func TestBrowserHostileManifestRunsNothing(t *testing.T) {
	e := newEnv(t)
	sub := e.publish(hostileManifest)
	b := e.tab(1200, 900)

	var mu sync.Mutex
	var dialogs []string
	evs := chromedp.Events(b.ctx, cdppage.JavascriptDialogOpening)
	go func() {
		for ev, err := range evs {
			if err != nil {
				return
			}
			mu.Lock()
			dialogs = append(dialogs, ev.Message)
			mu.Unlock()
			_, _ = chromedp.Call(b.ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	b.signIn("alice")
	for _, path := range []string{"/", "/addons/hostile", "/review/submissions/" + sub.ID} {
		b.open(path)
		if n := eval[int](b, `document.scripts.length`); n != 0 {
			t.Errorf("%s: %d script elements on the page", path, n)
		}
		if n := eval[int](b, `document.querySelectorAll('main img:not(.badge), main svg, main iframe, main b').length`); n != 0 {
			t.Errorf("%s: %d injected elements", path, n)
		}
		if n := eval[int](b, `[...document.querySelectorAll('a')].filter(a => a.protocol === 'javascript:').length`); n != 0 {
			t.Errorf("%s: %d javascript: links", path, n)
		}
	}
	b.open("/addons/hostile")
	if got := b.text("h1"); !strings.Contains(got, "<script>alert('name')</script>") {
		t.Errorf("the display name is not shown as text: %q", got)
	}
	b.open("/review/submissions/" + sub.ID)
	if got := b.text("#manifest-source"); !strings.Contains(got, "<iframe src=javascript:alert(4)>") {
		t.Errorf("the manifest source is not shown as text")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialogs) > 0 {
		t.Errorf("dialogs opened: %q", dialogs)
	}
}

// saveShot writes a screenshot of the current page to
// $REGISTRYD_SCREENSHOT_DIR/name when that variable is set (the README's
// picture is made this way).
func saveShot(t *testing.T, b *tab, name string) {
	t.Helper()
	dir := os.Getenv("REGISTRYD_SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(fmt.Errorf("save screenshot: %w", err))
	}
}
