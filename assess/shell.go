package assess

import (
	"cmp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// scan walks one shell script of the wiring.
type scan struct {
	a     *auditor
	path  string // the manifest field the script came from
	depth int
	// quiet: the text is data, not a script anyone runs (an env value); only
	// a spelled-out download-and-run or decode-and-run is reported.
	quiet bool
	// lenient: the text is read by a shell that is not POSIX (cmd.exe), so a
	// parse failure is not a finding.
	lenient bool

	memo map[*syntax.CallExpr]cmdInfo
	pipe map[*syntax.BinaryCmd]bool
	// fed holds the pipeline stages that read a download, with the tool
	// that downloaded it (pipeline).
	fed map[*syntax.Stmt]string
	// vars are the literal values the script gave its variables so far,
	// and expanded how many bytes reading them has produced (shvars.go).
	vars     map[string]string
	overlong map[string]bool // variables set to a value past maxVarBytes
	exported map[string]bool // variables the commands it runs inherit (env.go)
	// secretVars are the variables the script set from the output of a
	// command that writes out credentials, with what they hold (exfil.go).
	secretVars map[string]string
	// tokenVars are the variables it set from the output of a command
	// that prints a token, with the token (tokens.go).
	tokenVars map[string]*tokenSource
	// params are the script's positional parameters, $0 first (sh -c
	// SCRIPT NAME ARG…), when they are all known; nil otherwise.
	params   []string
	expanded int
	braced   int // words brace expansion has made so far (maxBraceWords)
	// stdin, when set, says what the script's standard input holds (a
	// git credential helper's: the user's credentials); a client that
	// sends its input, reading it directly or through cat, sends that.
	// inPipe holds the statements that are stages of a pipeline, whose
	// input is the stage before.
	stdin  string
	inPipe map[*syntax.Stmt]bool
	// heldVars are the variables whose value holds downloaded or decoded
	// text (heldFetched, heldDecoded); netFDs the file descriptors the
	// script opened on a network path, with that path's kind
	// (heldtext.go).
	heldVars map[string]uint8
	netFDs   map[string]string
	// coprocs are the coprocesses the script started whose output is
	// downloaded or decoded text, by name (coproc.go).
	coprocs map[string]uint8
	// funcs are the functions the script defined, by name, inFunc those
	// whose bodies stmtsDo is reading now, and funcBits what each body
	// was found to do (heldtext.go).
	funcs    map[string]*syntax.Stmt
	inFunc   map[string]bool
	funcBits map[string]uint8
	funcCut  bool // a call back into a function being read was left out
	// funcOut holds what each function's body writes out (credentials,
	// a token), and inPrint the functions funcPrints is reading now.
	funcOut  map[string]cmdInfo
	inPrint  map[string]bool
	printCut bool
}

// script parses src and judges it. It returns what the script does as a
// whole when it is one simple command (so that `sh -c 'bash'` still reads
// stdin), a zero cmdInfo otherwise.
func (s *scan) script(src string) cmdInfo {
	a := s.a
	if s.quiet {
		// Judge on a scratch auditor and keep only the malware findings.
		sub := &auditor{m: a.m, budget: a.budget}
		inner := *s
		inner.a, inner.quiet, inner.lenient = sub, false, true
		inner.script(src)
		a.budget = sub.budget
		for _, f := range sub.findings {
			if f.Code == CodePipeToShell || f.Code == CodeObfuscatedExec {
				a.add(f.Code, f.Path, f.Message)
			}
		}
		return cmdInfo{}
	}
	if s.depth > maxDepth {
		a.limit(s.path, "scripts nested too deeply")
		return cmdInfo{}
	}
	if len(src) > maxScriptBytes {
		a.limit(s.path, "the script is longer than 16 KiB")
		return cmdInfo{}
	}
	if a.budget <= 0 {
		a.overrunAt(s.path)
		return cmdInfo{}
	}
	if bracketDepth(src) > 2*maxNesting {
		// The parser's time grows with the square of nested parentheses.
		a.limit(s.path, "the script nests too deeply")
		return cmdInfo{}
	}
	src, names := placeholders(src, `'"`, '\\')
	a.placeholderLeft(s.path, nil, names)
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if !s.lenient {
			a.limit(s.path, "the script does not parse as a POSIX or bash shell script")
		} else if strings.ContainsAny(src, "|&<>^") {
			a.add(CodeShellMeta, s.path, "a shell reads this text, and it chains, pipes or redirects commands")
		}
		return cmdInfo{}
	}
	s.memo = map[*syntax.CallExpr]cmdInfo{}
	s.pipe = map[*syntax.BinaryCmd]bool{}
	if s.params != nil && hasFunc(f) {
		s.params = nil // inside a function, $1 is the function's argument
	}
	if chains(f) {
		a.add(CodeShellMeta, s.path, "the script chains, pipes, redirects or substitutes commands")
	}
	s.walk(f)
	if len(f.Stmts) == 1 && len(f.Stmts[0].Redirs) == 0 {
		if c, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok {
			info := s.memo[c]
			info.stdinScript = info.stdinScript && !f.Stmts[0].Background // a background job reads /dev/null
			return info
		}
	}
	return s.stdinReader(f.Stmts, 0)
}

