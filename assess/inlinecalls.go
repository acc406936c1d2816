package assess

import (
	"regexp"
	"strings"
)

// Command lines in inline programs. An inline program that hands a string
// to its language's call that runs a command line through /bin/sh (os.system
// and os.popen, subprocess with shell=True, child_process's exec and
// execSync, system, exec, backquotes and qx, shell_exec, passthru, popen,
// os.execute, io.popen, awk's system and its pipes, R's system, shell and
// pipe, AppleScript's do shell script, Elixir's System.shell and :os.cmd,
// Erlang's os:cmd and open_port spawn, Racket's and Guile's system,
// process and open-pipe, uiop:run-program of a string) runs that string as
// a shell script: the string, written literally in the program, is judged
// as one (python -c "import os; os.system('curl … | sh')" pipes a download
// into a shell; os.system('npx -y pkg') runs an unpinned package). The
// calls that take the program and its arguments as a list of strings
// (subprocess.run(['npx', '-y', 'pkg']), spawn('npx', ['-y', 'pkg']),
// execFile, system('npx', '-y', 'pkg') in Perl and Ruby, R's system2,
// Elixir's System.cmd, system* in Scheme, Java's ProcessBuilder, Groovy's
// [...].execute(), Clojure's sh) run that command line without a shell: it
// is judged as the command it is; so are a string a call splits at blanks
// into one (Groovy's "…".execute(), Java's Runtime.exec("…"), babashka's
// shell and process), a Julia command literal (run(`npx -y pkg`)) and the
// words of Tcl's exec and Expect's spawn (Tcl's exec runs a pipeline of
// its own: exec curl … | sh pipes a download into a shell). Strings built
// at run time are not read.

// strLit matches a string literal in single or double quotes on one line,
// its text in the first or second group.
const strLit = `(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)")`

// dqLit matches a string literal in double quotes on one line, its text in
// the first group (Lisps, Erlang and AppleScript quote strings so).
const dqLit = `"((?:[^"\\\n]|\\.)*)"`

// oneString follows a string literal that is a call's only argument: the
// same call given a list (system('npx', '-y', 'pkg')) runs no shell.
const oneString = `(?:\s*[^\s,]|\s*$)`

// callKind is how a call's match is read.
type callKind uint8

const (
	callShell callKind = iota // the literal in the groups is a command line for /bin/sh
	callArgv                  // the first group holds the literals of the program and its arguments
	callSplit                 // the first group holds literals: the first is split at blanks, the rest follow
	callJulia                 // the first group is a Julia command literal's text
	callTcl                   // the first group is the words of Tcl's exec or Expect's spawn
)

// inlineCall is one call of a language that runs a command.
type inlineCall struct {
	kind callKind
	re   *regexp.Regexp
}

func shellCall(re string) inlineCall { return inlineCall{callShell, regexp.MustCompile(re)} }
func argvCall(re string) inlineCall  { return inlineCall{callArgv, regexp.MustCompile(re)} }
func splitCall(re string) inlineCall { return inlineCall{callSplit, regexp.MustCompile(re)} }

// strList matches literals separated by commas or blanks (a list's items).
const strList = strLit + `(?:\s*,?\s*` + strLit + `)*`

