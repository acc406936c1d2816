package assess

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// cmd.exe reads the text after /c (or /k, /r) as one command line, however
// the manifest splits it into words. The audit rebuilds that line, reads it
// the way cmd.exe does and judges what it runs:
//
//   - /s and the quote rule of /c: unless the text holds exactly two quotes
//     around an executable's path, a leading quote and the last quote are
//     removed ("npx -y pkg" runs npx);
//   - quotes group blanks and operators into a word; outside quotes ^
//     escapes the next character and & && | || < > >> ( ) are operators;
//   - @ before a command, and the builtins start (with its title and
//     options), call and set NAME=value, are peeled or judged.
//
// Not modelled: %VAR% and !VAR! expansion (the text is judged as written),
// if/for and other builtins that embed a command (their words are judged,
// not run), and ',', ';', '=' as separators of a builtin's arguments.

// cmdLine is the command line a wrapper's words make, and which manifest
// word each byte came from.
type cmdLine struct {
	text   string
	starts []int    // offset in text where each word starts
	paths  []string // the manifest path of each word
	lit    bool
}

// newCmdLine joins words with blanks as a launcher hands them to cmd.exe. A
// word that is one executable's path with blanks in it is quoted, as
// launchers quote such words; other words are kept as written, so that a
// word holding a whole command line reads as one.
func newCmdLine(words []arg) cmdLine {
	l := cmdLine{lit: true}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		l.starts = append(l.starts, b.Len())
		l.paths = append(l.paths, w.path)
		l.lit = l.lit && w.lit
		if strings.ContainsAny(w.text, " \t") && !strings.Contains(w.text, `"`) && executablePath(w.text) {
			b.WriteString(`"` + w.text + `"`)
		} else {
			b.WriteString(w.text)
		}
	}
	l.text = b.String()
	return l
}

// wordAt is the index of the manifest word the byte at off came from.
func (l cmdLine) wordAt(off int) int {
	return max(sort.SearchInts(l.starts, off+1)-1, 0)
}

// pathAt is the manifest path of the word the byte at off came from.
func (l cmdLine) pathAt(off int) string {
	if i := l.wordAt(off); i < len(l.paths) {
		return l.paths[i]
	}
	return ""
}

