package assess

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// program judges the program that finally runs, with its arguments, by its
// rule in the programs table, and its part in sending credentials away.
func (a *auditor) program(c invocation) cmdInfo {
	side := sideJudges[c.name]
	info := a.judgeProgram(c, side)
	a.credentialFlow(c, side, &info)
	return info
}

// sideJudge holds what the tables of the concerns that cut across programs
// say of one program name, so that judging a program looks its name up
// once for all of them: the judges of the concerns that have something to
// say of it, in the order of sideTables; the way into this machine it may
// open (inboundJudges, tunnel.go), judged last; its part in sending
// credentials away (flowJudges and secretReaders, exfil.go).
type sideJudge struct {
	judges  []func(a *auditor, c invocation)
	inbound func(a *auditor, c invocation)
	flow    func(a *auditor, c invocation, i *cmdInfo)
	reader  bool
}

// sideTables are the concerns judged for every program, in turn: settings
// written (toolsettings.go), protections turned off (evasion.go), data
// destroyed (destroy.go), mining (miner.go), traces removed and accounts
// changed (tamper.go), credentials dumped (dump.go).
var sideTables = []map[string]func(a *auditor, c invocation){settingWriters, evasionJudges, destroyJudges,
	minerJudges, tamperJudges, dumpJudges}

// sideJudges is every concern's table merged by program name.
var sideJudges = func() map[string]*sideJudge {
	m := map[string]*sideJudge{}
	at := func(name string) *sideJudge {
		if m[name] == nil {
			m[name] = &sideJudge{}
		}
		return m[name]
	}
	for _, table := range sideTables {
		for name, f := range table {
			at(name).judges = append(at(name).judges, f)
		}
	}
	for name, f := range inboundJudges {
		at(name).inbound = f
	}
	for name, f := range flowJudges {
		at(name).flow = f
	}
	for name := range secretReaders {
		at(name).reader = true
	}
	return m
}()

// judgeProgram is program without the credential flow; side is
// sideJudges' entry for c's name.
func (a *auditor) judgeProgram(c invocation, side *sideJudge) cmdInfo {
	a.lookalike(arg{text: c.name, path: c.argv[0].path, lit: c.argv[0].lit}, "program name")
	rule, known := programFor(c.name)
	a.words(c, rule)
	if a.ecosystemInstall(c) {
		return cmdInfo{name: c.name}
	}
	// What c runs is compared with the downloads before c's own are
	// recorded: tar unpacking into /usr/local/bin does not run itself
	// from there.
	a.runsFetched(c)
	a.sides(c, side)
	a.urlScript(c)
	if opts, ok := commandOptions[c.name]; ok {
		a.optionCommands(c, opts) // optcmds.go
	}
	a.runtimeOptions(c) // runtimeopts.go
	if !known {
		a.unknownProgram(c)
		return cmdInfo{name: c.name}
	}
	if packageTools[c.name] != "" {
		a.packageSources(c)
	}
	if rule.net {
		a.inferred.Network = true
	}
	if rule.exec {
		a.inferred.Exec = true
	}
	if rule.judge == nil {
		return cmdInfo{name: c.name}
	}
	return rule.judge(a, c)
}

// sides judges program c by each concern of sideTables that has
// something to say of it, then the way into this machine it may open (a
// debugger's listener among them); side is sideJudges' entry for c's
// name. A Python without a judge of its own may serve a directory to
// every interface.
func (a *auditor) sides(c invocation, side *sideJudge) {
	a.writesFetched(c)
	debug := debugJudges[c.name]
	if debug == nil && (strings.HasPrefix(c.name, "py") || strings.HasPrefix(c.name, "node")) {
		// Only Python's and Node's versioned names (python3.12,
		// pypy3, nodejs) fold to a debugger's family.
		debug = debugJudges[family(c.name)]
	}
	if debug != nil {
		debug(a, c)
	}
	if chromiumBrowsers[c.name] {
		a.browserDebugging(c)
	}
	if chromiumBrowsers[c.name] || c.name == "electron" {
		a.browserLaunchers(c)
	}
	if chromiumBrowsers[c.name] || geckoBrowsers[c.name] {
		a.browserURLs(c) // browserdebug.go
	}
	if side != nil {
		for _, judge := range side.judges {
			judge(a, c)
		}
		if side.inbound != nil {
			side.inbound(a, c)
			return
		}
	}
	if strings.HasPrefix(c.name, "py") && family(c.name) == "python" {
		a.httpServer(c)
	}
}

// words judges the words a program receives as data. The script of a
// shell's -c is left out: it is judged by its parsed structure.
func (a *auditor) words(c invocation, rule programRule) {
	args := c.args()
	if rule.shell != notShell {
		if script, _, _ := shellArgs(args); script != nil {
			for i := range args {
				if &args[i] == script {
					args = append(append([]arg{}, args[:i]...), args[i+1:]...)
					break
				}
			}
		}
	}
	for _, w := range args {
		a.shareWord(c.name, w)
	}
	switch c.ctx {
	case ctxNested:
		// A script or wrapper runs this program: its words are judged here;
		// the words of the [mcp] command line are judged once in wiring.
		a.optionSecrets(args)
		for _, w := range args {
			if w.lit {
				a.wordScan(w, rule.reader)
			}
		}
	case ctxInstall:
		for _, w := range args {
			a.wordScan(w, rule.reader)
		}
	default:
		for _, w := range args {
			a.topWordScan(w)
		}
	}
}

// shellProgram judges a shell: its -c script, or whether it reads a script
// from its standard input.
func (a *auditor) shellProgram(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	args := c.args()
	if _, ok := foreignValues[c.name]; ok {
		args = a.foreignShellOptions(c)
		c.argv = append([]arg{c.argv[0]}, args...)
	}
	script, file, stdin := shellArgs(args)
	switch {
	case script != nil:
		// sh -c 'sh' reads its script from the input sh -c was given.
		ran := a.inlineShellWith(c.name, *script, c.depth, isPOSIXShell(c.name), c.env, positional(c.name, c.args(), script))
		info.runsArg, info.stdinScript = !script.lit, ran.stdinScript
	case file == nil && stdin, file != nil && file.lit && stdinFile[file.text]:
		// bash -s, or bash /dev/stdin: the script is what is piped in.
		info.stdinScript = true
	}
	return info
}

