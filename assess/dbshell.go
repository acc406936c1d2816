package assess

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Database shells. psql, mysql (and mariadb), sqlite3 and duckdb read
// commands of their own, SQL and the client's commands, from options
// (psql -c, mysql -e, sqlite3 -cmd, duckdb -c), from the words after the
// database (sqlite3, duckdb), from files (psql -f, sqlite3's and duckdb's
// -init, duckdb -f, and the files those commands name: psql's \i, mysql's
// source, the dot command .read) and, given none of those, from their
// standard input. Some of their commands run a command line here through
// a shell: psql's \!, the pipes of \o, \g and \w (\o |CMD), \copy …
// program 'CMD' and `CMD` in a backslash command's arguments; mysql's
// system and \!; the dot commands .shell and .system (also as .sh or .sy:
// the shell takes a command's name by its prefix) and the pipes of .read,
// .output, .once and .import (.read '|CMD'). mysql's pager (pager CMD,
// --pager=CMD) is a command line it runs for its output. So an escape
// written in the wiring is an inline script, and commands the wiring does
// not show (a downloaded file read with -f or .read, a download piped in)
// can run anything: they are judged as a shell reading a download is.
// sqlite3 and duckdb started with -safe refuse the escapes and the files.
//
// mongosh (and the older mongo) runs JavaScript with Node's require:
// --eval is a program written inline, and the .js files among its words
// (and -f, --file) and, given neither, its standard input are programs it
// runs.

// dbSpec is what a database shell's command line holds: the options whose
// value is its commands, those whose value names a file of them, the
// other options that take the next word (pairs: the next two), the
// options after which it reads nothing from its standard input, and
// whether the words after the database are commands (sqlite3, duckdb),
// which is also the family of dot commands, -safe and long options that
// may be written with one dash or two.
type dbSpec struct {
	cmds, files, values, pairs, exits map[string]bool
	dots                              bool
}

var dbShells = func() map[string]dbSpec {
	mysql := dbSpec{
		cmds: set("-e", "--execute"),
		values: set("-u", "--user", "-h", "--host", "-P", "--port", "-D", "--database", "-S", "--socket",
			"--defaults-file", "--defaults-extra-file", "--init-command", "--default-character-set", "--tee",
			"--login-path", "--protocol", "--ssl-ca", "--ssl-cert", "--ssl-key"),
		exits: set("-e", "--execute", "-V", "--version", "-?", "--help"),
	}
	return map[string]dbSpec{
		"psql": {
			cmds:  set("-c", "--command"),
			files: set("-f", "--file"),
			values: set("-d", "--dbname", "-h", "--host", "-p", "--port", "-U", "--username", "-v", "--set",
				"--variable", "-o", "--output", "-L", "--log-file", "-P", "--pset", "-R", "--record-separator",
				"-F", "--field-separator", "-T", "--table-attr"),
			exits: set("-c", "--command", "-f", "--file", "-l", "--list", "-V", "--version", "-?", "--help"),
		},
		"mysql": mysql, "mariadb": mysql,
		"sqlite3": {
			cmds:   set("-cmd"),
			files:  set("-init"),
			values: set("-separator", "-newline", "-nullvalue", "-vfs", "-maxsize", "-mmap", "-heap", "-escape"),
			pairs:  set("-lookaside", "-pagecache"),
			exits:  set("-version", "-help"),
			dots:   true,
		},
		"duckdb": {
			cmds:   set("-c", "-s", "-cmd"),
			files:  set("-f", "-init"),
			values: set("-separator", "-newline", "-nullvalue"),
			exits:  set("-c", "-s", "-f", "-version", "-help", "-no-stdin"),
			dots:   true,
		},
	}
}()

// dbRead is what a database shell's command line makes it run: the
// command lines its commands run through a shell, those it runs for its
// output (a pager), the files it reads commands from, and whether it
// reads commands from its standard input.
type dbRead struct {
	shells, pagers, files []arg
	programs              []dbProgram // what psql's SQL has the server run (sqlprogram.go)
	stdin                 bool
}

// dbProgram is a program the SQL of the field at path has the database
// server run.
type dbProgram struct {
	sqlProgram
	path string
}