// executablePath reports whether s reads as the path of one program, blanks
// included (C:\Program Files\nodejs\npx.cmd), rather than a command line: it
// has a directory, no character with which a shell or cmd.exe chains,
// pipes, redirects or substitutes, does not start with an assignment
// (NAME=value), and no blank-separated part after the first starts like
// an option, another path or a URL.
func executablePath(s string) bool {
	if !strings.ContainsAny(s, `/\`) || strings.ContainsAny(s, "|&;<>`$\n") {
		return false
	}
	parts := strings.Fields(s)
	if _, ok := isAssignment(parts[0]); ok {
		return false
	}
	for _, p := range parts[1:] {
		if strings.ContainsAny(p[:1], `-/\~"'`) || strings.Contains(p, "://") {
			return false
		}
	}
	return strings.ContainsAny(parts[len(parts)-1], `/\`) || strings.Contains(parts[len(parts)-1], ".") || macAppBinary(s)
}

// macAppBinary reports whether s is the program of a macOS application
// bundle (/Applications/Google Chrome.app/Contents/MacOS/Google Chrome),
// whose file name, like its folder's, may hold blanks.
func macAppBinary(s string) bool {
	_, name, ok := strings.Cut(s, ".app/Contents/MacOS/")
	return ok && name != "" && !strings.ContainsAny(name, `/\`)
}

// cmdWord is a word of a cmd.exe command: its text without quotes and
// escapes, its offset in the line, and whether any of it was quoted.
type cmdWord struct {
	text   string
	off    int
	quoted bool
}

// cmdCommand is one simple command of a cmd.exe line.
type cmdCommand struct {
	words  []cmdWord
	writes []cmdWord // targets of > and >>
	stdout []cmdWord // those of them that take its standard output (not 2>)
	pipe   bool      // its output goes to the next command
}

// cmdParse reads a cmd.exe command line into simple commands. It returns
// whether the line chains, pipes or redirects.
func cmdParse(line string) (cmds []cmdCommand, meta bool) {
	p := cmdParser{line: line}
	for i := 0; i < len(line); i++ {
		i = p.char(i)
	}
	p.endCmd(false)
	return p.cmds, p.meta
}

// cmdParser is the state of cmdParse.
type cmdParser struct {
	line          string
	cmds          []cmdCommand
	cur           cmdCommand
	word          []byte
	wordOff       int
	inWord        bool
	quoted        bool // the current word has a quoted part
	inQuote, meta bool
}

func (p *cmdParser) endWord() {
	if p.inWord {
		p.cur.words = append(p.cur.words, cmdWord{text: string(p.word), off: p.wordOff, quoted: p.quoted})
	}
	p.word, p.inWord, p.quoted = p.word[:0], false, false
}

func (p *cmdParser) endCmd(pipe bool) {
	p.endWord()
	p.cur.pipe = pipe
	if len(p.cur.words) > 0 || len(p.cur.writes) > 0 {
		p.cmds = append(p.cmds, p.cur)
	}
	p.cur = cmdCommand{}
}

func (p *cmdParser) start(i int) {
	if !p.inWord {
		p.inWord, p.wordOff = true, i
	}
}

// char reads the character at i and returns the index of the last one it
// used.
func (p *cmdParser) char(i int) int {
	line := p.line
	c := line[i]
	switch {
	case p.inQuote:
		if c == '"' {
			p.inQuote = false
		} else {
			p.word = append(p.word, c)
		}
	case c == '"':
		p.start(i)
		p.inQuote, p.quoted = true, true
	case c == '^':
		if i+1 < len(line) {
			p.start(i)
			i++
			p.word = append(p.word, line[i])
		}
	case c == ' ' || c == '\t':
		p.endWord()
	case c == '&' || c == '|':
		p.meta = true
		double := i+1 < len(line) && line[i+1] == c
		if double {
			i++
		}
		p.endCmd(c == '|' && !double)
	case c == '(' || c == ')':
		p.meta = true
		p.endCmd(false)
	case c == '<' || c == '>':
		return p.redirect(i)
	default:
		p.start(i)
		p.word = append(p.word, c)
	}
	return i
}

// redirect reads a redirection at i: < file, > file, >> file, 2> file,
// >&1. The targets of output redirections are kept.
func (p *cmdParser) redirect(i int) int {
	line := p.line
	p.meta = true
	handle := byte('1')
	if p.inWord && !p.quoted && len(p.word) == 1 && (p.word[0] == '1' || p.word[0] == '2') {
		handle = p.word[0]
		p.word, p.inWord = p.word[:0], false // the handle of 2>file
	}
	p.endWord()
	out := line[i] == '>'
	for i+1 < len(line) && line[i+1] == '>' {
		i++
	}
	if i+1 < len(line) && line[i+1] == '&' {
		return i + 2 // >&1: to another handle
	}
	t, next := cmdTarget(line, i+1)
	if out {
		p.cur.writes = append(p.cur.writes, t)
		if handle == '1' {
			p.cur.stdout = append(p.cur.stdout, t)
		}
	}
	return next - 1
}

// cmdTarget reads the file name of a redirection starting at i (blanks
// first) and returns it with the offset after it.
func cmdTarget(line string, i int) (cmdWord, int) {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	w := cmdWord{off: i}
	var b []byte
	inQuote := false
	for ; i < len(line); i++ {
		c := line[i]
		if inQuote {
			if c == '"' {
				inQuote = false
			} else {
				b = append(b, c)
			}
			continue
		}
		if c == '"' {
			inQuote, w.quoted = true, true
			continue
		}
		if strings.IndexByte(" \t&|<>()", c) >= 0 {
			break
		}
		if c == '^' && i+1 < len(line) {
			i++
			c = line[i]
		}
		b = append(b, c)
	}
	w.text = string(b)
	return w, i
}

// cmdSwitches reads cmd.exe's own switches from the start of its line and
// returns the text of /c, /k or /r (ok false without one) and /s.
func cmdSwitches(line string) (rest string, off int, s, ok bool) {
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i+1 >= len(line) || line[i] != '/' {
			return "", 0, s, false
		}
		switch line[i+1] | 0x20 {
		case 'c', 'k', 'r':
			i += 2
			for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
				i++
			}
			return line[i:], i, s, true
		case 's':
			s = true
		}
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
	}
}

// namesKnownProgram reports whether the first word of a quoted cmd.exe
// string names a program the audit knows (npx, powershell, mshta …):
// then the string is read as a command line, not as the path of one
// executable with spaces in it, even where the path reading would fit
// ("npx evil-pkg C:\x"): cmd.exe keeps the quotes only for a file that
// exists, and "C:\Program Files\…" starts with no program's name.
func namesKnownProgram(inner string) bool {
	f := strings.Fields(inner)
	if len(f) < 2 {
		return false
	}
	first := progName(f[0])
	_, known := programFor(first)
	return known && !interpreterFolder(first, inner)
}

// cmdQuoteRule applies the quote rule of /c to the command text: quotes are
// kept when, without /s, exactly two of them enclose an executable's path
// with blanks and no special character; otherwise a leading quote and the
// last quote are blanked (so that offsets keep their bytes).
func cmdQuoteRule(text string, s bool) string {
	if !strings.HasPrefix(text, `"`) {
		return text
	}
	last := strings.LastIndexByte(text, '"')
	if !s && strings.Count(text, `"`) == 2 {
		inner := text[1:last]
		if !strings.ContainsAny(inner, "&<>()@^|") && strings.ContainsAny(inner, " \t") && executablePath(inner) &&
			!namesKnownProgram(inner) {
			return text
		}
	}
	b := []byte(text)
	b[0] = ' '
	if last > 0 {
		b[last] = ' '
	}
	return string(b)
}

