package assess

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
)

// Programs that run a command, a script or a program given in one of
// their options: find -exec, an editor's or debugger's commands, tar's
// command options, a network tool that hands its connection to a program,
// and the Windows programs that fetch or run script from a URL. What they
// run is judged like the wiring's own command.

// find judges `find … -exec|-execdir|-ok|-okdir command… ;|+`: each
// command runs once per file found.
//
// find writes out what those commands write: a reader's (find ~/.ssh
// -exec cat {} +) carries the credentials it reads. Without a command, a
// find over a credential folder writes out the paths of the files in it.
func (a *auditor) find(c invocation) cmdInfo {
	args := c.args()
	found := a.findsIn(args)
	out := cmdInfo{name: c.name}
	acts := false
	for i := 0; i < len(args); i++ {
		switch args[i].text {
		case "-delete", "-fprint", "-fprint0", "-fprintf", "-fls", "-quit":
			acts = true
		case "-exec", "-execdir", "-ok", "-okdir":
			acts = true
			end := i + 1
			for end < len(args) && args[end].text != ";" && args[end].text != "+" {
				end++
			}
			if end > i+1 {
				a.inferred.Exec = true
				argv := args[i+1 : end]
				if found != "" {
					// What {} stands for: a file found under the start.
					argv = slices.Clone(argv)
					for j := range argv {
						if argv[j].lit && strings.Contains(argv[j].text, "{}") {
							argv[j].text = strings.ReplaceAll(argv[j].text, "{}", found)
						}
					}
				}
				if info := a.command(argv, c.depth+1, ctxNested); info.secrets != "" && out.secrets == "" {
					out.secrets = info.secrets
				}
			}
			i = end
		}
	}
	if found != "" && !acts {
		out.lists = found
	}
	return out
}

// findsIn returns a path that stands for the credential files find finds,
// or "": under the first of its starting points (after its -H, -L, -P, -D
// and -O options, before its expression) that holds credentials, a file
// {} named as its first -name or -iname pattern says (~/.ssh/id_{} for
// -name 'id_*'), so that find ~/.ssh -name '*.pub' finds none. What those
// files hold is what {} stands for in the commands it runs.
func (a *auditor) findsIn(args []arg) string {
	i := 0
	for i < len(args) && len(args[i].text) > 1 && args[i].text[0] == '-' && strings.ContainsRune("HLPDO", rune(args[i].text[1])) {
		if args[i].text == "-D" {
			i++ // its debug options
		}
		i++
	}
	for ; i < len(args); i++ {
		t := args[i].text
		if t == "" || strings.ContainsRune("-(!,", rune(t[0])) {
			break
		}
		if args[i].lit && a.credentialAt(t) != "" {
			file := cleanPath(t) + "/" + findName(args[i+1:])
			if a.credentialAt(file) == "" {
				return ""
			}
			return file
		}
	}
	return ""
}

// findName returns the name find's expression gives the files it finds,
// from its first -name or -iname pattern with {} for each wildcard run
// (id_{} for 'id_*'), or {} when there is none or its value is not known.
func findName(expr []arg) string {
	for i := 0; i+1 < len(expr); i++ {
		if t := expr[i].text; (t == "-name" || t == "-iname") && expr[i+1].lit {
			return globName(expr[i+1].text)
		}
	}
	return "{}"
}