// readDB reads the command line of c, one of dbShells.
func readDB(c invocation) dbRead {
	var r dbRead
	spec := dbShells[c.name]
	args := c.args()
	safe, exits, commands, fromStdin, seenDB := false, false, false, false, false
	value := func(i *int, w arg) (arg, bool) { // the next word, as an option's value
		if *i+1 < len(args) {
			*i++
			return args[*i], true
		}
		return w, false
	}
	use := func(flag string, i *int, w arg, val string, joined bool) {
		exits = exits || spec.exits[flag]
		switch {
		case spec.cmds[flag]:
			if v, ok := optValue(args, i, val, joined); ok {
				commands = commands || spec.dots && flag != "-cmd"
				r.commands(c.name, v)
			}
		case spec.files[flag]:
			if v, ok := optValue(args, i, val, joined); ok {
				if v.text == "-" {
					fromStdin = true
				} else {
					r.files = append(r.files, v)
				}
			}
		case spec.values[flag] && !joined:
			value(i, w)
		case spec.pairs[flag] && !joined:
			value(i, w)
			value(i, w)
		}
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		switch {
		case len(t) < 2 || t[0] != '-':
			if spec.dots && seenDB {
				commands = true
				r.commands(c.name, w)
			}
			seenDB = true
		case spec.dots:
			flag, val, joined := strings.Cut(t, "=")
			if strings.HasPrefix(flag, "--") {
				flag = flag[1:] // sqlite3 and duckdb take --cmd for -cmd
			}
			safe = safe || flag == "-safe"
			use(flag, &i, w, val, joined)
		case strings.HasPrefix(t, "--"):
			flag, val, joined := strings.Cut(t, "=")
			if flag == "--pager" && joined && c.name != "psql" {
				r.pagers = append(r.pagers, arg{text: val, path: w.path, lit: w.lit}) // mysql --pager=CMD
			}
			use(flag, &i, w, val, joined)
		default:
			// A cluster of letters, as getopt reads it: the first that
			// takes a value takes the rest of the word, or the next one.
			for j := 1; j < len(t); j++ {
				flag := "-" + t[j:j+1]
				if rest := t[j+1:]; rest != "" && (spec.cmds[flag] || spec.files[flag] || spec.values[flag]) {
					use(flag, &i, arg{text: rest, path: w.path, lit: w.lit}, rest, true)
					break
				}
				use(flag, &i, w, "", false)
				if spec.cmds[flag] || spec.files[flag] || spec.values[flag] {
					break
				}
			}
		}
	}
	r.stdin = fromStdin || !exits && !commands
	if safe {
		return dbRead{} // -safe: no escape, no file, and what it reads runs no shell
	}
	return r
}

// commands reads one value of a database shell's commands.
func (r *dbRead) commands(client string, w arg) {
	if !w.lit {
		return
	}
	shell := func(text string) {
		if text = strings.TrimSpace(text); text != "" {
			r.shells = append(r.shells, arg{text: text, path: w.path, lit: true})
		}
	}
	file := func(name string) {
		if name = strings.Trim(strings.TrimSpace(name), `'";`); name != "" {
			r.files = append(r.files, arg{text: name, path: w.path, lit: true})
		}
	}
	if client == "psql" {
		for _, p := range sqlPrograms(w.text) {
			r.programs = append(r.programs, dbProgram{sqlProgram: p, path: w.path})
		}
	}
	for _, line := range strings.Split(w.text, "\n") {
		switch client {
		case "sqlite3", "duckdb":
			dotCommand(strings.TrimLeft(line, " \t"), shell, file)
		case "psql":
			psqlLine(line, shell, file)
		default:
			r.mysqlLine(line, w.path, shell, file)
		}
	}
}

// dotCommand reads one line of sqlite3's or duckdb's commands.
func dotCommand(line string, shell, file func(string)) {
	if !strings.HasPrefix(line, ".") {
		return
	}
	name, rest := line[1:], ""
	if i := strings.IndexAny(name, " \t"); i >= 0 {
		name, rest = name[:i], name[i+1:]
	}
	abbrev := func(full string, min int) bool { return len(name) >= min && strings.HasPrefix(full, name) }
	switch {
	case abbrev("shell", 2) || abbrev("system", 2):
		shell(rest)
	case abbrev("read", 3) || abbrev("output", 2) || abbrev("once", 2) || abbrev("import", 2):
		words := dotWords(rest)
		for i, x := range words {
			if strings.HasPrefix(x, "|") {
				shell(strings.Join(append([]string{x[1:]}, words[i+1:]...), " "))
				return
			}
			if strings.HasPrefix(x, "-") {
				continue // .once -x, .import --csv
			}
			if abbrev("read", 3) {
				file(x)
			}
			return
		}
	}
}

