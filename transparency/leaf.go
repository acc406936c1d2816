package transparency

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/registryd/registryd/safetext"
)

// LeafHeader is the first line of every leaf: the leaf format's version.
const LeafHeader = "registryd.report.leaf/v1"

// MaxLeafField bounds the addon name and the version in a leaf, in bytes.
// The registry's own limits are far below it; the bound exists so that a
// parser never holds more than a few hundred bytes per leaf.
const MaxLeafField = 256

// maxLeafBytes is the largest leaf ParseLeaf accepts.
const maxLeafBytes = len(LeafHeader) + len("\naddon \nversion \nmanifest sha256:\nreport sha256:\n") + 2*MaxLeafField + 2*2*sha256.Size

// ErrLeaf is wrapped by every error of ParseLeaf and Leaf.Validate.
var ErrLeaf = errors.New("invalid log leaf")

// Leaf is one entry of the transparency log: the report that the registry
// rendered for one manifest of one addon version. The digests are lowercase
// hexadecimal SHA-256, without the "sha256:" prefix.
type Leaf struct {
	Addon          string
	Version        string
	ManifestSHA256 string
	ReportSHA256   string
}

// Marshal returns the leaf's text form, the bytes the log hashes:
//
//	registryd.report.leaf/v1
//	addon NAME
//	version VERSION
//	manifest sha256:HEX64
//	report sha256:HEX64
//
// every line ending in "\n". Marshal does not validate the leaf: call
// Validate first when its fields come from outside.
func (l Leaf) Marshal() []byte {
	b := make([]byte, 0, len(LeafHeader)+len(l.Addon)+len(l.Version)+len(l.ManifestSHA256)+len(l.ReportSHA256)+48)
	b = append(b, LeafHeader+"\naddon "...)
	b = append(b, l.Addon...)
	b = append(b, "\nversion "...)
	b = append(b, l.Version...)
	b = append(b, "\nmanifest sha256:"...)
	b = append(b, l.ManifestSHA256...)
	b = append(b, "\nreport sha256:"...)
	b = append(b, l.ReportSHA256...)
	return append(b, '\n')
}

// Hash returns the leaf's RFC 6962 Merkle leaf hash, SHA-256(0x00 || Marshal()).
func (l Leaf) Hash() []byte {
	return rfc6962.DefaultHasher.HashLeaf(l.Marshal())
}

// Validate reports whether the leaf can be marshalled and parsed back
// unchanged: the name and the version are non-empty text of at most
// MaxLeafField bytes that may be shown (package safetext: one line, no
// control, bidi or invisible character) with no leading or trailing space, and both digests are
// 64 lowercase hexadecimal digits. The error wraps ErrLeaf and names the
// field.
func (l Leaf) Validate() error {
	if err := checkText("addon", l.Addon); err != nil {
		return err
	}
	if err := checkText("version", l.Version); err != nil {
		return err
	}
	if !IsSHA256Hex(l.ManifestSHA256) {
		return fmt.Errorf("%w: manifest: not 64 lowercase hex digits", ErrLeaf)
	}
	if !IsSHA256Hex(l.ReportSHA256) {
		return fmt.Errorf("%w: report: not 64 lowercase hex digits", ErrLeaf)
	}
	return nil
}

func checkText(field, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%w: %s: empty", ErrLeaf, field)
	case len(s) > MaxLeafField:
		return fmt.Errorf("%w: %s: longer than %d bytes", ErrLeaf, field, MaxLeafField)
	case s[0] == ' ' || s[len(s)-1] == ' ':
		return fmt.Errorf("%w: %s: leading or trailing space", ErrLeaf, field)
	}
	if err := safetext.Check(s, 0); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrLeaf, field, err)
	}
	return nil
}

// IsSHA256Hex reports whether s is 64 lowercase hexadecimal digits.
func IsSHA256Hex(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ParseLeaf parses a leaf's text form. It accepts exactly what Marshal
// writes for a valid leaf: the header, the four lines in order, each ending
// in "\n", nothing before or after. The error wraps ErrLeaf, names the line
// or field at fault and never quotes the input.
func ParseLeaf(b []byte) (Leaf, error) {
	if len(b) > maxLeafBytes {
		return Leaf{}, fmt.Errorf("%w: longer than %d bytes", ErrLeaf, maxLeafBytes)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return Leaf{}, fmt.Errorf("%w: does not end in a newline", ErrLeaf)
	}
	lines := strings.Split(string(b[:len(b)-1]), "\n")
	keys := []string{"", "addon ", "version ", "manifest sha256:", "report sha256:"}
	if len(lines) != len(keys) {
		return Leaf{}, fmt.Errorf("%w: %d lines, want %d", ErrLeaf, len(lines), len(keys))
	}
	if lines[0] != LeafHeader {
		return Leaf{}, fmt.Errorf("%w: first line is not %s", ErrLeaf, LeafHeader)
	}
	var vals [5]string
	for i := 1; i < len(keys); i++ {
		v, ok := strings.CutPrefix(lines[i], keys[i])
		if !ok {
			return Leaf{}, fmt.Errorf("%w: line %d does not start with %q", ErrLeaf, i+1, keys[i])
		}
		vals[i] = v
	}
	l := Leaf{Addon: vals[1], Version: vals[2], ManifestSHA256: vals[3], ReportSHA256: vals[4]}
	if err := l.Validate(); err != nil {
		return Leaf{}, err
	}
	if !bytes.Equal(l.Marshal(), b) {
		// Unreachable when Validate and Marshal agree; kept so that a
		// future field cannot make parsing accept two spellings.
		return Leaf{}, fmt.Errorf("%w: not in canonical form", ErrLeaf)
	}
	return l, nil
}
