package assess

import (
	"slices"
	"strings"
)

// Launchers of the Node ecosystem that set variables and start a command
// (cross-env, dotenv-cli, env-cmd) or run command lines through a shell
// (cross-env-shell, concurrently, nodemon --exec). Each is peeled or judged
// so that what it starts is: cross-env NODE_OPTIONS=… node srv.js sets a
// forbidden variable as env does.

// peelCrossEnv peels `cross-env NAME=value… command…`, judging the
// assignments as env does; cross-env-shell hands the command to a shell as
// one line.
func peelCrossEnv(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	rest := a.peelEnv(c.args(), c.depth)
	if c.name != "cross-env-shell" {
		return rest, cmdInfo{}, false
	}
	if len(rest) > 0 {
		a.inlineShell("cross-env-shell", joinArgs(rest), c.depth, true, c.env)
	}
	return nil, cmdInfo{name: "sh"}, true
}

// peelDotenv peels dotenv-cli's `dotenv [-e FILE]… [-v NAME=value]… [-c
// [ENV]] [--] command…`: -v values are judged as assignments. With "--"
// the command is what follows it. python-dotenv's `dotenv [-f FILE] run
// [--override] command…` is read too.
func peelDotenv(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	end := len(args)
	for i, w := range args {
		if w.text == "--" {
			end = i
			break
		}
	}
	var rest []arg
	for i := 0; i < end; i++ {
		t := args[i].text
		switch {
		case t == "-v":
			if i+1 < end {
				i++
				a.assignment(args[i], args[i].text, c.depth)
			}
		case t == "-e" || t == "-p" || t == "-f" || t == "--file":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			if end == len(args) {
				rest = args[i:]
				i = end
			}
		}
	}
	if end < len(args) {
		rest = args[end+1:]
	} else if len(rest) > 0 && rest[0].text == "run" {
		rest = skipFlags(rest[1:], nil) // python-dotenv
	}
	if rest == nil {
		rest = []arg{}
	}
	return rest, cmdInfo{}, false
}

// peelEnvCmd peels `env-cmd [options] command…`; with --use-shell the
// command goes to a shell as one line.
func peelEnvCmd(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	shell := false
	rest := optionWords(c.args(), set("-f", "--file", "-r", "--rc-file", "-e", "--environments"), false, nil)
	for _, w := range c.args()[:len(c.args())-len(rest)] {
		shell = shell || w.text == "--use-shell"
	}
	if !shell {
		return rest, cmdInfo{}, false
	}
	if len(rest) > 0 {
		a.inlineShell("env-cmd --use-shell", joinArgs(rest), c.depth, true, c.env)
	}
	return nil, cmdInfo{name: "sh"}, true
}

// concurrentlyValues are concurrently's options that take a value.
var concurrentlyValues = set("-n", "--names", "-c", "--prefix-colors", "-p", "--prefix", "-l", "--prefix-length",
	"-t", "--timestamp-format", "-s", "--success", "--restart-tries", "--restart-after", "-m", "--max-processes",
	"--name-separator", "--default-input-target", "--hide", "--pad-prefix", "--teardown")

// concurrently judges concurrently, which runs each of its operands as a
// command line through a shell (npm:script and the like run package
// scripts, which go through a shell too).
func (a *auditor) concurrently(c invocation) cmdInfo {
	for _, w := range operands(c.args(), concurrentlyValues, false, nil) {
		if pm, _, ok := strings.Cut(w.text, ":"); ok && (pm == "npm" || pm == "yarn" || pm == "pnpm" || pm == "bun") {
			a.inferred.Exec = true
			continue
		}
		a.inlineShell("concurrently", w, c.depth, true, c.env)
	}
	return cmdInfo{name: c.name}
}

