package assess

import (
	"regexp"
	"slices"
	"strings"
)

// Interpreters whose options are whole words rather than clusters of
// letters (kotlin -no-reflect, erl -pa dir…): the program written inline
// follows one of their code options, and nothing else of theirs is read
// as a flag cluster, so that -no-reflect is not taken for -e.

// wordEvaluator is one such interpreter: the options that take the
// program, those that take a value (skipped with it), and whether every
// word is an option or a value (erl: -pa dir dir -eval …), so that the
// program may come after any of them rather than before the first operand.
type wordEvaluator struct {
	code, value map[string]bool
	file        map[string]bool // options whose value is the program's file (R -f)
	allOptions  bool
	// names: a code option's value that is only a name (matlab -batch
	// run_server) runs the script or function of that name, a file of
	// the project, not a program written inline.
	names bool
}

// bareName matches a program that is only the name of a script or a
// function, called without arguments (run_server, main(), main;).
var bareName = regexp.MustCompile(`^\s*[A-Za-z]\w*\s*(\(\s*\))?\s*;?\s*$`)

var wordEvaluators = map[string]wordEvaluator{
	"r":         {code: set("-e"), value: set("-f", "--file", "--args"), file: set("-f", "--file")},
	"kotlin":    {code: set("-e", "-expression"), value: set("-cp", "-classpath", "-howtorun", "-J")},
	"scala":     {code: set("-e", "--execute-scala", "--execute-script"), value: set("-cp", "-classpath", "--classpath", "-S", "--scala-version", "--dep", "--dependency")},
	"scala-cli": {code: set("-e", "--execute-scala", "--execute-script"), value: set("-cp", "--classpath", "-S", "--scala-version", "--dep", "--dependency")},
	"ghc":       {code: set("-e"), value: set("-package", "-i", "-o", "-odir", "-hidir", "-outputdir")},
	"clojure":   {code: set("-e", "--eval"), value: set("-Sdeps", "-Scp", "-J", "-i", "--init")},
	"clj":       {code: set("-e", "--eval"), value: set("-Sdeps", "-Scp", "-J", "-i", "--init")},
	"nbb":       {code: set("-e", "--eval"), value: set("--classpath", "--config")},
	"janet":     {code: set("-e"), value: set("-l", "-m", "-c", "-p")},
	"qjs":       {code: set("-e", "--eval"), value: set("-I", "--include", "--stack-size")},
	"hy":        {code: set("-c"), value: set("-m")},
	"erl":       {code: set("-eval"), allOptions: true},
	// The JDK's script runner: without -e or -f it reads its program from
	// the standard input, whatever words follow.
	"jrunscript": {code: set("-e"), value: set("-cp", "-classpath", "-l", "-encoding", "-f"), file: set("-f"),
		allOptions: true},
	// GNOME's JavaScript: gjs -c CODE.
	"gjs": {code: set("-c", "--command"), value: set("-I", "--include-path", "--coverage-prefix", "--coverage-output")},
	// Lisps and Schemes whose options are words: ECL, CLISP, Clozure CL,
	// Gambit, CHICKEN, chibi-scheme, MIT Scheme.
	"ecl":          {code: set("-eval", "--eval"), value: set("-load", "--load", "-dir", "--dir", "-shell", "--shell", "-o", "-c", "-s")},
	"clisp":        {code: set("-x"), value: set("-i", "-M", "-m", "-L", "-E", "-p", "-on-error", "-B", "-K", "-t", "-c", "-o")},
	"ccl":          {code: set("-e", "--eval"), value: set("-l", "--load", "-I", "--image-name", "-K", "-R", "-S", "-T", "-Z")},
	"ccl64":        {code: set("-e", "--eval"), value: set("-l", "--load", "-I", "--image-name", "-K", "-R", "-S", "-T", "-Z")},
	"gsi":          {code: set("-e")},
	"csi":          {code: set("-e", "-eval", "-p", "-print", "-P", "-pretty-print"), value: set("-R", "-require-extension", "-I", "-include-path", "-k", "-keyword-style")},
	"chicken-csi":  {code: set("-e", "-eval", "-p", "-print", "-P", "-pretty-print"), value: set("-R", "-require-extension", "-I", "-include-path", "-k", "-keyword-style")},
	"chibi-scheme": {code: set("-e", "-p"), value: set("-I", "-A", "-m", "-x", "-l", "-h", "-D")},
	"mit-scheme":   {code: set("--eval"), value: set("--load", "--heap", "--band", "--library", "--stack")},
	// Numeric environments: Octave, MATLAB, Scilab, Maxima, Wolfram.
	"octave":        {code: set("--eval"), value: set("-p", "--path", "--texi-macros-file", "--info-file", "--info-program", "--doc-cache-file", "--image-path"), names: true},
	"matlab":        {code: set("-batch", "-r"), value: set("-sd", "-logfile", "-c", "-wait"), names: true},
	"scilab":        {code: set("-e"), value: set("-f", "-l", "-mem"), file: set("-f"), names: true},
	"scilab-cli":    {code: set("-e"), value: set("-f", "-l", "-mem"), file: set("-f"), names: true},
	"maxima":        {code: set("--batch-string", "-r", "--run-string"), value: set("-b", "--batch", "-p", "--preload", "-l", "--lisp", "-u", "--use-version", "--userdir")},
	"wolframscript": {code: set("-code", "-c"), value: set("-file", "-f", "-script", "-local", "-format", "-linewise", "-charset", "-timeout"), file: set("-file", "-f", "-script")},
	"pike":          {code: set("-e")},
	"gforth":        {code: set("-e", "--evaluate"), value: set("-i", "--image-file", "-m", "--dictionary-size", "-d", "--data-stack-size")},
	// Prologs: a goal to run (swipl -g GOAL, -t GOAL; gprolog
	// --entry-goal GOAL …) is a program written inline unless it is only
	// the name of a predicate of the program loaded (swipl -g main -t halt
	// server.pl).
	"swipl":         {code: set("-g", "-t"), value: set("-f", "-F", "-s", "-l", "-x", "-p", "-o", "-b"), names: true},
	"gprolog":       {code: set("--init-goal", "--entry-goal", "--query-goal"), value: set("--consult-file"), names: true},
	"yap":           {code: set("-g", "-z"), value: set("-l", "-L", "-b", "-s", "-h", "-t"), names: true},
	"scryer-prolog": {code: set("-g", "--goal"), names: true},
	"tpl":           {code: set("-g", "--goal"), value: set("-l", "--library"), names: true},
	"sicstus":       {code: set("--goal"), value: set("-l", "-r"), names: true},
	"xsb":           {code: set("-e"), names: true},
	// Google's zx: zx -e CODE; a script named by its URL is fetched
	// (urlScriptRunners).
	"zx": {code: set("-e", "--eval"), value: set("--shell", "--prefix", "--postfix", "--cwd", "--ext", "--registry", "--env")},
}

