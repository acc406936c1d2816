package assess

import "strings"

// Task runners and stream editors that run commands: make runs its rules'
// recipes through a shell (and --eval takes rules from the wiring), just,
// task, rake and mise run do the same with recipes of their own files,
// and GNU sed's e command and s///e flag run commands.

// taskRunner judges a task runner (just, task, rake): the recipes it runs
// go through a shell; rake's -e, -E and -p run Ruby code.
func (a *auditor) taskRunner(c invocation) cmdInfo {
	a.inferred.Exec = true
	if c.name == "rake" {
		a.rakeCode(c) // optcmds.go
	}
	return cmdInfo{name: c.name}
}

// miseInstallValues are the options of mise install and mise use that
// take a value.
var miseInstallValues = set("-j", "--jobs", "-e", "--env", "-p", "--path", "--before")

// mise judges what mise does besides exec, which is peeled: install and
// use install the tools they name (as exec does); run, r, watch and tasks
// run start tasks, whose commands go through a shell.
func (a *auditor) mise(c invocation) cmdInfo {
	args := skipFlags(c.args(), set("-C", "--cd", "-E", "--env", "-j", "--jobs"))
	if len(args) > 0 {
		switch args[0].text {
		case "install", "i", "use", "u":
			// The tools it installs, as on an exec line (toolmanagers.go).
			runner := c.name + " " + args[0].text
			for _, w := range skipFlags(args[1:], miseInstallValues) {
				if !strings.HasPrefix(w.text, "-") {
					a.miseTool(w, runner)
				}
			}
		case "run", "r", "watch", "w":
			a.inferred.Exec = true
		case "tasks", "task", "t":
			if len(args) > 1 && args[1].text == "run" {
				a.inferred.Exec = true
			}
		}
	}
	return cmdInfo{name: c.name}
}

// makeProgram judges make: its rules' recipes run through a shell; rules
// given with --eval (or -E) are a program written in the wiring, whose
// recipes and shell functions are judged as scripts; -f - reads the
// rules from the standard input.
func (a *auditor) makeProgram(c invocation) cmdInfo {
	a.inferred.Exec = true
	info := cmdInfo{name: c.name}
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			break
		}
		flag, val, joined := strings.Cut(t, "=")
		if len(t) > 2 && t[0] == '-' && (t[1] == 'E' || t[1] == 'f') {
			flag, val, joined = t[:2], t[2:], true // -Etext, -f-
		}
		switch flag {
		case "--eval", "-E":
			if w, ok := optValue(args, &i, val, joined); ok {
				a.makeRules(c, w)
			}
		case "-f", "--file", "--makefile":
			if w, ok := optValue(args, &i, val, joined); ok && (w.text == "-" || w.text == "/dev/stdin") {
				info.stdinScript = true
			}
		}
	}
	return info
}

// makeRules judges rules written in the wiring: a program of make's, whose
// recipes, $(shell …) calls and != assignments run through a shell.
func (a *auditor) makeRules(c invocation, w arg) {
	a.add(CodeInlineCode, w.path, "runs "+quoted(c.name)+" rules written inline in the wiring (--eval)")
	if !w.lit {
		return
	}
	a.codeHeuristics(w.text, w.path)
	// One script of all the command lines, parsed once: the rules may hold
	// many short ones.
	if scripts := makeScripts(w.text); len(scripts) > 0 {
		sc := &scan{a: a, path: w.path, depth: c.depth + 1}
		sc.script(strings.Join(scripts, "\n"))
	}
}

// makeScripts returns the shell command lines of a makefile's text: each
// recipe (a line after a tab, or after the ";" of a rule line), each
// $(shell …) call and the right side of each != assignment, with make's
// references replaced by a plain word and $$ by $.
func makeScripts(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		body, shells := makeExpand(line)
		out = append(out, shells...)
		switch {
		case strings.HasPrefix(line, "\t"):
			out = append(out, recipeLine(body))
		case strings.Contains(body, "!="):
			_, rhs, _ := strings.Cut(body, "!=")
			out = append(out, rhs)
		default:
			if colon := strings.IndexByte(body, ':'); colon >= 0 {
				if semi := strings.IndexByte(body[colon:], ';'); semi >= 0 {
					out = append(out, recipeLine(body[colon+semi+1:]))
				}
			}
		}
	}
	return out
}

// recipeLine drops the blanks and the prefixes (@ silent, - ignore errors,
// + always run) make reads at the start of a recipe line.
func recipeLine(s string) string {
	return strings.TrimLeft(s, " \t@-+")
}

// makeExpand replaces make's variable and function references in line by
// the word MAKEVAR and $$ by $, and returns the commands of the $(shell …)
// calls it holds (their own references replaced too).
func makeExpand(line string) (string, []string) {
	if strings.IndexByte(line, '$') < 0 {
		return line, nil
	}
	var b strings.Builder
	var shells []string
	for i := 0; i < len(line); i++ {
		if line[i] != '$' || i+1 == len(line) {
			b.WriteByte(line[i])
			continue
		}
		i++
		switch open := line[i]; open {
		case '$':
			b.WriteByte('$')
		case '(', '{':
			end := matchingClose(line, i)
			inner := line[i+1 : end] // end is len(line) when nothing closes
			if cmd, ok := strings.CutPrefix(inner, "shell "); ok {
				body, nested := makeExpand(cmd)
				shells = append(append(shells, nested...), body)
			}
			b.WriteString("MAKEVAR")
			i = end
		default:
			b.WriteString("MAKEVAR") // $@, $<, $X
		}
	}
	return b.String(), shells
}

