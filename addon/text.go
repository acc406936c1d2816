package addon

import (
	"strings"
	"unicode/utf8"

	"github.com/registryd/registryd/envpolicy"
)

// textProblem reports why s may not appear in a field a person or a program
// acts on, or "" when it may. The message never quotes s.
//
// Refused: invalid UTF-8; every C0 control (tab and newline included: no
// manifest field is multi-line), DEL and C1 controls; the bidirectional
// embeddings, overrides, isolates and marks that reorder what a reviewer
// sees (Trojan Source); and zero-width characters that hide text.
func textProblem(s string) string {
	if !utf8.ValidString(s) {
		return "is not valid UTF-8"
	}
	for _, r := range s {
		if p := runeProblem(r); p != "" {
			return p
		}
	}
	return ""
}

func runeProblem(r rune) string {
	switch {
	case r == 0:
		return "contains a NUL character"
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return "contains a control character"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x200e, r == 0x200f, r == 0x061c:
		return "contains a bidirectional control character"
	case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff:
		return "contains an invisible (zero-width) character"
	}
	return ""
}

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
				if f := frag[j]; f < 0x20 || f > 0x7e || strings.IndexByte("<>&`\\$", f) >= 0 {
					b.WriteByte('?')
				} else {
					b.WriteByte(f)
				}
			}
			b.WriteByte(c)
			i += end + 1
			continue
		}
		if c < 0x20 || c > 0x7e || strings.IndexByte("<>&`\\$", c) >= 0 {
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