// zx judges zx: --install installs the packages its script imports when it
// starts (network use); the rest as a word interpreter.
func (a *auditor) zx(c invocation) cmdInfo {
	for _, w := range c.args() {
		if w.text == "--install" || w.text == "-i" {
			a.inferred.Network = true
		}
		if w.text == "--" || !strings.HasPrefix(w.text, "-") {
			break
		}
	}
	return a.wordInterpreter(c)
}

// crystalValueFlags are the options of crystal eval that take a value.
var crystalValueFlags = set("-D", "--define", "-O", "--mcpu", "--mattr", "--mcmodel", "--warnings", "--exclude-warnings",
	"--link-flags", "--prelude", "--emit", "--target", "--threads")

// crystal judges the Crystal compiler: crystal eval runs the program its
// words make, joined with blanks (its options may stand among them), or,
// without words, the program on its standard input; so does crystal i, the
// interpreter, without a file.
func (a *auditor) crystal(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	args := c.args()
	if len(args) == 0 {
		return info
	}
	switch args[0].text {
	case "i", "interactive":
		info.stdinScript = len(skipFlags(args[1:], crystalValueFlags)) == 0
		return info
	case "eval":
	default:
		return info
	}
	var words []arg
	for i := 1; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			words = append(words, args[i+1:]...)
			i = len(args)
		case len(t) > 1 && t[0] == '-':
			if crystalValueFlags[t] {
				i++
			}
		default:
			words = append(words, args[i])
		}
	}
	if len(words) == 0 {
		info.stdinScript = true
		return info
	}
	code := joinArgs(words)
	a.add(CodeInlineCode, code.path, "runs a "+quoted(c.name)+" program written inline in the wiring")
	if code.lit {
		a.inlineCode(code.text, code.path)
		a.inlineCommands(c.name, code.text, code.path, c.depth) // inlinecalls.go
	} else {
		info.runsArg = true
	}
	return info
}

// wordInterpreter judges an interpreter of wordEvaluators: an inline
// program is inline_code; without words it reads its program from stdin.
func (a *auditor) wordInterpreter(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	ev := wordEvaluators[c.name]
	args := c.args()
	if c.name == "clojure" || c.name == "clj" {
		a.clojureCLI(c) // clojure.go
	}
	if len(args) == 0 && c.name != "erl" {
		info.stdinScript = true // the REPL reads what is piped in
		return info
	}
	named := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			return info
		}
		if t == "-" {
			info.stdinScript = true // the program is read from the standard input
			return info
		}
		name, val, joined := strings.Cut(t, "=")
		if ev.code[name] {
			code := arg{text: val, path: args[i].path, lit: args[i].lit}
			if !joined {
				if i+1 >= len(args) {
					break
				}
				code = args[i+1]
			}
			if ev.names && code.lit && bareName.MatchString(code.text) {
				// matlab -batch run_server, swipl -g main: the project's
				// own script or predicate; a later option may still hold
				// a program (swipl -g main -t 'shell(…)').
				named = true
				if !joined {
					i++
				}
				continue
			}
			a.add(CodeInlineCode, code.path, "runs a "+quoted(c.name)+" program written inline in the wiring")
			if code.lit {
				a.inlineCode(code.text, code.path)
				a.inlineCommands(c.name, code.text, code.path, c.depth) // inlinecalls.go
			}
			return info
		}
		switch {
		case ev.file[name]:
			if v, ok := optValue(args, &i, val, joined); ok && stdinFile[v.text] {
				info.stdinScript = true // R -f -, R --file=/dev/stdin
			}
			return info
		case ev.value[name] && !joined:
			i++
		case !strings.HasPrefix(t, "-") && !ev.allOptions:
			return info // the script file: what follows is its own
		}
	}
	if named {
		return info
	}
	// Options alone (R --vanilla, clojure -M, erl -sname n) start the
	// REPL, which reads what is piped in; erl's shell not with -noshell or
	// -detached, clojure's not for -X, -T or -P, and ghc has none.
	info.stdinScript = replReads(c.name, args)
	return info
}

// replReads reports whether a word interpreter given options alone reads
// its program from the standard input.
func replReads(name string, args []arg) bool {
	switch name {
	case "ghc":
		return false
	case "erl":
		return !slices.ContainsFunc(args, func(w arg) bool { return w.text == "-noshell" || w.text == "-detached" })
	case "clojure", "clj":
		return !slices.ContainsFunc(args, func(w arg) bool {
			return strings.HasPrefix(w.text, "-X") || strings.HasPrefix(w.text, "-T") || w.text == "-P"
		})
	}
	return true
}
