package assess

import "strings"

// Tools that fetch a package's sources and build and run it: Mint clones a
// Swift package's git repository, dub fetches a D package from its
// registry, and devenv evaluates a developer environment of Nix (its
// shell command runs a command in it).

// mintValues are the options of Mint's run and install that take a value.
var mintValues = set("-m", "--mintfile")

// mint judges Mint: run and install clone the git repository of the
// package they name (a GitHub owner/repo, host/owner/repo or a git URL)
// and build it. The @REF after it is a branch, a tag or a commit (tag:X,
// commit:X): only a full commit names fixed content, as for any git
// source. A bare name (xcodegen) is an installed package or one of the
// Mintfile, which pins its own.
func (a *auditor) mint(c invocation) cmdInfo {
	args := c.args()
	a.inferred.Network = true
	if len(args) == 0 || (args[0].text != "run" && args[0].text != "install") {
		return cmdInfo{name: c.name}
	}
	sub := args[0].text
	rest := optionWords(args[1:], mintValues, false, nil)
	if len(rest) == 0 || !rest[0].lit {
		return cmdInfo{name: c.name}
	}
	w := rest[0]
	repo, ref := mintPackage(strings.TrimSpace(w.text))
	if !strings.ContainsAny(repo, "/:") {
		return cmdInfo{name: c.name}
	}
	if !commitSHA.MatchString(ref) {
		what := "the git repository " + quoted(safeText(repo, 60))
		if sourceIsURL(repo) || strings.Contains(repo, "@") {
			what = "a git repository named by a URL" // which may carry credentials
		}
		if ref == "" {
			what += " at its newest tag"
		} else {
			what += " at the branch or tag " + quoted(safeText(ref, 40))
		}
		verb := "builds and runs "
		if sub == "install" {
			verb = "builds and installs "
		}
		a.add(CodeUnpinned, w.path, "`mint "+sub+"` "+verb+what+", which can move: name a full commit after @")
		a.plainFetch(w, "mint", "clones a package")
	}
	return cmdInfo{name: c.name}
}

// mintPackage splits a package of Mint into its repository and the git
// reference after @ (without tag: or commit:), as Mint reads it: an @ of
// user@host (git@github.com:o/r, ssh://git@host/o/r) belongs to the
// repository.
func mintPackage(s string) (repo, ref string) {
	parts := strings.Split(s, "@")
	switch {
	case len(parts) == 3:
		repo, ref = parts[0]+"@"+parts[1], parts[2]
	case len(parts) == 2 && strings.Contains(parts[1], ":"):
		repo, ref = parts[0], parts[1]
	case len(parts) == 2 && strings.Contains(parts[0], "ssh://"):
		return s, ""
	case len(parts) == 2:
		repo, ref = parts[0], parts[1]
	default:
		return s, ""
	}
	if kind, name, ok := strings.Cut(ref, ":"); ok {
		if kind != "tag" && kind != "commit" {
			return repo, ref // Mint refuses it
		}
		ref = name
	}
	return repo, strings.TrimSpace(ref)
}

// dubValues are the options of dub's run and build (and its common ones)
// that take a value.
var dubValues = set("--root", "--recipe", "--registry", "--skip-registry", "--cache", "--color", "-b", "--build",
	"-c", "--config", "--override-config", "--compiler", "-a", "--arch", "--debug", "--d-version", "--build-mode",
	"--data", "--main-file")

// dub judges dub, D's package manager: run and build (run is also what
// dub does with no command) fetch the package they name from the
// registry when it is not there and build it, its build commands
// included; package@1.2.3 (or ==1.2.3) is an exact version, a range,
// ~branch or no version is whatever is newest. Without a package, or
// with --single FILE, they build the local project, whose dependencies
// are fetched. --registry names where packages come from.
func (a *auditor) dub(c invocation) cmdInfo {
	args := c.args()
	a.inferred.Network = true
	if i := indexWord(args, "--"); i >= 0 {
		args = args[:i] // the application's arguments
	}
	if len(args) > 0 && (args[0].text == "run" || args[0].text == "build") {
		args = args[1:]
	} else if len(args) > 0 && !strings.HasPrefix(args[0].text, "-") {
		return cmdInfo{name: c.name} // another command
	}
	single := false
	pkgs := operands(args, dubValues, false, func(flag string, w arg, val string) {
		if flag == "--registry" {
			w.text = val
			a.packageSource("`dub` downloads packages", w)
		}
	})
	for _, w := range args {
		single = single || w.text == "--single"
	}
	if single || len(pkgs) == 0 || !pkgs[0].lit {
		return cmdInfo{name: c.name}
	}
	w := pkgs[0]
	name, version, _ := strings.Cut(strings.TrimSpace(w.text), "@")
	if strings.HasPrefix(name, ":") {
		return cmdInfo{name: c.name} // a subpackage of the local project
	}
	if !semverExact.MatchString(strings.TrimPrefix(version, "=")) {
		a.add(CodeUnpinned, w.path, unpinnedMessage("dub", "runs", w.text))
	}
	return cmdInfo{name: c.name}
}