// inlineCalls are, per language, the calls that run a command.
var inlineCalls = map[string][]inlineCall{
	"python": {
		shellCall(`\b(?:os\.system|os\.popen|subprocess\.getoutput|subprocess\.getstatusoutput|commands\.getoutput)\s*\(\s*[rRuU]?` + strLit),
		argvCall(`\b(?:subprocess\.(?:run|call|check_call|check_output|Popen)|os\.execvp?e?|pty\.spawn)\s*\(\s*\[([^\]\n]*)\]`),
	},
	"node": {
		shellCall(`\b(?:exec|execSync)\s*\(\s*` + strLit),
		shellCall("\\b(?:exec|execSync)\\s*\\(\\s*`([^`$\\\\]*)`"),
		argvCall(`\b(?:spawn|spawnSync|execFile|execFileSync)\s*\(\s*(` + strLit + `\s*,\s*\[[^\]\n]*)\]`),
	},
	"perl": {
		shellCall(`\b(?:system|exec)\s*\(?\s*` + strLit + oneString),
		shellCall("`([^`\n]*)`"),
		shellCall(`\bqx\s*(?:\{([^}\n]*)\}|\(([^)\n]*)\)|/([^/\n]*)/)`),
		argvCall(`\b(?:system|exec)\s*\(?\s*(` + strLit + `(?:\s*,\s*` + strLit + `)+)`),
	},
	"ruby": rubyCalls,
	"php": {
		shellCall(`\b(?:system|exec|shell_exec|passthru|popen|proc_open)\s*\(\s*` + strLit),
		shellCall("`([^`\n]*)`"),
	},
	"lua": {
		shellCall(`\b(?:os\.execute|io\.popen)\s*\(?\s*` + strLit),
	},
	"awk": {
		shellCall(`\bsystem\s*\(\s*` + dqLit),
		shellCall(dqLit + `\s*\|\s*getline`),
		shellCall(`\|&?\s*` + dqLit),
	},
	"rscript": {
		shellCall(`\b(?:system|shell|pipe)\s*\(\s*(?:(?:command|cmd|description)\s*=\s*)?` + strLit),
		argvCall(`\b(?:system2|processx::run)\s*\(\s*(?:command\s*=\s*)?(` + strLit + `(?:\s*,\s*(?:args\s*=\s*)?c\(\s*` + strList + `\s*\))?)`),
	},
	"osascript": {
		shellCall(`\bdo\s+shell\s+script\s+` + dqLit),
		shellCall(`\.doShellScript\s*\(\s*` + strLit),
	},
	"elixir": {
		shellCall(`(?:\bSystem\.shell|:os\.cmd)\s*\(\s*(?:~c)?` + strLit),
		argvCall(`\bSystem\.cmd\s*\(\s*(` + strLit + `\s*,\s*\[[^\]\n]*)\]`),
	},
	"erl": {
		shellCall(`\bos:cmd\s*\(\s*` + dqLit),
		shellCall(`\bopen_port\s*\(\s*\{\s*spawn\s*,\s*` + dqLit),
	},
	"scheme": {
		shellCall(`\((?:system|system/exit-code|process|open-input-pipe|open-output-pipe|open-pipe|shell-command)\s+` + dqLit),
		shellCall(`\buiop:(?:run|launch)-program\s+` + dqLit),
		shellCall(`\((?:ext|si|asdf|excl|ccl):(?:shell|system|run-shell-command)\s+` + dqLit),
		argvCall(`\((?:system\*|system\*/exit-code|process\*|open-pipe\*\s+[\w:-]+)\s+(` + dqLit + `(?:\s+` + dqLit + `)*)`),
		argvCall(`\b(?:sb-ext:run-program\s+(` + dqLit + `\s+'\((?:\s*` + dqLit + `)*)|uiop:(?:run|launch)-program\s+'\(((?:\s*` + dqLit + `)+))`),
	},
	// MATLAB's, Octave's and Scilab's system, unix, dos and host, Maxima's
	// system, Wolfram's Run, Pike's Process.system and Forth's system.
	"matlab": {
		shellCall(`\b(?:system|unix|dos|host|unix_[gsw])\s*\(\s*` + strLit),
	},
	"maxima": {shellCall(`\bsystem\s*\(\s*` + dqLit)},
	// Emacs Lisp: shell-command and its kin hand a command line to a
	// shell; call-process, process-lines, start-process and make-process
	// run a program with arguments (nil, t and 0 among them are not
	// words).
	"emacs": {
		shellCall(`\((?:shell-command|shell-command-to-string|async-shell-command|call-process-shell-command|process-file-shell-command)\s+` + dqLit),
		shellCall(`\(start-(?:file-)?process-shell-command\s+(?:"(?:[^"\\\n]|\\.)*"|nil)\s+(?:"(?:[^"\\\n]|\\.)*"|nil)\s+` + dqLit),
		argvCall(`\((?:call-process|process-lines)\s+(` + dqLit + `(?:\s+(?:nil|t|0|` + dqLit + `))*)`),
		argvCall(`\(start-process\s+(?:"(?:[^"\\\n]|\\.)*"|nil)\s+(?:"(?:[^"\\\n]|\\.)*"|nil)\s+(` + dqLit + `(?:\s+` + dqLit + `)*)`),
		argvCall(`:command\s+(?:'\(|\(list\s+)\s*(` + dqLit + `(?:\s+` + dqLit + `)*)`),
	},
	// Prolog's shell/1,2 (SWI, YAP, Trealla, Scryer's library(os)),
	// system/1,2 and GNU Prolog's popen/3 and exec/4,5: a command line
	// /bin/sh runs, written as a quoted atom or a string.
	"prolog": {shellCall(`\b(?:shell|system|popen|exec)\s*\(\s*` + strLit)},
	// Puppet's exec resources and Chef's execute resources (with Ruby's
	// calls): their command lines.
	"puppet":        {shellCall(`\bcommand\s*=>\s*` + strLit)},
	"chef":          append([]inlineCall{shellCall(`\bexecute\s*\(?\s*` + strLit)}, rubyCalls...),
	"wolframscript": {shellCall(`\bRun\s*\[\s*` + dqLit)},
	"pike":          {shellCall(`\bProcess\.(?:system|popen)\s*\(\s*` + dqLit)},
	"gforth":        {shellCall(`\bs"\s([^"\n]*)"\s+system\b`)},
	"java":          javaCalls,
	"groovy": append([]inlineCall{
		argvCall(`\[\s*(` + strLit + `(?:\s*,\s*` + strLit + `)*)\s*\]\s*\.execute\s*\(`),
		splitCall(`(` + strLit + `)\s*\.execute\s*\(`),
	}, javaCalls...),
	"clojure": {
		argvCall(`\((?:[\w.-]+/)?sh\s+(` + dqLit + `(?:\s+` + dqLit + `)*)`),
		splitCall(`\((?:[\w.-]+/)?(?:shell|process)\s+(` + dqLit + `(?:\s+` + dqLit + `)*)`),
	},
	"julia": {
		{callJulia, regexp.MustCompile("`([^`\n]*)`")},
	},
	// gnuplot's system and !cmd, lftp's !cmd, ghci's :! and
	// System.Process's string commands (cmdreaders.go).
	"gnuplot": {
		shellCall(`\bsystem\s*\(?\s*` + strLit),
		shellCall(`(?:^|;)\s*!([^;\n]+)`),
	},
	"lftp": {shellCall(`(?:^|;)\s*!([^;\n]+)`)},
	"ghci": {
		shellCall(`(?:^|;|\n)\s*:!([^;\n]+)`),
		shellCall(`\b(?:callCommand|system|spawnCommand)\s+` + dqLit),
	},
	"tclsh": {
		{callTcl, regexp.MustCompile(`(?:^|[\[;{\s])(?:exec|spawn)\s+((?:[^\n;\]{}]|\{[^\n{}]*\})+)`)},
	},
	// GJS: GLib's spawn calls (a command line is split into words, as
	// g_shell_parse_argv does, with no shell) and Gio.Subprocess.
	"gjs": {
		splitCall(`\bGLib\.spawn_command_line_(?:sync|async)\s*\(\s*(` + strLit + `)`),
		argvCall(`\bGLib\.spawn_(?:sync|async|async_with_pipes)\s*\(\s*(?:null|'[^'\n]*'|"[^"\n]*")\s*,\s*\[([^\]\n]*)\]`),
		argvCall(`(?:\bGio\.Subprocess\.new|\.spawnv)\s*\(\s*\[([^\]\n]*)\]`),
		argvCall(`\bnew\s+Gio\.Subprocess\s*\(\s*\{[^}\n]*?\bargv\s*:\s*\[([^\]\n]*)\]`),
	},
	// jrunscript's exec and Nashorn's $EXEC split a command line at
	// blanks; Java's calls besides.
	"jrunscript": append([]inlineCall{
		splitCall(`(?:^|[^.\w$])(?:exec|\$EXEC)\s*\(\s*(` + strLit + `)\s*[,)]`),
	}, javaCalls...),
	// Crystal: Ruby's calls, and Process.run and Process.new given
	// shell: true or their arguments' list.
	"crystal": append([]inlineCall{
		shellCall(`\bProcess\.(?:run|new)\s*\(\s*` + strLit + `[^)\n]*\bshell\s*:\s*true`),
		argvCall(`\bProcess\.(?:run|new|exec)\s*\(\s*(` + strLit + `\s*,\s*(?:args\s*:\s*)?\[[^\]\n]*)\]`),
	}, rubyCalls...),
}