// cmdExe judges `cmd /c …` (and /k, /r): the rest of the line is read by
// the Windows command interpreter. One plain command written as separate
// words (the usual way to start npx.cmd on Windows) is a wrapper: what it
// runs is judged. A line that chains, pipes or redirects, or a command line
// written as one string (cmd /c "npx -y pkg"), is an inline script
// (shell_exec, as sh -c is), and every command in it is judged too.
func (a *auditor) cmdExe(c invocation) cmdInfo {
	words := c.args()
	if c.env != nil {
		// %NAME% of a variable cmd.exe starts with is its value.
		var ok bool
		if words, ok = a.cmdEnvWords(words, c.env, c.argv[0].path); !ok {
			a.limit(c.argv[0].path, "the line's variables expand to more than 64 KiB")
			return cmdInfo{name: "cmd"}
		}
	}
	line := newCmdLine(words)
	rest, off, sflag, ok := cmdSwitches(line.text)
	if !ok {
		return cmdInfo{name: "cmd", stdinScript: len(c.argv) == 1}
	}
	path := line.pathAt(off)
	if !line.lit {
		a.add(CodeShellExec, path, "runs an inline command line through `cmd`")
		a.inferred.Exec = true
		return cmdInfo{name: "cmd", runsArg: true}
	}
	if len(rest) > maxScriptBytes {
		a.limit(path, "the command line is longer than 16 KiB")
		return cmdInfo{name: "cmd"}
	}
	text, names := placeholders(cmdQuoteRule(rest, sflag), `"`, '^')
	a.placeholderLeft(path, func(o int) string { return line.pathAt(off + o) }, names)
	cmds, meta := cmdParse(text)
	inline := meta || cmdOneString(line, off, cmds)
	if inline {
		a.add(CodeShellExec, path, "runs an inline command line through `cmd`")
		a.inferred.Exec = true
	}
	if meta {
		a.add(CodeShellMeta, path, "cmd reads this line, and it chains, pipes or redirects commands")
	}
	a.cmdRun(cmds, line, off, c, inline, cmdDelayed(line.text[:off]))
	return cmdInfo{name: "cmd"}
}