// stdinReader returns, for a script of more than one command, the first
// that runs what it reads on the script's standard input as a script (sh
// -c 'echo start; sh', bash -c 'exec bash -s'): a statement of the
// script, of a list (&&, ||), a block or a subshell, or the first stage of
// a pipeline, whose standard input is not redirected. A background job
// reads /dev/null. It returns the zero cmdInfo when there is none.
func (s *scan) stdinReader(stmts []*syntax.Stmt, nest int) cmdInfo {
	if nest > maxNesting {
		return cmdInfo{}
	}
	for _, st := range stmts {
		if st.Background || readsRedirected(st) {
			continue
		}
		switch x := st.Cmd.(type) {
		case *syntax.CallExpr:
			if info := s.memo[x]; info.stdinScript {
				return cmdInfo{name: info.name, stdinScript: true}
			}
		case *syntax.BinaryCmd:
			sides := []*syntax.Stmt{x.X}
			if x.Op == syntax.AndStmt || x.Op == syntax.OrStmt {
				sides = append(sides, x.Y) // a pipeline's later stages read the stage before
			}
			if info := s.stdinReader(sides, nest+1); info.stdinScript {
				return info
			}
		case *syntax.Block:
			if info := s.stdinReader(x.Stmts, nest+1); info.stdinScript {
				return info
			}
		case *syntax.Subshell:
			if info := s.stdinReader(x.Stmts, nest+1); info.stdinScript {
				return info
			}
		}
	}
	return cmdInfo{}
}

// overrunAt reports, once per audit, that the node budget ran out.
func (a *auditor) overrunAt(path string) {
	if !a.overrun {
		a.overrun = true
		a.limit(path, "the scripts are too large to analyse")
	}
}

// chains reports whether a script does more than run one command: several
// statements, pipes, lists, redirections, substitutions or background jobs.
func chains(f *syntax.File) bool {
	if len(f.Stmts) > 1 {
		return true
	}
	found, _ := findNode(f, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.BinaryCmd, *syntax.Redirect, *syntax.CmdSubst, *syntax.ProcSubst:
			return true
		case *syntax.Stmt:
			return x.Background || x.Coprocess
		}
		return false
	})
	return found
}

// findNode reports whether a node of the tree matches, looking at no more
// than maxNodes nodes; over says the bound stopped the search.
func findNode(root syntax.Node, match func(syntax.Node) bool) (found, over bool) {
	n := 0
	syntax.Walk(root, func(node syntax.Node) bool {
		n++
		if found || n > maxNodes {
			return false
		}
		found = match(node)
		return !found
	})
	return found, n > maxNodes
}

// walk visits the tree within the nesting and node bounds.
func (s *scan) walk(root syntax.Node) {
	a := s.a
	nest := 0
	stopped := false
	// A subshell's cd ends with it: (cd ~/.aws && ls); cat credentials
	// reads ./credentials. The directory before each open subshell,
	// with the nesting it was entered at.
	type entered struct {
		nest int
		cwd  string
	}
	var subshells []entered
	syntax.Walk(root, func(n syntax.Node) bool {
		if n == nil {
			nest--
			if k := len(subshells) - 1; k >= 0 && subshells[k].nest == nest {
				a.cwd, subshells = subshells[k].cwd, subshells[:k]
			}
			return true
		}
		if stopped {
			return false
		}
		if a.budget <= 0 {
			a.overrunAt(s.path)
			stopped = true
			return false
		}
		a.budget--
		if nest >= maxNesting {
			a.limit(s.path, "the script nests too deeply")
			stopped = true
			return false
		}
		if _, ok := n.(*syntax.Subshell); ok {
			subshells = append(subshells, entered{nest, a.cwd})
		}
		nest++
		switch x := n.(type) {
		case *syntax.CallExpr:
			s.call(x)
		case *syntax.BinaryCmd:
			if (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && !s.pipe[x] {
				s.pipeline(x)
			}
		case *syntax.DeclClause:
			s.export(x)
		case *syntax.Assign:
			if x.Name != nil && !x.Naked { // `export PATH` alone sets nothing
				v := arg{path: s.path}
				if x.Value != nil {
					v.text, v.lit = wordText(x.Value)
				} else if x.Array == nil && x.Index == nil && !x.Append {
					v.lit = true // HISTFILE= sets the empty string
				}
				a.envSet(x.Name.Value, v, s.depth)
			}
			s.searchPathSet(x)
			s.setVar(x)
		case *syntax.Stmt:
			if s.stdin != "" && !s.inPipe[x] && !readsRedirected(x) {
				if c, ok := x.Cmd.(*syntax.CallExpr); ok {
					if info := s.call(c); info.sends {
						a.exfil(s.path, "sends "+s.stdin+" off the machine with "+quoted(info.name))
					}
				}
			}
			s.redirects(x)
		case *syntax.WordIter:
			s.loopOver(x)
		case *syntax.FuncDecl:
			s.defineFunc(x)
		case *syntax.CoprocClause:
			s.coproc(x)
		}
		return true
	})
}

// loopOver records the variable of a for loop over the files of a place
// that holds credentials (for f in ~/.ssh/*) as holding that place's path,
// so that a client given $f is read as given those files; over anything
// else the variable is not known, as before.
func (s *scan) loopOver(x *syntax.WordIter) {
	if x.Name == nil {
		return
	}
	delete(s.vars, x.Name.Value)
	for _, w := range x.Items {
		if t := s.listedBy(w); t != "" {
			// for f in $(ls ~/.ssh/id_*): the paths the command lists.
			if s.vars == nil {
				s.vars = map[string]string{}
			}
			s.vars[x.Name.Value] = t
			return
		}
		if t, ok := s.wordValue(w); ok && len(t) <= maxVarBytes && s.a.credentialAt(t) != "" {
			if s.vars == nil {
				s.vars = map[string]string{}
			}
			s.vars[x.Name.Value] = t
			return
		}
	}
}

// listedBy returns what cmdInfo.lists says of the one command of a word
// that is a command substitution alone ($(ls ~/.ssh/id_*), `find ~/.aws
// -type f`), or "".
func (s *scan) listedBy(w *syntax.Word) string {
	if len(w.Parts) != 1 {
		return ""
	}
	cs, ok := w.Parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return ""
	}
	c, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return ""
	}
	if t := s.call(c).lists; len(t) <= maxVarBytes {
		return t
	}
	return ""
}