// dotWords splits a dot command's arguments as the shell does: at blanks,
// with '…' and "…" quoting.
func dotWords(s string) []string {
	var words []string
	for s = strings.TrimLeft(s, " \t"); s != ""; s = strings.TrimLeft(s, " \t") {
		if q := s[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return append(words, s[1:])
			}
			words, s = append(words, s[1:1+end]), s[2+end:]
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			return append(words, s)
		}
		words, s = append(words, s[:end]), s[end:]
	}
	return words
}

// psqlCopyProgram is the command of \copy … from program 'CMD' (or to
// program), ” standing for a quote inside it.
var psqlCopyProgram = regexp.MustCompile(`(?i)\bprogram\s+'((?:[^']|'')*)'`)

// psqlLine reads one line of psql's commands: its backslash commands,
// outside quoted SQL text.
func psqlLine(line string, shell, file func(string)) {
	var quote byte
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
			continue
		case ch == '\'' || ch == '"':
			quote = ch
			continue
		case ch != '\\':
			continue
		}
		j := i + 1
		if j < len(line) && line[j] == '!' {
			shell(line[j+1:]) // \! runs the rest of the line
			return
		}
		for j < len(line) && (line[j] >= 'a' && line[j] <= 'z' || line[j] == '_') {
			j++
		}
		name, rest := line[i+1:j], line[j:]
		args := rest // up to the next backslash command
		if k := strings.IndexByte(args, '\\'); k >= 0 {
			args = args[:k]
		}
		switch trimmed := strings.TrimSpace(rest); name {
		case "o", "out", "g", "gx", "w", "write":
			if strings.HasPrefix(trimmed, "|") {
				shell(trimmed[1:]) // the rest of the line is the command
				return
			}
		case "i", "include", "ir", "include_relative":
			if words := dotWords(args); len(words) > 0 {
				file(words[0])
			}
		case "copy":
			if m := psqlCopyProgram.FindStringSubmatch(rest); m != nil {
				shell(strings.ReplaceAll(m[1], "''", "'"))
			}
			args = rest // \copy takes the rest of the line
		}
		// `CMD` in a backslash command's arguments is CMD's output.
		for s := args; ; {
			open := strings.IndexByte(s, '`')
			if open < 0 {
				break
			}
			end := strings.IndexByte(s[open+1:], '`')
			if end < 0 {
				break
			}
			shell(s[open+1 : open+1+end])
			s = s[open+2+end:]
		}
		i = j + len(args) - 1
	}
}

// mysqlLine reads one line of mysql's commands: the long forms at the
// start of a statement (system, pager, source), the short forms (\!, \P,
// \.) anywhere outside quoted text.
func (r *dbRead) mysqlLine(line, path string, shell, file func(string)) {
	for at := 0; at < len(line); {
		s := strings.TrimLeft(line[at:], " \t")
		word, rest, _ := strings.Cut(s, " ")
		switch strings.ToLower(word) {
		case "system":
			shell(rest)
			return
		case "pager":
			cmd, _, _ := strings.Cut(rest, ";")
			r.pager(cmd, path)
		case "source":
			file(rest)
		}
		next := strings.IndexByte(line[at:], ';')
		if next < 0 {
			break
		}
		at += next + 1
	}
	var quote byte
	for i := 0; i+1 < len(line); i++ {
		switch ch := line[i]; {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"' || ch == '`':
			quote = ch
		case ch == '\\':
			switch line[i+1] {
			case '!':
				shell(line[i+2:])
				return
			case 'P':
				r.pager(line[i+2:], path)
				return
			case '.':
				if words := dotWords(line[i+2:]); len(words) > 0 {
					file(words[0])
				}
			}
			i++
		}
	}
}

// pager records a command line mysql runs for its output.
func (r *dbRead) pager(text, path string) {
	if text = strings.TrimSpace(text); text != "" {
		r.pagers = append(r.pagers, arg{text: text, path: path, lit: true})
	}
}

// dbClient judges a database shell: its commands' shell escapes are
// inline scripts, its pagers command lines it runs; without commands of
// its own it runs what it reads on its standard input.
func (a *auditor) dbClient(c invocation) cmdInfo {
	a.dbRemote(c) // netclients.go
	r := readDB(c)
	a.dbRuns(c.name, r, c.depth, c.env)
	return cmdInfo{name: c.name, stdinScript: r.stdin}
}

