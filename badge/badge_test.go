package badge

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenCases are the badges whose bytes are pinned in testdata/<name>.svg
// and testdata/<name>.json.
var goldenCases = []struct {
	name  string
	badge Badge
	style Style
}{
	{"verified", ForAddon(registry.TierVerified, registry.VerdictPass, true, ""), StyleFlat},
	{"verified-review", ForAddon(registry.TierVerified, registry.VerdictReview, true, ""), StyleFlat},
	{"verified-fail", ForAddon(registry.TierVerified, registry.VerdictFail, true, ""), StyleFlat},
	{"community-pass", ForAddon(registry.TierCommunity, registry.VerdictPass, true, ""), StyleFlat},
	{"community-review", ForAddon(registry.TierCommunity, registry.VerdictReview, true, ""), StyleFlat},
	{"community-fail", ForAddon(registry.TierCommunity, registry.VerdictFail, true, ""), StyleFlat},
	{"not-found", ForAddon("", "", false, ""), StyleFlat},
	{"unknown", ForAddon("gold", registry.VerdictPass, true, ""), StyleFlat},
	{"label-override", ForAddon(registry.TierCommunity, registry.VerdictPass, true, "registryd"), StyleFlat},
	{"flat-square-verified", ForAddon(registry.TierVerified, registry.VerdictPass, true, ""), StyleFlatSquare},
	{"flat-square-fail", ForAddon(registry.TierCommunity, registry.VerdictFail, true, ""), StyleFlatSquare},
	{"message-only", Badge{Message: "community · pass", Color: "green"}, StyleFlat},
	{"long", Badge{Label: "an addon with a label much longer than any sensible label would be", Message: strings.Repeat("very long message ", 6), Color: "blue"}, StyleFlat},
	{"cyrillic", Badge{Label: "дополнение", Message: "проверено", Color: "brightgreen"}, StyleFlat},
	{"cjk", Badge{Label: "插件", Message: "已验证 · 安全", Color: "brightgreen"}, StyleFlat},
	{"emoji", Badge{Label: "addon 🚀", Message: "pass ✅ 👍🏽 🇩🇪 👨\u200d👩\u200d👧 ❤\uFE0F", Color: "green"}, StyleFlat},
	{"combining", Badge{Label: "e\u0301e\u0308", Message: "Z\u0351\u0352a\u0353l\u0316g\u0317o", Color: "orange"}, StyleFlat},
	{"hostile-script", Badge{Label: "<script>alert(1)</script>", Message: `"><svg onload=alert(1)>`, Color: `red" onload="x`}, StyleFlat},
	{"hostile-quotes", Badge{Label: `"&'<>`, Message: "a&amp;b ]]> <!-- x -->", Color: "#e05d44"}, StyleFlat},
	{"hostile-control", Badge{Label: "tab\there\r\nnew\x00nul\x1b[31mred\x7f", Message: "c1\u0085\u009b end", Color: "yellow"}, StyleFlat},
	{"hostile-bidi", Badge{Label: "pass\u202e\u2066lia\u2069\u202c", Message: "ok\u200b\u200e\u061c\ufeff\u00ad", Color: "green"}, StyleFlat},
	{"hostile-utf8", Badge{Label: "bad\xff\xfeutf8", Message: "nonchar\ufffe\U0001fffe\ufdd0", Color: "#ABCDEF"}, StyleFlat},
	{"light-color", Badge{Label: "addon", Message: "light", Color: "#eee"}, StyleFlat},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name+".svg", Render(tc.badge, tc.style))
			golden(t, tc.name+".json", Endpoint(tc.badge))
		})
	}
}

// golden compares got with testdata/name, rewriting the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, diff)
	}
}

// parsedSVG is what a strict XML parser reads from a badge.
type parsedSVG struct {
	width, height string
	ariaLabel     string
	title         string
	texts         []string // contents of the <text> elements, in order
	textLengths   []string
	names         map[string]bool // every element and attribute name
}

