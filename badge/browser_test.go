package badge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/registryd/registryd/internal/browsertest"
	"github.com/registryd/registryd/registry"
)

// browserCase is one badge the browser draws. needs names a code point that
// a system font must cover for the case to be measurable ("" for none).
type browserCase struct {
	name  string
	badge Badge
	needs string
}

var browserCases = []browserCase{
	{name: "verified", badge: ForAddon(registry.TierVerified, registry.VerdictPass, true, "")},
	{name: "community-review", badge: ForAddon(registry.TierCommunity, registry.VerdictReview, true, "")},
	{name: "not-found", badge: ForAddon(registry.TierCommunity, registry.VerdictPass, false, "registryd")},
	{name: "long", badge: Badge{Label: "a rather long label for an addon badge", Message: "AVATAR Wavy Typography, Ltd. — the quick brown fox jumps over", Color: "blue"}},
	{name: "kerning", badge: Badge{Label: "AV To Ty LT", Message: "WAVE Yo P. F. 'A' \"V\"", Color: "green"}},
	{name: "cyrillic", badge: Badge{Label: "дополнение", Message: "проверено · Съешь же ещё этих мягких булок", Color: "green"}},
	{name: "greek-accents", badge: Badge{Label: "ελληνικά", Message: "Ünïcödé café naïve résumé", Color: "green"}},
	{name: "combining", badge: Badge{Label: "e\u0301e\u0308a\u030a", Message: "Z\u0351\u0352a\u0353l\u0316g\u0317o\u0303\u0342", Color: "orange"}},
	{name: "cjk", badge: Badge{Label: "插件", Message: "已验证 · 安全な拡張機能", Color: "green"}, needs: "4e00"},
	{name: "hangul", badge: Badge{Label: "애드온", Message: "검증됨", Color: "green"}, needs: "ac00"},
	{name: "emoji", badge: Badge{Label: "addon 🚀", Message: "pass ✅ 👍🏽 🇩🇪 👨‍👩‍👧", Color: "green"}, needs: "1f680"},
	{name: "hostile", badge: Badge{Label: "<script>alert(1)</script>", Message: "\"&' \u202eevil\u202c \x1b[31m", Color: "red"}},
}

// browser starts headless Chromium for t, or skips t when it is missing.
func browser(t *testing.T) context.Context {
	t.Helper()
	return browsertest.Start(t, 1200, 400)
}

// fontCovers reports whether some installed font covers the code point
// (hex), asking fontconfig; without fc-list it reports false.
func fontCovers(hex string) bool {
	out, err := exec.Command("fc-list", ":charset="+hex, "family").Output()
	return err == nil && strings.TrimSpace(string(out)) != ""
}