// wordText returns the text of a word when it is fully literal.
func wordText(w *syntax.Word) (string, bool) {
	if t, whole := wordLiteral(w, nil); whole {
		return t, true
	}
	return "", false
}

// litPrefix returns the literal text a word starts with, up to its first
// expansion (/dev/tcp/ of /dev/tcp/$HOST/80).
func litPrefix(w *syntax.Word) string {
	t, _ := wordLiteral(w, nil)
	return t
}

// wordLiteral returns the text of w up to its first part whose value is
// not known, and whether that is the whole word. param gives the values of
// parameter expansions; without it none is known.
func wordLiteral(w *syntax.Word, param func(*syntax.ParamExp) (string, bool)) (string, bool) {
	var b strings.Builder
	ok := writeWord(&b, w, func(p syntax.WordPart) bool {
		pe, ok := p.(*syntax.ParamExp)
		if !ok || param == nil {
			return false
		}
		v, ok := param(pe)
		b.WriteString(v)
		return ok
	})
	return b.String(), ok
}

// writeWord writes the text of a word's literal parts, quoted or not, to b
// as the shell would read them, and hands every other part (a parameter, a
// substitution) to other, which writes what it knows of it and says whether
// to go on. It reports false when other stopped it.
func writeWord(b *strings.Builder, w *syntax.Word, other func(syntax.WordPart) bool) bool {
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value))
		case *syntax.SglQuoted:
			b.WriteString(sglText(x))
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(dqUnescape(l.Value))
				} else if !other(q) {
					return false
				}
			}
		default:
			if !other(p) {
				return false
			}
		}
	}
	return true
}

// dqUnescape drops the backslashes that escape a character inside double
// quotes ($ ` " \ and a newline); others stay, as the shell keeps them.
func dqUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescape drops the backslashes of an unquoted word.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	esc := false
	for _, r := range s {
		if r == '\\' && !esc {
			esc = true
			continue
		}
		esc = false
		b.WriteRune(r)
	}
	return b.String()
}

// assignPrefix returns "NAME=" when the word, whose value is not known,
// starts with a variable's name and '=' written literally (NAME="$V",
// NAME=$(cmd)), "=" when it holds an '=' written literally elsewhere
// ("$K"=x, ${K}=x, "$K=x": whatever K holds, the word holds an '='), and
// "" otherwise: the text of such a word, which env, sudo and docker -e
// read as an assignment (of a variable not known by its name for "=").
func assignPrefix(w *syntax.Word) string {
	if len(w.Parts) == 0 {
		return ""
	}
	if lit, ok := w.Parts[0].(*syntax.Lit); ok {
		if k, _, found := strings.Cut(lit.Value, "="); found && shellName(k) {
			return k + "="
		}
	}
	for _, p := range w.Parts {
		if literalEquals(p) {
			return unknownAssignment
		}
	}
	return ""
}

// unknownAssignment is the text of a script's word that sets a variable
// whose name is not known ("$K"=x).
const unknownAssignment = "="

// literalEquals reports whether a part of a word holds an '=' written
// literally, unquoted or in quotes.
func literalEquals(p syntax.WordPart) bool {
	switch p := p.(type) {
	case *syntax.Lit:
		return strings.Contains(p.Value, "=")
	case *syntax.SglQuoted:
		return strings.Contains(p.Value, "=")
	case *syntax.DblQuoted:
		return slices.ContainsFunc(p.Parts, literalEquals)
	}
	return false
}