// globName is the file name pattern p with {} for each run of wildcards
// (*, ?, a bracket expression), or {} when p is not a plain name.
func globName(p string) string {
	if p == "" || strings.ContainsAny(p, `/\`) {
		return "{}"
	}
	var b strings.Builder
	wild := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '*' || c == '?' || c == '[':
			if c == '[' {
				end := strings.IndexByte(p[i+1:], ']')
				if end < 0 {
					return "{}"
				}
				i += end + 1
			}
			if !wild {
				b.WriteString("{}")
			}
			wild = true
		default:
			b.WriteByte(c)
			wild = false
		}
	}
	return b.String()
}

// vim judges the commands vim runs from its command line (-c CMD, --cmd
// CMD, +CMD): they are a program written inline, and a shell command among
// them (:!cmd, :r !cmd, :w !cmd) is parsed as a script.
func (a *auditor) vim(c invocation) cmdInfo {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		var cmd arg
		switch {
		case t == "--":
			i = len(args)
			continue
		case t == "-c" || t == "--cmd":
			if i+1 >= len(args) {
				continue
			}
			i++
			cmd = args[i]
		case len(t) > 1 && t[0] == '+' && !isDigits(t[1:]) && t[1] != '/' && t[1] != '?':
			cmd = args[i]
			cmd.text = t[1:]
		default:
			continue
		}
		a.editorCommand(c, cmd)
	}
	// In Ex mode (ex, vim -e, vim -es) the commands come from the
	// standard input too.
	return cmdInfo{name: c.name, stdinScript: vimExMode(c)}
}

// editorCommand reports an editor's or debugger's command given in the
// wiring, and parses the shell command it runs, if any (after vim's "!"
// or gdb's "shell").
func (a *auditor) editorCommand(c invocation, cmd arg) {
	a.add(CodeInlineCode, cmd.path, "runs "+quoted(c.name)+" commands written inline in the wiring")
	if !cmd.lit {
		return
	}
	a.codeHeuristics(cmd.text, cmd.path)
	if c.name == "emacs" || c.name == "emacsclient" {
		a.inlineCommands(c.name, cmd.text, cmd.path, c.depth) // inlinecalls.go: Emacs Lisp's calls
		return
	}
	if sh, ok := shellEscape(cmd.text); ok {
		a.inferred.Exec = true
		sc := &scan{a: a, path: cmd.path, depth: c.depth + 1}
		sc.script(sh)
	}
}

// shellEscape returns the shell command of an editor's or debugger's
// command line: what follows a "!" that starts the command or follows a
// blank (vim's :!cmd, :r !cmd, :w !cmd, gdb's !cmd), or gdb's "shell cmd".
func shellEscape(cmd string) (string, bool) {
	s := strings.TrimLeft(cmd, ": \t")
	if rest, ok := strings.CutPrefix(s, "shell "); ok {
		return rest, true
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '!' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') {
			return s[i+1:], true
		}
	}
	return "", false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// evalOptions are, per program, the options whose value is a command or
// expression of the program's language: emacs --eval, gdb -ex.
var evalOptions = map[string]map[string]bool{
	"emacs":       set("--eval", "-eval", "--execute", "-execute"),
	"emacsclient": set("-e", "--eval"),
	"gdb":         set("-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command", "--init-eval-command"),
	"lldb":        set("-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash"),
}

// evaluator judges a program whose options run expressions or commands of
// its own language.
func (a *auditor) evaluator(c invocation) cmdInfo {
	opts := evalOptions[c.name]
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			break
		}
		flag, val, joined := strings.Cut(t, "=")
		if !opts[flag] {
			continue
		}
		cmd, ok := optValue(args, &i, val, joined)
		if !ok {
			break
		}
		a.editorCommand(c, cmd)
	}
	// gdb and lldb read commands on their standard input too (cmdreaders.go).
	return cmdInfo{name: c.name, stdinScript: (c.name == "gdb" || c.name == "lldb") && debuggerReads(c)}
}

// tarCommandOptions are tar's options whose value is a command line tar
// hands to a shell.
var tarCommandOptions = set("--to-command", "--use-compress-program", "-I", "--info-script",
	"--new-volume-script", "-F", "--rsh-command")

// tar judges the command lines of tar's options (--to-command,
// --use-compress-program, --checkpoint-action=exec=…, …). tar hands each
// to sh -c; one plain command (-I zstd, --use-compress-program='xz -9') is
// judged as that command rather than as an inline script.
func (a *auditor) tar(c invocation) cmdInfo {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		flag, val, joined := strings.Cut(t, "=")
		if flag == "--checkpoint-action" {
			if cmd, ok := strings.CutPrefix(val, "exec="); ok && joined {
				w := args[i]
				w.text = cmd
				a.tarCommand(w, c.depth)
			}
			continue
		}
		if !tarCommandOptions[flag] {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			break
		}
		a.tarCommand(w, c.depth)
	}
	return cmdInfo{name: c.name}
}

// tarCommand judges a command line tar hands to sh -c.
func (a *auditor) tarCommand(w arg, depth int) {
	a.inferred.Exec = true
	if !w.lit {
		return
	}
	words := strings.Fields(w.text)
	for _, f := range words {
		if !plainShellWord(f) {
			a.inlineShell("tar", w, depth, true, nil)
			return
		}
	}
	argv := make([]arg, len(words))
	for i, f := range words {
		argv[i] = arg{text: f, path: w.path, lit: true}
	}
	a.command(argv, depth+1, ctxNested)
}

// netExec judges a network tool that hands its connection to a program:
// nc -e PROG, nc -c CMD, ncat --exec/--sh-exec, socat's EXEC: and SYSTEM:
// addresses. A shell or interpreter given the connection executes what
// arrives over the network.
func (a *auditor) netExec(c invocation) cmdInfo {
	info := cmdInfo{name: c.name, fetches: true}
	args := c.args()
	if c.name == "socat" {
		for _, w := range args {
			typ, rest, ok := strings.Cut(w.text, ":")
			if !ok || len(typ) < 2 || typ[0] == '-' {
				continue
			}
			v := w
			v.text = socatValue(rest)
			switch strings.ToUpper(typ) {
			case "EXEC":
				a.connectionTo(c, v, false)
			case "SYSTEM":
				a.connectionTo(c, v, true)
			}
		}
		return info
	}
	for i := 0; i < len(args); i++ {
		t := args[i].text
		flag, val, joined := strings.Cut(t, "=")
		shell := flag == "-c" || flag == "--sh-exec"
		if !shell && flag != "-e" && flag != "--exec" {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			break
		}
		// OpenBSD's nc reads -c as "use TLS" and -e as a certificate name;
		// only a value that names a program is a program.
		if (flag == "-c" || flag == "-e") && !looksLikeCommand(w.text) {
			continue
		}
		a.connectionTo(c, w, shell)
	}
	return info
}

// looksLikeCommand reports whether an nc option's value names a program
// (a path, or a word with arguments) rather than a host name.
func looksLikeCommand(s string) bool {
	return strings.ContainsAny(s, "/\\ ") || isPOSIXShell(progName(s))
}

// socatValue returns the command of a socat EXEC: or SYSTEM: address: up
// to the first comma outside quotes, where the address's options begin.
func socatValue(s string) string {
	var q byte
	for i := 0; i < len(s); i++ {
		switch {
		case q != 0 && s[i] == q:
			q = 0
		case q == 0 && (s[i] == '"' || s[i] == '\''):
			q = s[i]
		case q == 0 && s[i] == ',':
			return s[:i]
		}
	}
	return s
}

// connectionTo judges the program a network tool starts with the
// connection as its input: a command line split into words (shell: read by
// sh -c). A shell or interpreter reading it executes what arrives.
func (a *auditor) connectionTo(c invocation, w arg, shell bool) {
	a.inferred.Exec = true
	if !w.lit {
		return
	}
	var info cmdInfo
	if shell {
		sc := &scan{a: a, path: w.path, depth: c.depth + 1}
		info = sc.script(w.text)
	} else {
		words := strings.Fields(w.text)
		argv := make([]arg, len(words))
		for i, f := range words {
			argv[i] = arg{text: strings.Trim(f, `"'`), path: w.path, lit: true}
		}
		info = a.command(argv, c.depth+1, ctxNested)
	}
	if info.stdinScript {
		a.add(CodePipeToShell, w.path, "hands the network connection of "+quoted(c.name)+" to "+quoted(info.name)+", which executes what arrives")
	}
}

