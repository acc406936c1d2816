// Package safetext decides which characters registryd may show: in a
// terminal, on a web page, in a log line, in a commit status or a badge.
// Every place that refuses, escapes or cuts text for display asks this
// package, so that they all agree.
//
// # The rule
//
// A character may be shown when Unicode says a renderer draws it as
// something a reader can see, with a meaning fixed by the standard. In
// Unicode's terms: it is a letter, mark, number, punctuation, symbol or
// space separator (categories L, M, N, P, S and Zs), and it is not one of
// the Other_Default_Ignorable_Code_Point characters (the Hangul fillers,
// U+034F COMBINING GRAPHEME JOINER, U+17B4 and U+17B5), which those
// categories contain but which renderers draw as nothing. Everything else is
// refused, namely:
//
//   - invalid UTF-8 (each byte that does not start a valid sequence);
//   - control characters (Cc: C0, DEL and C1), which drive terminals —
//     except the tab, line feed and carriage return a caller allows;
//   - bidirectional controls (the Bidi_Control property: embeddings,
//     overrides, isolates and marks), which reorder what a reader sees
//     (Trojan Source);
//   - every other format character (Cf: zero-width space and joiners, the
//     soft hyphen U+00AD, the word joiner and invisible operators, the byte
//     order mark, tag characters, interlinear annotation, Arabic prepended
//     marks, …), which hide or change text without being seen;
//   - the line and paragraph separators U+2028 and U+2029 (Zl, Zp), which
//     break lines where a reader or a log parser does not expect them;
//   - noncharacters (U+FDD0–U+FDEF and the last two code points of every
//     plane), which are not for interchange;
//   - private-use characters (Co), whose glyph is whatever a font decides;
//   - unassigned code points (Cn) in the Unicode version of the Go release
//     (unicode.Version), since a later version may make them anything,
//     including a format character.
//
// One exception keeps emoji whole: U+200D ZERO WIDTH JOINER is shown when it
// joins two emoji, that is after a symbol (So), an emoji modifier
// (U+1F3FB–U+1F3FF) or the emoji presentation selector U+FE0F, and before a
// symbol (So). Elsewhere it is refused like every other format character.
// Variation selectors (Mn) are marks, and so are shown: they choose a glyph
// for the character before them and hide nothing.
//
// What a caller does with a refused character is its own choice: Check
// reports the first one (to refuse input, naming the class and code point
// but never echoing the text), Replace substitutes a character of the
// caller's choice (to escape output), and Truncate and TruncateRunes bound
// the length. ASCII and the ASCII predicates serve the places that show
// only printable ASCII, such as Markdown cells and command-line tokens.
//
// The package is pure: no I/O, no state beyond tables built once; every
// function is safe for concurrent use.
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/rangetable"
)

// Allow names the layout controls a caller accepts in text that spans lines.
// The zero value accepts none: the text is one line.
type Allow uint8

const (
	// Tab accepts U+0009 CHARACTER TABULATION.
	Tab Allow = 1 << iota
	// LF accepts U+000A LINE FEED.
	LF
	// CR accepts U+000D CARRIAGE RETURN (documents with CRLF line ends).
	CR
)

// Lines accepts what free text written by a person contains: tabs and line
// feeds.
const Lines = Tab | LF

// Class is why a character may not be shown, or Safe when it may.
type Class uint8

// The classes of the rule, in the order the package doc lists them.
const (
	Safe Class = iota
	Invalid
	Control
	Bidi
	Format
	Separator
	Noncharacter
	PrivateUse
	Unassigned
)

var classNames = [...]string{
	Safe:         "a character that may be shown",
	Invalid:      "invalid UTF-8",
	Control:      "a control character",
	Bidi:         "a bidirectional control character",
	Format:       "an invisible formatting character",
	Separator:    "a line or paragraph separator",
	Noncharacter: "a noncharacter",
	PrivateUse:   "a private-use character",
	Unassigned:   "an unassigned code point",
}

