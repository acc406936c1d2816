package workflow

import (
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// PrincipalKey returns the key that identifies the principal named name:
// the name under NFKC, Unicode full case folding and NFKC again (repeated
// until it no longer changes, at most a few rounds), so that "Alice",
// "alice", "ALICE" and the full-width "Ａｌｉｃｅ" are one principal. Folding
// is not a security boundary against look-alike letters of other scripts
// (Cyrillic "а" is not Latin "a"): those remain different principals.
func PrincipalKey(name string) string {
	k := name
	for range 4 {
		// A Caser keeps state between calls; a fresh one per call makes
		// PrincipalKey safe for concurrent use.
		next := norm.NFKC.String(cases.Fold().String(norm.NFKC.String(k)))
		if next == k {
			break
		}
		k = next
	}
	return k
}

// samePrincipal reports whether two actors are one principal: by principal
// ID when both have one, else by the keys of their names (a GitHub login is
// the principal of the same name; a record from before principals existed
// names its token).
func samePrincipal(idA, nameA, idB, nameB string) bool {
	if idA != "" && idB != "" {
		return idA == idB
	}
	return nameA != "" && nameB != "" && PrincipalKey(nameA) == PrincipalKey(nameB)
}

// principalNameOK reports whether r may appear in a principal's or a
// token's name: letters, combining marks and digits of any script, and
// _ - . @. (What renders as nothing, such as the Hangul fillers, safetext
// refuses first.)
func principalNameOK(r rune) bool {
	if r == '_' || r == '-' || r == '.' || r == '@' {
		return true
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc)
}