// matchingClose returns the index of the bracket that closes the one at
// s[open], counting nested brackets of the same kind, or len(s).
func matchingClose(s string, open int) int {
	o, cl := s[open], byte(')')
	if o == '{' {
		cl = '}'
	}
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case o:
			depth++
		case cl:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

// sed judges GNU sed's commands that run commands: `e command` hands
// command to a shell (judged as a script, as sh -c's), and the e flag of
// s/// (or an e without a command) runs the text sed edits, which is not
// known, as a command. --sandbox refuses both. A script read with -f is
// not read.
func (a *auditor) sed(c invocation) cmdInfo {
	args := c.args()
	var scripts, rest []arg
	sandbox, given, stdinProg := false, false, false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case t == "--sandbox":
			sandbox = true
		case strings.HasPrefix(t, "--"):
			flag, val, joined := strings.Cut(t, "=")
			switch flag {
			case "--expression", "--file", "--line-length":
				w, ok := optValue(args, &i, val, joined)
				if ok && flag == "--expression" {
					scripts = append(scripts, w)
				}
				stdinProg = stdinProg || ok && flag == "--file" && w.lit && stdinFile[w.text]
				given = given || flag != "--line-length"
			}
		case len(t) > 1 && t[0] == '-':
			// A cluster of short options: -i takes the rest of its word
			// as a suffix; -e, -f and -l the rest or the next word.
		cluster:
			for j := 1; j < len(t); j++ {
				switch t[j] {
				case 'i':
					break cluster
				case 'e', 'f', 'l':
					w := args[i]
					if w.text = t[j+1:]; w.text == "" {
						if i+1 >= len(args) {
							break cluster
						}
						i++
						w = args[i]
					}
					if t[j] == 'e' {
						scripts = append(scripts, w)
					}
					stdinProg = stdinProg || t[j] == 'f' && w.lit && stdinFile[w.text]
					given = given || t[j] != 'l'
					break cluster
				}
			}
		default:
			rest = append(rest, args[i])
		}
	}
	if !given && len(rest) > 0 {
		scripts = append(scripts, rest[0])
	}
	if sandbox {
		return cmdInfo{name: c.name}
	}
	for _, w := range scripts {
		if w.lit {
			a.sedScript(c, w)
		}
	}
	// sed -f /dev/stdin: its script, whose e commands run a shell, is
	// what is piped in.
	return cmdInfo{name: c.name, stdinScript: stdinProg}
}

// sedScript walks a sed script command by command (addresses, then the
// command with its arguments) and judges the e command and the e flag.
func (a *auditor) sedScript(c invocation, w arg) {
	s := w.text
	runsText := false
	var commands []string // of the e commands, judged as one script
	for i := 0; i < len(s); {
		switch s[i] {
		case ' ', '\t', '\n', ';', '{', '}', '!':
			i++
			continue
		}
		i = sedAddress(s, i)
		if i < len(s) && s[i] == ',' {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			i = sedAddress(s, i)
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			break
		}
		cmd := s[i]
		i++
		switch cmd {
		case 'e':
			end := sedLineEnd(s, i)
			if text := strings.TrimSpace(s[i:end]); text != "" {
				commands = append(commands, text)
			} else {
				runsText = true
			}
			i = end
		case 's', 'y':
			if i >= len(s) {
				break
			}
			delim := s[i]
			i = sedDelimited(s, sedDelimited(s, i+1, delim), delim)
			if cmd != 's' {
				break
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				if s[i] == 'e' {
					runsText = true
				}
				if s[i] == 'w' { // a file name to the end of the line
					i = sedLineEnd(s, i)
					break
				}
				i++
			}
		case 'a', 'i', 'c', 'r', 'R', 'w', 'W', '#':
			i = sedLineEnd(s, i) // text or a file name to the end of the line
		case ':', 'b', 't', 'T':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		}
	}
	if len(commands) > 0 {
		a.inlineShell("sed", arg{text: strings.Join(commands, "\n"), path: w.path, lit: true}, c.depth, true, c.env)
	}
	if runsText {
		a.inferred.Exec = true
		a.add(CodeFetchExec, w.path, quoted("sed")+" runs the text it edits as a command (the e flag or an e without a command)")
	}
}

// sedAddress returns the index after the address that starts at s[i], if
// any: a line number or first~step, $, /regex/ or \cregexc with its I and
// M flags.
func sedAddress(s string, i int) int {
	switch {
	case i >= len(s):
		return i
	case s[i] >= '0' && s[i] <= '9':
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
			i++
		}
		return i
	case s[i] == '$':
		return i + 1
	case s[i] == '/':
		i = sedDelimited(s, i+1, '/')
	case s[i] == '\\' && i+1 < len(s):
		i = sedDelimited(s, i+2, s[i+1])
	default:
		return i
	}
	for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
		i++
	}
	return i
}

// sedDelimited returns the index after the delimiter that ends the part
// starting at s[i] (a regex or a replacement): a backslash escapes the
// next character, and a delimiter inside a bracket expression is literal.
func sedDelimited(s string, i int, delim byte) int {
	bracket := false
	for ; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case bracket:
			bracket = s[i] != ']'
		case s[i] == '[' && delim != '[':
			bracket = true
			if i+1 < len(s) && s[i+1] == ']' {
				i++ // []…] holds a ]
			}
		case s[i] == delim:
			return i + 1
		}
	}
	return len(s)
}

// sedLineEnd returns the index of the newline that ends the line s[i]
// stands on (a backslash before it continues the line), or len(s).
func sedLineEnd(s string, i int) int {
	for ; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == '\n' {
			return i
		}
	}
	return len(s)
}