// call judges one simple command of the script (once).
func (s *scan) call(c *syntax.CallExpr) cmdInfo {
	if info, ok := s.memo[c]; ok {
		return info
	}
	s.memo[c] = cmdInfo{}
	a := s.a
	if len(c.Args) == 0 {
		return cmdInfo{}
	}
	for _, x := range c.Assigns {
		s.searchPathSet(x) // PATH=/tmp/b:$PATH tool: for the command it runs
	}
	a.inferred.Exec = true // the shell runs a program
	argv := make([]arg, 0, len(c.Args))
	for _, w := range c.Args {
		ts, ok := s.words(w)
		if !ok {
			// env NAME="$V" cmd: the variable is known by its name.
			argv = append(argv, arg{text: assignPrefix(w), path: s.path})
			continue
		}
		for _, t := range ts {
			argv = append(argv, arg{text: t, path: s.path, lit: true})
		}
	}
	if len(argv) == 0 {
		return cmdInfo{} // $EMPTY alone runs nothing
	}
	if !argv[0].lit {
		// "$(which curl)" … names curl: the substitution prints its path.
		if prog, ok := lookedUp(c.Args[0]); ok {
			argv[0] = arg{text: prog, path: s.path, lit: true}
		}
	}
	var info cmdInfo
	name := ""
	if argv[0].lit {
		name = progName(argv[0].text)
	}
	args := c.Args
	if k := builtinPrefix(argv, args); k > 0 {
		// `builtin eval …`, `command eval …`, `command -p . FILE`: the
		// builtin runs as itself.
		argv, args, name = argv[k:], args[k:], progName(argv[k].text)
	}
	switch {
	case !argv[0].lit:
		// $(curl …) as the command: the output runs.
		if f, d := s.substs(c.Args[0]); f || d {
			s.execsText(f, d, "runs the output of a command substitution")
		}
	case name == "eval":
		if w := joinArgs(argv[1:]); w.lit {
			// The text runs in this shell: it reads and sets the
			// script's own variables.
			sc := &scan{a: a, path: s.path, depth: s.depth + 1, params: s.params,
				vars: s.vars, overlong: s.overlong, exported: s.exported, expanded: s.expanded, braced: s.braced,
				heldVars: s.heldVars, netFDs: s.netFDs}
			sc.script(w.text)
			s.vars, s.overlong, s.exported, s.expanded, s.braced = sc.vars, sc.overlong, sc.exported, sc.expanded, sc.braced
			s.heldVars, s.netFDs = sc.heldVars, sc.netFDs
			s.params = sc.params
		} else {
			f, d := false, false
			for _, w := range args[1:] {
				wf, wd := s.substs(w)
				f, d = f || wf, d || wd
			}
			s.execsText(f, d, "evaluates the output of a command substitution, or a variable that holds it")
		}
	case name == "source" || name == ".":
		if len(args) > 1 {
			if f, d := s.substs(args[1]); f || d {
				s.execsText(f, d, "sources the output of a command")
			}
		}
		if len(argv) > 1 {
			if dev := s.fdScript(argv[1]); dev != "" {
				s.a.add(CodePipeToShell, s.path, "sources what a network connection sends ("+dev+
					", through a file descriptor the script opened), so whoever is at the other end runs commands")
			}
		}
		if len(argv) > 1 && argv[1].lit && stdinFile[argv[1].text] {
			// source /dev/stdin reads its script from the pipe or
			// here-string: a shell reading stdin.
			info = cmdInfo{name: name, stdinScript: true}
		}
		if len(argv) > 1 {
			s.a.runsFetched(invocation{name: name, argv: argv, depth: s.depth})
		}
	case name == "cd" || name == "pushd" || name == "popd" || name == "chdir":
		a.chdir(name, argv[1:])
	case holdsCode(name):
		s.held(name, argv[1:])
	case name == "unset":
		s.unset(argv)
	case name == "shift" || name == "set" && len(argv) > 1:
		if name == "set" && hasWords(argv[1:], "+o", "history") {
			a.add(CodeDefenseEvasion, s.path, "turns the shell's history off (set +o history)")
		}
		s.shift(argv)
	default:
		if envUser(name) {
			a.shellEnv = s.childEnv(c.Assigns)
		}
		info = a.command(argv, s.depth+1, ctxNested)
		if isPOSIXShell(name) && len(s.netFDs) > 0 {
			if _, file, _ := shellArgs(argv[1:]); file != nil && s.fdScript(*file) != "" {
				a.add(CodePipeToShell, s.path, "runs through "+quoted(name)+" what a network connection sends ("+
					s.fdScript(*file)+", through a file descriptor the script opened), so whoever is at the other end runs commands")
			}
		}
		if info.runsArg || info.stdinScript || isPOSIXShell(name) {
			// sh -c "$(curl …)", bash <(curl …), python <(…)
			f, d := false, false
			for _, w := range c.Args[1:] {
				wf, wd := s.substs(w)
				f, d = f || wf, d || wd
			}
			s.execsText(f, d, "runs downloaded or decoded text through "+quoted(info.name))
		}
		if info.name != "" && programs[info.name].sendsWords {
			s.wordsSent(info.name, c.Args[1:])
			s.tokenSent(info.name, c.Args[1:])
		} else if info.name != "" {
			s.tokenInCredentials(info.name, c.Args[1:])
		}
		if name == "printf" {
			s.printfInto(c.Args)
		}
		if (name == "echo" || name == "printf") && info.token == nil {
			// echo "$(gh auth token)" | nc …: what echo prints holds
			// the token or store item a substitution or variable in
			// its words holds.
			for _, w := range c.Args[1:] {
				if info.token = s.heldToken(w); info.token != nil {
					break
				}
			}
		}
		if len(s.funcs) > 0 && s.funcs[name] != nil {
			// f() { cat ~/.aws/credentials; }; f | nc …: a call of a
			// function writes out what its body writes out.
			out := s.funcPrints(name)
			info.secrets = cmp.Or(info.secrets, out.secrets)
			if info.token == nil {
				info.token = out.token
			}
		}
	}
	s.memo[c] = info
	return info
}

