package assess

import "strings"

// Tool managers that install what a command needs before they run it:
// mise (and rtx, its former name) installs the tools named on its exec
// line, pkgx the packages of the command and of its +pkg options. What
// they install is fetched at start; what they run is judged as any
// command.

// miseValueFlags are mise's options that take the next word as their
// value, before its subcommand and on its exec line.
var miseValueFlags = set("-C", "--cd", "-E", "--env", "-j", "--jobs", "-P", "--profile")

// misePackageBackends are mise's backends that install a package of a
// registry (npm:prettier, pipx:black, cargo:ripgrep, github:owner/repo):
// like any package runner, they must name an exact version. Its other
// tools (node@20, core:python, asdf:… and vfox:… plugins) are language
// runtimes and tools, installed at start with no way to pin beyond a
// version prefix: network use only.
var misePackageBackends = set("npm", "pipx", "cargo", "go", "gem", "ubi", "github", "gitlab", "aqua", "spm",
	"dotnet", "conda")

// peelMise peels `mise [options] exec|x [options] [tool@version…] --
// command…`: the tools it names are installed at start (miseTool), the
// script of -c/--command runs through a shell, and the command after --
// is judged. Its other subcommands are judged as a program (runners.go).
func peelMise(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := skipFlags(c.args(), miseValueFlags)
	if len(args) == 0 || (args[0].text != "exec" && args[0].text != "x") {
		return nil, a.program(c), true
	}
	runner := c.name + " " + args[0].text
	rest := args[1:]
	var script *arg
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		t := w.text
		switch {
		case t == "--":
			if script != nil {
				a.shellOption(c, *script)
			}
			return rest[i+1:], cmdInfo{}, false
		case len(t) > 1 && t[0] == '-':
			flag, val, joined := strings.Cut(t, "=")
			if len(t) > 2 && t[1] == 'c' && !joined {
				flag, val, joined = "-c", t[2:], true // -cSCRIPT
			}
			switch {
			case flag == "-c" || flag == "--command":
				if v, ok := optValue(rest, &i, val, joined); ok {
					script = &v
				}
			case miseValueFlags[flag] && !joined:
				i++
			}
		default:
			a.miseTool(w, runner)
		}
	}
	if script != nil {
		return nil, a.shellOption(c, *script), true
	}
	// No command: mise starts the user's shell with the tools installed.
	return nil, cmdInfo{name: c.name}, true
}

// miseTool judges one tool of a mise exec line: installing it uses the
// network, and a package of a registry must name an exact version
// (mise reads node@20 or cargo:ripgrep@14.1 as a prefix: the newest
// release that matches).
func (a *auditor) miseTool(w arg, runner string) {
	if !w.lit {
		return
	}
	a.inferred.Network = true
	backend, spec, ok := strings.Cut(w.text, ":")
	if !ok || !misePackageBackends[backend] || spec == "" {
		return
	}
	version := ""
	if at := strings.LastIndexByte(spec, '@'); at > 0 {
		version = spec[at+1:]
	}
	if backend == "npm" && npmPinned(spec) || semverExact.MatchString(version) {
		return
	}
	a.add(CodeUnpinned, w.path, unpinnedMessage(runner, "installs", spec))
}

// peelPkgx peels `pkgx [options] [+pkg[@version]…] [--] command…`: pkgx
// fetches the packages it is given and the one that provides the command
// (network use), then runs the command, whose name may carry a version
// (node@20): the command is judged without it.
func peelPkgx(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	a.inferred.Network = true
	args := c.args()
	for i, w := range args {
		t := w.text
		switch {
		case t == "--":
			return withoutVersion(args[i+1:]), cmdInfo{}, false
		case strings.HasPrefix(t, "+") || len(t) > 1 && t[0] == '-':
		default:
			return withoutVersion(args[i:]), cmdInfo{}, false
		}
	}
	return nil, cmdInfo{name: c.name}, true
}

