package addon

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/registryd/registryd/registry"
)

// SemVer is a version in the grammar of Semantic Versioning 2.0.0
// (https://semver.org): MAJOR.MINOR.PATCH, an optional pre-release after
// "-" and optional build metadata after "+". Numbers have no leading zeros
// and no size bound; they are kept as their digits. The zero value is not a
// version; values come from ParseSemVer.
type SemVer struct {
	core  [3]string // major, minor, patch
	pre   []string  // pre-release identifiers; nil for a release
	build string    // build metadata without its "+"; "" when absent
	text  string
}

// String returns the version exactly as it was parsed.
func (v SemVer) String() string { return v.text }

// Build returns the build metadata (after "+"), or "".
func (v SemVer) Build() string { return v.build }

// Prerelease reports whether v has a pre-release part.
func (v SemVer) Prerelease() bool { return v.pre != nil }

// Compare orders v and o by SemVer 2.0.0 precedence: -1 when v precedes o,
// +1 when it follows, 0 when they have the same precedence. Build metadata
// does not take part, so 1.0.0+a and 1.0.0+b compare equal: they are the
// same version.
func (v SemVer) Compare(o SemVer) int {
	for i := range v.core {
		if c := compareNumeric(v.core[i], o.core[i]); c != 0 {
			return c
		}
	}
	switch {
	case v.pre == nil && o.pre == nil:
		return 0
	case v.pre == nil:
		return 1 // a release follows its pre-releases
	case o.pre == nil:
		return -1
	}
	for i := 0; i < len(v.pre) && i < len(o.pre); i++ {
		a, b := v.pre[i], o.pre[i]
		na, nb := allDigits(a), allDigits(b)
		var c int
		switch {
		case na && nb:
			c = compareNumeric(a, b)
		case na:
			c = -1 // numeric identifiers precede alphanumeric ones
		case nb:
			c = 1
		default:
			c = strings.Compare(a, b) // ASCII order
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(v.pre), len(o.pre))
}

// compareNumeric compares two numeric identifiers without leading zeros:
// the longer is the larger, and equal lengths compare digit by digit.
func compareNumeric(a, b string) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// ParseSemVer parses s as a SemVer 2.0.0 version. Nothing around it is
// accepted: no leading "v" or "=", no blanks, no shortened form ("1.2").
// It returns the reason for a refusal, in words that never echo s.
func ParseSemVer(s string) (SemVer, error) {
	v := SemVer{text: s}
	if s == "" {
		return SemVer{}, semverError("is empty")
	}
	if s[0] == 'v' || s[0] == 'V' {
		return SemVer{}, semverError(`must not start with "v": a version is its numbers alone, such as 1.4.0`)
	}
	rest, build, hasBuild := strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(rest, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return SemVer{}, semverError("must have three numbers, MAJOR.MINOR.PATCH")
	}
	for i, p := range parts {
		switch {
		case p == "":
			return SemVer{}, semverError("has an empty " + coreNames[i] + " number")
		case !allDigits(p):
			return SemVer{}, semverError("has a " + coreNames[i] + " that is not a number")
		case len(p) > 1 && p[0] == '0':
			return SemVer{}, semverError("has a " + coreNames[i] + " number with a leading zero")
		}
		v.core[i] = p
	}
	if hasPre {
		if err := identifiers(pre, "pre-release", true); err != nil {
			return SemVer{}, err
		}
		v.pre = strings.Split(pre, ".")
	}
	if hasBuild {
		if err := identifiers(build, "build metadata", false); err != nil {
			return SemVer{}, err
		}
		v.build = build
	}
	return v, nil
}

var coreNames = [3]string{"major", "minor", "patch"}

// identifiers checks a dot-separated list of identifiers of [0-9A-Za-z-];
// numeric says whether an all-digit identifier must not have leading zeros
// (pre-release: yes; build metadata: no).
func identifiers(s, what string, numeric bool) error {
	for id := range strings.SplitSeq(s, ".") {
		if id == "" {
			return semverError("has an empty " + what + " identifier")
		}
		for i := 0; i < len(id); i++ {
			if c := id[i]; !(isAlnum(c) || c == '-') {
				return semverError("has a " + what + " identifier with a character other than ASCII letters, digits and '-'")
			}
		}
		if numeric && len(id) > 1 && id[0] == '0' && allDigits(id) {
			return semverError("has a numeric " + what + " identifier with a leading zero")
		}
	}
	return nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// semverError is a refusal of a version, safe to print.
type semverError string

func (e semverError) Error() string { return "is not a SemVer 2.0.0 version: " + string(e) }

// CheckVersion applies the registry's rule for addon.version, which the
// lean-ctx format leaves free (its own registry lists addons without one):
// to be submitted, audited or published, a manifest names its version, and
// the version is a SemVer 2.0.0 version of at most MaxVersionBytes bytes
// with no leading "v" (1.4.0, 2.0.0-rc.1, 1.0.0+build.5). It returns nil or
// a *registry.ValidationError naming addon.version and its line (the line of
// the [addon] table when the field is missing). It is safe for concurrent
// use.
func CheckVersion(m *Manifest) error {
	const path = "addon.version"
	fail := func(msg string) error {
		return &registry.ValidationError{Fields: []registry.FieldError{{Path: path, Line: lineOf(m, path), Message: msg}}}
	}
	if m == nil {
		return &registry.ValidationError{Fields: []registry.FieldError{{Message: "no manifest"}}}
	}
	s := m.Addon.Version
	if s == "" {
		return fail("is required: the registry publishes each version of an addon under its SemVer 2.0.0 version, such as 1.0.0")
	}
	if len(s) > MaxVersionBytes {
		return fail("is longer than " + strconv.Itoa(MaxVersionBytes) + " bytes")
	}
	if _, err := ParseSemVer(s); err != nil {
		return fail(err.Error())
	}
	return nil
}