// parseSVG parses svg strictly and fails t if it is not well-formed XML.
func parseSVG(t testing.TB, svg []byte) parsedSVG {
	t.Helper()
	p := parsedSVG{names: map[string]bool{}}
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = true
	var stack []string
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("badge is not well-formed XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			stack = append(stack, tok.Name.Local)
			p.names["<"+tok.Name.Local+">"] = true
			for _, a := range tok.Attr {
				p.names[a.Name.Local] = true
				switch {
				case tok.Name.Local == "svg" && a.Name.Local == "width":
					p.width = a.Value
				case tok.Name.Local == "svg" && a.Name.Local == "height":
					p.height = a.Value
				case tok.Name.Local == "svg" && a.Name.Local == "aria-label":
					p.ariaLabel = a.Value
				case tok.Name.Local == "text" && a.Name.Local == "textLength":
					p.textLengths = append(p.textLengths, a.Value)
				}
			}
			text.Reset()
		case xml.CharData:
			text.Write(tok)
		case xml.EndElement:
			switch tok.Name.Local {
			case "text":
				p.texts = append(p.texts, text.String())
			case "title":
				p.title = text.String()
			}
			stack = stack[:len(stack)-1]
		case xml.ProcInst, xml.Directive:
			t.Fatalf("badge has a %T", tok)
		}
	}
	if len(stack) != 0 {
		t.Fatalf("badge leaves %v open", stack)
	}
	return p
}

// checkSafe fails t when the output s holds a character that could attack
// a terminal or a page. The line feeds between elements are the renderer's
// own and allowed.
func checkSafe(t testing.TB, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s is not valid UTF-8: %q", what, s)
		return
	}
	if err := safetext.Check(s, safetext.LF); err != nil {
		t.Errorf("%s %v: %q", what, err, s)
	}
}

// svgNames are the elements and attributes a badge is made of: input can
// add no other.
var svgNames = map[string]bool{
	"<svg>": true, "<title>": true, "<linearGradient>": true, "<stop>": true,
	"<clipPath>": true, "<rect>": true, "<g>": true, "<text>": true,
	"xmlns": true, "width": true, "height": true, "role": true, "aria-label": true,
	"id": true, "x2": true, "y2": true, "offset": true, "stop-color": true,
	"stop-opacity": true, "rx": true, "fill": true, "clip-path": true, "x": true,
	"y": true, "shape-rendering": true, "text-anchor": true, "font-family": true,
	"text-rendering": true, "font-size": true, "aria-hidden": true,
	"fill-opacity": true, "transform": true, "textLength": true,
}

func TestRenderIsWellFormedAndSafe(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			svg := Render(tc.badge, tc.style)
			p := parseSVG(t, svg)
			label, msg := sanitize(tc.badge.Label), sanitize(tc.badge.Message)
			want := []string{label, msg}
			accessible := label + ": " + msg
			if label == "" {
				want, accessible = []string{msg}, msg
			}
			if tc.style == StyleFlat {
				// Each text is drawn twice: shadow, then text.
				var w []string
				for _, s := range want {
					w = append(w, s, s)
				}
				want = w
			}
			if diff := cmp.Diff(want, p.texts); diff != "" {
				t.Errorf("texts (-want +got):\n%s", diff)
			}
			if p.ariaLabel != accessible || p.title != accessible {
				t.Errorf("aria-label = %q, title = %q, want both %q", p.ariaLabel, p.title, accessible)
			}
			if p.height != "20" || p.width == "" || p.width == "0" {
				t.Errorf("size = %sx%s, want a width and height 20", p.width, p.height)
			}
			if len(p.textLengths) != len(p.texts) {
				t.Errorf("%d textLength attributes for %d texts", len(p.textLengths), len(p.texts))
			}
			checkSafe(t, "svg", string(svg))
			for name := range p.names {
				if !svgNames[name] {
					t.Errorf("badge has %s, which the renderer never writes", name)
				}
			}
			if strings.Contains(string(svg), "<script") {
				t.Errorf("badge holds live markup:\n%s", svg)
			}
			if !bytes.Equal(svg, Render(tc.badge, tc.style)) {
				t.Error("two renders of one badge differ")
			}
		})
	}
}

