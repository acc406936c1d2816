package webhook

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// DefaultManifestGlob selects the addon manifests of a repository: a file
// named lean-ctx-addon.toml in any directory, the root included.
const DefaultManifestGlob = "**/lean-ctx-addon.toml"

// ErrBadGlob is returned by ValidateGlob for a pattern MatchGlob cannot use.
var ErrBadGlob = errors.New("malformed glob pattern")

// MatchGlob reports whether name, a "/"-separated repository path such as
// "addons/foo/lean-ctx-addon.toml", matches pattern.
//
// The pattern is split at "/" and matched segment by segment. A segment
// that is exactly "**" matches zero or more whole path segments; any other
// segment is matched against one path segment with path.Match, so "*"
// matches any run of characters except "/", "?" one character, "[...]" a
// class and "\" escapes. ("**" inside a longer segment therefore acts like
// "*".) Unlike path.Match on a whole path, nothing in a segment ever
// matches "/", not even a negated class. A malformed pattern matches nothing; check patterns once with
// ValidateGlob when they are configured.
//
// Matching takes time proportional to the product of the two segment
// counts, whatever the pattern.
func MatchGlob(pattern, name string) bool {
	ps := strings.Split(pattern, "/")
	ns := strings.Split(name, "/")
	// done[i][j] memoizes match(ps[i:], ns[j:]) so that patterns with
	// several "**" do not backtrack exponentially.
	cols := len(ns) + 1
	seen := make([]bool, (len(ps)+1)*cols)
	memo := make([]bool, (len(ps)+1)*cols)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		k := i*cols + j
		if seen[k] {
			return memo[k]
		}
		var ok bool
		switch {
		case i == len(ps):
			ok = j == len(ns)
		case ps[i] == "**":
			ok = match(i+1, j) || (j < len(ns) && match(i, j+1))
		case j == len(ns):
			ok = false
		default:
			m, err := path.Match(ps[i], ns[j])
			ok = err == nil && m && match(i+1, j+1)
		}
		seen[k], memo[k] = true, ok
		return ok
	}
	return match(0, 0)
}

// ValidateGlob returns ErrBadGlob (wrapped with the reason) if pattern is
// empty, starts or ends with "/", has an empty segment, or has a segment
// path.Match rejects; otherwise nil.
func ValidateGlob(pattern string) error {
	if pattern == "" {
		return fmt.Errorf("%w: empty pattern", ErrBadGlob)
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == "" {
			return fmt.Errorf("%w: empty path segment", ErrBadGlob)
		}
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("%w: bad segment syntax", ErrBadGlob)
		}
	}
	return nil
}