// xhValues are the options of xh (and xhs) that take a value.
var xhValues = set("-o", "--output", "-a", "--auth", "-A", "--auth-type", "-p", "--print", "-P",
	"--history-print", "-s", "--style", "--proxy", "--session", "--session-read-only", "--verify", "--cert",
	"--cert-key", "--cert-key-pass", "--ssl", "--ciphers", "--timeout", "--max-redirects", "--default-scheme",
	"--format-options", "--response-charset", "--response-mime", "--boundary", "--raw", "--pretty",
	"--max-headers", "--bearer")

// xhURL returns the index in args of the URL an xh request names: the
// first operand, or the second when the first is a method (POST, get …);
// -1 when there is none.
func xhURL(args []arg) int {
	method := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			continue
		case strings.HasPrefix(t, "-") && len(t) > 1:
			if xhValues[t] {
				i++
			}
		case !method && len(t) <= 7 && strings.Trim(strings.ToUpper(t), "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" &&
			i+1 < len(args) && !strings.Contains(t, "."):
			method = true
		default:
			return i
		}
	}
	return -1
}

// httpie judges HTTPie's http and https: a download tool as xh is when a
// URL follows its options and method (httpieURL); otherwise it is not
// HTTPie's command line (ngrok http 8000, an image's `http` mode), and
// nothing is judged.
func (a *auditor) httpie(c invocation) cmdInfo {
	args := c.args()
	if i := xhURL(args); i < 0 || !httpieURL(args[i].text) {
		return cmdInfo{name: c.name}
	}
	a.inferred.Network, a.inferred.Exec = true, true
	return a.fetcher(c)
}

// httpieURL reports whether t reads as the URL of an HTTPie command line:
// one with a scheme, :PORT/… on this machine, or a host with a dot
// (example.com/x). A port alone (ngrok http 8000) or a word is not.
func httpieURL(t string) bool {
	t = strings.TrimSpace(t)
	if strings.Contains(t, "://") || strings.HasPrefix(t, ":") {
		return true
	}
	host, _, _ := strings.Cut(t, "/")
	host, _, _ = strings.Cut(host, ":")
	return strings.Contains(host, ".") || host == "localhost"
}

// fetcher judges a download tool: it fetches content when the server
// starts, and what it fetches over plain http can be replaced on the way.
func (a *auditor) fetcher(c invocation) cmdInfo {
	a.add(CodeFetchExec, c.argv[0].path, "runs "+quoted(c.name)+", which downloads content when the server starts")
	streams := ""
	switch c.name {
	case "bitsadmin":
		a.fetchedAfterURL(c)
	case "start-bitstransfer":
		a.bitsTransfer(c)
	default:
		if a.fetchedBy(c) {
			streams = c.name
		}
	}
	others := fetchOtherValues[c.name]
	args := c.args()
	schemeless := -1
	if c.name == "xh" || c.name == "http" {
		schemeless = xhURL(args)
	}
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if off := fetchTrustOff(c.name, args, i); off != "" {
			a.add(CodeInsecureURL, args[i].path, quoted(c.name)+" turns certificate checks off ("+safeText(off, 40)+
				"), so what it downloads can be read and replaced on the way")
		}
		switch {
		case others[t] || others == nil && psOtherValues[lower(t)]:
			i++ // a header, a referer, a proxy or data to send, not what is fetched
		case strings.HasPrefix(t, "--url="), !strings.HasPrefix(t, "-"):
			w := args[i]
			if i == schemeless && !strings.Contains(t, "://") && !strings.HasPrefix(t, ":") {
				// xh and HTTPie's http read a URL without a scheme as
				// http:// (:3000/x is this machine); xhs and https as
				// https://.
				w.text = "http://" + t
			}
			a.plainFetch(w, c.name, "downloads content")
		}
	}
	return cmdInfo{name: c.name, fetches: true, streams: streams}
}

// fetchOtherValues are, per download tool, the options whose value may
// hold a URL that is not what the tool downloads (a header, a referer, a
// proxy, data to send); psOtherValues those of PowerShell's download
// cmdlets, whose names ignore case.
var (
	fetchOtherValues = map[string]map[string]bool{
		"curl": set("-H", "--header", "--proxy-header", "-e", "--referer", "-x", "--proxy", "--preproxy", "-d",
			"--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "--json", "-F", "--form",
			"--form-string"),
		"wget":   set("--header", "--referer", "-e", "--execute", "--post-data", "--body-data"),
		"wget2":  set("--header", "--referer", "-e", "--execute", "--post-data", "--body-data"),
		"aria2c": set("--header", "--referer", "--all-proxy", "--http-proxy", "--https-proxy", "--ftp-proxy"),
		"wcurl":  set("--curl-options"),
		"xh":     set("--proxy"),
		"xhs":    set("--proxy"),
		"http":   set("--proxy"),
		"https":  set("--proxy"),
		"curlie": set("-H", "--header", "-e", "--referer", "-x", "--proxy", "-d", "--data", "--data-raw",
			"--data-binary", "-F", "--form"),
	}
	psOtherValues = set("-headers", "-proxy", "-body")
)