// cmdOneString reports whether the command line was written as one manifest
// word holding several words (cmd /c "npx -y pkg"): an inline script, as
// sh -c "…" is.
func cmdOneString(line cmdLine, off int, cmds []cmdCommand) bool {
	for _, cmd := range cmds {
		for i := 1; i < len(cmd.words); i++ {
			if line.wordAt(off+cmd.words[i].off) == line.wordAt(off+cmd.words[i-1].off) {
				return true
			}
		}
	}
	return false
}

// cmdRun judges the commands of a cmd.exe line and how they are piped.
func (a *auditor) cmdRun(cmds []cmdCommand, line cmdLine, off int, c invocation, inline, delayed bool) {
	ctx := c.ctx
	if inline {
		ctx = ctxNested
	}
	var stages []cmdInfo
	var vars cmdVars
	var loop cmdForLoop
	fed := "" // the download tool whose download reaches this command (fetched.go)
	for _, cmd := range cmds {
		if a.budget <= 0 {
			a.overrunAt(line.pathAt(off))
			return
		}
		a.budget--
		for _, w := range cmd.writes {
			if persistencePath(w.text) {
				a.add(CodePersistence, line.pathAt(off+w.off), "writes to a location that runs code at login, at boot or when a program starts")
			}
			a.writesTo(w.text, line.pathAt(off+w.off))
		}
		// call reads its words' %NAME% again when it runs, after the
		// line's set commands before it (cmd /c "set x=npx&& call %x% …").
		call := len(cmd.words) > 0 && lower(strings.TrimPrefix(cmd.words[0].text, "@")) == "call"
		argv := make([]arg, 0, len(cmd.words))
		for _, w := range cmd.words {
			t, ok := w.text, true
			if delayed && strings.IndexByte(t, '!') >= 0 {
				t, ok = vars.expand(t, '!')
			}
			again := false
			if call && ok && strings.IndexByte(t, '%') >= 0 {
				before := t
				t, ok = vars.expand(t, '%')
				again = t != before
			}
			if !ok {
				a.limit(line.pathAt(off+w.off), "the line's variables expand to more than 64 KiB")
				return
			}
			if again {
				// call reads the expanded text as words again.
				for _, f := range strings.Fields(t) {
					argv = append(argv, arg{text: f, path: line.pathAt(off + w.off), lit: true})
				}
				continue
			}
			argv = append(argv, arg{text: t, path: line.pathAt(off + w.off), lit: true})
		}
		vars.record(argv)
		loop.before(argv)
		argv = a.cmdBuiltins(argv, cmd.words)
		if len(vars.vals) == 0 {
			// What the line starts runs with its variables, unless the
			// line set some of its own.
			a.shellEnv = c.env
		}
		a.fedBy = fed
		info := a.command(argv, c.depth+1, ctx)
		a.fedBy = ""
		if tool := cmp.Or(info.streams, fed); tool != "" {
			for _, w := range cmd.stdout {
				a.addFetched(w.text, tool) // curl URL > a.bat: the file holds the download
			}
		}
		if fed = cmp.Or(fed, info.streams); !cmd.pipe {
			fed = ""
		}
		if loop.after(info) {
			// for /f %i in ('curl …') do %i: each line of the output
			// runs as a command, as a shell runs what is piped into it.
			a.pipeInto([]cmdInfo{loop.set, {name: "for /f", stdinScript: true}}, line.pathAt(off))
		}
		stages = append(stages, info)
		if !cmd.pipe {
			a.pipeInto(stages, line.pathAt(off))
			stages = stages[:0]
		}
	}
}

// cmdForLoop follows a `for /f %i in ('command') do %i …` across the
// commands the brackets split it into: the header, the set, and do.
type cmdForLoop struct {
	state int    // 0 none, 1 after the header, 2 after a set that is a command, 3 at do %i
	name  string // the loop variable, %i or %%i (its case matters)
	set   cmdInfo
}

