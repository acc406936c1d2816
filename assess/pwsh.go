package assess

import (
	"cmp"
	"strconv"
	"strings"
)

// PowerShell has no parser in Go. psWalk is a careful tokenizer for the
// common forms of a -Command script, enough to find the commands it runs
// and their arguments, which are then judged like any command line:
//
//   - statements end at a newline or ';' and chain with && and ||;
//     pipelines are split at '|';
//   - a statement that starts with a bare word, or with the call operator
//     & (or dot-sourcing .), runs a command; one that starts with a
//     variable, a string, a number, a type literal or a parenthesis is an
//     expression, and after an assignment's '=' a pipeline follows;
//   - arguments are bare words (with ` escapes), '…' literal and "…"
//     expandable strings (literal unless they expand $…), here-strings,
//     comma-separated arrays (each element one argument), $variables and
//     expressions (not literal), and --% (the rest of the line, verbatim);
//   - the commands inside (…), $(…), @(…) and script blocks {…} are
//     judged too, wherever they appear: they run when the script does;
//   - $env:NAME = 'value' sets an environment variable;
//   - # and <# #> comments, and > >> 2> *> redirections (their targets are
//     checked for startup locations).
//
// Not modelled: keywords' grammar (if, foreach, function … are read as
// expressions whose blocks are judged), member invocation on expressions
// ((New-Object Net.WebClient).DownloadString(…): psScript's idiom matching
// covers the common download and decode calls), aliases beyond the
// programs table, and splatting (@args is not literal).

// psWalk walks one PowerShell script.
type psWalk struct {
	a     *auditor
	src   string
	pos   int
	path  string
	depth int // scripts and wrappers already entered
	nest  int // brackets open
	// stopped: a bound was hit and reported; the walk unwinds.
	stopped bool
	// ran: the script runs fetched or decoded text (reported here).
	ranFetched, ranDecoded bool
	// vars are the literal values the script gave its variables so far
	// ($c = 'Invoke-WebRequest'; & $c …), by lower-case name.
	vars map[string]string
	// env holds the environment's variables with known values ($env:NAME),
	// by lower-case name: what the script started with (windowsEnv), as
	// it set them since.
	env map[string]string
}

// psEffect is what a piece of script does, for the rules that look at how
// its parts combine.
type psEffect struct {
	fetches, decodes bool
	// streams is the download tool whose download a command in it
	// writes out, as cmdInfo.streams says.
	streams string
}

func (e *psEffect) or(o psEffect) {
	e.fetches = e.fetches || o.fetches
	e.decodes = e.decodes || o.decodes
	e.streams = cmp.Or(e.streams, o.streams)
}

// psWord is one argument of a PowerShell command.
type psWord struct {
	text string
	lit  bool
	off  int
	eff  psEffect // of the commands inside it
	// name: the word is the variable $name (lower case, without a scope),
	// nothing more.
	name string
}

func (w *psWalk) peek() byte {
	if w.pos < len(w.src) {
		return w.src[w.pos]
	}
	return 0
}

func (w *psWalk) at(s string) bool { return w.pos < len(w.src) && strings.HasPrefix(w.src[w.pos:], s) }

// tick spends one unit of the audit's budget; false once it is spent.
func (w *psWalk) tick() bool {
	if w.stopped {
		return false
	}
	if w.a.budget <= 0 {
		w.a.overrunAt(w.path)
		w.stopped = true
		return false
	}
	w.a.budget--
	return true
}

// enter opens a bracket; false (reported once) beyond maxNesting.
func (w *psWalk) enter() bool {
	if w.nest >= maxNesting {
		if !w.stopped {
			w.a.limit(w.path, "the PowerShell script nests too deeply")
		}
		w.stopped = true
		return false
	}
	w.nest++
	return true
}

