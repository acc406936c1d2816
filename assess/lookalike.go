package assess

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names that look like others: a program or package name that mixes Latin
// letters with letters of another script (npx with a Cyrillic р, a package
// name with a Greek ο), or a label of the endpoint's host name that does
// (аpi.github.com), reads as the name it imitates in a report, a review or
// a terminal, and is not that name. Registries of packages take ASCII
// names only, and no program an MCP wiring needs is named so: the only use
// of such a name is to pass for another.

// mixedScript returns the first letter of s from another script than
// Latin (or a fullwidth form of a Latin one) when s also holds an ASCII
// letter, and whether there is one. Accented Latin letters (café) are
// Latin.
func mixedScript(s string) (rune, bool) {
	ascii, other := false, rune(0)
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			ascii = ascii || 'a' <= r|0x20 && r|0x20 <= 'z'
		case other == 0 && unicode.IsLetter(r) && (!unicode.Is(unicode.Latin, r) || 0xFF00 <= r && r <= 0xFFEF):
			other = r
		}
	}
	return other, ascii && other != 0
}

// lookalike reports w, a program or package name (what says which), when
// it mixes scripts.
func (a *auditor) lookalike(w arg, what string) {
	if !w.lit {
		return
	}
	if r, ok := mixedScript(w.text); ok {
		cp := strings.ToUpper(strconv.FormatInt(int64(r), 16))
		cp = strings.Repeat("0", max(4-len(cp), 0)) + cp
		a.add(CodeLookalikeName, w.path, "the "+what+" "+quoted(strings.TrimSpace(w.text))+
			" mixes Latin letters with a letter of another script (U+"+cp+"), so it only looks like the name it imitates")
	}
}
