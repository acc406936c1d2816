package assess

import (
	"encoding/base64"
	"slices"
	"strings"
	"unicode/utf16"
)

// arg is one word of a command line the wiring runs: its text, the manifest
// path it came from, and whether its text is fully known (a word of a shell
// script built from a variable or a substitution is not).
type arg struct {
	text string
	path string
	lit  bool
}

// ctxKind is where a command line comes from.
type ctxKind uint8

const (
	ctxTop     ctxKind = iota // [mcp] command and args: the server itself
	ctxInstall                // [install] verify: run once at install time
	ctxNested                 // run by a script or a wrapper of the wiring
)

// cmdInfo is what a judged command line does, for the rules that look at how
// commands combine (pipelines, substitutions).
type cmdInfo struct {
	name        string // program after peeling wrappers, "" when unknown
	stdinScript bool   // a shell or interpreter that executes its standard input
	runsArg     bool   // a shell or interpreter that runs an argument as a script, whose text is not known
	fetches     bool   // downloads content (curl, wget, …)
	decodes     bool   // decodes encoded text (base64 -d, xxd -r, …)
	secrets     string // the credentials it writes out, as credentialFile says ("" for none)
	lists       string // the paths of credential files it writes out, as one path with {} ("" for none)
	streams     string // the download tool whose download it writes out ("" for none)
	sends       bool   // a network client that sends what it reads
	// token is the token it prints (tokens.go), to is where a client
	// that sends sends: the hosts of the URLs among its words.
	token *tokenSource
	to    []string
}

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// progName is the program a command word names: its base name after either
// path separator, without a Windows executable suffix, in lower case (file
// systems of macOS and Windows ignore case).
func progName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	s = strings.ToLower(s)
	for _, ext := range []string{".exe", ".cmd", ".bat", ".com", ".ps1"} {
		if strings.HasSuffix(s, ext) && len(s) > len(ext) {
			s = strings.TrimSuffix(s, ext)
			break
		}
	}
	return s
}

// family folds versioned interpreter and shell names (python3.12,
// python3.13t, perl5.36, lua5.4, nodejs, bash5, bash-5.2, ksh93, zsh-5.9)
// onto one name.
func family(name string) string {
	for _, f := range []string{"python", "pypy", "perl", "ruby", "php", "lua", "node", "pwsh", "pip",
		"bash", "zsh", "ksh", "dash", "mksh", "yash", "fish", "tcsh"} {
		if !strings.HasPrefix(name, f) {
			continue
		}
		rest := name[len(f):]
		if f == "python" || f == "pypy" {
			// Python's ABI suffixes: free-threaded (3.13t), debug
			// (3.13d), pymalloc (3.7m).
			rest = strings.TrimRight(rest, "tdm")
		}
		if strings.Trim(rest, "0123456789.-") == "" && (rest == "" || strings.ContainsAny(rest, "0123456789")) {
			if f == "pypy" {
				return "python"
			}
			return f
		}
	}
	switch name {
	case "nodejs":
		return "node"
	case "py", "ipython", "ipython3", "jython", "micropython", "sage":
		// IPython, Jython, MicroPython and Sage take a Python program
		// after -c, as python does.
		return "python"
	case "luajit":
		return "lua"
	}
	return name
}

// limit reports that the analysis stopped at one of its bounds.
func (a *auditor) limit(path, why string) {
	a.add(CodeUnparsableShell, path, "not analysed: "+why)
}