// blanks passes spaces, tabs, line continuations and comments; with
// newlines, line breaks too.
func (w *psWalk) blanks(newlines bool) {
	for w.pos < len(w.src) {
		c := w.src[w.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			w.pos++
		case c == '`' && w.pos+1 < len(w.src) && (w.src[w.pos+1] == '\n' || w.src[w.pos+1] == '\r'):
			w.pos += 2
		case c == '\n' && newlines:
			w.pos++
		case c == '#':
			for w.pos < len(w.src) && w.src[w.pos] != '\n' {
				w.pos++
			}
		case c == '<' && w.at("<#"):
			end := strings.Index(w.src[w.pos+2:], "#>")
			if end < 0 {
				w.pos = len(w.src)
			} else {
				w.pos += end + 4
			}
		default:
			return
		}
	}
}

// statements reads statements up to close (0: the end of the script) and
// judges them.
func (w *psWalk) statements(close byte) psEffect {
	var eff psEffect
	for w.tick() {
		w.blanks(true)
		c := w.peek()
		switch {
		case w.pos >= len(w.src):
			return eff
		case c == close:
			w.pos++
			return eff
		case c == ';' || c == ')' || c == '}':
			w.pos++ // a stray closing bracket: skip it
			continue
		}
		start := w.pos
		eff.or(w.pipeline(close))
		if w.pos == start {
			w.pos++ // never stall on a character no rule takes
		}
	}
	return eff
}

// pipeline reads one pipeline (or a chain of them with && and ||) and judges
// how its stages feed each other.
func (w *psWalk) pipeline(close byte) psEffect {
	var eff psEffect
	var stages []cmdInfo
	fed := "" // the download tool whose download reaches the next stage
	for w.tick() {
		w.blanks(false)
		w.a.fedBy = fed
		info, e := w.element(close)
		w.a.fedBy = ""
		eff.or(e)
		stages = append(stages, info)
		fed = cmp.Or(fed, info.streams)
		w.blanks(false)
		switch {
		case w.at("||") || w.at("&&"):
			w.pos += 2
			w.a.pipeInto(stages, w.path)
			stages, fed = stages[:0], ""
			continue
		case w.peek() == '|':
			w.pos++
			continue
		}
		break
	}
	w.a.pipeInto(stages, w.path)
	return eff
}

// element reads one stage of a pipeline: a command or an expression.
func (w *psWalk) element(close byte) (cmdInfo, psEffect) {
	c := w.peek()
	switch {
	case c == '&' && !w.at("&&"), c == '.' && w.pos+1 < len(w.src) && strings.IndexByte(" \t'\"$({", w.src[w.pos+1]) >= 0:
		w.pos++
		w.blanks(false)
		return w.command(close)
	case c == '$', c == '(', c == '[', c == '@', c == '\'', c == '"', c == '-' && w.pos+1 < len(w.src) && isDigit(w.src[w.pos+1]),
		isDigit(c):
		return w.expression(close)
	}
	if kw := strings.ToLower(w.bareAhead()); psKeywords[kw] {
		w.pos += len(kw)
		return w.expression(close)
	}
	return w.command(close)
}

var psKeywords = set("if", "elseif", "else", "while", "for", "foreach", "switch", "do", "until", "try", "catch",
	"finally", "trap", "function", "filter", "workflow", "param", "return", "throw", "exit", "break", "continue",
	"begin", "process", "end", "data", "class", "enum", "using")