func TestForAddon(t *testing.T) {
	tests := []struct {
		tier    registry.Tier
		verdict registry.Verdict
		found   bool
		label   string
		want    Badge
	}{
		{registry.TierVerified, registry.VerdictPass, true, "", Badge{"addon", "verified", "brightgreen"}},
		{registry.TierVerified, registry.VerdictReview, true, "", Badge{"addon", "verified · review", "yellow"}},
		{registry.TierVerified, registry.VerdictFail, true, "", Badge{"addon", "verified · fail", "red"}},
		{registry.TierCommunity, registry.VerdictPass, true, "", Badge{"addon", "community · pass", "green"}},
		{registry.TierCommunity, registry.VerdictReview, true, "", Badge{"addon", "community · review", "yellow"}},
		{registry.TierCommunity, registry.VerdictFail, true, "", Badge{"addon", "community · fail", "red"}},
		{registry.TierCommunity, registry.VerdictPass, true, "mcp", Badge{"mcp", "community · pass", "green"}},
		{registry.TierVerified, registry.VerdictPass, false, "", Badge{"addon", "not found", "lightgrey"}},
		{"", "", false, "x", Badge{"x", "not found", "lightgrey"}},
		{"gold", registry.VerdictPass, true, "", Badge{"addon", "unknown", "lightgrey"}},
		{registry.TierCommunity, "maybe", true, "", Badge{"addon", "unknown", "lightgrey"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.tier)+"/"+string(tc.verdict), func(t *testing.T) {
			got := ForAddon(tc.tier, tc.verdict, tc.found, tc.label)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ForAddon(%q, %q, %v, %q) (-want +got):\n%s", tc.tier, tc.verdict, tc.found, tc.label, diff)
			}
			if _, ok := namedColors[got.Color]; !ok {
				t.Errorf("colour %q is not a named colour", got.Color)
			}
		})
	}
}

func TestColorResolution(t *testing.T) {
	tests := []struct {
		in, fill, endpoint string
	}{
		{"brightgreen", "#4c1", "brightgreen"},
		{"lightgrey", "#9f9f9f", "lightgrey"},
		{"#ABC", "#abc", "abc"},
		{"abc", "#abc", "abc"},
		{"#44cc11", "#44cc11", "44cc11"},
		{"", "#9f9f9f", "lightgrey"},
		{"#abcd", "#9f9f9f", "lightgrey"},
		{"#ggg", "#9f9f9f", "lightgrey"},
		{"red\" onload=\"x", "#9f9f9f", "lightgrey"},
		{"url(#s)", "#9f9f9f", "lightgrey"},
		{"Red", "#9f9f9f", "lightgrey"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := color(tc.in); got != tc.fill {
				t.Errorf("color(%q) = %q, want %q", tc.in, got, tc.fill)
			}
			if got := endpointColor(tc.in); got != tc.endpoint {
				t.Errorf("endpointColor(%q) = %q, want %q", tc.in, got, tc.endpoint)
			}
		})
	}
}

func TestParseStyle(t *testing.T) {
	tests := []struct {
		in      string
		want    Style
		wantErr bool
	}{
		{"", StyleFlat, false},
		{"flat", StyleFlat, false},
		{"flat-square", StyleFlatSquare, false},
		{"plastic", StyleFlat, true},
		{"FLAT", StyleFlat, true},
		{"flat\x1b[2J", StyleFlat, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseStyle(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseStyle(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("ParseStyle(%q) = %v, want %v", tc.in, got, tc.want)
			}
			if err != nil {
				if !errors.Is(err, registry.ErrInvalid) {
					t.Errorf("ParseStyle(%q) error %v does not match registry.ErrInvalid", tc.in, err)
				}
				if strings.Contains(err.Error(), tc.in) {
					t.Errorf("ParseStyle(%q) error %q echoes the input", tc.in, err)
				}
			}
			if err == nil && got.String() != tc.in && tc.in != "" {
				t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
			}
		})
	}
}