// mshta judges mshta: a vbscript: or javascript: argument is a program
// written inline; a URL is an HTML application downloaded and run.
func (a *auditor) mshta(c invocation) cmdInfo {
	for _, w := range c.args() {
		a.scriptURL(c, w)
	}
	return cmdInfo{name: c.name}
}

// scriptURL judges a word that a Windows script host runs: script in a
// vbscript: or javascript: URL, or a document fetched by URL and run.
func (a *auditor) scriptURL(c invocation, w arg) {
	lw := strings.ToLower(strings.TrimSpace(w.text))
	switch {
	case strings.HasPrefix(lw, "vbscript:") || strings.HasPrefix(lw, "javascript:"):
		a.add(CodeInlineCode, w.path, "runs a script written inline in the wiring through "+quoted(c.name))
		if w.lit {
			a.codeHeuristics(w.text, w.path)
		}
	case strings.HasPrefix(lw, "http://") || strings.HasPrefix(lw, "https://") || strings.HasPrefix(lw, `\\`):
		a.inferred.Network = true
		a.add(CodeFetchExec, w.path, quoted(c.name)+" downloads a script and runs it")
	}
}

// rundllStarts are the entry points, as dll,entry in lower case without
// the A or W suffix, with which rundll32 starts the program (or opens the
// file) its next word names, the rest of the line its arguments.
var rundllStarts = set("shell32,shellexec_rundll", "url,fileprotocolhandler", "url,openurl",
	"ieframe,openurl", "shdocvw,openurl", "zipfldr,routethecall", "advpack,registerocx",
	"ieadvpack,registerocx", "pcwutl,launchapplication")

