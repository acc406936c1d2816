package assess

import (
	"maps"
	"strings"
)

// Shell builtins that keep code to run later: trap's action runs when a
// signal comes or the shell exits, an alias's value wherever the alias is
// used, readarray's and mapfile's -C callback for the lines they read;
// complete -C and bind -x keep a command for an interactive shell. Their
// words are scripts, judged like any script of the wiring: `trap 'curl … |
// sh' EXIT` runs the download as surely as the line itself would.

// heldValues are, per builtin, its options that take a value, and heldFlag
// the one of them whose value is code.
var (
	heldValues = map[string]map[string]bool{
		"readarray": set("-d", "-n", "-O", "-s", "-u", "-C", "-c"),
		"mapfile":   set("-d", "-n", "-O", "-s", "-u", "-C", "-c"),
		"complete":  set("-o", "-A", "-G", "-W", "-F", "-C", "-X", "-P", "-S"),
		"compgen":   set("-o", "-A", "-G", "-W", "-F", "-C", "-X", "-P", "-S"),
		"bind":      set("-m", "-q", "-u", "-f", "-r", "-x"),
	}
	heldFlag = map[string]string{"readarray": "-C", "mapfile": "-C", "complete": "-C", "compgen": "-C", "bind": "-x"}
)

// holdsCode reports whether name is a builtin that keeps code in its words.
func holdsCode(name string) bool {
	return name == "trap" || name == "alias" || heldFlag[name] != ""
}

// heldCode returns the code the builtin name keeps in args, and whether it
// runs only in an interactive shell (complete, bind), which the server's
// shell is not.
func heldCode(name string, args []arg) (codes []arg, interactive bool) {
	switch name {
	case "trap":
		// trap [-lpP] [--] [ACTION CONDITION…]: one operand alone is a
		// condition to reset; "-" resets the conditions that follow.
		ops := operands(args, nil, true, nil)
		if len(ops) >= 2 && ops[0].text != "-" {
			codes = append(codes, ops[0])
		}
	case "alias":
		for _, w := range operands(args, nil, true, nil) {
			if _, value, ok := strings.Cut(w.text, "="); ok {
				codes = append(codes, arg{text: value, path: w.path, lit: w.lit})
			}
		}
	default:
		flag := heldFlag[name]
		operands(args, heldValues[name], true, func(f string, w arg, val string) {
			if f != flag {
				return
			}
			if name == "bind" {
				val = bindCommand(val)
			}
			codes = append(codes, arg{text: val, path: w.path, lit: w.lit})
		})
		interactive = name == "complete" || name == "compgen" || name == "bind"
	}
	return codes, interactive
}

// bindCommand returns the shell command of bind -x's KEYSEQ:COMMAND; the key
// sequence may be quoted and hold a colon ("\C-x:": …).
func bindCommand(v string) string {
	rest := strings.TrimSpace(v)
	if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
		if end := strings.IndexByte(rest[1:], rest[0]); end >= 0 {
			rest = rest[end+2:]
		}
	}
	_, cmd, ok := strings.Cut(rest, ":")
	if !ok {
		return ""
	}
	return strings.TrimSpace(cmd)
}

// held judges the code a builtin keeps (heldCode) as a script run by this
// shell with the variables it has now. Code only an interactive shell
// runs is judged for what it would do, but not counted as what the server
// uses.
func (s *scan) held(name string, args []arg) {
	codes, interactive := heldCode(name, args)
	for _, code := range codes {
		if !code.lit || strings.TrimSpace(code.text) == "" {
			continue
		}
		saved := s.a.inferred
		sc := &scan{a: s.a, path: code.path, depth: s.depth + 1, vars: maps.Clone(s.vars),
			overlong: maps.Clone(s.overlong), exported: maps.Clone(s.exported), expanded: s.expanded, braced: s.braced}
		sc.script(code.text)
		s.expanded, s.braced = sc.expanded, sc.braced // the bounds are the script's
		if interactive {
			s.a.inferred = saved
		}
	}
}