// command judges one command line: it peels wrappers, then judges the
// program that finally runs. depth counts scripts and wrappers already
// entered.
func (a *auditor) command(argv []arg, depth int, ctx ctxKind) cmdInfo {
	env := a.shellEnv // what this line inherits, as far as it is known
	a.shellEnv = nil
	if len(argv) == 0 {
		return cmdInfo{}
	}
	if depth > maxDepth {
		a.limit(argv[0].path, "commands nested too deeply")
		return cmdInfo{}
	}
	for peeled := 0; ; peeled++ {
		if len(argv) == 0 {
			return cmdInfo{}
		}
		if peeled > maxPeel {
			a.limit(argv[0].path, "too many wrapper commands")
			return cmdInfo{}
		}
		if !argv[0].lit {
			return cmdInfo{}
		}
		a.shareProgram(argv[0])
		if ctx != ctxNested && selfExe[argv[0].text] {
			// Started by the MCP client itself, /proc/self/exe is the
			// client's own program (node, Electron, Python …): what
			// runs depends on the client, and it looks like the client
			// to what watches programs start.
			a.inferred.Exec = true
			a.add(CodeDefenseEvasion, argv[0].path, "runs the program of the MCP client that starts it ("+
				safeText(argv[0].text, 40)+") with the wiring's words: which program that is depends on the client, and it passes for the client")
			return cmdInfo{}
		}
		if ctx != ctxTop && selfExe[argv[0].text] {
			// In a script, the running shell's own binary: a copy of
			// the shell forks and runs it.
			argv = append([]arg{{text: "sh", path: argv[0].path, lit: true}}, argv[1:]...)
		}
		c := invocation{name: progName(argv[0].text), argv: argv, depth: depth, ctx: ctx, env: env}
		peel, ok := wrappers[c.name]
		if !ok && distroLauncher(c.name, argv[0].text) {
			return a.distro(c)
		}
		if !ok && argv[0].text == "mcp" {
			if info, ok := a.mcpSDK(c); ok {
				return info
			}
		}
		if !ok {
			if (ctx == ctxTop || peeled > 0) && placeholderProgram(argv[0].text) {
				// ${SHELL} -c '…' runs whatever the user's variable names:
				// neither the program nor what its words do is known. (The
				// words after a container's image may be arguments of its
				// entrypoint, and a placeholder is then a value.)
				a.limit(argv[0].path, "the program is a placeholder the user fills in ("+quoted(argv[0].text)+
					"), so what runs and what its arguments do cannot be judged")
				return cmdInfo{}
			}
			return a.program(c)
		}
		if c.name == "tmux" || c.name == "screen" {
			a.runsFetched(c) // tmux -f FILE, screen -c FILE: commands it runs (cmdreaders.go)
		}
		next, info, done := peel(a, c)
		if done {
			return info
		}
		if len(next) == 0 && c.name == "env" && !slices.ContainsFunc(c.args(), clearsEnv) {
			// env with no command prints the environment.
			return cmdInfo{name: c.name, secrets: serverEnvironment}
		}
		switch {
		case c.name == "env":
			env = a.envAfter(c.args(), env)
		case !keepsEnv[c.name] || readsEnvFile(c.argv, next):
			env = nil
		}
		argv = next
	}
}

// selfExe are the paths of the running process's own program on Linux.
var selfExe = set("/proc/self/exe", "/proc/thread-self/exe")