func TestETag(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", `"sha256-e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"`},
		{"abc", `"sha256-ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"`},
	}
	for _, tc := range tests {
		if got := ETag([]byte(tc.in)); got != tc.want {
			t.Errorf("ETag(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	a := Render(ForAddon(registry.TierCommunity, registry.VerdictPass, true, ""), StyleFlat)
	b := Render(ForAddon(registry.TierCommunity, registry.VerdictFail, true, ""), StyleFlat)
	if ETag(a) == ETag(b) {
		t.Error("two different badges share an ETag")
	}
}

func TestEndpoint(t *testing.T) {
	tests := []struct {
		in   Badge
		want map[string]any
	}{
		{ForAddon(registry.TierVerified, registry.VerdictPass, true, ""),
			map[string]any{"schemaVersion": 1.0, "label": "addon", "message": "verified", "color": "brightgreen"}},
		{Badge{Label: "a<b>\u202e", Message: "x\x00", Color: "#ABC"},
			map[string]any{"schemaVersion": 1.0, "label": "a<b>\ufffd", "message": "x\ufffd", "color": "abc"}},
		{Badge{},
			map[string]any{"schemaVersion": 1.0, "label": "", "message": "", "color": "lightgrey"}},
	}
	for _, tc := range tests {
		t.Run(tc.in.Label, func(t *testing.T) {
			raw := Endpoint(tc.in)
			d := json.NewDecoder(bytes.NewReader(raw))
			d.DisallowUnknownFields()
			var got map[string]any
			if err := d.Decode(&got); err != nil {
				t.Fatalf("Endpoint is not JSON: %v\n%s", err, raw)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Endpoint(%+v) (-want +got):\n%s", tc.in, diff)
			}
			if bytes.ContainsAny(raw, "<>&") {
				t.Errorf("Endpoint holds raw HTML characters: %s", raw)
			}
			if !strings.HasPrefix(string(raw), `{"schemaVersion":1,"label":`) {
				t.Errorf("Endpoint = %s, want schemaVersion first", raw)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	long := strings.Repeat("ab", MaxTextRunes)
	tests := []struct {
		name, in, want string
	}{
		{"plain", "community · pass", "community · pass"},
		{"empty", "", ""},
		{"c0", "a\x00b\tc\nd\x1b", "a\ufffdb\ufffdc\ufffdd\ufffd"},
		{"c1 and del", "a\x7fb\u0085c\u009b", "a\ufffdb\ufffdc\ufffd"},
		{"bidi", "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c", strings.Repeat("\ufffd", 12)},
		{"zero width", "a\u200bb\u2060c\ufeffd\u00ade", "a\ufffdb\ufffdc\ufffdd\ufffde"},
		{"zwj after emoji kept", "👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"},
		{"zwj after skin tone kept", "👩🏽\u200d🚀", "👩🏽\u200d🚀"},
		{"zwj after vs16 kept", "❤\ufe0f\u200d🔥", "❤\ufe0f\u200d🔥"},
		{"zwj in text refused", "pa\u200dss", "pa\ufffdss"},
		{"leading zwj refused", "\u200d🚀", "\ufffd🚀"},
		{"separators", "a\u2028b\u2029c", "a\ufffdb\ufffdc"},
		{"invalid utf8", "a\xffb\xc0", "a\ufffdb\ufffd"},
		{"nonchars", "\ufffe\uffff\ufdd0\U0010ffff", "\ufffd\ufffd\ufffd\ufffd"},
		{"tags", "\U000e0067\U000e007f", "\ufffd\ufffd"},
		{"private use", "\ue0b0 pass", "\ufffd pass"},
		{"unassigned", "a\u0378", "a\ufffd"},
		{"zwj joining nothing", "🚀\u200d", "🚀\ufffd"},
		{"exactly max", long[:MaxTextRunes], long[:MaxTextRunes]},
		{"over max", long, long[:MaxTextRunes-1] + "…"},
		{"over max multibyte", strings.Repeat("я", MaxTextRunes+1), strings.Repeat("я", MaxTextRunes-1) + "…"},
		{"over max with controls", strings.Repeat("\x00", MaxTextRunes+5), strings.Repeat("\ufffd", MaxTextRunes-1) + "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sanitize(tc.in); got != tc.want {
				t.Errorf("sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestTextAdvance(t *testing.T) {
	adv := func(r rune) int {
		a, ok := tableAdvance(r)
		if !ok {
			t.Fatalf("the table lacks %U", r)
		}
		return a
	}
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"one letter", "a", adv('a')},
		{"letters add up", "addon", adv('a') + 2*adv('d') + adv('o') + adv('n')},
		{"kerning", "AV", 2*adv('A') + kern('A', 'V')},
		{"combining mark adds nothing", "e\u0301", adv('e')},
		{"enclosing mark adds nothing", "1\u20dd", adv('1')},
		{"zero width adds nothing", "a\u200bb", adv('a') + adv('b')},
		{"cyrillic from the table", "я", adv('я')},
		{"cjk is one em", "插件", 2 * unitsPerEm},
		{"hangul is one em", "검", unitsPerEm},
		{"fullwidth is one em", "\uff21", unitsPerEm},
		{"emoji", "🚀", emojiAdvance},
		{"bmp emoji presentation beats the table", "✅", emojiAdvance},
		{"skin tone joins its emoji", "👍🏽", emojiAdvance},
		{"lone skin tone is an emoji", "🏽", emojiAdvance},
		{"zwj sequence is one emoji", "👨\u200d👩\u200d👧", emojiAdvance},
		{"flag pair is one emoji", "🇩🇪", emojiAdvance},
		{"two flags", "🇩🇪🇫🇷", 2 * emojiAdvance},
		{"vs16 turns text into emoji", "❤\uFE0F", emojiAdvance},
		{"vs15 keeps text", "❤\uFE0E", adv('❤')},
		{"keycap", "1\uFE0F\u20E3", emojiAdvance},
		{"pictograph the font lacks", "\U0001FA90", emojiAdvance},
		{"unknown script is average", "\u0F40", averageAdvance},
		{"zwj after text joins nothing", "a\u200d🚀", adv('a') + emojiAdvance},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := textAdvance(tc.in); got != tc.want {
				t.Errorf("textAdvance(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestTableIsSortedAndConsistent(t *testing.T) {
	next := 0
	for i, r := range advanceRuns {
		if r.hi < r.lo {
			t.Fatalf("run %d: hi %U < lo %U", i, r.hi, r.lo)
		}
		if i > 0 && r.lo <= advanceRuns[i-1].hi {
			t.Fatalf("run %d starts at %U, inside run %d", i, r.lo, i-1)
		}
		if int(r.off) != next {
			t.Fatalf("run %d: offset %d, want %d", i, r.off, next)
		}
		next += int(r.hi-r.lo) + 1
	}
	if next != len(advances) {
		t.Errorf("runs cover %d advances, the table has %d", next, len(advances))
	}
	if advanceRuns[0].lo != 0x20 || advanceRuns[0].hi < 0x7E {
		t.Errorf("first run is %U..%U, want it to hold Basic Latin", advanceRuns[0].lo, advanceRuns[0].hi)
	}
	for i := 1; i < len(kernKeys); i++ {
		if kernKeys[i] <= kernKeys[i-1] {
			t.Fatalf("kernKeys[%d] = %#x not above %#x", i, kernKeys[i], kernKeys[i-1])
		}
	}
	if len(kernKeys) != len(kernDeltas) {
		t.Errorf("%d kern keys, %d deltas", len(kernKeys), len(kernDeltas))
	}
}

func FuzzRender(f *testing.F) {
	for _, tc := range goldenCases {
		f.Add(tc.badge.Label, tc.badge.Message, tc.badge.Color, tc.style == StyleFlatSquare)
	}
	f.Fuzz(func(t *testing.T, label, msg, color string, square bool) {
		style := StyleFlat
		if square {
			style = StyleFlatSquare
		}
		b := Badge{Label: label, Message: msg, Color: color}
		svg := Render(b, style)
		p := parseSVG(t, svg)
		checkSafe(t, "svg", string(svg))
		for name := range p.names {
			if !svgNames[name] {
				t.Errorf("badge has %s, which the renderer never writes", name)
			}
		}
		if p.height != "20" {
			t.Errorf("height = %q, want 20", p.height)
		}
		if w, err := strconv.Atoi(p.width); err != nil || w <= 0 || w > maxWidth() {
			t.Errorf("width = %q, want a number in 1..%d", p.width, maxWidth())
		}
		for _, s := range p.texts {
			if n := utf8.RuneCountInString(s); n > MaxTextRunes {
				t.Errorf("text of %d characters, want at most %d", n, MaxTextRunes)
			}
		}
		if !bytes.Equal(svg, Render(b, style)) {
			t.Error("two renders differ")
		}
		raw := Endpoint(b)
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("Endpoint is not JSON: %v", err)
		}
		checkSafe(t, "endpoint", string(raw))
	})
}

// maxWidth bounds a badge's width in pixels: two parts of MaxTextRunes of
// the widest character each.
func maxWidth() int {
	widest := max(emojiAdvance, wideAdvance, averageAdvance)
	for _, a := range advances {
		widest = max(widest, int(a))
	}
	return 2 * ((MaxTextRunes*widest*fontSize+unitsPerEm-1)/unitsPerEm + 1 + 2*padding)
}
