package report

import (
	"strconv"
	"unicode/utf8"
)

// The report's canonical form is written directly rather than by
// encoding/json followed by jcs.Transform, which parses what encoding/json
// wrote and writes it a second time. A Report holds only strings, integers,
// booleans, nulls, arrays and objects with fixed ASCII member names, so
// RFC 8785 reduces to three things here:
//
//   - members in the order of their names' UTF-16 code units, which for
//     ASCII names is byte order: the append functions below write each
//     object's members in that order, by hand;
//   - strings per RFC 8785 §3.2.2.2 (see appendString);
//   - integers as ECMAScript writes numbers, which for an integer of
//     magnitude at most 2^53 is its plain decimal form. A larger one would be
//     rounded to a double first; appendCanonical refuses it and Encode falls
//     back to the general path, so the bytes are the same either way.
//
// The general path (encodeGeneral) stays as the reference: tests check that
// both give the same bytes and that jcs.Transform leaves them unchanged.

// maxExactInt is the largest magnitude up to which every integer is exactly
// representable as an IEEE 754 double, and so printed by JCS as written.
const maxExactInt = 1 << 53

// appendCanonical appends the canonical JSON of r, as Encode defines it (nil
// lists written as []), to dst. It reports false, with dst in an unspecified
// state, when r holds an integer beyond ±2^53, which JCS would rewrite.
func appendCanonical(dst []byte, r *Report) ([]byte, bool) {
	if !exactInt(r.Counts.Info) || !exactInt(r.Counts.Warn) || !exactInt(r.Counts.Danger) || !exactInt(r.Counts.Suppressed) {
		return dst, false
	}
	for i := range r.Findings {
		if !exactInt(r.Findings[i].Line) {
			return dst, false
		}
	}

	dst = append(dst, `{"addon":{"name":`...)
	dst = appendString(dst, r.Addon.Name)
	dst = append(dst, `,"version":`...)
	dst = appendString(dst, r.Addon.Version)
	dst = append(dst, `},"capabilities":`...)
	if c := r.Capabilities; c == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"env":`...)
		dst = appendStrings(dst, c.Env)
		dst = append(dst, `,"exec":`...)
		dst = appendString(dst, string(c.Exec))
		dst = append(dst, `,"exec_allow":`...)
		dst = appendStrings(dst, c.ExecAllow)
		dst = append(dst, `,"filesystem":`...)
		dst = appendString(dst, string(c.Filesystem))
		dst = append(dst, `,"network":`...)
		dst = appendString(dst, string(c.Network))
		dst = append(dst, '}')
	}
	dst = append(dst, `,"counts":{"danger":`...)
	dst = strconv.AppendInt(dst, int64(r.Counts.Danger), 10)
	dst = append(dst, `,"info":`...)
	dst = strconv.AppendInt(dst, int64(r.Counts.Info), 10)
	dst = append(dst, `,"suppressed":`...)
	dst = strconv.AppendInt(dst, int64(r.Counts.Suppressed), 10)
	dst = append(dst, `,"warn":`...)
	dst = strconv.AppendInt(dst, int64(r.Counts.Warn), 10)
	dst = append(dst, `},"findings":[`...)
	for i := range r.Findings {
		f := &r.Findings[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"blocking":`...)
		dst = strconv.AppendBool(dst, f.Blocking)
		dst = append(dst, `,"code":`...)
		dst = appendString(dst, f.Code)
		dst = append(dst, `,"level":`...)
		dst = appendString(dst, f.Level.String())
		dst = append(dst, `,"line":`...)
		dst = strconv.AppendInt(dst, int64(f.Line), 10)
		dst = append(dst, `,"message":`...)
		dst = appendString(dst, f.Message)
		dst = append(dst, `,"path":`...)
		dst = appendString(dst, f.Path)
		if f.Suppressed != nil {
			dst = append(dst, `,"suppressed":{"reason":`...)
			dst = appendString(dst, string(f.Suppressed.Reason))
			dst = append(dst, '}')
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `],"inferred":{"exec":`...)
	dst = strconv.AppendBool(dst, r.Inferred.Exec)
	dst = append(dst, `,"network":`...)
	dst = strconv.AppendBool(dst, r.Inferred.Network)
	dst = append(dst, `},"manifest_sha256":`...)
	dst = appendString(dst, r.ManifestSHA256)
	dst = append(dst, `,"removed":`...)
	dst = strconv.AppendBool(dst, r.Removed)
	dst = append(dst, `,"risk":`...)
	dst = appendString(dst, r.Risk.String())
	dst = append(dst, `,"ruleset":`...)
	dst = appendString(dst, r.Ruleset)
	dst = append(dst, `,"schema":`...)
	dst = appendString(dst, r.Schema)
	dst = append(dst, `,"tier":`...)
	dst = appendString(dst, string(r.Tier))
	dst = append(dst, `,"transport":`...)
	dst = appendString(dst, r.Transport)
	dst = append(dst, `,"verdict":`...)
	dst = appendString(dst, string(r.Verdict))
	dst = append(dst, `,"wiring_sha256":`...)
	dst = appendString(dst, r.WiringSHA256)
	dst = append(dst, '}')
	return dst, true
}

func exactInt(n int) bool { return n >= -maxExactInt && n <= maxExactInt }

// appendStrings appends a JSON array of strings; nil is written as [].
func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// appendString appends s as an RFC 8785 string: `"` and `\` escaped with a
// backslash; U+0008, U+0009, U+000A, U+000C and U+000D as \b, \t, \n, \f
// and \r; every other control below U+0020 as \u00hh in lower-case hex;
// everything else, U+2028, U+2029 and <, > and & included, as its UTF-8
// bytes. A byte that does not start a valid UTF-8 sequence is written as
// U+FFFD, as encoding/json replaces it before canonicalization.
func appendString(dst []byte, s string) []byte {
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
// appendString's loop over eight bytes at a time.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// asIs marks the bytes appendString copies without a look at what follows:
// ASCII from U+0020 on, except `"` and `\`; no byte of a multi-byte
// sequence, which is checked.
var asIs = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