// before reads a command's words before it is judged.
func (l *cmdForLoop) before(argv []arg) {
	first := ""
	if len(argv) > 0 {
		first = lower(strings.TrimPrefix(argv[0].text, "@"))
	}
	switch {
	case first == "for":
		l.state, l.name = 0, ""
		f := false
		for i, w := range argv {
			f = f || lower(w.text) == "/f"
			if lower(w.text) == "in" && i > 0 && f && strings.HasPrefix(argv[i-1].text, "%") {
				l.state, l.name = 1, argv[i-1].text
			}
		}
	case l.state == 1 && first != "" && (first[0] == '\'' || first[0] == '`'):
		l.state = 2
	case l.state == 2 && first == "do" && len(argv) > 1 && strings.TrimPrefix(argv[1].text, "@") == l.name:
		l.state = 3
	default:
		l.state = 0
	}
}

// after takes the judged command: the set's, or reports whether do runs
// the loop variable as a command.
func (l *cmdForLoop) after(info cmdInfo) bool {
	switch l.state {
	case 2:
		l.set = info
	case 3:
		l.state = 0
		return true
	}
	return false
}

// cmdDelayed reports whether cmd.exe's switches before /c turn delayed
// expansion on (/v:on, /v): !NAME! is then read when each command runs.
func cmdDelayed(switches string) bool {
	for _, f := range strings.Fields(switches) {
		if f = lower(f); strings.HasPrefix(f, "/v") && f != "/v:off" {
			return true
		}
	}
	return false
}

// cmdVars are the variables a cmd.exe line sets with `set NAME=value`, by
// lower-case name, for delayed expansion (cmd /v:on /c "set x=curl&& !x!
// …" runs curl) and call's second reading of %NAME%, and the bytes their
// expansion has produced.
type cmdVars struct {
	vals     map[string]string
	expanded int
}

// record notes the variable a `set NAME=value` command sets. (setlocal
// enabledelayedexpansion does nothing outside a batch file, so only /v
// turns delayed expansion on for a command line.)
func (v *cmdVars) record(argv []arg) {
	if len(argv) < 2 || lower(strings.TrimPrefix(argv[0].text, "@")) != "set" || strings.HasPrefix(argv[1].text, "/") {
		return
	}
	if k, val, ok := strings.Cut(strings.Join(texts(argv[1:]), " "), "="); ok && k != "" {
		if v.vals == nil {
			v.vals = map[string]string{}
		}
		v.vals[lower(k)] = val
	}
}

// expand replaces each !NAME! (delim '!', delayed expansion) or %NAME%
// (delim '%', call's second reading) in t whose variable the line set
// with its value; others are left as they are. It returns false once the
// line's expansions pass maxExpandedBytes.
func (v *cmdVars) expand(t string, delim byte) (string, bool) {
	var b strings.Builder
	for {
		i := strings.IndexByte(t, delim)
		if i < 0 {
			break
		}
		j := strings.IndexByte(t[i+1:], delim)
		if j < 0 {
			break
		}
		val, known := v.vals[lower(t[i+1:i+1+j])]
		if !known {
			b.WriteString(t[:i+1])
			t = t[i+1:]
			continue
		}
		if v.expanded += len(val); v.expanded > maxExpandedBytes {
			return "", false
		}
		b.WriteString(t[:i])
		b.WriteString(val)
		t = t[i+2+j:]
	}
	b.WriteString(t)
	return b.String(), true
}

