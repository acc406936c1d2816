package workflow

import "github.com/registryd/registryd/addon"

// newer reports whether version a should become an addon's latest version
// when b is the current one. When both are SemVer 2.0.0 versions it
// compares them by precedence, so that a late 1.4.1 backport does not
// displace 2.0.0; otherwise (versions published before the registry held
// them to SemVer) the version published last wins.
func newer(a, b string) bool {
	va, errA := addon.ParseSemVer(a)
	vb, errB := addon.ParseSemVer(b)
	if errA != nil || errB != nil {
		return true
	}
	return va.Compare(vb) > 0
}