// rubyCalls are Ruby's calls that run a command.
var rubyCalls = []inlineCall{
	shellCall(`(?:\b(?:system|exec|spawn)|IO\.popen|Open3\.\w+)\s*\(?\s*` + strLit + oneString),
	shellCall("`([^`\n]*)`"),
	shellCall(`%x(?:\{([^}\n]*)\}|\(([^)\n]*)\))`),
	argvCall(`\b(?:system|exec|spawn)\s*\(?\s*(` + strLit + `(?:\s*,\s*` + strLit + `)+)`),
}

// zxCalls are zx's $`…` commands, which its shell runs (a command whose
// text interpolates a value is not read).
var zxCalls = []inlineCall{
	shellCall("\\$(?:\\.sync|\\([^)\\n]*\\))?`([^`$\\\\]*)`"),
}

// javaCalls are the calls of Java's library that run a command, for
// every language on the JVM.
var javaCalls = []inlineCall{
	argvCall(`\bProcessBuilder\s*\(\s*(?:(?:List\.of|Arrays\.asList|listOf)\s*\(\s*)?(` + strLit + `(?:\s*,\s*` + strLit + `)*)`),
	argvCall(`\.exec\s*\(\s*(?:new\s+String\s*\[\s*\]\s*\{|arrayOf\s*\()\s*(` + strLit + `(?:\s*,\s*` + strLit + `)*)`),
	splitCall(`\bRuntime\.getRuntime\s*\(\s*\)\s*\.exec\s*\(\s*(` + strLit + `)\s*\)`),
}