// cmdBuiltins peels the builtins of cmd.exe that run another command
// (start, call, a leading @) and judges set NAME=value. It returns the
// command that runs, or nothing.
func (a *auditor) cmdBuiltins(argv []arg, words []cmdWord) []arg {
	for n := 0; len(argv) > 0 && n < maxPeel; n++ {
		argv[0].text = strings.TrimPrefix(argv[0].text, "@")
		switch strings.ToLower(argv[0].text) {
		case "call":
			argv, words = argv[1:], words[1:]
		case "start":
			i := 1
			if i < len(words) && words[i].quoted {
				i++ // the window title
			}
			for i < len(argv) && strings.HasPrefix(argv[i].text, "/") {
				switch strings.ToLower(argv[i].text) {
				case "/d", "/affinity", "/node":
					i++
				}
				i++
			}
			if i >= len(argv) {
				return nil
			}
			argv, words = argv[i:], words[i:]
		case "set":
			if len(argv) > 1 {
				if k, v, ok := strings.Cut(strings.Join(texts(argv[1:]), " "), "="); ok && !strings.HasPrefix(k, "/") {
					a.envSet(strings.TrimSpace(k), arg{text: v, path: argv[1].path, lit: true}, 0)
					if strings.EqualFold(strings.TrimSpace(k), "path") {
						a.addSearchDirs(v, ";") // set PATH=C:\t;%PATH%
					}
				}
			}
			return nil
		case "if":
			i := cmdCondition(argv)
			if i >= len(argv) {
				return nil // the command follows in brackets: a command of its own
			}
			argv, words = argv[i:], words[i:]
		case "for":
			// for [/d /r /l /f …] %%x in (set) do command: the set in
			// brackets and the command after do arrive as commands of
			// their own, unless do is on this one.
			i := slices.IndexFunc(argv, func(w arg) bool { return strings.EqualFold(w.text, "do") })
			if i < 0 || i+1 >= len(argv) {
				return nil
			}
			argv, words = argv[i+1:], words[i+1:]
		case "do", "else":
			argv, words = argv[1:], words[1:]
		case "cd", "chdir", "pushd", "popd":
			if len(argv) > 1 || strings.EqualFold(argv[0].text, "popd") {
				// cmd's cd alone prints the directory, and changes nothing
				a.changesDir(invocation{name: strings.ToLower(argv[0].text), argv: argv})
			}
			return nil
		case "rem", "echo", "title", "cls", "exit", "setlocal", "endlocal", "ver", "pause":
			return nil
		default:
			// for /f's set in single quotes or backquotes is a command
			// that runs (in ('curl -s URL') do …).
			if q := argv[0].text; q != "" && (q[0] == '\'' || q[0] == '`') {
				last := len(argv) - 1
				argv[0].text = q[1:]
				argv[last].text = strings.TrimSuffix(argv[last].text, q[:1])
				if argv[0].text == "" {
					argv, words = argv[1:], words[1:]
				}
				continue
			}
			return argv
		}
	}
	return argv
}

// cmdCompare are cmd.exe's comparison operators of if.
var cmdCompare = set("equ", "neq", "lss", "leq", "gtr", "geq")

// cmdCondition returns the index of the command after the condition of
// `if [/i] [not] exist|defined|errorlevel|cmdextversion X`, `if A==B` or
// `if A EQU B`, all as cmd.exe splits them.
func cmdCondition(argv []arg) int {
	i := 1
	for i < len(argv) && (strings.EqualFold(argv[i].text, "/i") || strings.EqualFold(argv[i].text, "not")) {
		i++
	}
	if i >= len(argv) {
		return i
	}
	t := argv[i].text
	switch {
	case cmdConditionWord[strings.ToLower(t)]:
		return i + 2
	case strings.HasSuffix(t, "==") || (i+1 < len(argv) && strings.HasPrefix(argv[i+1].text, "==")):
		// A== B, A ==B, A == B
		if strings.HasSuffix(t, "==") || argv[i+1].text == "==" {
			return i + 3
		}
		return i + 2
	case strings.Contains(t, "=="):
		return i + 1
	case i+1 < len(argv) && cmdCompare[strings.ToLower(argv[i+1].text)]:
		return i + 3
	}
	return i + 1
}

// cmdConditionWord are the conditions of if that take one operand.
var cmdConditionWord = set("exist", "defined", "errorlevel", "cmdextversion")

func texts(args []arg) []string {
	out := make([]string, len(args))
	for i, w := range args {
		out[i] = w.text
	}
	return out
}