// nodemon judges nodemon --exec (or -x), whose command line goes to a shell.
func (a *auditor) nodemon(c invocation) cmdInfo {
	args := c.args()
	for i := 0; i < len(args); i++ {
		flag, val, joined := strings.Cut(args[i].text, "=")
		if flag == "--" {
			break
		}
		if flag == "--exec" || flag == "-x" {
			if w, ok := optValue(args, &i, val, joined); ok {
				a.inlineShell("nodemon --exec", w, c.depth, true, c.env)
			}
		}
	}
	return cmdInfo{name: c.name}
}

// npmLaunchers are the npm packages whose command is one of the launchers
// above, or a runtime or package manager registryd reads, by package name:
// npx cross-env@7 NAME=value cmd runs cross-env, and npx deno@2 run
// npm:pkg runs deno, which fetches pkg.
var npmLaunchers = map[string]string{
	"cross-env": "cross-env", "cross-env-shell": "cross-env-shell", "dotenv-cli": "dotenv", "env-cmd": "env-cmd",
	"concurrently": "concurrently", "nodemon": "nodemon", "pm2": "pm2", "forever": "forever", "chokidar-cli": "chokidar",
	"deno": "deno", "bun": "bun", "npm": "npm", "pnpm": "pnpm", "yarn": "yarn",
	// MCP bridges (bridges.go), run by npx or uvx: mcp-proxy is the
	// Python one by that name, mcp-proxy-js the npm one (npmBins).
	"mcpo": "mcpo", "mcp-proxy": "mcp-proxy", "mcp-proxy-js": "mcp-proxy-js", "supergateway": "supergateway",
	"mcp-inspector": "mcp-inspector", "smithery": "smithery",
	// MCP servers whose address is judged (playwrightmcp.go).
	"mcp-server-playwright": "mcp-server-playwright",
	// Installers that write a server into AI clients' configurations
	// (installers.go).
	"install-mcp": "install-mcp", "mcp-get": "mcp-get", "add-mcp": "add-mcp", "composio-mcp": "composio-mcp",
	"mcpm": "mcpm",
	// FastMCP's CLI, run by uvx or uv run --with fastmcp.
	"fastmcp": "fastmcp",
}

// npmBins name the command of an npm package whose name does not say it,
// or says another ecosystem's: what runnerCommand is given for it.
var npmBins = map[string]string{"@modelcontextprotocol/inspector": "mcp-inspector", "mcp-proxy": "mcp-proxy-js",
	"@smithery/cli": "smithery", "@composio/mcp": "composio-mcp", "@playwright/mcp": "mcp-server-playwright"}

// parallelValues are GNU parallel's options that take a value.
var parallelValues = set("-j", "--jobs", "-P", "--max-procs", "-S", "--sshlogin", "-a", "--arg-file", "-d",
	"--delimiter", "-E", "--eof", "-I", "--replace", "--joblog", "--results", "--res", "--tmpdir", "--workdir",
	"--wd", "-N", "--max-args", "-n", "-L", "--max-lines", "--timeout", "--retries", "--delay", "--load",
	"--memfree", "--colsep", "-C", "--header", "--basefile", "--bf", "--return", "--env", "--shebang-wrap")

// parallel judges GNU parallel: it runs its command template (the words
// before ':::'), or each input after ':::' when there is none, through a
// shell; with neither, the commands come from its input.
func (a *auditor) parallel(c invocation) cmdInfo {
	args := c.args()
	end := len(args)
	for i, w := range args {
		if strings.HasPrefix(w.text, ":::") || w.text == "::::" {
			end = i
			break
		}
	}
	template := optionWords(args[:end], parallelValues, true, nil)
	switch {
	case len(template) > 0:
		a.inlineShell("parallel", joinArgs(template), c.depth, true, c.env)
	case end < len(args):
		for _, w := range args[end+1:] {
			if !strings.HasPrefix(w.text, ":::") {
				a.inlineShell("parallel", w, c.depth, true, c.env)
			}
		}
	default:
		return cmdInfo{name: c.name, stdinScript: true}
	}
	return cmdInfo{name: c.name}
}