// inlineLangs maps the interpreters whose calls are another's to that
// language.
var inlineLangs = map[string]string{
	"bun": "node", "tsx": "node", "ts-node": "node", "deno": "node", "mongosh": "node", "mongo": "node",
	"emacsclient": "emacs", "r": "rscript", "racket": "scheme", "guile": "scheme", "sbcl": "scheme", "expect": "tclsh",
	"jshell": "java", "kotlin": "java", "kotlinc": "java", "scala": "java", "scala-cli": "java",
	"clj": "clojure", "bb": "clojure", "nbb": "clojure", "zx": "node", "rake": "ruby", "chef-apply": "chef",
	"ecl": "scheme", "clisp": "scheme", "ccl": "scheme", "ccl64": "scheme", "gsi": "scheme", "csi": "scheme",
	"chicken-csi": "scheme", "chibi-scheme": "scheme", "mit-scheme": "scheme",
	"octave": "matlab", "scilab": "matlab", "scilab-cli": "matlab",
	"swipl": "prolog", "gprolog": "prolog", "yap": "prolog", "scryer-prolog": "prolog", "tpl": "prolog",
	"sicstus": "prolog", "xsb": "prolog",
}

// pythonShellTrue matches the subprocess calls that take a string as a
// command line because shell=True is among their arguments.
var pythonShellTrue = regexp.MustCompile(`\bsubprocess\.(?:run|call|check_call|check_output|Popen)\s*\(\s*[rRuU]?` + strLit + `[^)\n]*\bshell\s*=\s*True`)

// stringLits matches each string literal of a list.
var stringLits = regexp.MustCompile(strLit)

