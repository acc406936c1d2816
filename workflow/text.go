package workflow

import (
	"errors"
	"fmt"
	"unicode"

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

// principalName checks the name of a principal or a token: 1 to
// MaxTokenNameBytes bytes of letters, marks and digits and _ - . @ that
// safetext lets be shown, not starting with a mark.
func (fs *fields) principalName(path, s string) {
	var e *safetext.Error
	switch {
	case s == "":
		fs.add(path, "must not be empty")
		return
	case len(s) > MaxTokenNameBytes:
		fs.add(path, fmt.Sprintf("must be at most %d bytes", MaxTokenNameBytes))
		return
	case errors.As(safetext.Check(s, 0), &e):
		if e.Class == safetext.Invalid {
			fs.add(path, "must be valid UTF-8")
		} else {
			fs.add(path, "must not contain the character "+safetext.CodePoint(e.Rune))
		}
		return
	}
	for i, r := range s {
		if !principalNameOK(r) || i == 0 && unicode.In(r, unicode.Mn, unicode.Mc) {
			fs.add(path, "may contain only letters, digits and _ - . @")
			return
		}
	}
}