// withoutVersion returns args with the @version of its first word, the
// name of a command (node@20), taken off, in a copy.
func withoutVersion(args []arg) []arg {
	if len(args) == 0 || !args[0].lit {
		return args
	}
	at := strings.LastIndexByte(args[0].text, '@')
	if at <= 0 || strings.ContainsAny(args[0].text[:at], "/\\") {
		return args
	}
	out := append([]arg{}, args...)
	out[0].text = out[0].text[:at]
	return out
}

// protoValueFlags are proto's options that take a value: its global ones,
// before its subcommand, and those of run and exec.
var protoValueFlags = set("--config-mode", "--log", "--theme", "--alt", "--bin", "--shell")

// peelProto peels moonrepo's proto: `proto run TOOL [VERSION] [--alt NAME]
// [--bin FILE] -- ARGS…` runs the tool's program (or the other program
// --alt names, or --bin's file) with the words after --; `proto exec
// TOOL… [--shell SH] -- COMMAND…` runs the command, or, with --shell, the
// command's words joined as one line that SH runs with -c. Either runs
// what is installed already (it installs at start only when the user's
// configuration says so). Its other subcommands are judged as a program.
func peelProto(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := skipFlags(c.args(), protoValueFlags)
	if len(args) == 0 {
		return nil, a.program(c), true
	}
	sub := args[0].text
	if sub != "run" && sub != "r" && sub != "exec" && sub != "x" {
		return nil, a.program(c), true
	}
	var operands, after []arg
	var prog, shell *arg
	dashes := false
	for i := 1; i < len(args); i++ {
		w := args[i]
		if w.text == "--" {
			after, dashes = args[i+1:], true
			break
		}
		flag, val, joined := strings.Cut(w.text, "=")
		switch {
		case flag == "--alt" || flag == "--bin" || flag == "--shell":
			v, ok := optValue(args, &i, val, joined)
			if !ok {
				continue
			}
			if flag == "--shell" {
				shell = &v
			} else {
				prog = &v
			}
		case protoValueFlags[flag] && !joined:
			i++
		case strings.HasPrefix(w.text, "-"):
		default:
			operands = append(operands, w)
		}
	}
	if sub == "exec" || sub == "x" {
		if !dashes || len(after) == 0 {
			return nil, cmdInfo{name: c.name}, true
		}
		if shell != nil {
			line := joinArgs(after)
			return []arg{*shell, {text: "-c", path: shell.path, lit: true}, line}, cmdInfo{}, false
		}
		return after, cmdInfo{}, false
	}
	if prog == nil {
		if len(operands) == 0 {
			return nil, cmdInfo{name: c.name}, true
		}
		prog = &operands[0]
	}
	return append([]arg{*prog}, after...), cmdInfo{}, false
}

// nValueFlags are the options of n (the Node.js version manager) that
// take a value.
var nValueFlags = set("-a", "--arch")

// peelN peels n, the Node.js version manager: `n run|use|as VERSION
// ARGS…` runs that version's node with ARGS, `n exec VERSION COMMAND…`
// runs the command with that version's node first on the search path;
// with -d or --download a version not installed yet is downloaded first.
// Its other subcommands are judged as a program.
func peelN(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].text, "-"); i++ {
		switch t := args[i].text; {
		case t == "-d" || t == "--download":
			a.inferred.Network = true
		case nValueFlags[t]:
			i++
		}
	}
	if i+1 >= len(args) {
		return nil, a.program(c), true
	}
	switch sub, rest := args[i], args[i+2:]; sub.text {
	case "run", "use", "as":
		return append([]arg{{text: "node", path: sub.path, lit: true}}, rest...), cmdInfo{}, false
	case "exec":
		if len(rest) == 0 {
			return nil, cmdInfo{name: c.name}, true
		}
		return rest, cmdInfo{}, false
	}
	return nil, a.program(c), true
}