// literalEscapes undoes the escapes of a quoted literal that matter to a
// command line: a quote, a backslash, a line feed and a tab.
var literalEscapes = strings.NewReplacer(`\'`, `'`, `\"`, `"`, `\\`, `\`, `\n`, "\n", `\t`, "\t")

// maxInlineCalls bounds the command lines read from one inline program,
// maxInlineArgs the words of one.
const maxInlineCalls, maxInlineArgs = 8, 64

// inlineCommands judges the command lines an inline program of language
// lang hands to a shell, as scripts that shell runs, and the commands it
// runs without one.
func (a *auditor) inlineCommands(lang, code, path string, depth int) {
	name := lang
	if l, ok := inlineLangs[lang]; ok {
		lang = l
	}
	a.runsDownloadedCode(name, lang, code, path) // inlinefetch.go
	calls := inlineCalls[lang]
	if lang == "node" && !strings.Contains(code, "child_process") {
		calls = nil // exec( is RegExp's too
	}
	if name == "zx" {
		calls = append(zxCalls[:len(zxCalls):len(zxCalls)], calls...)
	}
	if len(calls) == 0 {
		return
	}
	if lang == "python" && strings.Contains(code, "shell") {
		calls = append(calls[:len(calls):len(calls)], inlineCall{callShell, pythonShellTrue})
	}
	n := 0
	for _, call := range calls {
		for _, m := range call.re.FindAllStringSubmatch(code, maxInlineCalls) {
			if call.kind == callShell {
				text := ""
				for _, g := range m[1:] {
					if g != "" {
						text = g
						break
					}
				}
				if text = strings.TrimSpace(literalEscapes.Replace(text)); text == "" {
					continue
				}
				if n++; n > maxInlineCalls {
					return
				}
				a.add(CodeShellExec, path, "the inline "+quoted(name)+" program runs a command line through a shell")
				a.inferred.Exec = true
				sc := &scan{a: a, path: path, depth: depth + 1, lenient: true}
				sc.script(text)
				continue
			}
			list := ""
			for _, g := range m[1:] {
				if g != "" {
					list = g
					break
				}
			}
			if call.kind == callTcl {
				// Tcl runs exec's pipeline itself: written as a POSIX
				// script, what it pipes into what is judged.
				script, ok := tclScript(list)
				if !ok {
					continue
				}
				if n++; n > maxInlineCalls {
					return
				}
				a.inferred.Exec = true
				sc := &scan{a: a, path: path, depth: depth + 1, lenient: true}
				sc.script(script)
				continue
			}
			argv, ok := inlineArgv(call.kind, list, path)
			if !ok || len(argv) == 0 || argv[0].text == "" {
				continue
			}
			if n++; n > maxInlineCalls {
				return
			}
			a.inferred.Exec = true
			a.command(argv, depth+1, ctxNested)
		}
	}
}

// inlineArgv reads the command of a call that runs one without a shell:
// false when it holds something only known at run time.
func inlineArgv(kind callKind, list, path string) ([]arg, bool) {
	var words []string
	switch kind {
	case callJulia:
		return juliaWords(list, path)
	case callSplit:
		for i, lit := range stringLits.FindAllStringSubmatch(list, maxInlineArgs) {
			if text := literalEscapes.Replace(lit[1] + lit[2]); i == 0 {
				words = append(words, strings.Fields(text)...)
			} else {
				words = append(words, text)
			}
		}
	default:
		for _, lit := range stringLits.FindAllStringSubmatch(list, maxInlineArgs) {
			words = append(words, literalEscapes.Replace(lit[1]+lit[2]))
		}
	}
	argv := make([]arg, 0, len(words))
	for _, w := range words[:min(len(words), maxInlineArgs)] {
		argv = append(argv, arg{text: w, path: path, lit: true})
	}
	return argv, true
}

// juliaWords splits a Julia command literal's text into its words: at
// blanks, with '…' taken as written and "…" and \ escaping a character.
// A $ outside single quotes interpolates a value known at run time.
func juliaWords(text, path string) ([]arg, bool) {
	var argv []arg
	var b strings.Builder
	inWord := false
	for i := 0; i < len(text); i++ {
		switch ch := text[i]; {
		case ch == ' ' || ch == '\t':
			if inWord {
				argv = append(argv, arg{text: b.String(), path: path, lit: true})
				b.Reset()
				inWord = false
			}
		case ch == '$':
			return nil, false
		case ch == '\'':
			end := strings.IndexByte(text[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			b.WriteString(text[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case ch == '"':
			j := i + 1
			for ; j < len(text) && text[j] != '"'; j++ {
				switch {
				case text[j] == '$':
					return nil, false
				case text[j] == '\\' && j+1 < len(text):
					j++
				}
				b.WriteByte(text[j])
			}
			if j >= len(text) {
				return nil, false
			}
			i = j
			inWord = true
		case ch == '\\' && i+1 < len(text):
			i++
			b.WriteByte(text[i])
			inWord = true
		default:
			b.WriteByte(ch)
			inWord = true
		}
		if len(argv) >= maxInlineArgs {
			break
		}
	}
	if inWord {
		argv = append(argv, arg{text: b.String(), path: path, lit: true})
	}
	return argv, true
}

// tclScript writes the words of Tcl's exec (or Expect's spawn), up to the
// ; or ] that ends the command, as a POSIX script: each word quoted, the
// pipes and redirections exec reads (|, <, >, >>, 2>, &) left as
// operators. A word Tcl substitutes at run time ($var, [cmd]) makes it
// unknown.
func tclScript(text string) (string, bool) {
	var words []string
	for s := strings.TrimSpace(text); s != "" && s[0] != ';' && s[0] != ']'; s = strings.TrimLeft(s, " \t") {
		var w string
		switch s[0] {
		case '{':
			level, end := 0, -1
			for i := 0; i < len(s) && end < 0; i++ {
				switch s[i] {
				case '{':
					level++
				case '}':
					if level--; level == 0 {
						end = i
					}
				}
			}
			if end < 0 {
				return "", false
			}
			w, s = shellQuote(s[1:end]), s[end+1:]
		case '"':
			end := strings.IndexByte(s[1:], '"')
			if end < 0 || strings.ContainsAny(s[1:1+end], "$[\\") {
				return "", false
			}
			w, s = shellQuote(s[1:1+end]), s[2+end:]
		default:
			end := strings.IndexAny(s, " \t;]")
			if end < 0 {
				end = len(s)
			}
			w, s = s[:end], s[end:]
			if strings.ContainsAny(w, "$[\\") {
				return "", false
			}
			switch w {
			case "|", "|&", "<", ">", ">>", "2>", "2>>", ">&", "&":
			default:
				if strings.HasPrefix(w, "-") && len(words) == 0 {
					continue // exec -ignorestderr, -keepnewline, --
				}
				w = shellQuote(w)
			}
		}
		words = append(words, w)
		if len(words) > maxInlineArgs {
			return "", false
		}
	}
	return strings.Join(words, " "), len(words) > 0
}

// shellQuote quotes s as one word of a POSIX script.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
