package assess

import "strings"

// Options whose value is a command the program runs: man's pager, the
// command strace pipes its trace into, the program tcpdump runs on each
// file it rotates, the program scp and sftp connect through and the sftp
// server sftp -D starts. What runs is judged like the wiring's own command.

// cmdOptKind is how a program runs the value of one of its options.
type cmdOptKind uint8

const (
	optWords   cmdOptKind = iota // a command and its arguments, split into words as a shell splits them
	optProgram                   // a program alone, run with arguments of the program's own
	optPiped                     // a command line for sh -c when the value starts with | or ! (strace -o '|cmd')
	optBlanks                    // a command and its arguments, split at blanks only (Chromium's --gpu-launcher)
)

// commandOptions are, per program, the options whose value it runs.
var commandOptions = map[string]map[string]cmdOptKind{
	"man":     {"-P": optWords, "--pager": optWords},
	"strace":  {"-o": optPiped, "--output": optPiped},
	"tcpdump": {"-z": optProgram},
	"scp":     {"-S": optProgram},
	"sftp":    {"-S": optProgram, "-D": optWords},
}

// withOptionCommands is peel for a wrapper that also runs the commands
// its options of commandOptions name (strace -o '|cmd').
func withOptionCommands(peel peeler) peeler {
	return func(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
		a.optionCommands(c, commandOptions[c.name])
		return peel(a, c)
	}
}

// optionCommands judges the commands c's options of commandOptions name:
// -P VALUE, -PVALUE and --pager=VALUE alike.
func (a *auditor) optionCommands(c invocation, opts map[string]cmdOptKind) {
	eachOptionValue(c.args(), func(flag string) bool { _, ok := opts[flag]; return ok }, func(flag string, w arg) {
		if w.lit {
			a.optionCommand(c, opts[flag], w)
		}
	})
}

// eachOptionValue calls fn with the value of each option of args that
// wanted accepts, up to "--": a long option's value joined with "=" or the
// next word, a short option's the rest of its word or the next word.
func eachOptionValue(args []arg, wanted func(flag string) bool, fn func(flag string, w arg)) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			return
		}
		if len(t) < 2 || t[0] != '-' {
			continue
		}
		flag, val, joined := strings.Cut(t, "=")
		if !strings.HasPrefix(t, "--") {
			flag, val, joined = t[:2], t[2:], len(t) > 2
		}
		if !wanted(flag) {
			continue
		}
		if w, ok := optValue(args, &i, val, joined); ok {
			fn(flag, w)
		}
	}
}

// optionCommand judges one command an option of c names.
func (a *auditor) optionCommand(c invocation, kind cmdOptKind, w arg) {
	switch kind {
	case optPiped:
		text, ok := strings.CutPrefix(w.text, "|")
		if !ok {
			if text, ok = strings.CutPrefix(w.text, "!"); !ok {
				return // a file's name
			}
		}
		if strings.TrimSpace(text) == "" {
			return
		}
		w.text = text
		a.inlineShell(c.name, w, c.depth, true, c.env)
	case optProgram:
		if strings.TrimSpace(w.text) == "" {
			return
		}
		a.inferred.Exec = true
		a.command([]arg{w}, c.depth+1, ctxNested)
	case optBlanks:
		words := strings.Fields(w.text)
		if len(words) == 0 {
			return
		}
		a.inferred.Exec = true
		argv := make([]arg, len(words))
		for j, s := range words {
			argv[j] = arg{text: s, path: w.path, lit: true}
		}
		a.command(argv, c.depth+1, ctxNested)
	default:
		a.inferred.Exec = true
		if words, ok := shellPlainWords(w.text); ok {
			if len(words) == 0 {
				return
			}
			argv := make([]arg, len(words))
			for j, s := range words {
				argv[j] = arg{text: s, path: w.path, lit: true}
			}
			a.command(argv, c.depth+1, ctxNested)
			return
		}
		sc := &scan{a: a, path: w.path, depth: c.depth + 1}
		sc.script(w.text)
	}
}

// rakeCodeOptions are rake's options whose value is Ruby code it runs.
var rakeCodeOptions = set("-e", "--execute", "-E", "--execute-continue", "-p", "--execute-print")

// rakeCode judges the Ruby code rake's -e, -E and -p run: inline code.
func (a *auditor) rakeCode(c invocation) {
	eachOptionValue(c.args(), func(flag string) bool { return rakeCodeOptions[flag] }, func(_ string, w arg) {
		a.inlineProgram(c, "rake", w)
	})
}

// inlineProgram judges code a program runs as a program of language lang
// (inlineLangs) written inline in the wiring.
func (a *auditor) inlineProgram(c invocation, lang string, code arg) {
	a.add(CodeInlineCode, code.path, "runs a "+quoted(c.name)+" program written inline in the wiring")
	a.inferred.Exec = a.inferred.Exec || !code.lit
	if code.lit {
		a.inlineCode(code.text, code.path)
		a.inlineCommands(lang, code.text, code.path, c.depth) // inlinecalls.go
	}
}

// pdbCommands are the commands of Python's debugger that evaluate no
// Python code of their own; any other word starting a command is a
// statement (or an expression p, pp, display, whatis and debug evaluate).
var pdbCommands = set("h", "help", "w", "where", "bt", "d", "down", "u", "up", "b", "break", "tbreak", "cl", "clear",
	"disable", "enable", "ignore", "s", "step", "n", "next", "unt", "until", "r", "return", "c", "cont", "continue",
	"j", "jump", "l", "list", "ll", "longlist", "a", "args", "source", "undisplay", "interact", "unalias", "retval",
	"rv", "run", "restart", "q", "quit", "exit", "EOF", "commands", "end", "silent", "alias")

// pdbCode judges python -m pdb's -c commands: those that are not pdb's
// own (import os; os.system(…), !stmt, p expr) run Python code.
func (a *auditor) pdbCode(c invocation, args []arg) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" || len(t) < 2 || t[0] != '-' {
			return // the script and its arguments
		}
		flag, val, joined := strings.Cut(t, "=")
		if !strings.HasPrefix(t, "--") {
			flag, val, joined = t[:2], t[2:], len(t) > 2
		}
		switch flag {
		case "-m":
			return // the module and its arguments
		case "-c", "--command":
		default:
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			return
		}
		if !w.lit {
			a.inlineProgram(c, "python", w)
			continue
		}
		var code []string
		for _, cmd := range strings.Split(w.text, ";;") {
			cmd = strings.TrimSpace(cmd)
			word, rest, _ := strings.Cut(cmd, " ")
			switch {
			case cmd == "" || pdbCommands[word]:
			case strings.HasPrefix(cmd, "!"):
				code = append(code, cmd[1:])
			case word == "p" || word == "pp" || word == "display" || word == "whatis" || word == "debug":
				code = append(code, rest)
			default:
				code = append(code, cmd)
			}
		}
		if len(code) > 0 {
			w.text = strings.Join(code, "\n")
			a.inlineProgram(c, "python", w)
		}
	}
}