// String describes c in words, for a message ("a control character").
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "class " + strconv.Itoa(int(c))
}

// shown is the union of the categories whose characters are drawn: L, M, N,
// P, S and Zs. Merged once, a lookup is one binary search.
var shown = rangetable.Merge(unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs)

// zwj is U+200D ZERO WIDTH JOINER, shown only inside an emoji sequence.
const zwj = '\u200D'

// Classify returns the class of r taken on its own: Safe when the rule lets
// it be shown (ASCII space included, tab and line breaks not). A zero width
// joiner is Format here; only Check, Valid and Replace, which see its
// neighbours, let one through inside an emoji sequence. A rune that is not a
// Unicode scalar value (negative, a surrogate, above U+10FFFF) is Invalid.
func Classify(r rune) Class {
	if r >= 0x20 && r < 0x7F {
		return Safe
	}
	switch {
	case r < 0 || r > unicode.MaxRune || r >= 0xD800 && r <= 0xDFFF:
		return Invalid
	case unicode.Is(unicode.Cc, r):
		return Control
	case unicode.Is(unicode.Bidi_Control, r):
		return Bidi
	case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r):
		return Format
	case unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r):
		return Separator
	case unicode.Is(unicode.Noncharacter_Code_Point, r):
		return Noncharacter
	case unicode.Is(unicode.Co, r):
		return PrivateUse
	case !unicode.Is(shown, r):
		return Unassigned
	}
	return Safe
}

// allowed is the fast form of Classify(r) == Safe for a non-ASCII rune.
func allowed(r rune) bool {
	return unicode.Is(shown, r) && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// layout reports whether allow accepts the ASCII control c.
func (a Allow) layout(c byte) bool {
	switch c {
	case '\t':
		return a&Tab != 0
	case '\n':
		return a&LF != 0
	case '\r':
		return a&CR != 0
	}
	return false
}

// Error is the first character of a text that may not be shown. Its message
// names the class and the code point, never the character itself.
type Error struct {
	// Offset is the byte offset of the character in the text.
	Offset int
	// Rune is the character, or the byte's value for invalid UTF-8.
	Rune rune
	// Class is why the character is refused.
	Class Class
}

// Error describes e: "contains a control character (U+001B)", or "is not
// valid UTF-8".
func (e *Error) Error() string {
	if e.Class == Invalid {
		return "is not valid UTF-8"
	}
	return "contains " + e.Class.String() + " (" + CodePoint(e.Rune) + ")"
}

// CodePoint writes r the way Unicode names code points: U+001B, U+1F600.
func CodePoint(r rune) string {
	h := strings.ToUpper(strconv.FormatInt(int64(uint32(r)), 16))
	if len(h) < 4 {
		h = strings.Repeat("0", 4-len(h)) + h
	}
	return "U+" + h
}

// next returns where the first character of s[i:] that the rule refuses
// starts, its rune (the byte's value for invalid UTF-8), its size in bytes
// and its class; i == len(s) when there is none. prev is the character
// before s[i].
func next(s string, i int, allow Allow, prev rune) (int, rune, int, Class) {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c < 0x7F || allow.layout(c) {
				prev = rune(c)
				i++
				continue
			}
			return i, rune(c), 1, Control
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i, rune(c), 1, Invalid
		}
		if !allowed(r) && !(r == zwj && joinsEmoji(prev, s[i+n:])) {
			return i, r, n, Classify(r)
		}
		prev = r
		i += n
	}
	return i, 0, 0, Safe
}

// joinsEmoji reports whether a zero width joiner between prev and the text
// after it joins two emoji.
func joinsEmoji(prev rune, after string) bool {
	if !(prev == '\uFE0F' || prev >= 0x1F3FB && prev <= 0x1F3FF || prev != utf8.RuneError && unicode.Is(unicode.So, prev)) {
		return false
	}
	r, n := utf8.DecodeRuneInString(after)
	return n > 0 && r != utf8.RuneError && unicode.Is(unicode.So, r)
}

