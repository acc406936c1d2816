package badge

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/registryd/registryd/internal/browsertest"
	"github.com/registryd/registryd/registry"
)

// browserCase is one badge the browser draws. needs names the test font,
// beyond DejaVu Sans, that the case's text is drawn with ("" for none).
type browserCase struct {
	name  string
	badge Badge
	needs string
}

// The fonts the browser tests draw badges with. The width table was
// generated from DejaVu Sans, and it gives East Asian wide characters one
// em, as a CJK font such as WenQuanYi Micro Hei draws them. The tests load
// these very files with @font-face instead of letting the browser pick
// installed fonts, so that another CJK or emoji font on the machine (Noto
// CJK draws Hangul narrower than one em) cannot fail them: they check the
// table against the fonts it describes.
const (
	fontLatin = "latin"
	fontWide  = "wide"
	fontEmoji = "emoji"
)

// testFont is one font file the browser tests load, and the package that
// installs it on Debian.
type testFont struct {
	path, pkg string
}

var testFonts = map[string]testFont{
	fontLatin: {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "fonts-dejavu-core"},
	fontWide:  {"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "fonts-wqy-microhei"},
	fontEmoji: {"/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", "fonts-noto-color-emoji"},
}

// fontFaces returns the CSS that makes every badge text use the installed
// test fonts, in the order the badge's font-family would reach them, and
// their family names.
func fontFaces() (css string, families []string) {
	for _, name := range []string{fontLatin, fontWide, fontEmoji} {
		if _, err := os.Stat(testFonts[name].path); err != nil {
			continue
		}
		css += `@font-face{font-family:"rgd-` + name + `";src:url(/font/` + name + `)}` + "\n"
		families = append(families, `"rgd-`+name+`"`)
	}
	return css + "text{font-family:" + strings.Join(families, ",") + " !important}", families
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
	{name: "cjk", badge: Badge{Label: "插件", Message: "已验证 · 安全な拡張機能", Color: "green"}, needs: fontWide},
	{name: "hangul", badge: Badge{Label: "애드온", Message: "검증됨", Color: "green"}, needs: fontWide},
	{name: "emoji", badge: Badge{Label: "addon 🚀", Message: "pass ✅ 👍🏽 🇩🇪 👨‍👩‍👧", Color: "green"}, needs: fontEmoji},
	{name: "hostile", badge: Badge{Label: "<script>alert(1)</script>", Message: "\"&' \u202eevil\u202c \x1b[31m", Color: "red"}},
}

// browser starts headless Chromium for t, or skips t when it is missing.
func browser(t *testing.T) context.Context {
	t.Helper()
	return browsertest.Start(t, 1200, 400)
}

// firstFont returns data unchanged when it is a single font, and the first
// font of a TrueType collection (.ttc) as a font file of its own otherwise,
// because browsers load only single fonts through @font-face. The tables
// are copied whole and their offsets rewritten; their checksums do not
// depend on where they lie.
func firstFont(data []byte) ([]byte, error) {
	if len(data) < 16 || string(data[:4]) != "ttcf" {
		return data, nil
	}
	u32 := func(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
	off := int(u32(data[12:]))
	if off+12 > len(data) {
		return nil, errors.New("truncated collection")
	}
	n := int(binary.BigEndian.Uint16(data[off+4:]))
	dir := off + 12
	if dir+16*n > len(data) {
		return nil, errors.New("truncated table directory")
	}
	out := append([]byte(nil), data[off:dir+16*n]...)
	for i := range n {
		rec := out[12+16*i:]
		start, length := int(u32(rec[8:])), int(u32(rec[12:]))
		if start+length > len(data) {
			return nil, errors.New("table past the end of the collection")
		}
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		binary.BigEndian.PutUint32(rec[8:], uint32(len(out)))
		out = append(out, data[start:start+length]...)
	}
	return out, nil
}

// requireFont skips t unless the test font name is installed.
func requireFont(t *testing.T, name string) {
	t.Helper()
	f := testFonts[name]
	if _, err := os.Stat(f.path); err != nil {
		t.Skipf("%s is missing, and this case is measured against it: install %s", f.path, f.pkg)
	}
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
	mux.HandleFunc("GET /font/{name}", func(w http.ResponseWriter, r *http.Request) {
		f, ok := testFonts[r.PathValue("name")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(f.path)
		if err == nil {
			data, err = firstFont(data)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "font/ttf")
		w.Write(data)
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

// measureJS returns the script that measures every text of the badge the
// tab shows, drawn with the test fonts.
func measureJS() string {
	css, families := fontFaces()
	cssJSON, _ := json.Marshal(css)
	familiesJSON, _ := json.Marshal(families)
	return `(async () => {
  const svg = document.documentElement;
  const style = document.createElementNS('http://www.w3.org/2000/svg', 'style');
  style.textContent = ` + string(cssJSON) + `;
  svg.prepend(style);
  const text = Array.from(svg.querySelectorAll('text')).map(t => t.textContent).join('');
  for (const family of ` + string(familiesJSON) + `) {
    try { await document.fonts.load('110px ' + family, text); } catch (e) { throw new Error(family + ': ' + e); }
  }
  await document.fonts.ready;
  const rects = Array.from(svg.querySelectorAll('g > rect[fill^="#"]'));
  return Array.from(svg.querySelectorAll('text:not([aria-hidden])')).map((t, i) => {
    const tl = parseFloat(t.getAttribute('textLength'));
    t.removeAttribute('textLength');
    const natural = t.getComputedTextLength();
    t.setAttribute('textLength', String(tl));
    return {text: t.textContent, textLength: tl, natural: natural, box: parseFloat(rects[i].getAttribute('width'))};
  });
})()`
}

func TestBrowserWidths(t *testing.T) {
	ctx := browser(t)
	srv := badgeServer(t)
	requireFont(t, fontLatin)
	for i, tc := range browserCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needs != "" {
				requireFont(t, tc.needs)
			}
			for _, style := range []Style{StyleFlat, StyleFlatSquare} {
				url := fmt.Sprintf("%s/badge/%d.svg?style=%s", srv.URL, i, style)
				var texts []measured
				err := chromedp.Do(ctx, chromedp.Navigate(url))
				if err == nil {
					texts, err = chromedp.Run(ctx, chromedp.Evaluate[[]measured](measureJS(), chromedp.EvalAwaitPromise))
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