// builtinPrefix returns how many words before eval, source or . only make
// the shell run that builtin (builtin, command, command -p, --), or 0. The
// words counted are literal and each is one word of args, so that argv
// and args stay aligned; command -v and -V only describe a command.
func builtinPrefix(argv []arg, args []*syntax.Word) int {
	k := 0
	for k < len(argv) && k < len(args) && argv[k].lit {
		if t, ok := wordText(args[k]); !ok || t != argv[k].text {
			return 0
		}
		switch argv[k].text {
		case "builtin", "command", "--":
			k++
			continue
		case "-p":
			if k > 0 && argv[k-1].text == "command" {
				k++
				continue
			}
		}
		break
	}
	if k == 0 || k >= len(argv) || k >= len(args) || !argv[k].lit {
		return 0
	}
	if t, ok := wordText(args[k]); !ok || t != argv[k].text {
		return 0
	}
	switch argv[k].text {
	case "eval", "source", ".":
		return k
	}
	return 0
}

// lookedUp returns the program a word names by looking it up on the path:
// $(which X), "$(command -v X)", `type -P X`, $(where X).
func lookedUp(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	cs, ok := part.(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return "", false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 || len(call.Assigns) > 0 {
		return "", false
	}
	words := make([]string, len(call.Args))
	for i, a := range call.Args {
		t, ok := wordText(a)
		if !ok {
			return "", false
		}
		words[i] = t
	}
	switch {
	case len(words) == 2 && (words[0] == "which" || words[0] == "where" || words[0] == "whence"):
	case len(words) == 3 && words[0] == "command" && (words[1] == "-v" || words[1] == "-V"):
	case len(words) == 3 && words[0] == "type" && (words[1] == "-p" || words[1] == "-P"):
	default:
		return "", false
	}
	prog := words[len(words)-1]
	return prog, prog != "" && !strings.HasPrefix(prog, "-")
}

// stdinFile are the paths by which a program reads its standard input.
var stdinFile = set("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-")

// execsText reports text that is executed after being fetched or decoded.
func (s *scan) execsText(fetched, decoded bool, what string) {
	if fetched {
		s.a.add(CodePipeToShell, s.path, what+", and that text is downloaded")
	}
	if decoded {
		s.a.add(CodeObfuscatedExec, s.path, what+", and that text is decoded from an encoding")
	}
}

// substs reports whether the command or process substitutions inside w
// download or decode.
func (s *scan) substs(w *syntax.Word) (fetches, decodes bool) {
	syntax.Walk(w, func(n syntax.Node) bool {
		var stmts []*syntax.Stmt
		switch x := n.(type) {
		case *syntax.CmdSubst:
			stmts = x.Stmts
		case *syntax.ProcSubst:
			stmts = x.Stmts
		default:
			return true
		}
		f, d := s.stmtsDo(stmts)
		fetches, decodes = fetches || f, decodes || d
		return false
	})
	if len(s.heldVars) > 0 {
		// eval "$X" after X=$(curl …): the variable holds that output.
		syntax.Walk(w, func(n syntax.Node) bool {
			if pe, ok := n.(*syntax.ParamExp); ok {
				f, d := s.heldIn(pe)
				fetches, decodes = fetches || f, decodes || d
			}
			_, sub := n.(*syntax.CmdSubst)
			return !sub
		})
	}
	return
}

// stmtsDo reports whether any simple command among stmts downloads or
// decodes.
func (s *scan) stmtsDo(stmts []*syntax.Stmt) (fetches, decodes bool) {
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if s.a.budget <= 0 {
				return false
			}
			s.a.budget--
			if st, ok := n.(*syntax.Stmt); ok && !fetches && s.printsDownload(st) {
				fetches = true // $(cat /tmp/a) after curl -o /tmp/a URL
			}
			if c, ok := n.(*syntax.CallExpr); ok {
				info := s.call(c)
				fetches = fetches || info.fetches
				decodes = decodes || info.decodes
				if f, d := s.funcDoes(c); f || d {
					fetches, decodes = fetches || f, decodes || d
				}
			}
			return true
		})
	}
	return
}

// pipeline judges a | b | c: a shell or interpreter reading its input from
// an earlier stage runs that stage's output; after a decoder it runs decoded
// text.
func (s *scan) pipeline(b *syntax.BinaryCmd) {
	var stages []*syntax.Stmt
	var flatten func(st *syntax.Stmt)
	flatten = func(st *syntax.Stmt) {
		if bc, ok := st.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) && len(st.Redirs) == 0 {
			s.pipe[bc] = true
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stages = append(stages, st)
	}
	s.pipe[b] = true
	flatten(b.X)
	flatten(b.Y)
	infos := make([]cmdInfo, len(stages))
	fed := ""           // the download tool whose download reaches this stage
	var carried cmdInfo // the credentials and token earlier stages wrote out
	for i, st := range stages {
		if i > 0 {
			fed = cmp.Or(fed, infos[i-1].streams)
			if fed != "" {
				// Its output derives from the download: a redirection
				// of it writes that (redirects).
				if s.fed == nil {
					s.fed = map[*syntax.Stmt]string{}
				}
				s.fed[st] = fed
			}
		}
		if c, ok := st.Cmd.(*syntax.CallExpr); ok {
			if i > 0 {
				s.a.listedIn = infos[i-1].lists
			}
			s.a.fedBy = fed
			infos[i] = s.call(c)
			s.a.listedIn, s.a.fedBy = "", ""
		} else if d, ok := st.Cmd.(*syntax.DeclClause); ok && declListing(d) {
			infos[i] = cmdInfo{name: d.Variant.Value, secrets: serverEnvironment}
		} else {
			if i > 0 {
				s.a.listedIn = infos[i-1].lists
			}
			s.a.fedBy = fed
			infos[i] = s.compound(st)
			s.a.listedIn, s.a.fedBy = "", ""
			// After compound, which judges the commands that read the
			// stage's input first, with what a read among them sets.
			infos[i].fetches, infos[i].decodes = s.stmtsDo([]*syntax.Stmt{st})
		}
		if c, ok := st.Cmd.(*syntax.CallExpr); ok && infos[i].name == "tee" && i > 0 {
			s.teeHolds(c, carried)
		}
		// What earlier stages wrote out flows on through later ones, as
		// pipeInto reads it.
		carried.secrets = cmp.Or(infos[i].secrets, carried.secrets)
		if infos[i].token != nil {
			carried.token = infos[i].token
		}
		if infos[i].sends {
			carried = cmdInfo{} // what a client writes out is its answer
		}
		if c, ok := st.Cmd.(*syntax.CallExpr); ok && infos[i].name == "tee" {
			// tee >(sh): what tee reads goes to the commands of the
			// process substitution too.
			for _, w := range c.Args[1:] {
				if ps := procOut(w); ps != nil {
					infos[i] = mergeReaders(infos[i], s.compound(&syntax.Stmt{Cmd: &syntax.Block{Stmts: ps.Stmts}}))
				}
			}
		}
	}
	if s.stdin != "" {
		s.stdinPiped(stages, infos)
	}
	s.a.pipeInto(infos, s.path)
}