// fetchTrustOff returns the option at args[i] when it turns the download
// tool's certificate checks off, else "": curl's -k (alone or among other
// one-letter options), wget's --no-check-certificate, aria2c's
// --check-certificate=false, xh's --verify=no and the
// -SkipCertificateCheck switch of PowerShell's cmdlets, which PowerShell
// also takes abbreviated and without regard to case.
func fetchTrustOff(tool string, args []arg, i int) string {
	t := args[i].text
	if !args[i].lit || !strings.HasPrefix(t, "-") {
		return ""
	}
	switch tool {
	case "curl", "curlie":
		switch t {
		case "--insecure", "--proxy-insecure", "--doh-insecure":
			return t
		}
		if !strings.HasPrefix(t, "--") {
			// One-letter options together: -sSLk. An option that takes a
			// value takes the rest of the word (-ok writes to the file k).
			for _, c := range t[1:] {
				if c == 'k' {
					return "-k"
				}
				if strings.ContainsRune(curlValueFlags, c) {
					break
				}
			}
		}
	case "wget", "wget2":
		if t == "--no-check-certificate" {
			return t
		}
		if v, ok := strings.CutPrefix(t, "--check-certificate="); ok && falseWord(v) {
			return t
		}
		if (t == "-e" || t == "--execute") && i+1 < len(args) && args[i+1].lit {
			// A line of wgetrc: check_certificate = off
			k, v, ok := strings.Cut(args[i+1].text, "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "check_certificate") && falseWord(strings.TrimSpace(v)) {
				return "check_certificate=off"
			}
		}
	case "aria2c":
		if v, ok := strings.CutPrefix(t, "--check-certificate="); ok && falseWord(v) {
			return t
		}
	case "xh", "xhs", "http", "https":
		v, ok := strings.CutPrefix(t, "--verify=")
		if !ok && t == "--verify" && i+1 < len(args) && args[i+1].lit {
			v, ok = args[i+1].text, true
		}
		if ok && falseWord(v) {
			return "--verify=" + v
		}
	case "invoke-webrequest", "iwr", "invoke-restmethod", "irm":
		name, v, _ := strings.Cut(lower(t), ":")
		if len(name) >= len("-skipc") && strings.HasPrefix("-skipcertificatecheck", name) && v != "$false" {
			return "-SkipCertificateCheck"
		}
	}
	return ""
}

// curlValueFlags are curl's one-letter options that take a value.
const curlValueFlags = "AbcCdDeEFHKmoPQrTtuUwxXyYz"

// falseWord reports whether an option's value turns it off.
func falseWord(v string) bool {
	switch lower(v) {
	case "false", "no", "off", "0":
		return true
	}
	return false
}

// eval judges eval run by the wiring itself (inside a script, the script
// walker judges what eval runs).
func (a *auditor) eval(c invocation) cmdInfo {
	if c.ctx != ctxNested {
		a.add(CodeFetchExec, c.argv[0].path, "runs `eval`, which executes text as a command")
		if w := joinArgs(c.args()); w.lit && w.text != "" {
			sc := &scan{a: a, path: w.path, depth: c.depth + 1}
			sc.script(w.text)
		}
	}
	return cmdInfo{name: c.name}
}

// netTool judges a remote access or transfer tool.
func (a *auditor) netTool(c invocation) cmdInfo {
	return cmdInfo{name: c.name, fetches: true}
}

// npmRunnerAs judges an npm package runner named runner.
func npmRunnerAs(runner string) func(*auditor, invocation) cmdInfo {
	return func(a *auditor, c invocation) cmdInfo {
		a.npmRunner(c.args(), runner, c.depth, c.env)
		return cmdInfo{name: c.name}
	}
}

// pyRunnerAs judges a Python package runner named runner.
func pyRunnerAs(runner string) func(*auditor, invocation) cmdInfo {
	return func(a *auditor, c invocation) cmdInfo {
		a.pyRunner(c.args(), runner, c.depth, c.env)
		return cmdInfo{name: c.name}
	}
}

// pipx judges pipx: `pipx run` is a package runner; what `pipx install`
// installs must be pinned.
func (a *auditor) pipx(c invocation) cmdInfo {
	if args := skipFlags(c.args(), nil); len(args) > 0 && args[0].text == "run" {
		a.pyRunner(args, "pipx run", c.depth, c.env)
	} else if len(args) > 0 && args[0].text == "install" {
		a.pyInstall(args[1:], "pipx install")
	}
	return cmdInfo{name: c.name}
}

// runnerCommand judges the program a package runner starts. A command
// named apart from the package (npx -p pkg@1 CMD, uvx --from pkg CMD) is
// any program on the path, judged as a command line of its own (npx -p
// pkg@1 sh -c '…' runs a shell script). The package's own command (npx
// tsx@4 -e '…', uvx python -c '…') is judged when it is an interpreter
// that takes an inline program. argv starts with the word that names the
// program; env holds what the runner inherits, which it hands on.
func (a *auditor) runnerCommand(name string, argv []arg, depth int, separate bool, env map[string]string) {
	if separate {
		a.shellEnv = env
		a.command(argv, depth+1, ctxNested)
		return
	}
	bin, ok := npmLaunchers[name]
	if !ok {
		bin, ok = tunnelPackages[name]
	}
	if ok && len(argv) > 0 {
		// The package's command is a launcher, whose command line is
		// judged, or a tunnel, judged as it is when installed.
		w := argv[0]
		if at := strings.LastIndexByte(w.text, '@'); bin == "mcp-inspector" && at > 0 && w.lit {
			a.inspectorVersion(w.text[at+1:], w)
		}
		w.text = bin
		a.shellEnv = env
		a.command(append([]arg{w}, argv[1:]...), depth+1, ctxNested)
		return
	}
	name = progName(name)
	if inlineCodeFlags[family(name)] == "" {
		return
	}
	a.interpreter(invocation{name: name, argv: argv, depth: depth + 1, ctx: ctxNested})
}

// goTool judges `go run` and `go install` of a module version, and the
// programs a subcommand's -toolexec and -exec options name.
func (a *auditor) goTool(c invocation) cmdInfo {
	args := skipFlags(c.args(), goGlobalValues)
	if len(args) > 1 {
		a.goFlagPrograms(args[1:], c.depth)
	}
	if len(args) > 1 && (args[0].text == "run" || args[0].text == "install" || args[0].text == "get") {
		a.goRun(args[1:], args[0].text == "get")
	}
	return cmdInfo{name: c.name}
}

// goFlagPrograms judges the command lines of the -toolexec and -exec
// options among a go subcommand's options (those before its first
// package): go splits each into words as goSplit does and runs them, for
// every tool of the build (-toolexec) or in place of the program it built
// (-exec, which gets the program as its first argument).
func (a *auditor) goFlagPrograms(args []arg, depth int) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" || len(t) < 2 || t[0] != '-' {
			return
		}
		name, val, hasVal := strings.Cut(t, "=")
		switch strings.TrimLeft(name, "-") {
		case "toolexec", "exec":
			if w, ok := optValue(args, &i, val, hasVal); ok {
				a.goCommandLine(w, depth)
			}
		default:
			if !hasVal && goValueFlags[name] {
				i++
			}
		}
	}
}