// rundll32 judges rundll32 javascript:… (script run by mshtml), the entry
// points that start a program (shell32.dll,ShellExec_RunDLL cmd /c …,
// url.dll,FileProtocolHandler, advpack.dll,RegisterOCX …), judged as the
// command they start, and dfshim.dll,ShOpenVerbApplication of a URL (a
// ClickOnce application downloaded and run).
func (a *auditor) rundll32(c invocation) cmdInfo {
	args := c.args()
	for _, w := range args {
		if i := strings.Index(strings.ToLower(w.text), "javascript:"); i >= 0 {
			v := w
			v.text = w.text[i:]
			a.scriptURL(c, v)
		}
	}
	if len(args) < 2 || !args[0].lit {
		return cmdInfo{name: c.name}
	}
	dll, entry, _ := strings.Cut(args[0].text, ",")
	dll = strings.TrimSuffix(progName(dll), ".dll")
	entry = strings.ToLower(strings.TrimSpace(entry))
	target := args[1]
	lt := strings.ToLower(target.text)
	url := strings.HasPrefix(lt, "http://") || strings.HasPrefix(lt, "https://") || strings.HasPrefix(lt, `\\`)
	switch {
	case dll == "dfshim" && strings.HasPrefix(entry, "shopenverbapplication") && url:
		a.inferred.Network = true
		a.add(CodeFetchExec, target.path, "`rundll32` downloads a ClickOnce application and runs it")
	case rundllStarts[dll+","+entry] || rundllStarts[dll+","+strings.TrimRight(entry, "aw")]:
		if url {
			// A browser opens a URL; a program on a share is judged as
			// every word naming a share is (share.go).
			a.inferred.Network = true
			return cmdInfo{name: c.name}
		}
		a.inferred.Exec = true
		return a.command(args[1:], c.depth+1, ctxNested)
	}
	return cmdInfo{name: c.name}
}

// regsvr32 judges regsvr32 /i:URL (a scriptlet fetched and run by
// scrobj.dll).
func (a *auditor) regsvr32(c invocation) cmdInfo {
	for _, w := range c.args() {
		lw := strings.ToLower(w.text)
		for _, p := range []string{"/i:", "-i:"} {
			if rest, ok := strings.CutPrefix(lw, p); ok {
				v := w
				v.text = rest
				a.scriptURL(c, v)
			}
		}
	}
	return cmdInfo{name: c.name}
}

// msiexec judges an installer package given by URL: it is downloaded and
// installed.
func (a *auditor) msiexec(c invocation) cmdInfo {
	for _, w := range c.args() {
		lw := strings.ToLower(w.text)
		if strings.HasPrefix(lw, "http://") || strings.HasPrefix(lw, "https://") {
			a.inferred.Network = true
			a.add(CodeFetchExec, w.path, "`msiexec` downloads an installer package and runs it")
		}
	}
	return cmdInfo{name: c.name}
}