// stdinPiped judges a pipeline of a script whose standard input holds
// s.stdin: its first stage reads it, and passes it on when it is a
// program that copies its input to its output (cat, tee), or sends it
// when it is a client that sends its input.
func (s *scan) stdinPiped(stages []*syntax.Stmt, infos []cmdInfo) {
	if s.inPipe == nil {
		s.inPipe = map[*syntax.Stmt]bool{}
	}
	for _, st := range stages {
		s.inPipe[st] = true
	}
	if len(stages) == 0 || readsRedirected(stages[0]) || infos[0].secrets != "" {
		return
	}
	switch {
	case infos[0].sends:
		s.a.exfil(s.path, "sends "+s.stdin+" off the machine with "+quoted(infos[0].name))
	case copiesInput(stages[0]):
		infos[0].secrets = s.stdin
	}
}

// copiesInput reports whether st is cat, tee or another program that
// writes what it reads on its standard input to its output, reading no
// file of its own.
func copiesInput(st *syntax.Stmt) bool {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return false
	}
	name, ok := wordText(c.Args[0])
	if !ok {
		return false
	}
	switch progName(name) {
	case "tee":
		return true // its operands are files it writes
	case "cat", "head", "tail", "base64", "gzip", "xxd", "od":
		for _, w := range c.Args[1:] {
			if t, ok := wordText(w); !ok || t != "-" && !strings.HasPrefix(t, "-") {
				return false
			}
		}
		return true
	}
	return false
}

// readsRedirected reports whether st's standard input comes from a
// redirection (< FILE, a here-document or here-string) rather than the
// script's own input.
func readsRedirected(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if r.N == nil || r.N.Value == "0" {
				return true
			}
		}
	}
	return false
}

// streamsOut returns the download tool whose download the statement st
// writes to its standard output, or "": a download tool that writes it
// there (curl URL), a later stage of a pipeline that reads one (curl URL
// | base64 -d), or a block of commands of which one does.
func (s *scan) streamsOut(st *syntax.Stmt) string {
	if tool := s.fed[st]; tool != "" {
		return tool
	}
	switch x := st.Cmd.(type) {
	case *syntax.CallExpr:
		return s.call(x).streams
	case *syntax.Block, *syntax.Subshell:
		return s.compound(&syntax.Stmt{Cmd: x}).streams
	}
	return ""
}

// procOut returns the process substitution w is when it is one that
// commands write to, >(…), or nil.
func procOut(w *syntax.Word) *syntax.ProcSubst {
	if w == nil || len(w.Parts) != 1 {
		return nil
	}
	if ps, ok := w.Parts[0].(*syntax.ProcSubst); ok && ps.Op == syntax.CmdOut {
		return ps
	}
	return nil
}

// compound judges a pipeline stage that is not a simple command (a { …; }
// block, a ( … ) subshell, if, while, for, case, time, coproc) as one
// command: it executes what it reads when a command in it that reads the
// stage's standard input does (curl … | { sh; }), it sends what it reads
// when such a command does, and it writes out what its commands write out.
// A `read NAME` in it over a listing of credential files (find ~/.ssh |
// while read f; do …) gives NAME those files' paths.
func (s *scan) compound(st *syntax.Stmt) cmdInfo {
	var info cmdInfo
	stdinCalls(st, 0, func(c *syntax.CallExpr) {
		if name := s.readsInto(c); name != "" && s.a.fedBy != "" {
			// curl … | while read L; do eval "$L"; done
			s.holdText(name, heldFetched, false)
		}
		if name := s.readsInto(c); name != "" && s.a.listedIn != "" && len(s.a.listedIn) <= maxVarBytes {
			if s.vars == nil {
				s.vars = map[string]string{}
			}
			s.vars[name] = s.a.listedIn
		}
		info = mergeReaders(info, s.call(c))
	})
	return info
}