// goCommandLine judges a command line the go command runs: -toolexec's,
// -exec's, or one of them in GOFLAGS.
func (a *auditor) goCommandLine(w arg, depth int) {
	if !w.lit {
		return
	}
	words := goSplit(w.text)
	if len(words) == 0 {
		return
	}
	argv := make([]arg, len(words))
	for i, s := range words {
		argv[i] = arg{text: s, path: w.path, lit: true}
	}
	a.inferred.Exec = true
	a.command(argv, depth+1, ctxNested)
}

// goSplit splits s into words as the go command splits its command-line
// options and GOFLAGS: at blanks, where a word that starts with a single or
// double quote runs to the next such quote and holds every character
// between them. An unclosed quote is an error for go, which then runs
// nothing: goSplit returns nil.
func goSplit(s string) []string {
	var words []string
	for {
		s = strings.TrimLeft(s, " \t\n\r")
		if s == "" {
			return words
		}
		if q := s[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return nil
			}
			words = append(words, s[1:1+end])
			s = s[2+end:]
			continue
		}
		end := strings.IndexAny(s, " \t\n\r")
		if end < 0 {
			end = len(s)
		}
		words = append(words, s[:end])
		s = s[end:]
	}
}

// goGlobalValues are the go command's options before its subcommand that
// take a value.
var goGlobalValues = set("-C")

// crontab judges crontab: anything but listing installs a table.
func (a *auditor) crontab(c invocation) cmdInfo {
	if args := c.args(); !(len(args) == 1 && args[0].text == "-l") {
		a.add(CodePersistence, c.argv[0].path, "installs a crontab, which runs code on a schedule")
	}
	return cmdInfo{name: c.name}
}

// atJob judges at and batch: they schedule a job that runs later, outside
// the server, made of the commands they read from their input, or from
// the file -f names.
func (a *auditor) atJob(c invocation) cmdInfo {
	args := c.args()
	if slices.ContainsFunc(args, func(w arg) bool { return w.text == "-l" || w.text == "-r" || w.text == "-d" || w.text == "-c" }) {
		return cmdInfo{name: c.name} // listing, removing or printing jobs
	}
	a.add(CodePersistence, c.argv[0].path, "schedules a job with "+quoted(c.name)+", which runs code later, outside the server")
	file := slices.ContainsFunc(args, func(w arg) bool { return w.text == "-f" || strings.HasPrefix(w.text, "-f") && len(w.text) > 2 })
	return cmdInfo{name: c.name, stdinScript: !file}
}

// zipTest judges zip's -TT (--unzip-command): the command zip runs through
// the shell to test the archive it wrote.
func (a *auditor) zipTest(c invocation) cmdInfo {
	args := c.args()
	for i := 0; i < len(args); i++ {
		name, val, joined := strings.Cut(args[i].text, "=")
		if name == "-TT" || name == "--unzip-command" {
			if w, ok := optValue(args, &i, val, joined); ok {
				a.inlineShell("zip -TT", w, c.depth, true, c.env)
			}
		}
	}
	return cmdInfo{name: c.name}
}

// tcpdumpRotate judges tcpdump's -z: the program it runs on each file it
// finishes writing.
func (a *auditor) tcpdumpRotate(c invocation) cmdInfo {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-z" && i+1 < len(args):
			i++
			a.command([]arg{args[i], {text: "file", path: args[i].path, lit: true}}, c.depth+1, ctxNested)
		case strings.HasPrefix(t, "-z") && len(t) > 2:
			a.command([]arg{{text: t[2:], path: args[i].path, lit: args[i].lit}}, c.depth+1, ctxNested)
		}
	}
	return cmdInfo{name: c.name}
}

// regAdd judges `reg add` of a Run key.
func (a *auditor) regAdd(c invocation) cmdInfo {
	add, run := false, false
	for _, w := range c.args() {
		t := lower(w.text)
		add = add || t == "add"
		run = run || strings.Contains(t, `currentversion\run`)
	}
	if add && run {
		a.add(CodePersistence, c.argv[0].path, "registers a program to run at login or boot with "+quoted(c.name))
	}
	if add {
		a.registryProtectionOff(c)
	}
	return cmdInfo{name: c.name}
}

// registryProtectionOff judges reg add of a policy that turns Microsoft
// Defender off (a Disable… value under its key) or User Account Control
// (EnableLUA 0).
func (a *auditor) registryProtectionOff(c invocation) {
	args := c.args()
	key, value, data := "", "", ""
	for i, w := range args {
		t := lower(w.text)
		switch {
		case strings.HasPrefix(t, "hk"):
			key = t
		case (t == "/v" || t == "-v") && i+1 < len(args):
			value = lower(args[i+1].text)
		case (t == "/d" || t == "-d") && i+1 < len(args):
			data = strings.TrimSpace(args[i+1].text)
		}
	}
	switch {
	case strings.Contains(key, `\windows defender`) && strings.HasPrefix(value, "disable") && data != "0":
		a.evasion(c, "turns part of Microsoft Defender off by policy ("+safeText(value, 40)+")")
	case strings.HasSuffix(key, `\policies\system`) && value == "enablelua" && data == "0":
		a.evasion(c, "turns User Account Control off")
	}
}

// topWordScan judges a word of the [mcp] command line that the program
// receives as data.
func (a *auditor) topWordScan(w arg) {
	a.pathWord(w)
	a.urlWord(w)
	a.headerWord(w)
}

// headerWord reports a literal credential in an HTTP header written as an
// argument ("Authorization: Bearer …", as mcp-remote --header takes it).
func (a *auditor) headerWord(w arg) {
	name, value, ok := strings.Cut(w.text, ":")
	if !ok || !tokenSafe(strings.TrimSpace(name)) || !secretName(strings.TrimSpace(name)) {
		return
	}
	if literalSecret(value) {
		a.add(CodeLiteralSecret, w.path, "the header "+strings.TrimSpace(name)+" in this argument holds a literal credential")
	}
}

// wordScan judges a word that a script or wrapper passes to a program.
func (a *auditor) wordScan(w arg, reader bool) {
	if !reader {
		a.pathWord(w)
	}
	a.urlWord(w)
	a.headerWord(w)
	a.blob(w.text, w.path)
}

