package addon

import (
	"strings"

	"github.com/registryd/registryd/envpolicy"
	"github.com/registryd/registryd/safetext"
)

// textProblem reports why s may not appear in a field a person or a program
// acts on, or "" when it may: the first character that safetext refuses on
// one line (invalid UTF-8, controls including tab and newline, since no
// manifest field is multi-line, bidi controls, invisible format characters,
// separators, noncharacters, private-use and unassigned code points). The
// message names the code point, never quotes s.
func textProblem(s string) string {
	if plainText(s, false) {
		return ""
	}
	if err := safetext.Check(s, 0); err != nil {
		return err.Error()
	}
	return ""
}

// plainText reports whether s holds only printable ASCII (U+0020 to
// U+007E) and, when lines is true, tabs, line feeds and carriage returns:
// text that safetext.Check accepts (with safetext.Lines|safetext.CR when
// lines is true) without a look at any character's class. Manifests are
// almost always such text; false sends s to safetext, which decides.
func plainText[T string | []byte](s T, lines bool) bool {
	t := &plainOneLine
	if lines {
		t = &plainLines
	}
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !printableWord(s[i:i+8]) && !(lines && t[s[i]] && t[s[i+1]] && t[s[i+2]] && t[s[i+3]] &&
			t[s[i+4]] && t[s[i+5]] && t[s[i+6]] && t[s[i+7]]) {
			return false
		}
	}
	for ; i < len(s); i++ {
		if !t[s[i]] {
			return false
		}
	}
	return true
}

// printableWord reports whether the 8 bytes of w are all printable ASCII
// (0x20 to 0x7E), with a few operations on one 64-bit word: a byte below
// 0x20 leaves a borrow in its high bit when 0x20 is subtracted from it, a
// byte of 0x7F turns 0x80 when 1 is added, and one of 0x80 or more has its
// high bit set already. The first two tests are exact only when no byte
// has its high bit set, which the third covers. A word with a tab or a
// line break fails, and plainText looks at its bytes one by one.
func printableWord[T string | []byte](w T) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	_ = w[7]
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	return ((x-0x20*ones)&^x|(x+ones)|x)&highs == 0
}

// plainOneLine and plainLines are the bytes plainText passes.
var plainOneLine, plainLines = func() (one, lines [256]bool) {
	for c := 0x20; c < 0x7F; c++ {
		one[c], lines[c] = true, true
	}
	lines['\t'], lines['\n'], lines['\r'] = true, true, true
	return one, lines
}()

// plainKey reports whether a table key is safe to print: ASCII letters,
// digits, `_` and `-`, and not longer than MaxKeyBytes. Every key registryd
// knows has this shape, so an unknown key of another shape is reported
// without its name.
func plainKey(k string) bool {
	if k == "" || len(k) > MaxKeyBytes {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '-' || isAlnum(c)) {
			return false
		}
	}
	return true
}

// envKeySafe reports whether an env key may be printed and used as a path
// segment (envpolicy's rule, bounded in length).
func envKeySafe(k string) bool { return len(k) <= MaxKeyBytes && envpolicy.EchoSafe(k) }

// headerKeySafe reports whether a header name is an RFC 9110 token, which
// makes it both a valid header name and safe to print.
func headerKeySafe(k string) bool {
	if k == "" || len(k) > MaxKeyBytes {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if isAlnum(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// tripleSafe reports whether an artifact key has the shape of a target
// triple (`x86_64-unknown-linux-gnu`): ASCII letters, digits, `_`, `-`, `.`.
// plainFileName reports whether name names a file in the directory it is
// saved into and nothing else: no separator of any system (/, \), no
// drive (C:) or alternate stream (a:b), not . or .., and no name that
// Windows reads as a device (NUL, CON, COM1.tar.gz …) or alters (a
// trailing dot or space). An install client saves an artifact under it.
func plainFileName(name string) bool {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\:`) ||
		strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return false
	}
	stem, _, _ := strings.Cut(name, ".")
	stem = strings.ToUpper(strings.TrimRight(stem, " "))
	switch stem {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return false
	}
	if strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT") {
		switch stem[3:] {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return false
		}
	}
	return true
}

func tripleSafe(k string) bool {
	if k == "" || len(k) > MaxKeyBytes {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '-' || c == '.' || isAlnum(c)) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// quietMessage makes a decoder's message fit to print without echoing the
// document: a quoted fragment becomes '...' unless it is punctuation (which
// cannot be part of a secret worth hiding: `'='`, `'\n'`); anything outside printable ASCII, and the characters that
// mean something in HTML or a shell, become '?'; the result is at most 160
// bytes.
func quietMessage(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 160; i++ {
		c := s[i]
		if c == '\'' || c == '"' {
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				b.WriteString("...")
				break
			}
			frag := s[i+1 : i+1+end]
			if !punctuation(frag) {
				frag = "..."
			}
			b.WriteByte(c)
			for j := 0; j < len(frag); j++ {
				if f := frag[j]; !safetext.PrintableASCII(rune(f)) || strings.IndexByte("<>&`\\$", f) >= 0 {
					b.WriteByte('?')
				} else {
					b.WriteByte(f)
				}
			}
			b.WriteByte(c)
			i += end + 1
			continue
		}
		if !safetext.PrintableASCII(rune(c)) || strings.IndexByte("<>&`\\$", c) >= 0 {
			b.WriteByte('?')
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// punctuation reports whether a quoted fragment of a decoder message is one
// or two characters of punctuation, or one escape such as `\n`.
func punctuation(frag string) bool {
	if frag == "" || len(frag) > 2 {
		return false
	}
	if frag[0] == '\\' {
		return true
	}
	for i := 0; i < len(frag); i++ {
		if isAlnum(frag[i]) || frag[i] >= 0x80 {
			return false
		}
	}
	return true
}