// dbRuns judges what a database shell's commands run.
func (a *auditor) dbRuns(client string, r dbRead, depth int, env map[string]string) {
	for _, w := range r.shells {
		a.inlineShell(client, w, depth, true, env)
	}
	for _, w := range r.pagers {
		a.envCommand(w, depth)
	}
	for _, p := range r.programs {
		switch p.lang {
		case "copy", "plsh":
			how := "a command line through a shell (COPY … PROGRAM)"
			if p.lang == "plsh" {
				how = "a shell script (LANGUAGE plsh)"
			}
			a.add(CodeShellExec, p.path, "the SQL given to "+quoted(client)+" has the database server run "+how)
			a.inferred.Exec = true
			sc := &scan{a: a, path: p.path, depth: depth + 1}
			sc.inherit(env)
			sc.script(p.text)
		default:
			a.add(CodeInlineCode, p.path, "the SQL given to "+quoted(client)+" has the database server run a "+
				quoted(p.lang)+" program written inline in the wiring (an untrusted procedural language)")
			a.inlineCode(p.text, p.path)
			a.inlineCommands(p.lang, p.text, p.path, depth)
		}
	}
}

// dbHereDoc judges the commands a here-document or here-string gives a
// database shell (psql <<EOF … \! cmd … EOF).
func (a *auditor) dbHereDoc(client, text, path string, depth int) {
	var r dbRead
	r.commands(client, arg{text: text, path: path, lit: true})
	a.dbRuns(client, r, depth, nil)
}

// hereDocText returns the text a here-document gives its command, when
// it holds no expansion: as written after a quoted delimiter (<<'EOF'),
// else with the backslashes a shell removes there (before \\, $, ` and a
// line feed) removed.
func hereDocText(r *syntax.Redirect) (string, bool) {
	if r.Hdoc == nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(lit.Value)
	}
	if r.Word != nil && len(r.Word.Parts) == 1 {
		if delim, ok := r.Word.Parts[0].(*syntax.Lit); ok && !strings.Contains(delim.Value, `\`) {
			return hereDocEscapes.Replace(b.String()), true
		}
	}
	return b.String(), true
}

var hereDocEscapes = strings.NewReplacer(`\\`, `\`, `\$`, "$", "\\`", "`", "\\\n", "")

// mongoValues are mongosh's options that take the next word.
var mongoValues = set("--host", "--port", "-u", "--username", "-p", "--password", "--authenticationDatabase",
	"--authenticationMechanism", "--apiVersion", "--tlsCAFile", "--tlsCertificateKeyFile",
	"--tlsCertificateKeyFilePassword", "--tlsCRLFile", "--gssapiServiceName", "--awsAccessKeyId",
	"--awsSecretAccessKey", "--awsSessionToken", "--keyVaultNamespace", "--cryptSharedLibPath", "--oidcFlows",
	"--oidcRedirectUri", "--db")

// readMongo returns the inline programs of a mongosh command line, the
// files it runs, and whether it runs what it reads on its standard input.
func readMongo(args []arg) (code, files []arg, stdin bool) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		flag, val, joined := strings.Cut(w.text, "=")
		switch {
		case flag == "--eval":
			if v, ok := optValue(args, &i, val, joined); ok {
				code = append(code, v)
			}
		case flag == "-f" || flag == "--file":
			if v, ok := optValue(args, &i, val, joined); ok {
				files = append(files, v)
			}
		case mongoValues[flag] && !joined:
			i++
		case strings.HasPrefix(w.text, "-"):
		case hasSuffixFold(w.text, ".js", ".mjs", ".cjs"):
			files = append(files, w)
		}
	}
	return code, files, len(code) == 0 && len(files) == 0
}

// mongosh judges mongosh and mongo: --eval is a JavaScript program
// written inline; without one or a file it runs its standard input.
func (a *auditor) mongosh(c invocation) cmdInfo {
	a.dbRemote(c) // netclients.go
	code, _, stdin := readMongo(c.args())
	for _, w := range code {
		a.add(CodeInlineCode, w.path, "runs a "+quoted(c.name)+" program written inline in the wiring")
		if w.lit {
			a.inlineCode(w.text, w.path)
			a.inlineCommands(c.name, w.text, w.path, c.depth) // inlinecalls.go
		}
	}
	return cmdInfo{name: c.name, stdinScript: stdin}
}