// peelWatchexec peels watchexec: its command runs through a shell (sh -c,
// the words joined) unless --shell=none (or -n) runs it directly.
func peelWatchexec(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	direct := false
	rest := optionWords(c.args(), set("-w", "--watch", "-W", "--watch-non-recursive", "-e", "--exts", "-f",
		"--filter", "-i", "--ignore", "--shell", "-s", "--signal", "--stop-signal", "--stop-timeout", "-d",
		"--debounce", "--delay-run", "--poll", "--workdir", "--env", "-E", "--project-origin", "--filter-file",
		"--ignore-file", "--fs-events", "--on-busy-update", "--emit-events-to", "--log-file", "--wrap-process",
		"--color", "--timings", "--notify", "-o"), true, func(flag string, _ arg, val string) {
		if flag == "--shell" && val == "none" {
			direct = true
		}
	})
	for _, w := range c.args()[:len(c.args())-len(rest)] {
		direct = direct || w.text == "-n"
	}
	if direct || len(rest) == 0 {
		return rest, cmdInfo{}, false
	}
	a.inlineShell("watchexec", joinArgs(rest), c.depth, true, c.env)
	return nil, cmdInfo{name: "sh"}, true
}

// chokidar judges chokidar-cli, which runs the command line of -c (or
// --command) through a shell each time a watched file changes (and once
// at start with --initial).
func (a *auditor) chokidar(c invocation) cmdInfo {
	eachOptionValue(c.args(), func(flag string) bool { return flag == "-c" || flag == "--command" }, func(_ string, w arg) {
		a.inlineShell("chokidar", w, c.depth, true, c.env)
	})
	return cmdInfo{name: c.name}
}

// peelEntr peels `entr [-acdnprz] utility…`; with -s the words go to a
// shell as one command line.
func peelEntr(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	rest := skipFlags(c.args(), nil)
	shell := false
	for _, w := range c.args()[:len(c.args())-len(rest)] {
		shell = shell || len(w.text) > 1 && w.text[0] == '-' && w.text[1] != '-' && strings.Contains(w.text, "s")
	}
	if !shell || len(rest) == 0 {
		return rest, cmdInfo{}, false
	}
	a.inlineShell("entr -s", joinArgs(rest), c.depth, true, c.env)
	return nil, cmdInfo{name: "sh"}, true
}

// Secret and environment launchers beyond the Node ones: dotenvx, aws-vault
// and sops start a command with variables they decrypt or fetch.

var (
	// dotenvxValues are the options of dotenvx run that take a value
	// (its -fk and -e are whole words, not letter clusters).
	dotenvxValues = set("-f", "--env-file", "-fk", "--env-keys-file", "--convention", "--ignore", "--log-level",
		"-e", "--env")
	dotenvxEnv = set("-e", "--env")
	// awsVaultValues are the options of aws-vault exec that take a value.
	awsVaultValues = set("-d", "--duration", "-t", "--mfa-token", "--region", "--prompt", "--backend",
		"--keychain", "--pass-dir", "--pass-cmd", "--pass-prefix", "--file-dir", "--ec2-server-port")
	// sopsExecValues are the options of sops exec-env and exec-file that
	// take a value.
	sopsExecValues = set("--user", "--input-type", "--output-type", "--filename", "--env-file")
)

// peelDotenvx peels `dotenvx run [-f FILE] [-e NAME=value]… [--] command…`;
// -e values are judged as assignments.
func peelDotenvx(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) == 0 || args[0].text != "run" {
		return nil, a.program(c), true
	}
	return a.peelOptions(args[1:], dotenvxValues, dotenvxEnv, c.depth, false), cmdInfo{}, false
}

// peelAwsVault peels `aws-vault exec [options] PROFILE [--] command…`.
func peelAwsVault(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) == 0 || args[0].text != "exec" {
		return nil, a.program(c), true
	}
	rest := optionWords(args[1:], awsVaultValues, false, nil)
	if len(rest) == 0 {
		return nil, cmdInfo{name: c.name}, true
	}
	rest = rest[1:] // the profile
	if len(rest) > 0 && rest[0].text == "--" {
		rest = rest[1:]
	}
	return rest, cmdInfo{}, false
}