// pathWord reports a persistence location named by a word (or by the value
// of a --flag=value word).
func (a *auditor) pathWord(w arg) {
	v := w.text
	if strings.HasPrefix(v, "-") {
		if i := strings.IndexByte(v, '='); i > 0 {
			v = v[i+1:]
		} else {
			return
		}
	}
	if persistencePath(v) {
		a.add(CodePersistence, w.path, "names a location that runs code at login, at boot or when a program starts")
	}
}

// urlWord reports credentials written into a URL argument.
func (a *auditor) urlWord(w arg) {
	if !strings.Contains(w.text, "://") {
		return // most words: neither a URL nor a stratum address
	}
	a.stratum(w.text, w.path)
	if v, _, ok := wordURL(w.text); ok {
		a.urlSecrets(v, w.path)
	}
}

// wordURL returns the URL a word holds: the word itself, the value of a
// --flag=value word, or what follows a git+ or "pkg @ " prefix, when that
// is an absolute URL with a host.
func wordURL(v string) (string, *url.URL, bool) {
	if i := strings.IndexByte(v, '='); i > 0 && strings.HasPrefix(v, "-") {
		v = v[i+1:]
	}
	i := strings.Index(v, "://")
	if i <= 0 {
		return "", nil, false
	}
	v = v[strings.LastIndexAny(v[:i], " \t+@")+1:] // git+https://, pkg @ https://
	u, ok := parseAnyURL(v)
	return v, u, ok
}

// foreignValues are, for the shells of other families, their options
// that take a value (fish -d 3, nu --config FILE, elvish -rc FILE), and
// foreignCommands those whose value is a command line they run besides
// -c's (fish -C/--init-command, nu -e/--execute).
var (
	foreignValues = map[string]map[string]bool{
		"fish": set("-d", "--debug", "-o", "--debug-output", "-f", "--features", "-p", "--profile", "--profile-startup"),
		"nu": set("--config", "--env-config", "--plugin-config", "--log-level", "--log-target", "--log-include",
			"--log-exclude", "-m", "--table-mode", "--error-style", "-I", "--include-path", "--experimental-options",
			"--plugins"),
		"elvish": set("-rc", "--rc", "-log", "--log", "-deprecation-level", "--deprecation-level"),
		"csh":    {},
		"tcsh":   {},
		"xonsh":  set("-D", "--shell-type", "--rc"),
	}
	foreignCommands = map[string]map[string]bool{
		"fish": set("-C", "--init-command"),
		"nu":   set("-e", "--execute"),
	}
)

// foreignShellOptions judges the command lines a shell of another family
// runs from its options other than -c (fish -C CMD), and returns its words
// without its options that take a value, so that shellArgs reads the rest.
func (a *auditor) foreignShellOptions(c invocation) []arg {
	args := c.args()
	values, commands := foreignValues[c.name], foreignCommands[c.name]
	var rest []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" || !strings.HasPrefix(t, "-") || len(t) < 2 {
			return append(rest, args[i:]...)
		}
		name, val, joined := strings.Cut(t, "=")
		switch {
		case commands[name]:
			if w, ok := optValue(args, &i, val, joined); ok {
				a.inlineShell(c.name, w, c.depth, false, c.env)
			}
		case values[name]:
			if !joined {
				i++
			}
		default:
			rest = append(rest, args[i])
		}
	}
	return rest
}

// shellArgs finds what a shell runs: the script of -c (also in combined
// flags such as -lc, -ec), a script file, or its standard input.
func shellArgs(args []arg) (script, file *arg, stdin bool) {
	cflag, sflag := false, false
	i := 0
	for i < len(args) {
		t := args[i].text
		if t == "--" || t == "-" {
			i++
			break
		}
		if strings.HasPrefix(t, "--") {
			if t == "--rcfile" || t == "--init-file" || t == "--command" {
				if t == "--command" {
					cflag = true
				} else {
					i++
				}
			}
			i++
			continue
		}
		if len(t) > 1 && (t[0] == '-' || t[0] == '+') {
			for _, c := range t[1:] {
				switch c {
				case 'c':
					cflag = true
				case 's':
					sflag = true
				case 'o', 'O':
					i++ // -o option-name
				}
			}
			i++
			continue
		}
		break
	}
	switch {
	case cflag && i < len(args):
		return &args[i], nil, false
	case cflag:
		return nil, nil, false
	case sflag || i >= len(args):
		return nil, nil, true // the words left are the script's arguments
	}
	return nil, &args[i], false
}

// inlineShell judges a script a shell runs with -c; env holds the
// variables the shell inherits with known values.
func (a *auditor) inlineShell(shell string, script arg, depth int, posix bool, env map[string]string) cmdInfo {
	return a.inlineShellWith(shell, script, depth, posix, env, nil)
}

// inlineShellWith is inlineShell with the script's positional parameters
// ($0 first), nil when they are not known.
func (a *auditor) inlineShellWith(shell string, script arg, depth int, posix bool, env map[string]string, params []string) cmdInfo {
	a.add(CodeShellExec, script.path, "runs an inline script through "+quoted(shell))
	a.inferred.Exec = true
	if !script.lit || !posix {
		return cmdInfo{}
	}
	sc := &scan{a: a, path: script.path, depth: depth + 1, params: params}
	sc.inherit(env)
	return sc.script(script.text)
}

// positional returns the positional parameters of a shell's -c script:
// the words after it, $0 first ($0 is the shell's name without them), or
// nil when one of them is not known.
func positional(shell string, args []arg, script *arg) []string {
	for i := range args {
		if &args[i] != script {
			continue
		}
		rest := args[i+1:]
		if len(rest) == 0 {
			return []string{shell}
		}
		params := make([]string, len(rest))
		for j, w := range rest {
			if !w.lit {
				return nil
			}
			params[j] = w.text
		}
		return params
	}
	return nil
}

// leadingPackages returns the --package and --node-options options among
// the words before a package manager's subcommand (all of args but sub),
// as its runner reads them wherever they stand (`pnpm --package=pkg dlx
// cmd`), followed by the subcommand's own words.
func leadingPackages(args, sub []arg) []arg {
	lead := args[:len(args)-len(sub)]
	var out []arg
	for i := 0; i < len(lead); i++ {
		switch t := lead[i].text; {
		case (t == "--package" || t == "--node-options") && i+1 < len(lead):
			out = append(out, lead[i], lead[i+1])
			i++
		case strings.HasPrefix(t, "--package=") || strings.HasPrefix(t, "--node-options="):
			out = append(out, lead[i])
		}
	}
	if out == nil {
		return sub[1:]
	}
	return append(out, sub[1:]...)
}