// bareAhead returns the bare word at the current position without moving.
func (w *psWalk) bareAhead() string {
	i := w.pos
	for i < len(w.src) && (isLetter(w.src[i]) || isDigit(w.src[i]) || w.src[i] == '-' || w.src[i] == '_') {
		i++
	}
	return w.src[w.pos:i]
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// ends reports whether the current character ends a command's arguments.
func (w *psWalk) ends(close byte) bool {
	c := w.peek()
	return w.pos >= len(w.src) || c == '\n' || c == ';' || c == '|' || c == close || c == ')' || c == '}' ||
		w.at("&&") || c == '&'
}

// command reads a command and its arguments and judges it.
func (w *psWalk) command(close byte) (cmdInfo, psEffect) {
	var eff psEffect
	var words []psWord
	var outs []string // the files its output is redirected to
	fed := w.a.fedBy
	for w.tick() {
		w.blanks(false)
		if w.ends(close) {
			if w.peek() == '&' && !w.at("&&") {
				w.pos++ // a background job
			}
			break
		}
		switch c := w.peek(); {
		case c == ',':
			w.pos++
			continue
		case c == '>' || (c == '2' || c == '*' || c == '1') && w.pos+1 < len(w.src) && w.src[w.pos+1] == '>':
			if t := w.redirect(); t != "" {
				outs = append(outs, t)
			}
			continue
		case w.at("--%"):
			w.pos += 3
			end := strings.IndexByte(w.src[w.pos:], '\n')
			if end < 0 {
				end = len(w.src) - w.pos
			}
			for _, f := range strings.Fields(w.src[w.pos : w.pos+end]) {
				words = append(words, psWord{text: f, lit: true})
			}
			w.pos += end
			continue
		}
		start := w.pos
		word := w.word()
		if w.pos == start {
			w.pos++
			continue
		}
		eff.or(word.eff)
		words = append(words, word)
	}
	if len(words) == 0 {
		return cmdInfo{}, eff
	}
	argv := make([]arg, len(words))
	for i, x := range words {
		argv[i] = arg{text: x.text, path: w.path, lit: x.lit}
	}
	w.a.shellEnv = w.env
	info := w.a.command(argv, w.depth+1, ctxNested)
	if tool := cmp.Or(info.streams, fed); tool != "" {
		for _, t := range outs {
			w.a.addFetched(t, tool) // irm URL > a.ps1: the file holds the download
		}
	}
	if argv[0].lit && psInvokesText[progName(argv[0].text)] {
		for _, x := range words[1:] {
			w.ranFetched = w.ranFetched || x.eff.fetches
			w.ranDecoded = w.ranDecoded || x.eff.decodes
		}
	}
	eff.fetches = eff.fetches || info.fetches
	eff.decodes = eff.decodes || info.decodes
	eff.streams = cmp.Or(eff.streams, info.streams)
	return info, eff
}

// netDownloads are the methods of .NET's WebClient that download: what
// DownloadString and DownloadData return is the download, DownloadFile
// (and its asynchronous forms) writes it to the file it is given second.
var netDownloads = set("downloadstring", "downloaddata", "downloadfile", "downloadfileasync",
	"downloadfiletaskasync", "downloadstringtaskasync", "downloaddatataskasync", "openread")

// netDownload judges a call of a WebClient download method, at its '(':
// it downloads when the server starts, and the file DownloadFile writes
// (a literal second argument) holds the download.
func (w *psWalk) netDownload(x *psWord, method string) {
	w.a.add(CodeFetchExec, w.path, "PowerShell downloads content with .NET's WebClient ("+safeText(method, 40)+
		") when the server starts")
	w.a.inferred.Network = true
	if !strings.HasPrefix(strings.ToLower(method), "downloadfile") {
		x.eff.streams = "WebClient"
		return
	}
	start := w.pos
	defer func() { w.pos = start }() // the group is walked after
	w.pos++
	w.blanks(true)
	w.word()
	w.blanks(true)
	if w.peek() != ',' {
		return
	}
	w.pos++
	w.blanks(true)
	if file := w.word(); file.lit {
		w.a.addFetched(file.text, "WebClient")
	}
}

// psInvokesText are the commands that execute text given as an argument.
var psInvokesText = set("iex", "invoke-expression", "invoke-command", "icm")

// redirect reads a redirection and checks its target. It returns the
// target when the redirection writes the command's output (>, >>, 1>, *>)
// to a file whose name is known, else "".
func (w *psWalk) redirect() string {
	start := w.pos
	for w.pos < len(w.src) && strings.IndexByte("12*>", w.src[w.pos]) >= 0 {
		w.pos++
	}
	if w.peek() == '&' {
		w.pos = min(w.pos+2, len(w.src)) // 2>&1
		return ""
	}
	output := w.src[start] != '2'
	w.blanks(false)
	t := w.word()
	if t.lit && persistencePath(t.text) {
		w.a.add(CodePersistence, w.path, "writes to a location that runs code at login, at boot or when a program starts")
	}
	if !t.lit || !output {
		return ""
	}
	return t.text
}

// expression reads an expression statement: its brackets are walked for
// the commands they run; after an assignment a pipeline follows.
func (w *psWalk) expression(close byte) (cmdInfo, psEffect) {
	var eff psEffect
	envKey, member := "", ""    // member: the last property named (::Name or .Name)
	assignTo, first := "", true // the variable the statement starts with
	for w.tick() {
		w.blanks(false)
		if w.pos >= len(w.src) {
			break
		}
		c := w.peek()
		switch {
		case c == '\n' || c == ';' || c == '|' || c == close || c == ')' || c == '}' || w.at("&&") || w.at("||"):
			return cmdInfo{fetches: eff.fetches, decodes: eff.decodes, streams: eff.streams}, eff
		case c == '=' && !w.at("==") || w.at("+="):
			// $env:X += 'text' appends: the name is set all the same,
			// to a value the script does not show whole.
			appends := c == '+'
			if appends {
				w.pos++
			}
			w.pos++
			w.blanks(false)
			w.trustAssign(member, w.src[w.pos:])
			if assignTo != "" {
				delete(w.vars, assignTo)
				if !appends && (w.peek() == '\'' || w.peek() == '"') {
					start := w.pos
					v := w.word()
					w.blanks(false)
					if v.lit && len(v.text) <= maxVarBytes && (w.ends(close) || w.pos >= len(w.src)) {
						if w.vars == nil {
							w.vars = map[string]string{}
						}
						w.vars[assignTo] = v.text
						continue
					}
					w.pos = start // not a lone literal: read it as an element
				}
			}
			if envKey != "" && (w.peek() == '\'' || w.peek() == '"') {
				start := w.pos
				v := w.word()
				w.a.envSet(envKey, arg{text: v.text, path: w.path, lit: v.lit}, w.depth)
				w.setEnv(envKey, v.text, v.lit && !appends)
				if strings.EqualFold(envKey, "path") && v.lit {
					// $env:Path = 'C:\t;' + $env:Path: the folders of
					// the string go on the search path (searchpath.go).
					w.a.addSearchDirs(v.text, ";")
				} else if strings.EqualFold(envKey, "path") {
					// "C:\t;$env:Path": the folders written out do.
					w.a.addSearchDirs(expandableDirs(w.src[start:w.pos]), ";")
				}
				if w.pos == start {
					w.pos++
				}
				continue
			}
			if envKey != "" {
				w.a.envDecl(envKey, w.path)
				w.setEnv(envKey, "", false)
			}
			if !w.enter() { // $a = $b = … nests one element in another
				w.pos = len(w.src)
				return cmdInfo{}, eff
			}
			info, e := w.element(close)
			w.nest--
			eff.or(e)
			return info, eff
		case c == '$' && strings.HasPrefix(strings.ToLower(w.src[w.pos:]), "$env:"):
			w.pos += 5
			envKey = w.bareAhead()
			w.pos += len(envKey)
		case c == '[':
			w.skipType()
		default:
			start := w.pos
			word := w.word()
			eff.or(word.eff)
			if first && word.name != "" {
				assignTo = word.name
			}
			raw := w.src[start:w.pos]
			member = ""
			if i := strings.LastIndexAny(raw, ".:"); i >= 0 {
				member = raw[i+1:]
				if name, rest, ok := strings.Cut(member, "="); ok {
					w.trustAssign(name, rest) // ::Name={ $true }, read as one word
				}
			}
			if w.pos == start {
				w.pos++
			}
		}
		first = false
	}
	return cmdInfo{fetches: eff.fetches, decodes: eff.decodes, streams: eff.streams}, eff
}

// trustCallbacks are the .NET properties (lower case) that decide whether a
// server's certificate is accepted: a script that sets them accepts any.
var trustCallbacks = set("servercertificatevalidationcallback", "servercertificatecustomvalidationcallback",
	"certificatepolicy")

// trustAssign judges the assignment of value (the script from the value
// on) to the property member: one of trustCallbacks, set to anything but
// $null, accepts every certificate.
func (w *psWalk) trustAssign(member, value string) {
	value = strings.TrimLeft(value, " \t")
	if !trustCallbacks[strings.ToLower(member)] || len(value) >= 5 && strings.EqualFold(value[:5], "$null") {
		return
	}
	w.a.add(CodeInsecureURL, w.path, "the PowerShell script replaces .NET's certificate check ("+safeText(member, 60)+
		"), so what it downloads or sends can be read and replaced on the way")
}

// skipType passes a type literal [System.Convert] (nested brackets too).
func (w *psWalk) skipType() {
	n := 0
	for ; w.pos < len(w.src); w.pos++ {
		switch w.src[w.pos] {
		case '[':
			n++
		case ']':
			n--
			if n == 0 {
				w.pos++
				return
			}
		case '\n':
			return
		}
	}
}

// word reads one argument.
func (w *psWalk) word() psWord {
	start := w.pos
	switch c := w.peek(); {
	case c == '\'':
		return w.literal(start)
	case c == '"':
		return w.expandable(start)
	case c == '@' && (w.at("@'") || w.at(`@"`)):
		return w.hereString(start)
	case c == '(' || w.at("$(") || w.at("@("):
		if c == '(' {
			if x, ok := w.concat(start); ok {
				return x
			}
		}
		if c != '(' {
			w.pos++
		}
		return w.group(start, ')')
	case c == '{' || w.at("@{"):
		if c != '{' {
			w.pos++
		}
		return w.group(start, '}')
	case c == '$':
		// $HOME/.aws/config is one argument: the variable's value and
		// the path after it.
		x := w.variable(start)
		if c := w.peek(); c == '/' || c == '\\' {
			w.rest(&x)
		}
		return x
	case c == '[':
		w.skipType()
		x := psWord{off: start}
		w.member(&x)
		return x
	}
	return w.bare(start)
}

// concat reads a bracket that holds a string or joins strings, ('iwr'),
// ('i' + "wr"), ($a + 'x'), (-join ('i', 'wr')) or ('i', 'wr' -join ”),
// whose operands are quoted text without expansions or variables the
// script set to a literal: PowerShell joins them, so & ('i'+'wr') runs
// iwr. For any other bracket it returns false with the position
// unchanged, and the bracket is read as a group.
func (w *psWalk) concat(start int) (psWord, bool) {
	save := w.pos
	w.pos++
	text, ok := w.joined()
	if ok {
		w.blanks(false)
		ok = w.peek() == ')'
	}
	if !ok {
		w.pos = save
		return psWord{}, false
	}
	w.pos++
	x := psWord{text: text, lit: true, off: start}
	end := w.pos
	w.member(&x)
	if w.pos != end { // ('i'+'wr').Trim(): not the text itself
		x.text, x.lit = "", false
	}
	return x, true
}

// joined reads what concat's bracket holds: a sum of strings, a list of
// sums joined by a string (binary -join), or unary -join of a bracketed
// list.
func (w *psWalk) joined() (string, bool) {
	w.blanks(false)
	if w.joinOp() {
		w.blanks(false)
		if w.peek() != '(' {
			return "", false
		}
		w.pos++
		list, ok := w.sums()
		if !ok {
			return "", false
		}
		w.blanks(false)
		if w.peek() != ')' {
			return "", false
		}
		w.pos++
		return strings.Join(list, ""), true
	}
	list, ok := w.sums()
	if !ok {
		return "", false
	}
	w.blanks(false)
	switch {
	case len(list) == 1 && w.operator("-f"):
		args, ok := w.sums()
		if !ok {
			return "", false
		}
		return psFormat(list[0], args)
	case w.joinOp():
		w.blanks(false)
		sep, ok := w.sum()
		return strings.Join(list, sep), ok
	}
	return list[0], len(list) == 1 // a list alone is an array, not text
}

// joinOp passes the -join operator (any case) when it comes next.
func (w *psWalk) joinOp() bool { return w.operator("-join") }

// operator passes the operator op (any case) when it comes next, not
// followed by a letter or digit.
func (w *psWalk) operator(op string) bool {
	if len(w.src)-w.pos < len(op) || lower(w.src[w.pos:w.pos+len(op)]) != op {
		return false
	}
	if n := w.pos + len(op); n < len(w.src) && (isLetter(w.src[n]) || isDigit(w.src[n])) {
		return false
	}
	w.pos += len(op)
	return true
}

// psFormat applies PowerShell's -f operator to a format string whose
// items are plain indexes ({0}{1}) and escaped braces ({{ }}); any other
// item (alignment, a format, an index past args) is not read.
func psFormat(format string, args []string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case (c == '{' || c == '}') && i+1 < len(format) && format[i+1] == c:
			b.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(format[i:], '}')
			if end < 0 {
				return "", false
			}
			digits := format[i+1 : i+end]
			if digits == "" || strings.Trim(digits, "0123456789") != "" {
				return "", false
			}
			n, err := strconv.Atoi(digits)
			if err != nil || n >= len(args) {
				return "", false
			}
			b.WriteString(args[n])
			i += end
		case c == '}':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// sums reads sums of strings separated by commas.
func (w *psWalk) sums() ([]string, bool) {
	var list []string
	for w.tick() {
		t, ok := w.sum()
		if !ok {
			return nil, false
		}
		list = append(list, t)
		w.blanks(false)
		if w.peek() != ',' {
			return list, true
		}
		w.pos++
	}
	return nil, false
}

// sum reads strings added with +.
func (w *psWalk) sum() (string, bool) {
	var b strings.Builder
	for w.tick() {
		w.blanks(false)
		switch w.peek() {
		case '\'', '"':
			t, ok := w.plainString()
			if !ok {
				return "", false
			}
			b.WriteString(t)
		case '$':
			v := w.variable(w.pos)
			if !v.lit {
				return "", false
			}
			b.WriteString(v.text)
		default:
			return "", false
		}
		w.blanks(false)
		if w.peek() != '+' {
			return b.String(), true
		}
		w.pos++
	}
	return "", false
}

// plainString reads a quoted string that expands nothing: '…', or "…"
// without $. It returns false for a string that expands something.
func (w *psWalk) plainString() (string, bool) {
	q := w.src[w.pos]
	var b strings.Builder
	for i := w.pos + 1; i < len(w.src); i++ {
		c := w.src[i]
		switch {
		case c == q && i+1 < len(w.src) && w.src[i+1] == q:
			b.WriteByte(q)
			i++
		case c == q:
			w.pos = i + 1
			return b.String(), true
		case q == '"' && c == '$':
			return "", false
		case q == '"' && c == '`' && i+1 < len(w.src):
			b.WriteByte(psEscape(w.src[i+1]))
			i++
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// group reads (…) or {…}: the commands inside run.
func (w *psWalk) group(start int, close byte) psWord {
	w.pos++
	x := psWord{off: start}
	if !w.enter() {
		w.pos = len(w.src)
		return x
	}
	x.eff = w.statements(close)
	w.nest--
	w.member(&x)
	return x
}

// member passes a member access or invocation after a value
// (.Content, ::Create(…)), walking the arguments of the invocation.
func (w *psWalk) member(x *psWord) {
	name := ""
	for w.tick() {
		switch {
		case w.at("::") || w.peek() == '.' && w.pos+1 < len(w.src) && (isLetter(w.src[w.pos+1]) || w.src[w.pos+1] == '_'):
			if w.at("::") {
				w.pos += 2
			} else {
				w.pos++
			}
			name = w.bareAhead()
			w.pos += len(name)
		case w.peek() == '(':
			if netDownloads[strings.ToLower(name)] {
				w.netDownload(x, name)
			}
			name = ""
			y := w.group(w.pos, ')')
			x.eff.or(y.eff)
		case w.peek() == '[':
			y := w.group(w.pos, ']')
			x.eff.or(y.eff)
		default:
			return
		}
	}
}

// variable reads $name, ${name}, $env:NAME, $_ and the like. A variable
// the script set to a literal value has that value; any other is not
// literal.
func (w *psWalk) variable(start int) psWord {
	w.pos++
	nameStart := w.pos
	if w.peek() == '{' {
		end := strings.IndexByte(w.src[w.pos:], '}')
		if end < 0 {
			w.pos = len(w.src)
		} else {
			w.pos += end + 1
		}
	} else {
		for w.pos < len(w.src) {
			c := w.src[w.pos]
			if !(isLetter(c) || isDigit(c) || c == '_' || c == ':' || c == '?' || c == '$' || c == '^') {
				break
			}
			w.pos++
		}
	}
	raw := strings.Trim(w.src[nameStart:w.pos], "{}")
	x := psWord{off: start, name: psVarName(raw)}
	if v, ok := w.vars[x.name]; ok && x.name != "" {
		x.text, x.lit = v, true
	} else if x.name == "true" || x.name == "false" {
		x.text, x.lit = "$"+x.name, true // the constants, as written
	} else if len(raw) > 4 && lower(raw[:4]) == "env:" {
		if v, ok := w.env[lower(raw[4:])]; ok {
			x.text, x.lit = v, true
		} else if n := lower(raw[4:]); n == "userprofile" || n == "home" {
			x.text, x.lit = "~", true // the user's home, as the path rules read ~
		} else if d, ok := windowsUserFolders[n]; ok {
			x.text, x.lit = d, true
		}
	} else if lower(raw) == "home" {
		x.text, x.lit = "~", true
	}
	end := w.pos
	w.member(&x)
	if w.pos != end { // $c.Trim(), $c[0]: not the variable's value
		x.name, x.text, x.lit = "", "", false
	}
	return x
}

// psVarName returns the lower-case name of a script variable ($script:c is
// c), or "" for an environment or automatic variable ($env:X, $_, $?).
func psVarName(n string) string {
	n = lower(n)
	for _, scope := range []string{"script:", "global:", "local:", "private:"} {
		n = strings.TrimPrefix(n, scope)
	}
	if n == "" || strings.ContainsAny(n, ":?$^") || n == "_" || n == "args" || n == "input" {
		return ""
	}
	return n
}

// literal reads '…' (” is a quote).
func (w *psWalk) literal(start int) psWord {
	var b strings.Builder
	w.pos++
	for w.pos < len(w.src) {
		c := w.src[w.pos]
		w.pos++
		if c == '\'' {
			if w.peek() == '\'' {
				w.pos++
				b.WriteByte('\'')
				continue
			}
			break
		}
		b.WriteByte(c)
	}
	x := psWord{text: b.String(), lit: true, off: start}
	w.rest(&x)
	return x
}

// expandable reads "…": literal unless it expands a variable or a
// subexpression, whose commands are walked.
func (w *psWalk) expandable(start int) psWord {
	x := psWord{lit: true, off: start}
	var b strings.Builder
	w.pos++
	for w.pos < len(w.src) && !w.stopped {
		c := w.src[w.pos]
		switch {
		case c == '"':
			w.pos++
			if w.peek() == '"' {
				w.pos++
				b.WriteByte('"')
				continue
			}
			x.text = b.String()
			w.rest(&x)
			return x
		case c == '`' && w.pos+1 < len(w.src):
			b.WriteByte(psEscape(w.src[w.pos+1]))
			w.pos += 2
		case c == '$' && w.at("$("):
			x.lit = false
			w.pos++
			y := w.group(w.pos, ')')
			x.eff.or(y.eff)
		case c == '$' && w.pos+1 < len(w.src) && (isLetter(w.src[w.pos+1]) || w.src[w.pos+1] == '{' || w.src[w.pos+1] == '_'):
			v := w.variable(w.pos)
			x.lit = x.lit && v.lit
			b.WriteString(v.text)
		default:
			b.WriteByte(c)
			w.pos++
		}
	}
	x.text = b.String()
	return x
}

// psEscape is the character a backtick escape stands for.
func psEscape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	case 'a':
		return 7
	case 'b':
		return 8
	case 'f':
		return '\f'
	case 'v':
		return '\v'
	case 'e':
		return 0x1b
	}
	return c
}

// hereString reads @'…'@ or @"…"@ (the closing delimiter starts a line).
func (w *psWalk) hereString(start int) psWord {
	q := w.src[w.pos+1]
	w.pos += 2
	end := strings.Index(w.src[w.pos:], "\n"+string(q)+"@")
	x := psWord{off: start}
	if end < 0 {
		w.pos = len(w.src)
		return x
	}
	body := w.src[w.pos : w.pos+end]
	w.pos += end + 3
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	x.text = strings.TrimSuffix(body, "\r")
	x.lit = q == '\'' || !strings.Contains(body, "$")
	return x
}

// bare reads a bare word, with ` escapes and quoted parts inside
// (--key="a b").
func (w *psWalk) bare(start int) psWord {
	x := psWord{lit: true, off: start}
	var b strings.Builder
	for w.pos < len(w.src) {
		c := w.src[w.pos]
		switch {
		case strings.IndexByte(" \t\r\n;|&(){},", c) >= 0:
			x.text = b.String()
			return x
		case c == '`' && w.pos+1 < len(w.src):
			b.WriteByte(psEscape(w.src[w.pos+1]))
			w.pos += 2
		case c == '\'':
			y := w.literal(w.pos)
			b.WriteString(y.text)
		case c == '"':
			y := w.expandable(w.pos)
			b.WriteString(y.text)
			x.lit = x.lit && y.lit
			x.eff.or(y.eff)
		case c == '$' && w.pos+1 < len(w.src) && (isLetter(w.src[w.pos+1]) || w.src[w.pos+1] == '{' || w.src[w.pos+1] == '('):
			x.lit = false
			if w.src[w.pos+1] == '(' {
				w.pos++
				y := w.group(w.pos, ')')
				x.eff.or(y.eff)
			} else {
				w.variable(w.pos)
			}
		default:
			b.WriteByte(c)
			w.pos++
		}
	}
	x.text = b.String()
	return x
}

// rest joins what directly follows a quoted string into the same word
// ('a'b is one argument).
func (w *psWalk) rest(x *psWord) {
	if w.pos < len(w.src) && strings.IndexByte(" \t\r\n;|&(){},", w.src[w.pos]) < 0 && w.src[w.pos] != '.' {
		y := w.bare(w.pos)
		x.text += y.text
		x.lit = x.lit && y.lit
		x.eff.or(y.eff)
	}
}

// psCode returns a script without its comments, for the idiom matching.
func psCode(src string) string {
	if !strings.Contains(src, "#") {
		return src
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '<' && strings.HasPrefix(src[i:], "<#"):
			end := strings.Index(src[i+2:], "#>")
			if end < 0 {
				return b.String()
			}
			i += end + 3
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				b.WriteByte('\n')
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// setEnv records what the script sets $env:NAME to: a literal value, or
// one not known.
func (w *psWalk) setEnv(name, v string, lit bool) {
	k := lower(name)
	if _, had := w.env[k]; !had && !lit {
		return
	}
	env := make(map[string]string, len(w.env)+1) // w.env may be a parent's
	for name, val := range w.env {
		if name != k {
			env[name] = val
		}
	}
	if lit && len(v) <= maxVarBytes {
		env[k] = v
	}
	w.env = env
}

// windowsUserFolders are the environment variables of Windows that name
// folders in the user's home, with where they are under it, as the path
// rules read them ($env:APPDATA\Claude\…, %LOCALAPPDATA%\Google\Chrome).
var windowsUserFolders = map[string]string{
	"appdata": "~/AppData/Roaming", "localappdata": "~/AppData/Local",
}

// expandableDirs returns the folders of a PowerShell expandable string
// ("C:\t;$env:Path") that are written out, a 0 byte standing for each part
// that expands ($…) or holds an escape (`), whose folder is not known.
func expandableDirs(raw string) string {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return ""
	}
	parts := strings.Split(raw[1:len(raw)-1], ";")
	for i, p := range parts {
		if strings.ContainsAny(p, "$`\"") {
			parts[i] = "\x00"
		}
	}
	return strings.Join(parts, ";")
}
