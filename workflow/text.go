package workflow

import (
	"errors"
	"fmt"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
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

// text checks free text a person wrote: at most max bytes, and only
// characters safetext lets be shown on several lines (tabs and newlines are
// the only controls; bidi controls, zero-width and other format characters,
// the soft hyphen among them, are refused). Messages name the code point,
// never echo the text.
func (fs *fields) text(path, s string, max int, required bool) {
	switch {
	case s == "" && required:
		fs.add(path, "must not be empty")
	case len(s) > max:
		fs.add(path, fmt.Sprintf("must be at most %d bytes", max))
	default:
		var e *safetext.Error
		if errors.As(safetext.Check(s, safetext.Lines), &e) {
			if e.Class == safetext.Invalid {
				fs.add(path, "must be valid UTF-8")
			} else {
				fs.add(path, "must not contain the character "+safetext.CodePoint(e.Rune))
			}
		}
	}
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