// pkgManager judges npm, pnpm, yarn and bun: their exec/dlx forms are package
// runners; run/start/test run package scripts through a shell.
func (a *auditor) pkgManager(c invocation) cmdInfo {
	name, argv, depth := c.name, c.argv, c.depth
	info := cmdInfo{name: name}
	args := argv[1:]
	sub := managerSub(name, args)
	if name == "bun" {
		// bun's own options may come before its subcommand (bun --bun x
		// pkg); without a subcommand, bun runs a file or inline code.
		if len(sub) == 0 {
			return a.interpreter(c)
		}
		switch rest := sub[1:]; sub[0].text {
		case "x":
			a.npmRunner(rest, "bun x", depth, c.env)
			return info
		case "add", "install", "i":
			a.npmInstall(rest, "bun "+sub[0].text)
			return info
		case "create", "c":
			a.npmCreate(rest, "bun create")
			return info
		case "run":
			// bun run FILE, bun run -e CODE: as bun FILE, bun -e CODE
			// (a package.json script's name reads as a file), with the
			// options before run.
			lead := args[:len(args)-len(sub)]
			c.argv = append(append([]arg{argv[0]}, lead...), rest...)
			return a.interpreter(c)
		case "exec":
			if len(rest) > 0 {
				// Bun Shell runs the words as one command line.
				a.inlineShell("bun exec", joinArgs(rest), depth, true, c.env)
				return info
			}
		}
		return a.interpreter(c)
	}
	if len(sub) == 0 {
		return info
	}
	switch sub[0].text {
	case "exec", "x":
		if name == "npm" {
			a.npmRunner(leadingPackages(args, sub), name+" "+sub[0].text, depth, c.env)
		}
	case "dlx":
		a.npmRunner(leadingPackages(args, sub), name+" dlx", depth, c.env)
	case "create", "init", "innit":
		if sub[0].text == "create" || name == "npm" {
			a.npmCreate(sub[1:], name+" "+sub[0].text)
		}
	case "pack":
		if name == "npm" { // npm pack SPEC downloads the package's tarball (pnpm's and yarn's pack this project)
			a.inferred.Network = true
			for _, w := range operands(sub[1:], npmValueOptions, false, nil) {
				if w.lit && !localArchive(w.text) && !npmPinned(w.text) {
					a.add(CodeUnpinned, w.path, unpinnedMessage("npm pack", "downloads", w.text))
					a.plainFetch(w, "npm pack", "fetches a package")
				}
			}
		}
	case "global":
		if name == "yarn" && len(sub) > 1 && sub[1].text == "add" {
			a.npmInstall(sub[2:], "yarn global add")
		}
	case "run", "run-script", "start", "test", "restart", "stop":
		a.inferred.Exec = true // package scripts run through a shell
	default:
		if npmInstallSubs[sub[0].text] {
			a.npmInstall(sub[1:], name+" "+sub[0].text)
		}
	}
	return info
}

// npmCreate judges npm init|create|innit, yarn create, pnpm create and bun
// create (runner): given an initializer they fetch and run its package at
// once, as npm exec does: foo is create-foo, @scope/foo is
// @scope/create-foo, @scope is @scope/create, a version kept (npm init
// foo@1.2.3 runs create-foo@1.2.3); bun create OWNER/REPO copies a GitHub
// repository's template. Without an initializer npm init writes a
// package.json, and nothing is fetched.
func (a *auditor) npmCreate(args []arg, runner string) {
	ops := operands(args, managerValueOptions(runner), false, nil)
	if len(ops) == 0 || !ops[0].lit {
		return
	}
	w := ops[0]
	s := strings.TrimSpace(w.text)
	if s == "" || localSpec(s) {
		return
	}
	a.inferred.Network = true
	pkg := initializerPackage(s, runner == "bun create")
	if !npmPinned(pkg) {
		a.add(CodeUnpinned, w.path, unpinnedMessage(runner, "runs", pkg))
		a.plainFetch(w, runner, "fetches a package")
	}
}

// initializerPackage is the package an initializer names (see npmCreate);
// github says an owner/repo is a GitHub template (bun create), kept as
// it is.
func initializerPackage(s string, github bool) string {
	if strings.Contains(s, "://") || github && !strings.HasPrefix(s, "@") && strings.Contains(s, "/") {
		return s
	}
	name, version := s, ""
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		name, version = s[:at], s[at:]
	}
	if scope, pkg, ok := strings.Cut(name, "/"); strings.HasPrefix(name, "@") {
		if !ok {
			return scope + "/create" + version
		}
		return scope + "/create-" + pkg + version
	}
	return "create-" + name + version
}

// interpreter judges a language interpreter: an inline program is
// inline_code; a program read from stdin makes it a pipe target.
func (a *auditor) interpreter(c invocation) cmdInfo {
	fam := family(c.name)
	if fam == "python" {
		if info, ok := a.pythonTool(c); ok {
			return info
		}
	}
	info := cmdInfo{name: fam}
	args := c.args()
	code, file, stdin := inlineProgram(fam, args)
	// A program or script file whose text is not known (python <(curl
	// …), node -e "$(curl …)") is run as a shell runs such an argument:
	// what made it is judged as run (scan.call).
	info.runsArg = code != nil && !code.lit || file != nil && !file.lit
	switch {
	case code != nil:
		a.add(CodeInlineCode, code.path, "runs a "+quoted(fam)+" program written inline in the wiring")
		if code.lit {
			a.inlineCode(code.text, code.path)
			a.inlineCommands(fam, code.text, code.path, c.depth) // inlinecalls.go
		}
	case stdin, file != nil && file.lit && stdinFile[file.text]:
		// python3 -, python3 /dev/stdin: the program is what is piped in.
		info.stdinScript = true
	}
	for _, w := range moduleOptions(fam, args) {
		if l := lower(strings.TrimSpace(w.text)); strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
			// node --import=https://… (with network imports) or a loader
			// that fetches: code from elsewhere runs before the script.
			a.codeURL(w, fam, "loads", "module")
		}
	}
	return info
}