// sops judges `sops exec-env FILE 'command'` and `sops exec-file FILE
// 'command {}'`: sops runs the command through a shell with the decrypted
// values in its environment or in a file.
func (a *auditor) sops(c invocation) cmdInfo {
	args := c.args()
	if len(args) == 0 || (args[0].text != "exec-env" && args[0].text != "exec-file") {
		return cmdInfo{name: c.name}
	}
	ops := operands(args[1:], sopsExecValues, false, nil)
	if len(ops) >= 2 {
		a.inlineShell("sops "+args[0].text, ops[1], c.depth, true, c.env)
	}
	return cmdInfo{name: "sh"}
}

// xargsValues are xargs's options that take a value.
var xargsValues = set("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args",
	"--max-procs", "--max-chars", "--process-slot-var", "--replace", "--eof", "--max-lines")

// xargs judges `xargs [options] command…`: the command runs with words
// read from its input. When those words are the program of a shell or an
// interpreter (xargs sh -c, xargs -I{} bash -c '{}'), what is piped into
// xargs is executed: xargs is then a pipe target as sh is.
func (a *auditor) xargs(c invocation) cmdInfo {
	replace, argFile := "", ""
	rest := optionWords(c.args(), xargsValues, true, func(flag string, _ arg, val string) {
		switch flag {
		case "-I", "--replace":
			replace = val
		case "-a", "--arg-file":
			argFile = val
		}
	})
	listed := a.listedIn
	a.listedIn = "" // what xargs runs reads nothing of it
	if len(rest) == 0 {
		return cmdInfo{name: "xargs", lists: listed} // xargs alone echoes its input
	}
	if listed != "" {
		// The paths of credential files come in: the command is given
		// them, at the -I string or after its words.
		rest = withListed(rest, replace, listed)
	}
	info := a.command(rest, c.depth+1, ctxNested)
	if xargsRunsInput(rest, replace) {
		info.stdinScript = true
		if argFile != "" {
			// xargs -a /tmp/a sh -c after curl -o /tmp/a URL
			a.feedsFetched(argFile, progName(rest[0].text), c.argv[0].path)
		}
	}
	return info
}

// withListed returns argv with file (a path standing for the files whose
// paths xargs reads) where xargs puts each word it reads: in place of the
// -I string replace, or after the last word when there is none.
func withListed(argv []arg, replace, file string) []arg {
	out := slices.Clone(argv)
	if replace == "" {
		last := argv[len(argv)-1]
		return append(out, arg{text: file, path: last.path, lit: true})
	}
	for i := range out {
		if out[i].lit && strings.Contains(out[i].text, replace) {
			out[i].text = strings.ReplaceAll(out[i].text, replace, file)
		}
	}
	return out
}

// xargsRunsInput reports whether the command xargs starts takes its
// program from what xargs reads: a shell's -c (or -lc, -ec …) or an
// interpreter's -c/-e with no program after it, or with the -I string in
// the program.
func xargsRunsInput(argv []arg, replace string) bool {
	name := progName(argv[0].text)
	fam := family(name)
	shell := isPOSIXShell(name)
	if !shell && fam != "python" && fam != "node" && fam != "perl" && fam != "ruby" {
		return false
	}
	for i := 1; i < len(argv); i++ {
		t := argv[i].text
		code := false
		switch {
		case shell:
			code = len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.IndexByte(t, 'c') > 0
		case fam == "python":
			code = t == "-c"
		default:
			code = t == "-e" || t == "-E" || t == "--eval"
		}
		if !code {
			continue
		}
		if i+1 >= len(argv) {
			return true
		}
		return replace != "" && strings.Contains(argv[i+1].text, replace)
	}
	return false
}
