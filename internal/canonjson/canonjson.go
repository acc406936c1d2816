// Package canonjson writes JSON strings in the form RFC 8785 (the JSON
// Canonicalization Scheme) gives them, for the packages that write their
// canonical documents directly rather than through encoding/json and a
// second canonicalizing pass: the report and the DSSE envelope. Their tests
// hold the bytes to that reference (encoding/json, then jcs.Transform).
package canonjson

import "unicode/utf8"

// AppendString appends s as an RFC 8785 string (§3.2.2.2): `"` and `\` escaped with a
// backslash; U+0008, U+0009, U+000A, U+000C and U+000D as \b, \t, \n, \f
// and \r; every other control below U+0020 as \u00hh in lower-case hex;
// everything else, U+2028, U+2029 and <, > and & included, as its UTF-8
// bytes. A byte that does not start a valid UTF-8 sequence is written as
// U+FFFD, as encoding/json replaces it before canonicalization.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0 // s[start:i] is pending, to be copied as is
	for i := 0; i < len(s); {
		// Most of a report is printable ASCII: pass it eight bytes at a
		// time while none needs a look, then a byte at a time on one
		// table lookup.
		for i+8 <= len(s) && plainWord(word(s[i:])) {
			i += 8
		}
		for i < len(s) && asIs[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, "\ufffd"...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainWord reports whether each of the eight bytes of the word v (as
// word reads them) is one that asIs marks: ASCII from U+0020 on, and
// neither `"` nor `\`. It tests the eight at once (a byte is below 0x20
// when subtracting 0x20 from it borrows; a byte equals c when the word XOR
// c has a zero byte), and is exact: a word it passes holds no other byte.
func plainWord(v uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := v^'"'*ones, v^'\\'*ones // a zero byte where there is `"`, `\`
	// The high bit of a byte is set in the first term where it is below
	// 0x20, in the next two where it is zero, and in v where it is not
	// ASCII.
	return ((v-0x20*ones)&^v|(q-ones)&^q|(bs-ones)&^bs|v)&highs == 0
}

// word returns the first eight bytes of s as a little-endian word. It is
// apart from plainWord so that each is small enough to be inlined in
// AppendString's loop over eight bytes at a time.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// asIs marks the bytes AppendString copies without a look at what follows:
// ASCII from U+0020 on, except `"` and `\`; no byte of a multi-byte
// sequence, which is checked.
var asIs = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
