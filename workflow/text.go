package workflow

import (
	"fmt"
	"unicode/utf8"

	"github.com/registryd/registryd/registry"
)

// fields collects the field errors of one input.
type fields []registry.FieldError

func (fs *fields) add(path, msg string) {
	*fs = append(*fs, registry.FieldError{Path: path, Message: msg})
}

// err returns a *registry.ValidationError for the collected errors, or nil.
func (fs fields) err() error {
	if len(fs) == 0 {
		return nil
	}
	return &registry.ValidationError{Fields: fs}
}

// text checks free text a person wrote: valid UTF-8, at most max bytes,
// and none of the characters that could drive a terminal or disguise text on
// a page (controls other than tab and newline, bidi overrides and isolates,
// zero-width characters). Messages never echo the text.
func (fs *fields) text(path, s string, max int, required bool) {
	switch {
	case s == "" && required:
		fs.add(path, "must not be empty")
	case len(s) > max:
		fs.add(path, fmt.Sprintf("must be at most %d bytes", max))
	case !utf8.ValidString(s):
		fs.add(path, "must be valid UTF-8")
	default:
		for _, r := range s {
			if unsafeRune(r) {
				fs.add(path, fmt.Sprintf("must not contain the character U+%04X", r))
				return
			}
		}
	}
}

// unsafeRune reports whether r is refused in text that people read.
func unsafeRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r >= 0x200b && r <= 0x200f, // zero-width and directional marks
		r >= 0x202a && r <= 0x202e, // bidi embeddings and overrides
		r >= 0x2060 && r <= 0x2069, // word joiner, invisible operators, isolates
		r == 0xfeff, r == 0x061c, r == 0x00ad:
		return true
	}
	return false
}

// slug checks an identifier made of the bytes allowed by ok, 1 to max long.
func (fs *fields) ident(path, s string, max int, ok func(c byte) bool, what string) {
	if s == "" {
		fs.add(path, "must not be empty")
		return
	}
	if len(s) > max {
		fs.add(path, fmt.Sprintf("must be at most %d bytes", max))
		return
	}
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			fs.add(path, "may contain only "+what)
			return
		}
	}
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }

// codeByte: finding codes are lower-case words joined by underscores.
func codeByte(c byte) bool { return isLowerAlnum(c) || c == '_' }

// pathByte: field paths are dotted keys with indexes (`mcp.args[2]`,
// `artifacts.x86_64-unknown-linux-gnu.url`, `mcp.env.NODE_OPTIONS`).
func pathByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '.' || c == '[' || c == ']'
}

// nameByte: token names and addon slugs as they appear in a URL.
func tokenNameByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '.' || c == '@'
}