// mergeReaders returns into with what the command of got does to the input
// they share and with what it writes out, where into does not already.
func mergeReaders(into, got cmdInfo) cmdInfo {
	if got.stdinScript && !into.stdinScript {
		into.stdinScript, into.name = true, got.name
	}
	if got.sends && !into.sends {
		into.sends, into.to = true, got.to
		if !into.stdinScript {
			into.name = got.name
		}
	}
	if into.name == "" {
		into.name = got.name
	}
	into.secrets = cmp.Or(into.secrets, got.secrets)
	into.lists = cmp.Or(into.lists, got.lists)
	into.streams = cmp.Or(into.streams, got.streams)
	if into.token == nil {
		into.token = got.token
	}
	return into
}

// readsInto returns the variable a `read [options] NAME` command sets
// (the last one it names), or "".
func (s *scan) readsInto(c *syntax.CallExpr) string {
	if len(c.Args) == 0 {
		return ""
	}
	if t, ok := wordText(c.Args[0]); ok && (t == "mapfile" || t == "readarray") {
		return arrayRead(c)
	}
	if len(c.Args) < 2 {
		return ""
	}
	if t, ok := wordText(c.Args[0]); !ok || t != "read" {
		return ""
	}
	t, ok := wordText(c.Args[len(c.Args)-1])
	if !ok || strings.HasPrefix(t, "-") || !syntax.ValidName(t) {
		return ""
	}
	return t
}

// stdinCalls calls visit with each simple command of st that reads the
// standard input st is given, in order: every command of a block, a
// subshell, a list (a && b), a condition, a loop or a case, and the first
// of a pipeline; not one whose standard input is redirected, nor a later
// stage of a pipeline (it reads the stage before it). Nesting past
// maxNesting is not followed.
func stdinCalls(st *syntax.Stmt, depth int, visit func(*syntax.CallExpr)) {
	if st == nil || depth > maxNesting {
		return
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if r.N == nil || r.N.Value == "0" {
				return
			}
		}
	}
	all := func(stmts []*syntax.Stmt) {
		for _, x := range stmts {
			stdinCalls(x, depth+1, visit)
		}
	}
	switch x := st.Cmd.(type) {
	case *syntax.CallExpr:
		visit(x)
	case *syntax.Block:
		all(x.Stmts)
	case *syntax.Subshell:
		all(x.Stmts)
	case *syntax.IfClause:
		for c := x; c != nil; c = c.Else {
			all(c.Cond)
			all(c.Then)
		}
	case *syntax.WhileClause:
		all(x.Cond)
		all(x.Do)
	case *syntax.ForClause:
		all(x.Do)
	case *syntax.CaseClause:
		for _, item := range x.Items {
			all(item.Stmts)
		}
	case *syntax.TimeClause:
		stdinCalls(x.Stmt, depth+1, visit)
	case *syntax.CoprocClause:
		stdinCalls(x.Stmt, depth+1, visit)
	case *syntax.BinaryCmd:
		stdinCalls(x.X, depth+1, visit)
		if x.Op == syntax.AndStmt || x.Op == syntax.OrStmt {
			stdinCalls(x.Y, depth+1, visit)
		}
	}
}

// pipeInto judges the stages of one pipeline: a shell or interpreter
// reading its input from an earlier stage runs that stage's output; after a
// decoder it runs decoded text.
func (a *auditor) pipeInto(stages []cmdInfo, path string) {
	decoded := false
	secrets := ""
	var tok *tokenSource
	for i, info := range stages {
		if secrets != "" && info.sends {
			a.exfil(path, "pipes "+secrets+" into "+quoted(info.name)+", a client that sends its input off the machine")
			secrets = ""
		}
		if tok != nil && info.sends {
			if where := tokenLeaves(tok, info.name, info.to); where != "" {
				a.exfil(path, "pipes "+tok.what+" into "+quoted(info.name)+", which sends it "+where+", not to its service")
			}
			tok = nil
		}
		if info.secrets != "" {
			secrets = info.secrets
		}
		if info.token != nil {
			tok = info.token
		}
		if i > 0 && info.stdinScript {
			what := "pipes the output of an earlier command into " + quoted(info.name)
			if first := stages[0].name; first != "" {
				what = "pipes the output of " + quoted(first) + " into " + quoted(info.name)
			}
			a.add(CodePipeToShell, path, what+", which executes it")
			if decoded {
				a.add(CodeObfuscatedExec, path, "decodes encoded text and pipes it into "+quoted(info.name))
			}
		}
		decoded = decoded || info.decodes
	}
}

