package assess

import "strings"

// Programs that run commands they read. Some programs that are not
// called shells still run a shell's commands for the text they read: ed's
// and ex's !cmd, dc's !cmd, ftp's !cmd, gdb's shell and lldb's platform
// shell. Given no script of their own they read those commands from their
// standard input, so a download piped into one (curl … | ed) runs as it
// would through sh; so does a file of a download given as their command
// file (vim -s, emacs -l, lldb -s, dc -f), and a configuration file that
// names commands (tmux -f and source-file, screen -c, ssh -F with its
// ProxyCommand and LocalCommand). script(1) started without -c hands its
// input to the user's shell, and ssh without a remote command to the
// remote user's login shell.

// edReads judges ed: it reads its commands from its standard input.
func (a *auditor) edReads(c invocation) cmdInfo {
	return cmdInfo{name: c.name, stdinScript: true}
}

// dcValues are dc's options that take a value.
var dcValues = set("-e", "--expression", "-f", "--file")

// dc judges dc (GNU's runs the rest of a line after ! through a shell):
// an expression given with -e is inline code; the files it is given (-f,
// or words that are not options) are scripts; given neither, it reads its
// standard input.
func (a *auditor) dc(c invocation) cmdInfo {
	args := c.args()
	reads, named := true, false // named: - is among its files
	for i := 0; i < len(args); i++ {
		t := args[i].text
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case flag == "-e" || flag == "--expression":
			w, ok := optValue(args, &i, val, joined)
			if !ok {
				continue
			}
			reads = false
			a.add(CodeInlineCode, w.path, "runs "+quoted(c.name)+" commands written inline in the wiring")
			if !w.lit {
				continue
			}
			if _, cmd, ok := strings.Cut(w.text, "!"); ok && !strings.HasPrefix(cmd, "<") && !strings.HasPrefix(cmd, "=") && !strings.HasPrefix(cmd, ">") {
				// !cmd runs the rest of the line; !<, != and !> compare.
				cmd, _, _ = strings.Cut(cmd, "\n")
				a.inferred.Exec = true
				sc := &scan{a: a, path: w.path, depth: c.depth + 1}
				sc.script(cmd)
			}
		case flag == "-f" || flag == "--file":
			if w, ok := optValue(args, &i, val, joined); ok {
				reads, named = false, named || w.text == "-"
			}
		case t == "-" || !strings.HasPrefix(t, "-"):
			reads, named = false, named || t == "-"
		}
	}
	return cmdInfo{name: c.name, stdinScript: reads || named}
}

// dcFiles returns the files dc runs as scripts.
func dcFiles(args []arg) []arg {
	files := optionFiles(args, "-f", "--file")
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case dcValues[t]:
			i++
		case !strings.HasPrefix(t, "-"):
			files = append(files, args[i])
		}
	}
	return files
}

// vimExMode reports whether vim (or ex) runs in Ex mode, where it reads
// its commands from its standard input and -s means silent rather than
// naming a file of keys to type.
func vimExMode(c invocation) bool {
	if c.name == "ex" {
		return true
	}
	for _, w := range c.args() {
		switch w.text {
		case "-e", "-E", "-es", "-Es":
			return true
		case "--":
			return false
		}
	}
	return false
}

// debuggerReads reports whether gdb or lldb reads commands from its
// standard input: gdb unless -batch (which exits after its -x files and
// -ex commands), lldb unless -b (--batch); both when told to run
// /dev/stdin as a command file.
func debuggerReads(c invocation) bool {
	reads := true
	args := c.args()
	for i, w := range args {
		t := w.text
		switch {
		case c.name == "gdb" && (t == "-batch" || t == "--batch" || t == "-batch-silent" || t == "--batch-silent"):
			reads = false
		case c.name == "lldb" && (t == "-b" || t == "--batch"):
			reads = false
		}
		if i > 0 && stdinFile[t] {
			if p := args[i-1].text; p == "-x" || p == "--command" || p == "-s" || p == "--source" {
				return true
			}
		}
	}
	return reads
}

// lldbFiles are lldb's options that name a file of its commands.
var lldbFiles = []string{"-s", "--source", "-S", "--source-before-file", "-K", "--source-on-crash"}

// tmuxFiles returns the files tmux reads its commands from: -f, and the
// files of source-file (source) among its commands.
func tmuxFiles(args []arg) []arg {
	files := optionFiles(args, "-f")
	for i, w := range args {
		if w.text != "source-file" && w.text != "source" {
			continue
		}
		for _, f := range args[i+1:] {
			if f.text == ";" || f.text == `\;` {
				break
			}
			if !strings.HasPrefix(f.text, "-") {
				files = append(files, f)
			}
		}
	}
	return files
}