// certutil judges certutil: -urlcache and -verifyctl with a URL download
// a file; -decode turns encoded text back into what it encodes.
func (a *auditor) certutil(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	fetch := false
	for _, w := range c.args() {
		switch lw := strings.ToLower(w.text); lw {
		case "-decode", "/decode", "-decodehex", "/decodehex":
			info.decodes = true
		case "-urlcache", "/urlcache", "-verifyctl", "/verifyctl":
			fetch = true
		}
	}
	if fetch {
		a.inferred.Network = true
		a.add(CodeFetchExec, c.argv[0].path, "runs `certutil -urlcache`, which downloads content when the server starts")
		info.fetches = true
		a.fetchedAfterURL(c)
	}
	return info
}

// fetchedAfterURL records the file a Windows download tool writes when it
// names it in the word after the URL (certutil -urlcache -f URL FILE,
// bitsadmin /transfer NAME URL FILE).
func (a *auditor) fetchedAfterURL(c invocation) {
	args := c.args()
	for i, w := range args {
		if _, _, ok := wordURL(w.text); ok && w.lit && i+1 < len(args) && args[i+1].lit {
			a.addFetched(args[i+1].text, c.name)
			return
		}
	}
}

// dataModule returns the program of a data: URL module specifier (node
// --import data:text/javascript,…, deno run data:…), and whether it is
// written in base64. ok is false for any other specifier.
func dataModule(spec string) (code string, encoded, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(spec), "data:")
	if !found {
		return "", false, false
	}
	meta, body, _ := strings.Cut(rest, ",")
	if strings.HasSuffix(strings.ToLower(meta), ";base64") {
		if b, err := base64.StdEncoding.DecodeString(body); err == nil {
			return string(b), true, true
		}
		return body, true, true
	}
	if s, err := url.PathUnescape(body); err == nil {
		body = s
	}
	return body, false, true
}

// windowsCommand judges a command line that a Windows program starts
// (wmic process call create "…", forfiles /c "…"): the first word is the
// program; a cmd.exe or PowerShell line is handed to it whole, as the
// program is given the rest of the line to read.
func (a *auditor) windowsCommand(c invocation, w arg) {
	a.inferred.Exec = true
	if !w.lit {
		return
	}
	line := strings.TrimSpace(w.text)
	cmds, _ := cmdParse(line)
	if len(cmds) == 0 || len(cmds[0].words) == 0 {
		return
	}
	first := cmds[0].words[0]
	argv := []arg{{text: first.text, path: w.path, lit: true}}
	// The rest of the line after the program's word, as written.
	rest := ""
	end := strings.IndexAny(line, " \t")
	if strings.HasPrefix(line, `"`) {
		end = strings.IndexByte(line[1:], '"') + 2
	}
	if end > 0 && end < len(line) {
		rest = strings.TrimSpace(line[end:])
	}
	switch progName(first.text) {
	case "cmd":
		// cmd.exe reads the rest of its command line itself.
		if rest != "" {
			argv = append(argv, arg{text: rest, path: w.path, lit: true})
		}
	case "powershell", "pwsh":
		// PowerShell is given its words as the C runtime splits a
		// command line: `powershell -c iex (iwr …)` is -c and the words
		// of the command it joins again.
		for _, word := range windowsArgv(rest) {
			argv = append(argv, arg{text: word, path: w.path, lit: true})
		}
	default:
		for _, word := range cmds[0].words[1:] {
			argv = append(argv, arg{text: word.text, path: w.path, lit: true})
		}
	}
	a.command(argv, c.depth+1, ctxNested)
}

