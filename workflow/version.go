package workflow

import (
	"cmp"
	"strconv"
	"strings"
)

// newer reports whether version a should become an addon's latest version
// when b is the current one. When both are semantic versions (an optional
// leading "v" allowed) it compares them by semver precedence, so that a late
// 1.4.1 backport does not displace 2.0.0; otherwise the version published
// last wins.
func newer(a, b string) bool {
	va, okA := parseSemver(a)
	vb, okB := parseSemver(b)
	if !okA || !okB {
		return true
	}
	return compareSemver(va, vb) > 0
}

type semver struct {
	core [3]uint64
	pre  []string // nil for a release
}

func parseSemver(s string) (semver, bool) {
	s = strings.TrimPrefix(s, "v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	var v semver
	if i := strings.IndexByte(s, '-'); i >= 0 {
		v.pre = strings.Split(s[i+1:], ".")
		s = s[:i]
		for _, p := range v.pre {
			if p == "" {
				return semver{}, false
			}
		}
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return semver{}, false
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || (len(p) > 1 && p[0] == '0') {
			return semver{}, false
		}
		v.core[i] = n
	}
	return v, true
}

// compareSemver orders by semver 2.0.0 precedence.
func compareSemver(a, b semver) int {
	for i := range a.core {
		if c := cmp.Compare(a.core[i], b.core[i]); c != 0 {
			return c
		}
	}
	switch {
	case a.pre == nil && b.pre == nil:
		return 0
	case a.pre == nil:
		return 1
	case b.pre == nil:
		return -1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		na, errA := strconv.ParseUint(a.pre[i], 10, 64)
		nb, errB := strconv.ParseUint(b.pre[i], 10, 64)
		var c int
		switch {
		case errA == nil && errB == nil:
			c = cmp.Compare(na, nb)
		case errA == nil:
			c = -1 // numeric identifiers sort before alphanumeric ones
		case errB == nil:
			c = 1
		default:
			c = strings.Compare(a.pre[i], b.pre[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.pre), len(b.pre))
}