// badgeServer serves browserCases[i] as /badge/i.svg and a page embedding
// it as /img/i over a real listener.
func badgeServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /badge/{i}", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(strings.TrimSuffix(r.PathValue("i"), ".svg"))
		if err != nil || i < 0 || i >= len(browserCases) {
			http.NotFound(w, r)
			return
		}
		style := StyleFlat
		if r.URL.Query().Get("style") == "flat-square" {
			style = StyleFlatSquare
		}
		w.Header().Set("Content-Type", ContentTypeSVG)
		w.Write(Render(browserCases[i].badge, style))
	})
	mux.HandleFunc("GET /img/{i}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><body style="margin:0"><img id="b" src="/badge/%s.svg"></body></html>`, r.PathValue("i"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// measured is one text element as the browser drew it.
type measured struct {
	Text       string  `json:"text"`
	TextLength float64 `json:"textLength"` // the attribute, tenths of a pixel
	Natural    float64 `json:"natural"`    // width drawn without textLength
	Box        float64 `json:"box"`        // width of its box in pixels
}

const measureJS = `document.fonts.ready.then(() => {
  const svg = document.documentElement;
  const rects = Array.from(svg.querySelectorAll('g > rect[fill^="#"]'));
  return Array.from(svg.querySelectorAll('text:not([aria-hidden])')).map((t, i) => {
    const tl = parseFloat(t.getAttribute('textLength'));
    t.removeAttribute('textLength');
    const natural = t.getComputedTextLength();
    t.setAttribute('textLength', String(tl));
    return {text: t.textContent, textLength: tl, natural: natural, box: parseFloat(rects[i].getAttribute('width'))};
  });
})`

func TestBrowserWidths(t *testing.T) {
	ctx := browser(t)
	srv := badgeServer(t)
	for i, tc := range browserCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needs != "" && !fontCovers(tc.needs) {
				t.Skipf("no installed font covers U+%s, so the browser draws boxes: install fonts-wqy-microhei and fonts-noto-color-emoji", strings.ToUpper(tc.needs))
			}
			for _, style := range []Style{StyleFlat, StyleFlatSquare} {
				url := fmt.Sprintf("%s/badge/%d.svg?style=%s", srv.URL, i, style)
				var texts []measured
				err := chromedp.Do(ctx, chromedp.Navigate(url))
				if err == nil {
					texts, err = chromedp.Run(ctx, chromedp.Evaluate[[]measured](measureJS, chromedp.EvalAwaitPromise))
				}
				if err != nil {
					t.Fatalf("measure %s: %v", url, err)
				}
				if len(texts) == 0 {
					t.Fatalf("measure %s: no text elements", url)
				}
				for _, m := range texts {
					diff := math.Abs(m.Natural-m.TextLength) / 10
					t.Logf("%s %q: table %.1fpx, browser %.1fpx, box %.0fpx", style, m.Text, m.TextLength/10, m.Natural/10, m.Box)
					if diff > 2 {
						screenshot(t, ctx, url)
						t.Errorf("%s %q: browser draws %.1fpx, the table says %.1fpx: off by %.1fpx, want at most 2", style, m.Text, m.Natural/10, m.TextLength/10, diff)
					}
					if m.Natural/10 > m.Box-2*padding+2 {
						t.Errorf("%s %q: browser draws %.1fpx in a box of %.0fpx", style, m.Text, m.Natural/10, m.Box)
					}
				}
			}
		})
	}
}

func TestBrowserImage(t *testing.T) {
	ctx := browser(t)
	srv := badgeServer(t)
	for i, tc := range browserCases {
		t.Run(tc.name, func(t *testing.T) {
			svg := Render(tc.badge, StyleFlat)
			wantW, wantH := svgSize(t, svg)
			url := fmt.Sprintf("%s/img/%d", srv.URL, i)
			var size []int
			err := chromedp.Do(ctx, chromedp.Navigate(url))
			if err == nil {
				size, err = chromedp.Run(ctx, chromedp.Evaluate[[]int](`new Promise((ok, fail) => { const img = document.getElementById('b'); const done = () => img.naturalWidth > 0 ? ok([img.naturalWidth, img.naturalHeight]) : fail(new Error('badge image did not load')); if (img.complete) done(); else { img.onload = done; img.onerror = () => fail(new Error('badge image failed to load')); } })`, chromedp.EvalAwaitPromise))
			}
			if err == nil && len(size) != 2 {
				err = fmt.Errorf("got %d numbers for the image size, want 2", len(size))
			}
			if err != nil {
				screenshot(t, ctx, url)
				t.Fatalf("load %s: %v", url, err)
			}
			if want := []int{wantW, wantH}; size[0] != want[0] || size[1] != want[1] {
				screenshot(t, ctx, url)
				t.Errorf("img size = %v, want %v", size, want)
			}
		})
	}
}

// svgSize reads the width and height attributes of a rendered badge.
func svgSize(t *testing.T, svg []byte) (int, int) {
	t.Helper()
	attr := func(name string) int {
		s := string(svg)
		i := strings.Index(s, " "+name+`="`)
		if i < 0 {
			t.Fatalf("svg has no %s attribute", name)
		}
		s = s[i+len(name)+3:]
		v, err := strconv.Atoi(s[:strings.IndexByte(s, '"')])
		if err != nil {
			t.Fatalf("svg %s: %v", name, err)
		}
		return v
	}
	return attr("width"), attr("height")
}

// screenshot saves what the browser shows to testdata/out (ignored by git).
func screenshot(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.Navigate(url))
	var png []byte
	if err == nil {
		png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	}
	if err != nil {
		t.Logf("screenshot of %s: %v", url, err)
		return
	}
	dir := filepath.Join("testdata", "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	name := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+".png")
	if err := os.WriteFile(name, png, 0o644); err != nil && !errors.Is(err, os.ErrExist) {
		t.Logf("screenshot: %v", err)
		return
	}
	t.Logf("screenshot saved to %s", name)
}