// moduleOptions returns the values of an interpreter's options that name a
// module it loads before its program (--import, --require, --loader,
// --experimental-loader), up to its program or script.
func moduleOptions(fam string, args []arg) []arg {
	var out []arg
	valueFlags := inlineCodeFlags[fam] + inlineValueFlags[fam]
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--" || t == "-" || !strings.HasPrefix(t, "-"):
			return out // the script, or its program from stdin
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t, "=")
			switch {
			case moduleOptionNames[name]:
				w := args[i]
				if hasVal {
					w.text = val
				} else if i+1 < len(args) {
					i++
					w = args[i]
				}
				out = append(out, w)
			case codeOptions[name] || valueOptions[name] || familyValueOptions[fam][name]:
				if !hasVal {
					i++
				}
			}
		default:
			if last := t[len(t)-1]; len(t) > 1 && strings.IndexByte(valueFlags, last) >= 0 && nextWordValue(fam, last) {
				i++ // -e CODE, -r MODULE: the next word is the value
			}
		}
	}
	return out
}

var (
	// inlineCodeFlags are the single-letter flags that take the program.
	inlineCodeFlags = map[string]string{
		"python": "c", "perl": "eE", "ruby": "e", "php": "rBRE", "lua": "e", "osascript": "e",
		"rscript": "e", "node": "ep", "bun": "ep", "tsx": "ep", "ts-node": "ep", "julia": "eE",
		"groovy": "e", "tclsh": "", "jshell": "", "expect": "c", "racket": "e", "guile": "c", "sbcl": "",
		"bb": "e", "elixir": "e",
	}
	// inlineValueFlags are the single-letter flags whose value follows.
	inlineValueFlags = map[string]string{
		"python": "WXm", "perl": "IMmixCdDF0", "ruby": "IrCEFxW", "php": "dfczt", "node": "rC", "osascript": "ls",
		"lua": "l", "bun": "rcdlF", "tsx": "rC", "ts-node": "rP", "julia": "JLCOtp", "expect": "Dfb",
		"racket": "tlfrukYpIXGAWONLS", "guile": "slLexC", "bb": "fmx", "elixir": "r",
	}
	// familyValueOptions are each interpreter's own options, long or a
	// word with one dash, that take the next word as their value when it
	// is not joined by "=", beyond those of valueOptions: node's and V8's
	// (node --max-old-space-size 4096 -e CODE), python's, Elixir's (elixir
	// --sname n -pa ebin -e CODE) and babashka's.
	familyValueOptions = map[string]map[string]bool{
		"node": set("--inspect-port", "--debug-port", "--max-old-space-size", "--max-semi-space-size", "--stack-size",
			"--stack-trace-limit", "--max-http-header-size", "--heapsnapshot-signal", "--diagnostic-dir",
			"--redirect-warnings", "--report-dir", "--report-directory", "--report-filename", "--report-signal",
			"--secure-heap", "--secure-heap-min", "--tls-cipher-list", "--tls-keylog", "--use-largepages",
			"--watch-path", "--cpu-prof-dir", "--cpu-prof-name", "--cpu-prof-interval", "--heap-prof-dir",
			"--heap-prof-name", "--heap-prof-interval", "--experimental-policy", "--icu-data-dir", "--openssl-config",
			"--disable-proto", "--experimental-default-type", "--experimental-sea-config", "--localstorage-file",
			"--test-name-pattern", "--test-reporter", "--test-reporter-destination", "--test-concurrency",
			"--trace-event-categories", "--trace-event-file-pattern", "--snapshot-blob", "--env-file-if-exists",
			"--experimental-config-file", "--max-old-generation-size-mb", "--max-young-generation-size-mb"),
		"python": set("--check-hash-based-pycs"),
		"sbcl": set("--core", "--dynamic-space-size", "--control-stack-size", "--tls-limit", "--load",
			"--debug-environment"),
		"elixir": set("--sname", "--name", "--cookie", "--erl", "--boot", "--logger-otp-reports",
			"--logger-sasl-reports", "--vm-args", "--erl-config", "--remsh", "-pa", "-pz", "-pr"),
		"bb": set("--classpath", "-cp", "--config", "--deps-root", "--init", "--jar", "--main", "--file", "--exec",
			"--nrepl-server", "--socket-repl", "--uberscript", "--uberjar"),
	}
	// inlineAttachedFlags are those of inlineValueFlags whose value is only
	// ever the rest of their word, never the next word: perl's -i[ext],
	// -x[dir], -C[flags], -d[:mod], -D[flags], -0[octal] and -Fpattern,
	// ruby's -x[dir], -W[level] and -Fpattern, julia's -O[level]. perl -i
	// -e 'code' edits files in place with the program of -e.
	inlineAttachedFlags = map[string]string{"perl": "ixCdD0F", "ruby": "xWF", "julia": "O"}
	// perlModule is what perl's -M and -m take as a module: a name, with
	// import arguments after "=" (perl quotes them as data) or in qw().
	perlModule = regexp.MustCompile(`^-?[A-Za-z_]\w*(::\w+)*(=.*|\s+qw\([\w\s:,.-]*\))?$`)
	// separateCode are the interpreters whose program is always the next
	// word, never the rest of the flag's word: node -pe 'code' is -p with
	// -e, not the program "e".
	separateCode = set("node", "bun", "tsx", "ts-node")
	// codeOptions are the long options whose value is the program;
	// moduleOptionNames those that name a module loaded before it;
	// valueOptions the others that take a value (the next word when not
	// joined by =).
	codeOptions       = set("--eval", "--print", "--command")
	moduleOptionNames = set("--require", "--import", "--loader", "--experimental-loader", "--preload")
	valueOptions      = set("--conditions", "--input-type", "--env-file", "--title", "--load",
		// bun's
		"--cwd", "--config", "--define", "--tsconfig-override", "--jsx-factory", "--jsx-fragment",
		"--jsx-import-source", "--jsx-runtime", "--main-fields", "--extension-order", "--origin", "--port",
		"--shell", "--console-depth", "--fetch-preconnect", "--max-http-header-size", "--dns-result-order",
		"--elide-lines", "--user-agent", "--unhandled-rejections", "--filter")
)