// redirects judges the redirections of a statement: writes to persistence
// locations, downloaded or here-document text fed to a shell, and bash's
// network paths (/dev/tcp/HOST/PORT), which open a connection: a shell
// connected to one runs what the other end sends.
func (s *scan) redirects(st *syntax.Stmt) {
	if len(st.Redirs) > 0 {
		s.opensNetFD(st)
		if dev, viaFD := s.netInput(st); dev != "" {
			s.netFed(st, dev, viaFD)
		}
		s.substFed(st)
		s.secretsFed(st)
		s.downloadFed(st)
	}
	for _, r := range st.Redirs {
		if dev := netDevice(r.Word); dev != "" {
			s.a.inferred.Network = true
			if c, ok := st.Cmd.(*syntax.CallExpr); ok {
				if info := s.call(c); info.stdinScript {
					s.a.add(CodePipeToShell, s.path, "connects "+quoted(info.name)+" to a network connection ("+
						dev+"), so whoever is at the other end runs commands")
				}
			}
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut:
			if ps := procOut(r.Word); ps != nil && r.Op != syntax.RdrInOut && (r.N == nil || r.N.Value == "1") {
				// curl … > >(sh): the commands of the substitution read
				// what the statement writes, as in a pipeline.
				producer := cmdInfo{}
				if c, ok := st.Cmd.(*syntax.CallExpr); ok {
					producer = s.call(c)
				} else {
					producer = s.compound(st)
				}
				producer.fetches, producer.decodes = s.stmtsDo([]*syntax.Stmt{{Cmd: st.Cmd}})
				s.a.listedIn = producer.lists
				consumer := s.compound(&syntax.Stmt{Cmd: &syntax.Block{Stmts: ps.Stmts}})
				s.a.listedIn = ""
				s.a.pipeInto([]cmdInfo{producer, consumer}, s.path)
				continue
			}
			t, ok := s.wordValue(r.Word)
			if ok && r.Op != syntax.RdrInOut && (r.N == nil || r.N.Value == "1") {
				// curl URL > a.sh: the file holds the download.
				if tool := s.streamsOut(st); tool != "" {
					s.a.addFetched(t, tool)
				}
			}
			if ok && persistencePath(t) {
				s.a.add(CodePersistence, s.path, "writes to a location that runs code at login, at boot or when a program starts")
			}
			if ok {
				s.a.writesTo(t, s.path)
			}
			if ok && blockDevice(t) {
				s.a.add(CodeDataDestruction, s.path, "overwrites the disk "+safeText(t, 40)+" through a redirection")
			}
			if c, isCall := st.Cmd.(*syntax.CallExpr); ok && isCall && (r.N == nil || r.N.Value == "1") {
				// cat ~/.aws/credentials > /tmp/x: the file holds them.
				if info := s.call(c); info.secrets != "" {
					s.a.stage(t, info.secrets)
				} else if info.token != nil {
					s.a.stageToken(t, info.token) // gh auth token > /tmp/t
				} else if r.Op == syntax.RdrOut || r.Op == syntax.RdrClob || r.Op == syntax.RdrAll {
					s.a.unstageToken(t) // written over
				}
			}
		case syntax.RdrIn, syntax.WordHdoc, syntax.Hdoc, syntax.DashHdoc:
			c, ok := st.Cmd.(*syntax.CallExpr)
			if !ok {
				continue
			}
			info := s.call(c)
			if info.sends && r.Op == syntax.RdrIn {
				if t, ok := s.wordValue(r.Word); ok {
					if what := s.a.credentialAt(t); what != "" {
						s.a.exfil(s.path, "feeds "+what+" to "+quoted(info.name)+", a client that sends its input off the machine")
					} else if tok := s.a.tokenAt(t); tok != nil {
						if where := tokenLeaves(tok, info.name, info.to); where != "" {
							s.a.exfil(s.path, "feeds "+tok.what+", which the wiring wrote to "+safeText(cleanPath(t), 60)+
								", to "+quoted(info.name)+", which sends it "+where)
						}
					}
				}
			}
			if !info.stdinScript {
				continue
			}
			if r.Op == syntax.RdrIn && (r.N == nil || r.N.Value == "0") {
				// sh < /tmp/a after curl -o /tmp/a URL
				if t, ok := s.wordValue(r.Word); ok {
					s.a.feedsFetched(t, info.name, s.path)
				}
			}
			w := r.Word
			if r.Hdoc != nil {
				w = r.Hdoc
			}
			if f, d := s.substs(w); f || d {
				s.execsText(f, d, "feeds the output of a command to "+quoted(info.name))
			}
			if r.Hdoc != nil && isPOSIXShell(info.name) {
				if t, ok := wordText(r.Hdoc); ok {
					sc := &scan{a: s.a, path: s.path, depth: s.depth + 1}
					sc.script(t)
				}
			}
			if _, db := dbShells[info.name]; db {
				// psql <<EOF … \! cmd … EOF, sqlite3 db <<< '.shell cmd'
				t, ok := hereDocText(r)
				if r.Op == syntax.WordHdoc {
					t, ok = wordText(r.Word)
				}
				if ok {
					s.a.dbHereDoc(info.name, t, s.path, s.depth)
				}
			}
		case syntax.DplIn:
			// sh <&3 after exec 3< /tmp/a (fdOnDownload)
			c, ok := st.Cmd.(*syntax.CallExpr)
			if !ok || r.N != nil && r.N.Value != "0" {
				continue
			}
			s.coprocFed(st, c, r)
			if len(s.a.fetched) == 0 {
				continue
			}
			if info := s.call(c); info.stdinScript {
				if t, ok := s.wordValue(r.Word); ok {
					s.a.feedsFetched("/dev/fd/"+t, info.name, s.path)
				}
			}
		}
	}
}

// netDevice returns /dev/tcp or /dev/udp when a redirection's target is
// one of the paths bash (and ksh) open as a network connection,
// /dev/tcp/HOST/PORT or /dev/udp/HOST/PORT, else "".
func netDevice(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	p := litPrefix(w)
	if strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/") {
		return p[:len("/dev/tcp")]
	}
	return ""
}

// bracketDepth is the deepest nesting of parentheses and braces in src,
// outside single quotes: a cheap upper bound checked before parsing.
func bracketDepth(src string) int {
	depth, max := 0, 0
	quoted := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\'' && (i == 0 || src[i-1] != '\\'):
			quoted = !quoted
		case quoted:
		case c == '(' || c == '{':
			depth++
			if depth > max {
				max = depth
			}
		case c == ')' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return max
}