// windowsArgv splits a Windows command line (without its program) into
// the words a program started with it receives, by the rules of the C
// runtime and CommandLineToArgvW: blanks separate words outside quotes;
// 2n backslashes before a quote are n backslashes and the quote opens or
// closes a quoted part, 2n+1 are n and a literal quote; other backslashes
// are literal; inside quotes a doubled quote is a literal one.
func windowsArgv(line string) []string {
	var words []string
	var b strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case (c == ' ' || c == '\t') && !quoted:
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			j := i
			for j < len(line) && line[j] == '\\' {
				j++
			}
			n := j - i
			if j < len(line) && line[j] == '"' {
				b.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 { // an escaped quote, taken literally
					b.WriteByte('"')
					i = j
					continue
				}
			} else {
				b.WriteString(strings.Repeat(`\`, n))
			}
			i = j - 1 // a quote after an even run is read as a quote
		case c == '"':
			inWord = true
			if quoted && i+1 < len(line) && line[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			quoted = !quoted
		default:
			inWord = true
			b.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, b.String())
	}
	return words
}

// scService judges `sc [\\\\HOST] create|config NAME binPath= "command line"
// …`: registering a Windows service (or changing what one runs) is
// persistence, and its command line is judged as what runs.
func (a *auditor) scService(c invocation) cmdInfo {
	args := c.args()
	if len(args) > 0 && strings.HasPrefix(args[0].text, `\\`) {
		args = args[1:] // the machine whose services are meant
	}
	if len(args) == 0 {
		return cmdInfo{name: c.name}
	}
	verb := lower(args[0].text)
	if verb != "create" && verb != "config" {
		return cmdInfo{name: c.name}
	}
	var bin *arg
	for i := 1; i < len(args); i++ {
		t := lower(args[i].text)
		switch {
		case t == "binpath=" && i+1 < len(args):
			bin = &args[i+1]
		case strings.HasPrefix(t, "binpath=") && len(t) > len("binpath="):
			v := args[i]
			v.text = v.text[len("binpath="):]
			bin = &v
		}
	}
	switch {
	case verb == "create":
		a.add(CodePersistence, c.argv[0].path, "registers a Windows service with "+quoted(c.name)+": its program runs at boot")
	case bin != nil:
		a.add(CodePersistence, c.argv[0].path, "changes the program a Windows service runs with "+quoted(c.name))
	}
	if bin != nil {
		a.windowsCommand(c, *bin)
	}
	return cmdInfo{name: c.name}
}

// wmic judges `wmic … process call create "command line"`, and a
// stylesheet it formats its output with taken from a URL or a share
// (/format:URL), whose script runs.
func (a *auditor) wmic(c invocation) cmdInfo {
	args := c.args()
	for _, w := range args {
		if v, ok := cutPrefixFold(w.text, "/format:"); ok {
			v = strings.Trim(v, `"`)
			if lv := strings.ToLower(v); strings.HasPrefix(lv, "http://") || strings.HasPrefix(lv, "https://") || strings.HasPrefix(lv, `\\`) {
				a.inferred.Network = true
				a.add(CodeFetchExec, w.path, "`wmic` downloads a stylesheet and runs its script (/format:URL)")
			}
		}
	}
	for i := 0; i+2 < len(args); i++ {
		if strings.EqualFold(args[i].text, "call") && strings.EqualFold(args[i+1].text, "create") {
			w := args[i+2]
			if k, v, ok := strings.Cut(w.text, "="); ok && strings.EqualFold(strings.TrimSpace(k), "CommandLine") {
				w.text = strings.Trim(strings.TrimSpace(v), `"`)
			}
			a.windowsCommand(c, w)
			break
		}
	}
	return cmdInfo{name: c.name}
}

// cutPrefixFold is strings.CutPrefix with the prefix matched without case.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// forfiles judges `forfiles … /c "command"`, run once per file found.
func (a *auditor) forfiles(c invocation) cmdInfo {
	args := c.args()
	for i := 0; i+1 < len(args); i++ {
		if t := strings.ToLower(args[i].text); t == "/c" || t == "-c" {
			a.windowsCommand(c, args[i+1])
			break
		}
	}
	return cmdInfo{name: c.name}
}

// schtasks judges `schtasks /create … /tr "command"`: a task that runs at
// login, boot or on a schedule is persistence, and its command (/tr) is a
// Windows command line, judged as what runs.
func (a *auditor) schtasks(c invocation) cmdInfo {
	args := c.args()
	create := false
	for _, w := range args {
		create = create || lower(w.text) == "/create" || lower(w.text) == "-create"
	}
	if !create {
		return cmdInfo{name: c.name}
	}
	a.add(CodePersistence, c.argv[0].path, "registers a program to run at login or boot with "+quoted(c.name))
	for i := 0; i+1 < len(args); i++ {
		if t := lower(args[i].text); t == "/tr" || t == "-tr" {
			a.windowsCommand(c, args[i+1])
			break
		}
	}
	return cmdInfo{name: c.name}
}
