package assess

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A script can hide the program it runs behind a variable it set (X=curl;
// $X …), a default (${X:-curl} …) or ANSI-C quoting ($'\x63url'). The
// scan reads each as the shell would: a variable the script assigned a
// literal value holds that value until it is assigned again, a default
// stands for a variable the script did not set, and $'…' is decoded.

// Bounds on what reading variables may cost: a value longer than
// maxVarBytes is not kept (X+=$X doubles it each time), and once a script's
// expansions have produced maxExpandedBytes in all, later ones are not read
// (a short script may name a long value thousands of times). Either bound,
// once met by a variable the script reads, is reported as unparsable_shell:
// padding a value must not hide the program it names.
const (
	maxVarBytes      = 4 << 10
	maxExpandedBytes = 64 << 10
	// maxBraceWords bounds the words brace expansion makes in one script
	// ({curl,-s,URL} is three), and maxBraceGroups the brace groups one
	// word may hold (each word made is built through every group): past
	// either the script is unparsable_shell.
	maxBraceWords  = 256
	maxBraceGroups = 16
)

// setVar records the value a script gives a variable; an assignment whose
// value is not known, or too long, forgets it.
func (s *scan) setVar(x *syntax.Assign) {
	if x.Name != nil && !x.Naked && x.Array != nil {
		s.arrayHeld(x) // L=($(curl …))
	}
	if x.Name == nil || x.Naked || x.Index != nil || x.Array != nil {
		return
	}
	name := x.Name.Value
	v, ok := "", true
	if x.Value != nil {
		v, ok = s.wordValue(x.Value)
	}
	if x.Append {
		if s.overlong[name] {
			return // still too long
		}
		old, known := s.vars[name]
		v, ok = old+v, ok && known
	}
	delete(s.vars, name)
	delete(s.overlong, name)
	if s.secretVars[name] != "" && !x.Append {
		delete(s.secretVars, name)
	}
	if !x.Append {
		delete(s.tokenVars, name)
	}
	if !x.Append {
		delete(s.heldVars, name)
	}
	switch {
	case !ok:
		s.assignHeld(name, x.Value, x.Append)
		s.heldBy(name, x.Value)
		if !x.Append {
			s.tokenHeldBy(name, x.Value)
		}
	case len(v) > maxVarBytes:
		if s.overlong == nil {
			s.overlong = map[string]bool{}
		}
		s.overlong[name] = true
	default:
		if s.vars == nil {
			s.vars = map[string]string{}
		}
		s.vars[name] = v
	}
}

// words returns the words one shell word stands for, with the variables
// it names read as the script set them: a lone unquoted $X is split at
// blanks, as the shell splits it, and may stand for no word at all; any
// other word is one. ok is false when an expansion's value is not known.
func (s *scan) words(w *syntax.Word) ([]string, bool) {
	if t, ok := wordText(w); ok {
		if strings.IndexByte(t, '{') >= 0 && strings.ContainsAny(t, ",.") {
			if ws, braced := s.braces(w); braced {
				return ws, ws != nil
			}
		}
		return []string{t}, true
	}
	if len(w.Parts) == 1 {
		if args, ok := s.allParams(w.Parts[0]); ok {
			return args, true
		}
		if pe, isParam := w.Parts[0].(*syntax.ParamExp); isParam {
			v, ok := s.param(pe)
			return strings.Fields(v), ok
		}
	}
	t, ok := s.wordValue(w)
	return []string{t}, ok
}

// braces expands a literal word as bash, zsh and ksh do ({curl,-s,URL}
// is the three words curl -s URL, a{b,c} is ab ac, {1..3} is 1 2 3). It
// returns false when the word has no brace expansion, and nil words when
// the script's expansions would pass maxBraceWords, which is reported.
func (s *scan) braces(w *syntax.Word) ([]string, bool) {
	if s.braced > maxBraceWords {
		return nil, true // reported once already
	}
	cp := *w // SplitBraces replaces the parts of the word it is given
	if !syntax.SplitBraces(&cp) {
		return nil, false
	}
	if braceGroups(cp.Parts, 0) > maxBraceGroups {
		s.a.limit(s.path, "a word holds more than "+strconv.Itoa(maxBraceGroups)+" brace expansions")
		s.braced = maxBraceWords + 1
		return nil, true
	}
	var out []string
	over := !expandBraces(cp.Parts, "", func(t string) bool {
		if s.braced >= maxBraceWords {
			return false
		}
		s.braced++
		out = append(out, t)
		return true
	})
	if over {
		s.a.limit(s.path, "brace expansion makes more than "+strconv.Itoa(maxBraceWords)+" words")
		s.braced = maxBraceWords + 1
		return nil, true
	}
	return out, true
}

// expandBraces calls yield with each word the brace expansions of parts
// (as syntax.SplitBraces found them) make, prefix first, in the order bash
// makes them: {a,b}c is ac bc, {1..3} is 1 2 3, {a..c} is a b c, {1..9..4}
// is 1 5 9. It stops, returning false, when yield does. (The shell
// library's own expansion lives in a package that also runs programs,
// which the audit's dependencies may not reach.)
func expandBraces(parts []syntax.WordPart, prefix string, yield func(string) bool) bool {
	for i, p := range parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		head, _ := wordLiteral(&syntax.Word{Parts: parts[:i]}, nil)
		head = prefix + head
		rest := parts[i+1:]
		if !br.Sequence {
			for _, e := range br.Elems {
				if !expandBraces(slices.Concat(e.Parts, rest), head, yield) {
					return false
				}
			}
			return true
		}
		return braceSequence(br, func(item string) bool {
			return expandBraces(rest, head+item, yield)
		})
	}
	t, _ := wordLiteral(&syntax.Word{Parts: parts}, nil)
	return yield(prefix + t)
}