// More programs that read their commands or program on their standard
// input when given none: REPLs whose commands reach a shell (ghci's :!,
// irb's and groovysh's system and backquotes, OCaml's Sys.command,
// kotlinc's ProcessBuilder), gnuplot (system, !cmd), lftp (!cmd), m4
// (syscmd, esyscmd) and SQL*Plus (HOST, !). Each reads the program or
// command files it is given as such (files of a download run it) and,
// given none, its standard input.

// stdinReader describes one such program: the options that take a value,
// those whose value is commands written inline (after which it reads no
// input, except for those in keepsReading), those whose value names a
// command file (after which it reads none either, except for the startup
// files in keepsReading), and whether its operands are command files
// (else the first is what it works on: a host, a logon).
type stdinReader struct {
	values, inline, files, keepsReading map[string]bool
	operandFiles                        bool
}

var stdinReaders = map[string]stdinReader{
	"ghci":     {values: set("-i", "-package", "-ghci-script"), inline: set("-e"), files: set("-ghci-script"), keepsReading: set("-ghci-script")},
	"irb":      {values: set("-I", "-r", "--context-mode", "--prompt", "--back-trace-limit"), operandFiles: true},
	"groovysh": {values: set("-cp", "-classpath", "--classpath", "-D", "-T", "--terminal")},
	"ocaml":    {values: set("-I", "-open", "-ppx", "-init"), files: set("-init"), keepsReading: set("-init"), operandFiles: true},
	"kotlinc":  {values: set("-cp", "-classpath", "-d", "-jvm-target", "-language-version", "-api-version", "-script-templates"), inline: set("-e", "-expression"), files: set("-script"), operandFiles: true},
	"gnuplot":  {values: set("-c"), inline: set("-e"), files: set("-c"), operandFiles: true},
	"lftp":     {values: set("-p", "-u", "--user", "--password", "--env-password"), inline: set("-c", "-e"), files: set("-f"), keepsReading: set("-e")},
	"m4": {values: set("-D", "--define", "-U", "--undefine", "-I", "--include", "-o", "--error-output", "--debugfile",
		"-F", "--freeze-state", "-R", "--reload-state", "-l", "--arglength", "-L", "--nesting-limit", "-t", "--trace"),
		files: set("-R", "--reload-state"), operandFiles: true},
	"sqlplus": {values: set("-M", "-MARKUP", "-R", "-C", "-F"), operandFiles: false},
}

// readsCommands judges a program of stdinReaders: its inline commands are
// inline code (a shell command among them judged as a script, through
// inlineCommands), and it reads its standard input unless it was given a
// program or command file, or inline commands after which it stops.
func (a *auditor) readsCommands(c invocation) cmdInfo {
	spec := stdinReaders[c.name]
	args := c.args()
	reads := true
	for i := 0; i < len(args); i++ {
		t := args[i].text
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case t == "-":
			return cmdInfo{name: c.name, stdinScript: true}
		case spec.inline[flag]:
			w, ok := optValue(args, &i, val, joined)
			if !ok {
				continue
			}
			reads = reads && spec.keepsReading[flag]
			a.add(CodeInlineCode, w.path, "runs "+quoted(c.name)+" commands written inline in the wiring")
			if w.lit {
				a.codeHeuristics(w.text, w.path)
				a.inlineCommands(c.name, w.text, w.path, c.depth) // inlinecalls.go
			}
		case spec.files[flag]:
			if _, ok := optValue(args, &i, val, joined); ok {
				reads = reads && spec.keepsReading[flag] // an init file, then the REPL
			}
		case spec.values[flag] && !joined:
			i++
		case strings.HasPrefix(t, "@") && c.name == "sqlplus":
			reads = false // @script runs a file of commands
		case !strings.HasPrefix(t, "-") && spec.operandFiles:
			return cmdInfo{name: c.name} // a program file, then its own arguments
		}
	}
	return cmdInfo{name: c.name, stdinScript: reads}
}

// readerFiles returns the files of commands a program of stdinReaders
// runs: those its options name, its operands when they are programs, and
// SQL*Plus's @scripts.
func readerFiles(c invocation) []arg {
	spec := stdinReaders[c.name]
	args := c.args()
	var files []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case spec.files[flag]:
			if w, ok := optValue(args, &i, val, joined); ok {
				files = append(files, w)
			}
		case spec.values[flag] && !joined, spec.inline[flag] && !joined:
			i++
		case strings.HasPrefix(t, "@") && len(t) > 1 && c.name == "sqlplus":
			w := args[i]
			w.text = t[1:]
			files = append(files, w)
		case !strings.HasPrefix(t, "-") && spec.operandFiles:
			if c.name == "m4" || c.name == "gnuplot" {
				files = append(files, args[i]) // every operand is read in turn
				continue
			}
			return append(files, args[i])
		}
	}
	return files
}