// Check returns nil when every character of s may be shown, given the layout
// controls allow accepts; otherwise a *Error for the first that may not.
func Check(s string, allow Allow) error {
	i, r, _, class := next(s, 0, allow, 0)
	if i == len(s) {
		return nil
	}
	return &Error{Offset: i, Rune: r, Class: class}
}

// Valid reports whether every character of s may be shown, given the layout
// controls allow accepts.
func Valid(s string, allow Allow) bool {
	i, _, _, _ := next(s, 0, allow, 0)
	return i == len(s)
}

// Replace returns s with every character that may not be shown (given the
// layout controls allow accepts) replaced by repl, and each byte of invalid
// UTF-8 by one repl. repl should itself be safe to show: '?', ' ' or
// U+FFFD. Text that needs no change is returned as it is, without copying.
func Replace(s string, allow Allow, repl rune) string {
	i, _, n, _ := next(s, 0, allow, 0)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for start := 0; ; {
		b.WriteString(s[start:i])
		if i == len(s) {
			break
		}
		b.WriteRune(repl)
		start = i + n
		i, _, n, _ = next(s, start, allow, repl)
	}
	return b.String()
}

// Ellipsis ends text that Truncate or TruncateRunes cut.
const Ellipsis = "…"

// Truncate returns s when it is at most max bytes long; otherwise the
// longest prefix of whole characters that fits in max bytes with Ellipsis
// after it. A zero width joiner left dangling at the cut is dropped with the
// rest. When max is too small for the ellipsis, the prefix has no ellipsis.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max < len(Ellipsis) {
		return strings.TrimRight(cut(s, max), string(zwj))
	}
	return strings.TrimRight(cut(s, max-len(Ellipsis)), string(zwj)) + Ellipsis
}

// TruncateRunes returns s when it has at most n characters (runes);
// otherwise its first n-1 characters and Ellipsis, n in all. A zero width
// joiner left dangling at the cut is dropped.
func TruncateRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	if i == len(s) {
		return s
	}
	if _, size := utf8.DecodeRuneInString(s[i:]); i+size == len(s) {
		return s // exactly n characters
	}
	return strings.TrimRight(s[:i], string(zwj)) + Ellipsis
}

// cut returns the longest prefix of s of at most max bytes that does not
// split a UTF-8 sequence.
func cut(s string, max int) string {
	if max <= 0 {
		return ""
	}
	i := max
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// PrintableASCII reports whether r is printable ASCII: U+0020 (space)
// through U+007E.
func PrintableASCII(r rune) bool { return r >= 0x20 && r < 0x7F }

// GraphicASCII reports whether s is made only of visible ASCII (U+0021
// through U+007E, no space), as API tokens and cursors are. The empty
// string is graphic.
func GraphicASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7F {
			return false
		}
	}
	return true
}

// ASCII returns s with every character outside printable ASCII, and every
// character listed in also (the characters that mean something where the
// text goes: `<>&` for HTML, "`|" for a Markdown table), replaced by repl.
// Each byte of invalid UTF-8 counts as one character. Text that needs no
// change is returned as it is.
func ASCII(s, also string, repl byte) string {
	// also as a set of the printable ASCII bytes (0x20 to 0x7F: two
	// words of bits), so that checking a byte is a shift, not a search;
	// a byte of also outside that range can never be kept anyway.
	var set [2]uint64
	for i := 0; i < len(also); i++ {
		if c := also[i] - 0x20; c < 0x60 {
			set[c>>6] |= 1 << (c & 63)
		}
	}
	keep := func(c byte) bool {
		c -= 0x20 // below 0x20 wraps above 0x5F
		return c < 0x5F && set[c>>6]&(1<<(c&63)) == 0
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if !keep(s[i]) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if keep(c) {
				b.WriteByte(c)
			} else {
				b.WriteByte(repl)
			}
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		b.WriteByte(repl)
		i += n
	}
	return b.String()
}