// devenv's options (clap, global: before the command or after it): those
// that take one value, those that take two, and its commands.
var (
	devenvValues = set("--log-format", "--trace-output", "--trace-format", "--from", "-j", "--max-jobs", "-u",
		"--cores", "-s", "--system", "-P", "--profile", "--secretspec-provider", "--secretspec-profile")
	devenvPairs    = set("-n", "--nix-option", "-o", "--override-input", "-O", "--option")
	devenvCommands = set("init", "generate", "shell", "update", "search", "info", "show", "up", "processes", "tasks",
		"test", "ci", "container", "inputs", "changelogs", "repl", "gc", "build", "eval", "direnvrc", "version", "mcp",
		"lsp", "help")
)

// peelDevenv judges devenv: each of its commands evaluates the developer
// environment of devenv.nix, or of the flake --from names, whose inputs
// are fetched and whose enterShell script runs in the shell: that flake
// must be pinned. shell CMD ARGS writes `exec CMD ARGS` into a bash
// script, CMD as it is and ARGS quoted, and runs it in the environment:
// CMD is judged as shell code followed by literal words. devenv mcp is
// devenv's own MCP server.
func peelDevenv(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	a.inferred.Network = true
	sub := ""
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		if len(t) < 2 || t[0] != '-' {
			if sub == "" {
				if sub = t; sub != "shell" {
					// The rest are that command's words; --from may
					// still follow.
					a.devenvFrom(args[i+1:])
					return nil, cmdInfo{name: c.name}, true
				}
				continue
			}
			return a.devenvShell(args[i:], c.depth)
		}
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case flag == "--from":
			if !joined && i+1 < len(args) {
				i++
				val = args[i].text
			}
			a.devenvFlake(w, val)
		case joined:
		case devenvValues[t]:
			i++
		case devenvPairs[t]:
			i += 2
		case t == "-c" || t == "--clean":
			// Names of variables to keep, up to the next option or
			// command.
			for sub == "" && i+1 < len(args) && !strings.HasPrefix(args[i+1].text, "-") && !devenvCommands[args[i+1].text] {
				i++
			}
		}
	}
	return nil, cmdInfo{name: c.name}, true
}

// devenvFrom judges the --from options among the words after devenv's
// command.
func (a *auditor) devenvFrom(args []arg) {
	for i := 0; i < len(args); i++ {
		if flag, val, joined := strings.Cut(args[i].text, "="); flag == "--from" {
			w := args[i]
			if !joined && i+1 < len(args) {
				i++
				w, val = args[i], args[i].text
			}
			a.devenvFlake(w, val)
		}
	}
}

// devenvFlake reports the flake of --from (val, in w) when it is not
// pinned.
func (a *auditor) devenvFlake(w arg, val string) {
	ref, _, _ := strings.Cut(strings.TrimSpace(val), "#")
	if w.lit && strings.Contains(ref, "://") {
		a.urlSecrets(ref, w.path) // git+https://user:token@host/…
	}
	if w.lit && !flakePinned(ref) {
		label := "the flake " + quoted(safeText(val, 60))
		if strings.Contains(ref, "://") || strings.Contains(ref, "@") {
			label = "a flake from a git or URL source" // which may carry credentials
		}
		a.add(CodeUnpinned, w.path, "`devenv --from` runs the developer environment of "+label+" without a pinned revision")
	}
}

// devenvShell judges the command of devenv shell: rest is CMD and ARGS.
func (a *auditor) devenvShell(rest []arg, depth int) ([]arg, cmdInfo, bool) {
	if rest[0].lit && plainShellWord(rest[0].text) {
		return rest, cmdInfo{}, false
	}
	// Judged without the exec, which would end the script after its
	// first command: what CMD chains after it is judged too.
	line := make([]arg, len(rest))
	line[0] = rest[0]
	for i, w := range rest[1:] {
		if !plainShellWord(w.text) {
			w.text = "'" + strings.ReplaceAll(w.text, "'", `'\''`) + "'"
		}
		line[i+1] = w
	}
	return nil, a.shellLine(line, depth, false, false), true
}
