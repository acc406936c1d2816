package safetext

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// classTests pins the rule one character at a time: every class, its
// borders, and the characters registryd's packages used to disagree on.
var classTests = []struct {
	name string
	r    rune
	want Class
}{
	{"letter", 'a', Safe},
	{"space", ' ', Safe},
	{"tilde, last printable ASCII", '~', Safe},
	{"e acute", 'é', Safe},
	{"CJK", '漢', Safe},
	{"combining acute", '\u0301', Safe},
	{"no-break space", '\u00A0', Safe},
	{"ideographic space", '\u3000', Safe},
	{"emoji", '😀', Safe},
	{"emoji modifier", '\U0001F3FD', Safe},
	{"variation selector 16", '\uFE0F', Safe},
	{"replacement character itself", '\uFFFD', Safe},
	{"ellipsis", '…', Safe},

	{"NUL", 0, Control},
	{"tab on its own", '\t', Control},
	{"line feed on its own", '\n', Control},
	{"carriage return", '\r', Control},
	{"escape", 0x1B, Control},
	{"DEL", 0x7F, Control},
	{"C1 first", 0x80, Control},
	{"next line", 0x85, Control},
	{"CSI", 0x9B, Control},
	{"C1 last", 0x9F, Control},

	{"arabic letter mark", '\u061C', Bidi},
	{"left-to-right mark", '\u200E', Bidi},
	{"right-to-left mark", '\u200F', Bidi},
	{"left-to-right embedding", '\u202A', Bidi},
	{"right-to-left override", '\u202E', Bidi},
	{"left-to-right isolate", '\u2066', Bidi},
	{"pop directional isolate", '\u2069', Bidi},

	{"soft hyphen", '\u00AD', Format},
	{"arabic number sign", '\u0600', Format},
	{"mongolian vowel separator", '\u180E', Format},
	{"zero width space", '\u200B', Format},
	{"zero width non-joiner", '\u200C', Format},
	{"zero width joiner alone", '\u200D', Format},
	{"word joiner", '\u2060', Format},
	{"invisible times", '\u2062', Format},
	{"inhibit symmetric swapping", '\u206A', Format},
	{"byte order mark", '\uFEFF', Format},
	{"interlinear annotation anchor", '\uFFF9', Format},
	{"tag latin small a", '\U000E0061', Format},
	{"combining grapheme joiner", '\u034F', Format},
	{"hangul filler", '\u3164', Format},
	{"halfwidth hangul filler", '\uFFA0', Format},
	{"khmer inherent vowel", '\u17B4', Format},

	{"line separator", '\u2028', Separator},
	{"paragraph separator", '\u2029', Separator},

	{"noncharacter FDD0", '\uFDD0', Noncharacter},
	{"noncharacter FFFE", '\uFFFE', Noncharacter},
	{"noncharacter FFFF", '\uFFFF', Noncharacter},
	{"noncharacter 1FFFF", 0x1FFFF, Noncharacter},
	{"noncharacter 10FFFF", 0x10FFFF, Noncharacter},

	{"private use", '\uE000', PrivateUse},
	{"apple logo in fonts", '\uF8FF', PrivateUse},
	{"plane 15 private use", 0xF0000, PrivateUse},

	{"unassigned", 0x0378, Unassigned},
	{"unassigned astral", 0x2FFFD, Unassigned},

	{"surrogate", 0xD800, Invalid},
	{"negative", -1, Invalid},
	{"above the last code point", unicode.MaxRune + 1, Invalid},
}

func TestClassify(t *testing.T) {
	for _, tt := range classTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.r); got != tt.want {
				t.Errorf("Classify(%s) = %v, want %v", CodePoint(tt.r), got, tt.want)
			}
		})
	}
}