// nextWordValue reports whether the single-letter flag c of interpreter
// fam takes the next word as its value when nothing follows it in its own
// word.
func nextWordValue(fam string, c byte) bool {
	return strings.IndexByte(inlineAttachedFlags[fam], c) < 0
}

// inlineProgram finds the inline program (python -c, node -e/--eval/-p,
// perl -e/-E, ruby -e, php -r/-B/-R/-E, bun -e, tsx and ts-node -e/-p,
// julia -e/-E, groovy -e, osascript -e, lua -e, Rscript -e), the script
// file, or whether the program comes from stdin.
func inlineProgram(fam string, args []arg) (code, file *arg, stdin bool) {
	codeFlags, valueFlags := inlineCodeFlags[fam], inlineValueFlags[fam]
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			if i+1 < len(args) {
				return nil, &args[i+1], false
			}
			return nil, nil, true
		}
		if t == "-" {
			return nil, nil, true
		}
		if strings.HasPrefix(t, "--") {
			name, val, hasVal := strings.Cut(t, "=")
			switch {
			case codeOptions[name]:
				if hasVal {
					return &arg{text: val, path: args[i].path, lit: args[i].lit}, nil, false
				}
				if i+1 < len(args) {
					return &args[i+1], nil, false
				}
				return nil, nil, false
			case moduleOptionNames[name]:
				// A data: URL module is a program written inline.
				w := args[i]
				if !hasVal && i+1 < len(args) {
					i++
					w = args[i]
				} else {
					w.text = val
				}
				if strings.HasPrefix(strings.TrimSpace(w.text), "data:") {
					return &w, nil, false
				}
			case valueOptions[name] || familyValueOptions[fam][name]:
				if !hasVal {
					i++
				}
			}
			continue
		}
		if familyValueOptions[fam][t] {
			i++ // elixir -pa DIR, bb -cp PATH: a word, not a cluster of letters
			continue
		}
		if len(t) > 1 && t[0] == '-' {
			letters := t[1:]
			for j := 0; j < len(letters); j++ {
				c := letters[j]
				if strings.IndexByte(codeFlags, c) >= 0 {
					if rest := letters[j+1:]; rest != "" && !separateCode[fam] {
						return &arg{text: rest, path: args[i].path, lit: args[i].lit}, nil, false
					}
					if i+1 < len(args) {
						return &args[i+1], nil, false
					}
					return nil, nil, false
				}
				if fam == "perl" && (c == 'M' || c == 'm') && j+1 < len(letters) && !perlModule.MatchString(letters[j+1:]) {
					// -M'strict;system …' is `use strict;system …;`: code.
					return &arg{text: letters[j+1:], path: args[i].path, lit: args[i].lit}, nil, false
				}
				if strings.IndexByte(valueFlags, c) >= 0 {
					if j == len(letters)-1 && nextWordValue(fam, c) {
						if fam == "python" && c == 'm' && i+1 < len(args) {
							return nil, &args[i+1], false // a module runs
						}
						i++
					}
					break
				}
			}
			continue
		}
		return nil, &args[i], false
	}
	return nil, nil, true
}

// awkValueFlags are awk's options whose value follows as the next word.
var awkValueFlags = set("-F", "-v", "-f", "-i", "-l", "-E", "--field-separator", "--assign", "--file", "--include", "--load", "--exec")

// awk judges awk: unless -f names a program file, the first word that is
// not an option is the program, written inline in the wiring. It walks the
// options itself rather than through skipFlags, so that an option's value
// (awk -F -f '{…}', -f as the field separator) is not taken for -f.
func (a *auditor) awk(c invocation) cmdInfo {
	args := c.args()
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			i++
			break
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
		name, val, joined := strings.Cut(t, "=")
		if name == "-f" || name == "--file" || name == "-E" || name == "--exec" || strings.HasPrefix(t, "-f") {
			// The program is a file: awk -f /dev/stdin reads it from
			// what is piped in.
			if t[1] != '-' && len(t) > 2 && !strings.HasPrefix(t, "-f=") {
				val, joined = t[2:], true // -fFILE, -EFILE
			}
			w, ok := optValue(args, &i, val, joined)
			return cmdInfo{name: c.name, stdinScript: ok && w.lit && stdinFile[w.text]}
		}
		if awkValueFlags[name] && !joined {
			i++
		}
	}
	if i < len(args) {
		a.add(CodeInlineCode, args[i].path, "runs an "+quoted(c.name)+" program written inline in the wiring")
		if args[i].lit {
			a.codeHeuristics(args[i].text, args[i].path)
			a.inlineCommands("awk", args[i].text, args[i].path, c.depth) // inlinecalls.go
		}
	}
	return cmdInfo{name: c.name}
}

// inlineCode reads an inline program: one written in a data: URL module
// (node --import data:…) is read once decoded, and one in base64 is
// encoded text made to run.
func (a *auditor) inlineCode(code, path string) {
	if src, encoded, ok := dataModule(code); ok {
		if encoded {
			a.add(CodeObfuscatedExec, path, "runs a program written in base64 in a data: URL")
		}
		code = src
	}
	a.codeHeuristics(code, path)
}

// codeHeuristics reads an inline program of a language registryd does not
// parse for what it plainly does: network use, subprocesses, and decoding
// text it then executes.
func (a *auditor) codeHeuristics(code, path string) {
	s := strings.ToLower(code)
	if containsAny(s, "http://", "https://", "urllib", "requests.", "fetch(", "socket", "http.get", "net::http",
		"lwp::", "open-uri", "xmlhttprequest", "axios", "websocket") {
		a.inferred.Network = true
	}
	if containsAny(s, "child_process", "subprocess", "os.system", "os.popen", "spawn", "system(", "popen", "execsync",
		"exec(", "pty.", "runtime.getruntime", "process.start", "shell-command", "call-process", "start-process", "make-process") {
		a.inferred.Exec = true
	}
	decodes := containsAny(s, "b64decode", "base64", "atob(", "frombase64", "decode64", "unpack(", "codecs.decode", "bytes.fromhex", "unhexlify")
	runs := containsAny(s, "exec(", "eval(", "function(", "compile(", "system(", "spawn", "popen", "runinthiscontext", "__import__")
	if decodes && runs {
		a.add(CodeObfuscatedExec, path, "the inline program decodes encoded text and executes it")
	}
}

func lower(s string) string { return strings.ToLower(s) }