// braceSequence calls each with the items of a sequence expansion,
// {from..to[..step]} of numbers (padded when an end has a leading zero)
// or of single characters, and stops when each returns false.
func braceSequence(br *syntax.BraceExp, each func(string) bool) bool {
	fromLit, toLit := br.Elems[0].Lit(), br.Elems[1].Lit()
	from, err1 := strconv.ParseInt(fromLit, 10, 64)
	to, err2 := strconv.ParseInt(toLit, 10, 64)
	chars := err1 != nil || err2 != nil
	if chars {
		if len(fromLit) != 1 || len(toLit) != 1 {
			return each("{" + fromLit + ".." + toLit + "}")
		}
		from, to = int64(fromLit[0]), int64(toLit[0])
	}
	width := 0
	if !chars && (leadingZero(fromLit) || leadingZero(toLit)) {
		width = max(len(fromLit), len(toLit))
	}
	step := int64(1)
	if len(br.Elems) > 2 {
		if n, err := strconv.ParseInt(br.Elems[2].Lit(), 10, 64); err == nil && n != 0 {
			step = max(n, -n)
		}
	}
	for n := from; ; {
		item := strconv.FormatInt(n, 10)
		switch {
		case chars:
			item = string(rune(n))
		case width > 0:
			item = zeroPad(n, width)
		}
		if !each(item) {
			return false
		}
		if (from <= to && n > to-step) || (from > to && n < to+step) {
			return true
		}
		if from <= to {
			n += step
		} else {
			n -= step
		}
	}
}

// zeroPad writes n with leading zeros to width characters, its sign
// included, as bash pads {01..10}.
func zeroPad(n int64, width int) string {
	d := strconv.FormatInt(max(n, -n), 10)
	sign := ""
	if n < 0 {
		sign = "-"
	}
	if pad := width - len(sign) - len(d); pad > 0 {
		d = strings.Repeat("0", pad) + d
	}
	return sign + d
}

