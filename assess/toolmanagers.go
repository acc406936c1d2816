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