// TestRuleMatchesClassify checks every code point: the fast path that
// Check, Valid and Replace take agrees with Classify, so that the package
// doc describes what the code does.
func TestRuleMatchesClassify(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // not encodable in UTF-8
		}
		want := Classify(r) == Safe
		if got := Valid(string(r), 0); got != want {
			t.Fatalf("Valid(%s) = %v, Classify says %v", CodePoint(r), got, Classify(r))
		}
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		s     string
		allow Allow
		want  *Error
	}{
		{"empty", "", 0, nil},
		{"ASCII", "npx -y @scope/pkg@1.2.3", 0, nil},
		{"unicode text", "Zürich 東京 café", 0, nil},
		{"tab refused on one line", "a\tb", 0, &Error{Offset: 1, Rune: '\t', Class: Control}},
		{"tab allowed", "a\tb", Tab, nil},
		{"line feed allowed by Lines", "a\nb\tc", Lines, nil},
		{"carriage return needs CR", "a\r\nb", Lines, &Error{Offset: 1, Rune: '\r', Class: Control}},
		{"CRLF document", "a\r\nb", Lines | CR, nil},
		{"escape sequence", "ok\x1b[31m", Lines, &Error{Offset: 2, Rune: 0x1B, Class: Control}},
		{"invalid byte", "a\xffb", 0, &Error{Offset: 1, Rune: 0xFF, Class: Invalid}},
		{"truncated sequence", "a\xe2\x80", 0, &Error{Offset: 1, Rune: 0xE2, Class: Invalid}},
		{"encoded surrogate", "a\xed\xa0\x80", 0, &Error{Offset: 1, Rune: 0xED, Class: Invalid}},
		{"overlong slash", "\xc0\xaf", 0, &Error{Offset: 0, Rune: 0xC0, Class: Invalid}},
		{"trojan source", "admin\u202E\u2066 // check", 0, &Error{Offset: 5, Rune: '\u202E', Class: Bidi}},
		{"soft hyphen", "ad\u00ADmin", 0, &Error{Offset: 2, Rune: '\u00AD', Class: Format}},
		{"zero width space", "np\u200Bx", 0, &Error{Offset: 2, Rune: '\u200B', Class: Format}},
		{"line separator", "a\u2028b", Lines, &Error{Offset: 1, Rune: '\u2028', Class: Separator}},
		{"first refused wins", "é\u200B\x1b", 0, &Error{Offset: 2, Rune: '\u200B', Class: Format}},
		{"emoji ZWJ sequence", "family 👨\u200D👩\u200D👧", 0, nil},
		{"ZWJ after skin tone", "👍🏽\u200D👍", 0, nil},
		{"ZWJ after VS16", "❤\uFE0F\u200D🔥", 0, nil},
		{"ZWJ between letters", "a\u200Db", 0, &Error{Offset: 1, Rune: '\u200D', Class: Format}},
		{"ZWJ at the end after an emoji", "👨\u200D", 0, &Error{Offset: 4, Rune: '\u200D', Class: Format}},
		{"ZWJ before U+FFFD", "👨\u200D\uFFFD", 0, &Error{Offset: 4, Rune: '\u200D', Class: Format}},
		{"ZWJ before a letter", "👨\u200Da", 0, &Error{Offset: 4, Rune: '\u200D', Class: Format}},
		{"two ZWJ", "👨\u200D\u200D👩", 0, &Error{Offset: 4, Rune: '\u200D', Class: Format}},
		{"private use", "icon \uE0B0", 0, &Error{Offset: 5, Rune: '\uE0B0', Class: PrivateUse}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.s, tt.allow)
			var got *Error
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("Check returned %T, want *Error", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check(%q) (-want +got):\n%s", tt.s, diff)
			}
			if v := Valid(tt.s, tt.allow); v != (tt.want == nil) {
				t.Errorf("Valid(%q) = %v, want %v", tt.s, v, tt.want == nil)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{Rune: 0x1B, Class: Control}, "contains a control character (U+001B)"},
		{Error{Rune: 0, Class: Control}, "contains a control character (U+0000)"},
		{Error{Rune: '\u202E', Class: Bidi}, "contains a bidirectional control character (U+202E)"},
		{Error{Rune: '\u00AD', Class: Format}, "contains an invisible formatting character (U+00AD)"},
		{Error{Rune: 0xE0061, Class: Format}, "contains an invisible formatting character (U+E0061)"},
		{Error{Rune: 0xFF, Class: Invalid}, "is not valid UTF-8"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestReplace(t *testing.T) {
	tests := []struct {
		name  string
		s     string
		allow Allow
		repl  rune
		want  string
	}{
		{"clean", "hello, wörld", 0, '?', "hello, wörld"},
		{"escape sequence", "\x1b]0;pwned\x07x", 0, '?', "?]0;pwned?x"},
		{"each invalid byte", "a\xff\xfeb", 0, '\uFFFD', "a\uFFFD\uFFFDb"},
		{"bidi and zero width", "a\u202Eb\u200Bc", 0, ' ', "a b c"},
		{"tab kept when allowed", "a\tb\nc", Tab, '?', "a\tb?c"},
		{"lines kept", "a\tb\nc\rd", Lines, '?', "a\tb\nc?d"},
		{"emoji sequence kept", "👨\u200D👩 ok", 0, '?', "👨\u200D👩 ok"},
		{"stray joiner replaced", "a\u200Db", 0, '?', "a?b"},
		{"joiner after a replaced character", "\x1b\u200D👩", 0, '?', "??👩"},
		{"separators", "a\u2028b\u2029c", Lines, '?', "a?b?c"},
		{"everything bad", "\x00\u00AD\uFFFE\uE000\u0378", 0, '?', "?????"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Replace(tt.s, tt.allow, tt.repl); got != tt.want {
				t.Errorf("Replace(%q) = %q, want %q", tt.s, got, tt.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven " + Ellipsis},
		{"ééééé", 6, "é" + Ellipsis},
		{"ééééé", 7, "éé" + Ellipsis},
		{"👨\u200D👩\u200D👧", 10, "👨" + Ellipsis},
		{"abcdef", 2, "ab"},
		{"éé", 1, ""},
		{"abc", 0, ""},
	}
	for _, tt := range tests {
		got := Truncate(tt.s, tt.max)
		if got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
		if len(tt.s) > tt.max && len(got) > tt.max {
			t.Errorf("Truncate(%q, %d) is %d bytes long", tt.s, tt.max, len(got))
		}
	}
}

func TestTruncateRunes(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 5, "short"},
		{"shorter", 5, "shor" + Ellipsis},
		{"ééé", 3, "ééé"},
		{"éééé", 3, "éé" + Ellipsis},
		{"a👨\u200D👩", 3, "a👨" + Ellipsis},
		{"abc", 0, ""},
		{"", 1, ""},
	}
	for _, tt := range tests {
		if got := TruncateRunes(tt.s, tt.n); got != tt.want {
			t.Errorf("TruncateRunes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestASCII(t *testing.T) {
	tests := []struct {
		s, also string
		want    string
	}{
		{"plain text", "<>", "plain text"},
		{"<b>bold</b>", "<>", "?b?bold?/b?"},
		{"café", "", "caf?"},
		{"a\xffb", "", "a?b"},
		{"tab\there", "", "tab?here"},
		{"a|b`c", "`|", "a?b?c"},
	}
	for _, tt := range tests {
		if got := ASCII(tt.s, tt.also, '?'); got != tt.want {
			t.Errorf("ASCII(%q, %q) = %q, want %q", tt.s, tt.also, got, tt.want)
		}
	}
}

func TestGraphicASCII(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"", true},
		{"rgd_abc.DEF-123~", true},
		{"with space", false},
		{"tab\t", false},
		{"del\x7f", false},
		{"é", false},
	}
	for _, tt := range tests {
		if got := GraphicASCII(tt.s); got != tt.want {
			t.Errorf("GraphicASCII(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestCodePoint(t *testing.T) {
	for r, want := range map[rune]string{0: "U+0000", 0x1B: "U+001B", 0x202E: "U+202E", 0x1F600: "U+1F600", 0x10FFFF: "U+10FFFF"} {
		if got := CodePoint(r); got != want {
			t.Errorf("CodePoint(%#x) = %q, want %q", r, got, want)
		}
	}
}

// FuzzText checks the package's promises on any input: Replace's output
// passes Check, Check and Valid agree, Check points at a real character,
// Replace leaves valid text alone, and Truncate stays within its bound
// without splitting a character.
func FuzzText(f *testing.F) {
	for _, tt := range []string{"", "plain", "a\tb\nc\r\n", "\x1b[31m", "a\xffb", "admin\u202E\u2066x",
		"👨\u200D👩\u200D👧", "a\u200Db", "\u00AD\u2028\uFFFE\uE000\u0378", "❤\uFE0F\u200D🔥"} {
		f.Add(tt, uint8(0), 8)
		f.Add(tt, uint8(Lines|CR), 3)
	}
	f.Fuzz(func(t *testing.T, s string, allowBits uint8, max int) {
		allow := Allow(allowBits) & (Tab | LF | CR)
		err := Check(s, allow)
		if (err == nil) != Valid(s, allow) {
			t.Fatalf("Check(%q) = %v but Valid = %v", s, err, Valid(s, allow))
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset >= len(s) || e.Class == Safe {
				t.Fatalf("Check(%q) = %#v", s, err)
			}
			if e.Class != Invalid && !strings.HasPrefix(s[e.Offset:], string(e.Rune)) {
				t.Fatalf("Check(%q) points at %s, which is not at offset %d", s, CodePoint(e.Rune), e.Offset)
			}
			if strings.ContainsFunc(e.Error(), func(r rune) bool { return !PrintableASCII(r) }) {
				t.Fatalf("message %q is not printable ASCII", e.Error())
			}
		}
		for _, repl := range []rune{'?', '\uFFFD'} {
			out := Replace(s, allow, repl)
			if err := Check(out, allow); err != nil {
				t.Fatalf("Replace(%q) = %q, which Check refuses: %v", s, out, err)
			}
			if Valid(s, allow) && out != s {
				t.Fatalf("Replace changed valid text %q to %q", s, out)
			}
		}
		if max < 0 || max > 1<<16 {
			return
		}
		out := Truncate(s, max)
		if len(s) <= max && out != s || len(s) > max && len(out) > max {
			t.Fatalf("Truncate(%q, %d) = %q", s, max, out)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("Truncate(%q, %d) = %q splits a character", s, max, out)
		}
	})
}

// FuzzASCII holds ASCII to its definition, written the plain way: every
// character outside printable ASCII, and every one listed in also, becomes
// repl, each byte of invalid UTF-8 counting as one character.
func FuzzASCII(f *testing.F) {
	f.Add("plain text", "<>&")
	f.Add("a<b>&c`d|e", "<>&\"'`\\|")
	f.Add("caf\u00e9 \x00\x7f\xff", "")
	f.Add("~ and \x7f and space", "~ \x7f\x80")
	f.Fuzz(func(t *testing.T, s, also string) {
		var want strings.Builder
		for _, r := range s { // invalid UTF-8 comes out as one RuneError per byte
			if PrintableASCII(r) && !strings.ContainsRune(also, r) {
				want.WriteRune(r)
			} else {
				want.WriteByte('?')
			}
		}
		if got := ASCII(s, also, '?'); got != want.String() {
			t.Errorf("ASCII(%q, %q) = %q, want %q", s, also, got, want.String())
		}
	})
}