// leadingZero reports whether a number is written with a leading zero
// (01, -01).
func leadingZero(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

// braceGroups counts the brace expansions among parts, nested ones
// included, adding to n and stopping once past maxBraceGroups.
func braceGroups(parts []syntax.WordPart, n int) int {
	for _, p := range parts {
		if n > maxBraceGroups {
			return n
		}
		if br, ok := p.(*syntax.BraceExp); ok {
			n++
			for _, e := range br.Elems {
				n = braceGroups(e.Parts, n)
			}
		}
	}
	return n
}

// wordValue returns the text of a word with its variables read as the
// script set them, or false when any part's value is not known.
func (s *scan) wordValue(w *syntax.Word) (string, bool) {
	if t, whole := wordLiteral(w, s.param); whole {
		return t, true
	}
	return "", false
}

// param returns the value of $X, ${X}, ${X:-default} or ${X-default}
// when the script set X to a literal, or (for a default) did not set it
// and the default's value is known.
func (s *scan) param(pe *syntax.ParamExp) (string, bool) {
	if pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.Index != nil || pe.Slice != nil ||
		pe.Repl != nil || pe.Names != 0 || pe.NestedParam != nil || pe.Flags != nil || len(pe.Modifiers) > 0 {
		return "", false
	}
	name := pe.Param.Value
	if v, ok, positional := s.param1(name); positional {
		if !ok || pe.Exp == nil {
			return v, ok
		}
		return "", false
	}
	if s.overlong[name] {
		s.a.limit(s.path, "a variable's value is longer than 4 KiB, so what it names is not known")
		return "", false
	}
	v, known := s.vars[name]
	if !known {
		// The user's home directory, whatever its path: ~ in what the
		// rules read (~/.bashrc, ~/.aws); and the folders the
		// environment names inside it, where they usually are.
		v, known = userFolders[name]
	}
	if !known {
		v, known = shellPrograms[name]
	}
	if known {
		if s.expanded += len(v); s.expanded > maxExpandedBytes {
			s.a.limit(s.path, "the script's variables expand to more than 64 KiB")
			return "", false
		}
	}
	if pe.Exp == nil {
		return v, known
	}
	switch pe.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
		if known && (v != "" || pe.Exp.Op == syntax.DefaultUnset) {
			return v, true
		}
		if pe.Exp.Word == nil {
			return "", true
		}
		return s.wordValue(pe.Exp.Word)
	}
	return "", false
}

// sglText returns the text of a single-quoted part: as written for '…',
// decoded for ANSI-C quoting ($'…').
func sglText(q *syntax.SglQuoted) string {
	if q.Dollar {
		return ansiC(q.Value)
	}
	return q.Value
}

// ansiC decodes the backslash escapes of bash's $'…' quoting: \a \b \e \E
// \f \n \r \t \v \\ \' \" \?, octal \nnn, hex \xHH, \uHHHH, \UHHHHHHHH and
// control characters \cX. An unknown escape stays as written.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString(`\c`)
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if c == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		default:
			if c >= '0' && c <= '7' {
				j := i
				for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				n, _ := strconv.ParseUint(s[i:j], 8, 32)
				b.WriteByte(byte(n))
				i = j - 1
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// shellPrograms are the variables that name a shell, whichever one: the
// user's login shell ($SHELL) and the bash running the script ($BASH). A
// script that pipes a download into "$SHELL" runs it in a shell.
var shellPrograms = map[string]string{"SHELL": "sh", "BASH": "bash"}

// userFolders are the variables that name the user's home and the folders
// in it, with where they usually are, as the path rules read them: a
// script that writes "$XDG_CONFIG_HOME/gh/hosts.yml" writes where the
// rules look for ~/.config/gh. A script that sets one has its own value.
var userFolders = map[string]string{
	"HOME": "~", "XDG_CONFIG_HOME": "~/.config", "XDG_DATA_HOME": "~/.local/share", "XDG_CACHE_HOME": "~/.cache",
	"XDG_STATE_HOME": "~/.local/state",
}
