package assess

import "strings"

// Nix: `nix run`, `nix shell … --command`, `nix develop … --command` and
// the older `nix-shell --run`. They fetch what they build or substitute
// from the network, and a flake named by a moving reference (nixpkgs#x,
// github:owner/repo) is whatever that reference points to on the day.

// nixValueFlags are the options of the nix command that take one value,
// nixPairFlags those that take two.
var (
	nixValueFlags = set("--arg-from-stdin", "--eval-store", "--include", "-I", "--inputs-from",
		"--output-lock-file", "--reference-lock-file", "--update-input", "--log-format", "--expr",
		"--file", "-f", "--store", "--max-jobs", "-j", "--cores", "--builders",
		"--extra-experimental-features", "--experimental-features", "--substituters",
		"--extra-substituters", "--trusted-public-keys", "--extra-trusted-public-keys", "--system",
		"--extra-platforms", "--profile", "--out-link", "-o", "--keep", "-k", "--unset", "-u",
		"--phase", "--chdir", "--nix-path", "-A", "--attr")
	nixPairFlags = set("--option", "--arg", "--argstr", "--arg-from-file", "--override-input",
		"--override-flake", "--set-env-var", "-s", "--redirect")
)

// nixRunners are the nix subcommands that run what they build.
var nixRunners = set("run", "shell", "develop")

// peelNix judges `nix [options] run|shell|develop …`: the flakes they name
// must be pinned, and the command of shell's and develop's --command is
// peeled. Options may come before the subcommand as after it.
func peelNix(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	sub := ""
	exprs := false // -f/--expr: installables are attribute paths
	var installables []arg
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		switch {
		case t == "--":
			i = len(args)
		case sub != "" && sub != "run" && (t == "-c" || t == "--command"):
			a.nixFlakes(installables, sub, exprs)
			return args[i+1:], cmdInfo{}, false
		case len(t) > 1 && t[0] == '-':
			flag, _, joined := strings.Cut(t, "=")
			if flag == "-f" || flag == "--file" || flag == "--expr" {
				exprs = true
			}
			if joined {
				continue
			}
			if nixValueFlags[t] {
				i++
			} else if nixPairFlags[t] {
				i += 2
			}
		case sub == "":
			sub = t
			if sub == "profile" {
				return nil, a.program(c), true // nix profile install (ecosystems.go)
			}
			if !nixRunners[sub] {
				return nil, cmdInfo{name: c.name}, true
			}
			a.inferred.Network = true
		default:
			installables = append(installables, w)
			if sub == "run" {
				// The words after the installable are the app's.
				i = len(args)
			}
		}
	}
	if sub != "" {
		a.nixFlakes(installables, sub, exprs)
	}
	return nil, cmdInfo{name: c.name}, true
}

// nixFlakes reports the installables that name a flake by a moving
// reference.
func (a *auditor) nixFlakes(installables []arg, sub string, exprs bool) {
	if exprs {
		return
	}
	for _, w := range installables {
		if !w.lit {
			continue
		}
		ref, _, _ := strings.Cut(w.text, "#")
		if strings.Contains(ref, "://") {
			a.urlSecrets(strings.TrimSpace(ref), w.path) // git+https://user:token@host/…
		}
		if flakePinned(ref) {
			continue
		}
		label := "the flake " + quoted(w.text)
		if strings.Contains(ref, "://") || strings.Contains(ref, "@") {
			label = "a flake from a git or URL source"
		}
		a.add(CodeUnpinned, w.path, "`nix "+sub+"` runs "+label+" without a pinned revision")
	}
}

// flakePinned reports whether a flake reference names fixed content: a local
// path (nothing is fetched), a full commit (github:owner/repo/<commit>,
// ?rev=<commit>, nixpkgs/<commit>, an archive URL whose path names the
// commit) or a narHash. A branch, a tag, an indirect name (nixpkgs) or a
// URL without these is whatever it points to when the user runs it.
func flakePinned(ref string) bool {
	if ref == "" || ref == "." || localSpec(ref) || strings.HasPrefix(ref, "path:") ||
		strings.HasPrefix(ref, "git+file:") || strings.HasPrefix(ref, "file:") {
		return true
	}
	base, query, _ := strings.Cut(ref, "?")
	for _, p := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(p, "=")
		if k == "narHash" || (k == "rev" && commitSHA.MatchString(v)) {
			return true
		}
	}
	base = strings.TrimPrefix(base, "flake:")
	scheme, rest, hasScheme := strings.Cut(base, ":")
	if !hasScheme {
		rest = base // an indirect reference: nixpkgs, nixpkgs/nixos-24.05, nixpkgs/<commit>
	} else if scheme != "github" && scheme != "gitlab" && scheme != "sourcehut" {
		// A URL: an archive whose path names a commit is fixed content.
		for _, seg := range strings.Split(rest, "/") {
			for _, ext := range []string{".tar.gz", ".tar.xz", ".tar.bz2", ".tar.zst", ".tgz", ".zip", ".tar"} {
				seg = strings.TrimSuffix(seg, ext)
			}
			if commitSHA.MatchString(seg) {
				return true
			}
		}
		return false
	}
	segs := strings.Split(rest, "/")
	first := 1 // after the indirect name
	if hasScheme {
		first = 2 // after owner/repo
	}
	for _, seg := range segs[min(first, len(segs)):] {
		if commitSHA.MatchString(seg) {
			return true
		}
	}
	return false
}

var (
	nixShellValueFlags = set("-I", "--include", "-A", "--attr", "-i", "--keep", "--max-jobs", "-j",
		"--cores", "--store", "--builders", "--log-format", "--extra-experimental-features",
		"--experimental-features", "--substituters", "--extra-substituters")
	nixShellPairFlags = set("--arg", "--argstr", "--option")
)

// peelNixShell judges the older `nix-shell`: its --run and --command
// scripts go to bash, a Nix expression fetched by URL must be pinned, and
// the packages of -p are substituted from the network.
func peelNixShell(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	a.inferred.Network = true
	packages := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		switch {
		case t == "--run" || t == "--command":
			if s, ok := optValue(args, &i, "", false); ok {
				return nil, a.shellOption(c, s), true
			}
		case t == "-p" || t == "--packages":
			packages = true
		case nixShellValueFlags[t]:
			i++
		case nixShellPairFlags[t]:
			i += 2
		case len(t) > 1 && t[0] == '-':
		case !packages && w.lit:
			if u, ok := parseAnyURL(t); ok && !flakePinned(t) {
				a.add(CodeUnpinned, w.path, "`nix-shell` runs a Nix expression from "+safeText(u.Host, 80)+" without a pinned revision")
			}
		}
	}
	return nil, cmdInfo{name: c.name}, true
}