// placeholderProgram reports whether a program word names its program by a
// placeholder (${SHELL}, %COMSPEC%, <executable>): its base name is one. A
// placeholder directory before a named program (${HOME}/bin/srv) names it.
func placeholderProgram(s string) bool {
	base := strings.TrimSpace(s)
	if i := strings.LastIndexAny(base, `/\`); i >= 0 && !strings.HasSuffix(base, "}") {
		base = base[i+1:]
	}
	return base != "" && placeholder(base)
}

// skipFlags drops leading options (and the values of the options in
// withValue) and a "--" terminator.
func skipFlags(args []arg, withValue map[string]bool) []arg {
	i := 0
	for i < len(args) {
		t := args[i].text
		if t == "--" {
			i++
			break
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
		if withValue[t] {
			i++
		}
		i++
	}
	if i >= len(args) {
		return []arg{}
	}
	return args[i:]
}

// isAssignment reports whether t is NAME=value with a plausible name.
func isAssignment(t string) (string, bool) {
	i := strings.IndexByte(t, '=')
	if i <= 0 || t[0] == '-' || strings.ContainsAny(t[:i], "/\\ ") {
		return "", false
	}
	return t[:i], true
}

// assignedWord returns the variable a NAME=value word sets and its value:
// the literal value, or, for a script's word whose value is not known
// (NAME="$V", whose text is "NAME=", see assignPrefix), a value that is
// not literal; for a word that sets a variable not known by its name
// ("$K"=x), an empty name.
func assignedWord(w arg) (string, arg, bool) {
	if !w.lit && w.text == unknownAssignment {
		return "", arg{path: w.path}, true // "$K"=x: which variable is not known
	}
	k, ok := isAssignment(w.text)
	switch {
	case !ok:
		return "", arg{}, false
	case w.lit:
		return k, arg{text: w.text[len(k)+1:], path: w.path, lit: true}, true
	case w.text == k+"=" && shellName(k):
		return k, arg{path: w.path}, true
	}
	return "", arg{}, false
}

// clearsEnv reports whether w is an option of env that starts from an
// empty environment (-i, --ignore-environment, a lone -, or -i in a
// cluster of options).
func clearsEnv(w arg) bool {
	t := w.text
	if t == "-" || t == "--ignore-environment" {
		return true
	}
	if len(t) < 2 || t[0] != '-' || t[1] == '-' {
		return false
	}
	for _, c := range t[1:] {
		switch c {
		case 'i':
			return true
		case 'u', 'C', 'P', 'S':
			return false // the rest is the option's value
		}
	}
	return false
}

// envShortValues are env's short options that take a value.
var envShortValues = set("-u", "-C", "-P", "-S")

// envShortValue returns the first of env's short options in the word t (a
// cluster such as -iS) that takes a value, or "".
func envShortValue(t string) string {
	if len(t) < 2 || t[0] != '-' || t[1] == '-' {
		return ""
	}
	f, _, _ := shortCluster(t, envShortValues)
	return f
}

// peelEnv judges the options and assignments of env and returns the command
// it runs (empty when env only prints the environment).
func (a *auditor) peelEnv(args []arg, depth int) []arg {
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		switch {
		case t == "--":
			return args[i+1:]
		case t == "-u" || t == "--unset" || t == "-C" || t == "--chdir" || t == "-P":
			i++
		case t == "--split-string" || strings.HasPrefix(t, "--split-string=") || envShortValue(t) == "-S":
			s, ok := strings.CutPrefix(t, "--split-string=")
			if !ok {
				// -S STRING, -SSTRING, or -S last in a cluster (-iS STRING)
				_, s, _ = shortCluster(t, envShortValues)
			}
			if s == "" && !ok && i+1 < len(args) {
				i++
				s = args[i].text
			}
			// The split words are env's again: handing them back behind
			// an env word makes each -S one more wrapper peeled, within
			// maxPeel.
			out := []arg{{text: "env", path: args[i].path, lit: true}}
			for _, f := range envSplit(s) {
				out = append(out, arg{text: f.text, path: args[i].path, lit: args[i].lit && f.lit})
			}
			return append(out, args[i+1:]...)
		case len(t) > 2 && t[0] == '-' && t[1] != '-':
			// A cluster of short options, as getopt reads it: -iu NAME
			// takes the next word for -u.
			if _, _, joined := shortCluster(t, envShortValues); envShortValue(t) != "" && !joined {
				i++
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			// -i, -0, -v, --ignore-environment, --unset=X, --chdir=D …
		default:
			if k, v, ok := assignedWord(w); ok {
				a.envSet(k, v, depth)
				if k == "PATH" && v.lit {
					a.addSearchDirs(v.text, ":") // env PATH=/tmp/b:/usr/bin tool
				}
				continue
			}
			return args[i:]
		}
	}
	return []arg{}
}

// sudoValueFlags are the options of sudo (and doas, pkexec …) that take a
// value.
var sudoValueFlags = set("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R",
	"--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--close-from")

// peelSudo drops sudo's options and judges its environment assignments.
func peelSudo(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	withValue := sudoValueFlags
	i := 0
	for i < len(args) {
		t := args[i].text
		if t == "--" {
			i++
			break
		}
		if len(t) > 1 && t[0] == '-' {
			if withValue[t] {
				i++
			} else if t[1] != '-' {
				// A cluster (-Eu root, -nu root): the first letter that
				// takes a value takes the rest of the word or the next.
				if f, _, joined := shortCluster(t, withValue); f != "" && !joined {
					i++
				}
			}
			i++
			continue
		}
		if k, v, ok := assignedWord(args[i]); ok {
			a.envSet(k, v, c.depth)
			i++
			continue
		}
		break
	}
	if i >= len(args) {
		return []arg{}, cmdInfo{}, false
	}
	return args[i:], cmdInfo{}, false
}

// peelSu judges `su [user] -c script` and `runas /user:x cmd`.
func peelSu(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	argv := c.argv
	for i := 1; i < len(argv)-1; i++ {
		if argv[i].text == "-c" || argv[i].text == "--command" {
			a.inlineShell("su", argv[i+1], c.depth, true, nil)
			return nil, cmdInfo{name: "su", runsArg: !argv[i+1].lit}, true
		}
	}
	return nil, cmdInfo{name: c.name}, true
}

// peelCommand peels `command cmd`; `command -v` only looks a name up.
func peelCommand(_ *auditor, c invocation) ([]arg, cmdInfo, bool) {
	if len(c.argv) > 1 && (c.argv[1].text == "-v" || c.argv[1].text == "-V") {
		return nil, cmdInfo{}, true
	}
	return skipFlags(c.args(), nil), cmdInfo{}, false
}

var timeoutValueFlags = set("-s", "-k", "--signal", "--kill-after")

// peelTimeout drops timeout's options (getopt's: -vk 5 is -v -k 5) and its
// duration.
func peelTimeout(_ *auditor, c invocation) ([]arg, cmdInfo, bool) {
	next := skipGetopt(c.args(), timeoutValueFlags)
	if len(next) > 0 {
		next = next[1:]
	}
	return next, cmdInfo{}, false
}

// peelUV judges uv: `uv tool run` is a package runner, `uv run` syncs the
// project environment and runs a command, other subcommands may fetch.
func peelUV(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	a.packageSources(c)
	argv := withoutGlobalOptions(c.argv, uvGlobalValues)
	if len(argv) > 2 && argv[1].text == "tool" && argv[2].text == "run" {
		a.inferred.Network = true
		a.pyRunner(argv[2:], "uv tool run", c.depth, c.env)
		return nil, cmdInfo{name: "uv"}, true
	}
	if len(argv) > 1 && argv[1].text == "run" {
		a.inferred.Network = true // uv run syncs the project environment
		next := a.peelUVRun(argv[2:])
		if len(next) == 0 {
			return nil, cmdInfo{name: "uv"}, true
		}
		if l := lower(next[0].text); next[0].lit && (strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")) {
			// uv run URL downloads the script and runs it; the words
			// after it are the script's.
			a.codeURL(next[0], "uv run", "runs", "script")
			return nil, cmdInfo{name: "uv"}, true
		}
		return next, cmdInfo{}, false
	}
	if a.ecosystemInstall(invocation{name: "uv", argv: argv, depth: c.depth}) { // uv add (ecosystems.go)
		return nil, cmdInfo{name: "uv"}, true
	}
	a.runsFetched(invocation{name: "uv", argv: argv, depth: c.depth}) // uv pip install /tmp/a.whl
	a.uvOther(argv)
	return nil, cmdInfo{name: "uv"}, true
}

// joinArgs joins words the way a program that rebuilds a command line does.
func joinArgs(args []arg) arg {
	if len(args) == 0 {
		return arg{}
	}
	parts := make([]string, len(args))
	lit := true
	for i, w := range args {
		parts[i] = w.text
		lit = lit && w.lit
	}
	return arg{text: strings.Join(parts, " "), path: args[0].path, lit: lit}
}

// psValueAliases are the short names PowerShell gives its options that take
// a value, beyond the prefixes of their names: -w (-WindowStyle), -wd and
// -wo (-WorkingDirectory), -ep (-ExecutionPolicy), -inp and -if
// (-InputFormat), -o and -of (-OutputFormat), -config
// (-ConfigurationName), -settings (-SettingsFile).
var psValueAliases = set("-w", "-wd", "-wo", "-ep", "-inp", "-if", "-o", "-of", "-config", "-settings",
	"-configurationfile")

// powershell judges the PowerShell command line: -Command, -EncodedCommand
// (decoded from base64 UTF-16LE and judged), -File.
func (a *auditor) powershell(c invocation) cmdInfo {
	argv := c.argv
	name := progName(argv[0].text)
	a.runsFetched(invocation{name: name, argv: argv, depth: c.depth, ctx: c.ctx})
	withValue := []string{"-executionpolicy", "-windowstyle", "-inputformat", "-outputformat",
		"-configurationname", "-workingdirectory", "-settingsfile", "-custompipename", "-version", "-psconsolefile"}
	quits := false // -Help, or pwsh's -Version: prints and exits
	for i := 1; i < len(argv); i++ {
		t := strings.ToLower(argv[i].text)
		if strings.HasPrefix(t, "/") && !strings.Contains(t[1:], "/") {
			t = "-" + t[1:] // /Command as Windows writes it, not a path (pwsh /tmp/a.ps1)
		}
		quits = quits || t == "-?" || t == "-h" || t == "-help" || family(name) == "pwsh" && (t == "-v" || t == "-version")
		switch {
		case t == "-" || t == "-command" || (strings.HasPrefix("-command", t) && len(t) >= 2 && t != "-co" && t != "-con"):
			if t == "-" || i+1 < len(argv) && argv[i+1].text == "-" {
				return cmdInfo{name: name, stdinScript: true} // -Command -: the commands come from the input
			}
			return a.psScript(name, joinArgs(argv[i+1:]), argv[i].path, c.depth, c.env)
		case strings.HasPrefix("-encodedcommand", t) && len(t) >= 2 || t == "-ec" || t == "-enc":
			if i+1 >= len(argv) {
				return cmdInfo{name: name}
			}
			w := argv[i+1]
			a.inferred.Exec = true
			a.add(CodeObfuscatedExec, w.path, "runs a PowerShell command hidden in base64 (-EncodedCommand)")
			if !w.lit {
				return cmdInfo{name: name}
			}
			text, ok := decodeUTF16Base64(w.text)
			if !ok {
				a.limit(w.path, "the encoded PowerShell command does not decode as base64 UTF-16LE")
				return cmdInfo{name: name}
			}
			return a.psScript(name, arg{text: text, path: w.path, lit: true}, w.path, c.depth, c.env)
		case strings.HasPrefix("-file", t) && len(t) >= 2:
			a.inferred.Exec = true // a script file: whatever it runs is not visible
			if i+1 < len(argv) {
				a.shareWord(name, argv[i+1])
			}
			return cmdInfo{name: name}
		case psValueAliases[t]:
			i++
		case strings.HasPrefix(t, "-"):
			for _, o := range withValue {
				if strings.HasPrefix(o, t) && len(t) >= 3 {
					i++
					break
				}
			}
		default:
			// Windows PowerShell reads a bare argument as -Command, pwsh as -File.
			if family(name) == "pwsh" {
				a.inferred.Exec = true
				a.runsDownloaded([]arg{{}, argv[i]}) // pwsh /tmp/a.ps1
				a.shareWord(name, argv[i])
				return cmdInfo{name: name}
			}
			return a.psScript(name, joinArgs(argv[i:]), argv[i].path, c.depth, c.env)
		}
	}
	// Options alone (pwsh -NoProfile): with its input redirected,
	// PowerShell reads its commands from it.
	return cmdInfo{name: name, stdinScript: !quits}
}

// psScript judges an inline PowerShell script: psWalk finds the commands it
// runs, which are judged like any command line; the download-and-run and
// decode-and-run idioms written as .NET calls rather than commands
// ((New-Object Net.WebClient).DownloadString, [Convert]::FromBase64String)
// are matched on its text.
func (a *auditor) psScript(name string, script arg, fallback string, depth int, env map[string]string) cmdInfo {
	path := script.path
	if path == "" {
		path = fallback
	}
	a.add(CodeShellExec, path, "runs an inline PowerShell script through "+quoted(name))
	a.inferred.Exec = true
	if !script.lit {
		return cmdInfo{name: name, runsArg: true}
	}
	if len(script.text) > maxScriptBytes {
		a.limit(path, "the script is longer than 16 KiB")
		return cmdInfo{name: name}
	}
	a.amsiBypass(script.text, path)
	piped, persisted := a.count(CodePipeToShell), a.count(CodePersistence)
	w := &psWalk{a: a, src: script.text, path: path, depth: depth, env: a.windowsEnv(env, path)}
	w.statements(0)
	if w.ranFetched {
		a.add(CodePipeToShell, path, "PowerShell executes downloaded text (Invoke-Expression of a download)")
	}
	if w.ranDecoded {
		a.add(CodeObfuscatedExec, path, "PowerShell executes decoded text (Invoke-Expression of a decoder's output)")
	}
	s := strings.ToLower(psCode(script.text))
	runs := hasWord(s, "iex") || containsAny(s, "invoke-expression", "scriptblock]::create", "invoke-command", "icm ",
		"invokecommand.invokescript", "invokecommand.newscriptblock")
	fetch := containsAny(s, "downloadstring", "downloadfile", "downloaddata", "net.webclient", "invoke-webrequest", "iwr ",
		"irm ", "invoke-restmethod", "start-bitstransfer", "httpclient")
	decode := containsAny(s, "frombase64string", "-encodedcommand", "convert]::frombase64")
	// A socket of its own: what arrives on it is text too (the reverse
	// shell: read from a TCPClient's stream, run with iex, answer).
	socket := containsAny(s, "tcpclient", "udpclient", "sockets.socket", "sslstream", "clientwebsocket", "tcplistener")
	if fetch || socket || strings.Contains(s, "http://") || strings.Contains(s, "https://") ||
		containsAny(s, "resolve-dnsname", "test-netconnection", "send-mailmessage", "new-pssession", "enter-pssession") {
		a.inferred.Network = true
	}
	if fetch && runs && a.count(CodePipeToShell) == piped {
		a.add(CodePipeToShell, path, "PowerShell downloads text and executes it (Invoke-Expression)")
	} else if socket && runs && a.count(CodePipeToShell) == piped {
		a.add(CodePipeToShell, path, "PowerShell opens a network connection of its own and executes text (Invoke-Expression), so whoever is at the other end runs commands")
	}
	if fetch && strings.Contains(s, "reflection.assembly]::load") && a.count(CodePipeToShell) == piped {
		a.add(CodePipeToShell, path, "PowerShell downloads a .NET assembly and loads it into the process (Assembly.Load), which runs whatever the URL served")
	}
	if psAddType.MatchString(s) {
		a.add(CodeInlineCode, path, "PowerShell compiles and runs C# written inline in the wiring (Add-Type with source code)")
	}
	if decode && runs && !w.ranDecoded {
		a.add(CodeObfuscatedExec, path, "PowerShell decodes base64 text and executes it")
	}
	if a.count(CodePersistence) == persisted && (persistencePath(s) || containsAny(s, `currentversion\run`, "register-scheduledtask", "new-service")) {
		a.add(CodePersistence, path, "the PowerShell script touches a location that runs code at login, at boot or when a program starts")
	}
	return cmdInfo{name: name}
}

// hasWord reports whether s holds w as a word of its own: not inside a
// longer name (msiexec holds iex).
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !nameByte(s[j-1])) && (end == len(s) || !nameByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

// nameByte reports whether c may be part of a command's or a variable's
// name.
func nameByte(c byte) bool {
	return c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// psInvoke judges Invoke-Expression (iex): a literal argument is a script
// it runs; without one it runs what is piped in.
func (a *auditor) psInvoke(c invocation) cmdInfo {
	args := c.args()
	if len(args) > 0 && strings.HasPrefix("-command", lower(args[0].text)) && len(args[0].text) > 1 {
		args = args[1:]
	}
	if len(args) == 0 {
		return cmdInfo{name: c.name, stdinScript: true}
	}
	if w := joinArgs(args); w.lit && len(w.text) <= maxScriptBytes {
		pw := &psWalk{a: a, src: w.text, path: w.path, depth: c.depth + 1, env: a.windowsEnv(c.env, w.path)}
		pw.statements(0)
		return cmdInfo{name: c.name}
	}
	return cmdInfo{name: c.name, runsArg: true}
}

// peelStartProcess peels PowerShell's Start-Process: -FilePath (or the first
// positional argument) runs with -ArgumentList (or the second); -Verb RunAs
// elevates.
func peelStartProcess(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	var file []arg
	var list []arg
	args := c.args()
	inList := false
	for i := 0; i < len(args); i++ {
		t := lower(args[i].text)
		if len(t) > 1 && t[0] == '-' && !(inList && !startProcessParam(t[1:])) {
			inList = false
			p := strings.TrimSuffix(t[1:], ":")
			switch {
			case strings.HasPrefix("filepath", p) || p == "path" || p == "pspath":
				if i+1 < len(args) {
					i++
					file = []arg{args[i]}
				}
			case strings.HasPrefix("argumentlist", p) || p == "args":
				inList = true
			case strings.HasPrefix("verb", p):
				if i+1 < len(args) {
					i++
					if lower(args[i].text) == "runas" {
						a.add(CodePrivilegeEscalation, c.argv[0].path, "runs its command with elevated privileges through "+quoted(c.name)+" -Verb RunAs")
					}
				}
			case p != "wait" && p != "nonewwindow" && p != "passthru" && p != "usenewenvironment" && p != "loaduserprofile" && p != "lup":
				i++ // -WorkingDirectory, -WindowStyle, -Credential, -RedirectStandard… take a value
			}
			continue
		}
		switch {
		case file == nil:
			file = []arg{args[i]}
			inList = true
		case inList:
			for _, f := range strings.Fields(args[i].text) {
				list = append(list, arg{text: f, path: args[i].path, lit: args[i].lit})
			}
		}
	}
	if file == nil {
		return nil, cmdInfo{name: c.name}, true
	}
	return append(file, list...), cmdInfo{}, false
}

// startProcessParam reports whether p abbreviates a parameter of
// Start-Process (so that -y in an argument list is an argument).
func startProcessParam(p string) bool {
	p = strings.TrimSuffix(p, ":")
	for _, full := range []string{"filepath", "argumentlist", "verb", "workingdirectory", "windowstyle", "credential",
		"redirectstandardinput", "redirectstandardoutput", "redirectstandarderror", "wait", "nonewwindow", "passthru",
		"usenewenvironment", "loaduserprofile", "environment", "path", "pspath", "args", "lup"} {
		if strings.HasPrefix(full, p) {
			return true
		}
	}
	return false
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// decodeUTF16Base64 decodes PowerShell's -EncodedCommand form.
func decodeUTF16Base64(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

var wslValueFlags = set("-d", "--distribution", "-u", "--user", "--cd", "--distribution-id")

// wsl judges `wsl [options] [--exec] command…`: the command runs in
// Linux; without --exec (or --shell-type none) the default shell reads the
// rest of the line.
func (a *auditor) wsl(c invocation) cmdInfo {
	argv, depth := c.argv, c.depth
	withValue := wslValueFlags
	exec := false
	for i := 1; i < len(argv); i++ {
		t := argv[i].text
		switch {
		case t == "-e" || t == "--exec":
			return a.command(argv[i+1:], depth+1, ctxNested)
		case t == "--shell-type":
			if i+1 < len(argv) {
				i++
				exec = argv[i].text == "none"
			}
		case t == "--":
			return a.shellLine(argv[i+1:], depth, exec, true)
		case withValue[t]:
			i++
		case strings.HasPrefix(t, "-") || t == "~":
		default:
			return a.shellLine(argv[i:], depth, exec, true)
		}
	}
	return cmdInfo{name: "wsl"}
}

// distroLauncher reports whether a program is the launcher of a WSL
// distribution (ubuntu.exe, ubuntu2204.exe, debian.exe, kali.exe,
// openSUSE-Leap-15.6.exe, SLES-15-SP5.exe, OracleLinux_9_1.exe, or a wsldl
// one such as Alpine.exe; alpine, fedora and centos also name Linux
// programs, so those only with .exe, and Arch.exe is macOS's arch wrapper
// by its name). name is the program's name as progName folds it.
func distroLauncher(name, word string) bool {
	if rest, ok := strings.CutPrefix(name, "ubuntu"); ok {
		return strings.Trim(rest, "0123456789.") == ""
	}
	switch name {
	case "debian", "kali", "kali-linux", "fedoraremix", "pengwin":
		return true
	case "alpine", "fedora", "centos":
		return strings.HasSuffix(lower(word), ".exe")
	}
	for _, p := range []string{"opensuse-", "sles-", "suse-", "oraclelinux_", "almalinux-"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// distro judges a WSL distribution's launcher: `run` and `-c` (and wsldl's
// `runp`) join the words after them with blanks, as they are, into a line
// the distribution's default shell runs; without words it is that shell
// reading what is piped in. Its other subcommands (install, config) run
// nothing of the wiring's.
func (a *auditor) distro(c invocation) cmdInfo {
	args := c.args()
	if len(args) == 0 {
		return cmdInfo{name: c.name, stdinScript: true}
	}
	switch lower(args[0].text) {
	case "run", "-c", "runp":
		info := a.shellLine(args[1:], c.depth, false, false)
		info.name = c.name
		return info
	}
	return cmdInfo{name: c.name}
}

// shellLine judges words that a shell reads as one command line (wsl, an
// ssh remote command), without calling it an inline script when it is one
// plain command. Words a shell reads as they are keep their own paths; a
// documentation placeholder (<YOUR_KEY>) is reported at its word. exec: the
// words are run as they are, no shell reads them. quote: a word with blanks
// is quoted, as a Windows launcher quotes it on the command line that wsl
// hands on (ssh joins its words as they are).
func (a *auditor) shellLine(args []arg, depth int, exec, quote bool) cmdInfo {
	if len(args) == 0 {
		return cmdInfo{}
	}
	plain := true
	for _, w := range args {
		plain = plain && w.lit && plainShellWord(w.text)
	}
	if plain || exec {
		return a.command(args, depth+1, ctxNested)
	}
	line := joinArgs(args)
	if !line.lit {
		return cmdInfo{}
	}
	parts := make([]string, len(args))
	for i, w := range args {
		text, names := placeholders(w.text, `'"`, '\\')
		a.placeholderLeft(w.path, nil, names)
		if quote && strings.ContainsAny(text, " \t") && !strings.ContainsAny(text, `"'`) {
			text = `"` + text + `"` // as a launcher quotes a word with blanks
		}
		parts[i] = text
	}
	sc := &scan{a: a, path: line.path, depth: depth + 1}
	return sc.script(strings.Join(parts, " "))
}

// plainShellWord reports whether a POSIX shell reads s as one word, exactly
// as written.
func plainShellWord(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\n|&;<>()$`\\\"'*?[#~=%{}!")
}
