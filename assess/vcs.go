package assess

import (
	"regexp"
	"slices"
	"strings"
)

// The version-control clients other than git (git.go): Mercurial,
// Subversion and GitHub's gh. Their checkouts fetch code over the network;
// a checkout of a repository's latest code is unpinned, as git clone's is,
// and one over plain http or svn:// can be replaced on the way. Mercurial's
// --ssh and its hooks, and Subversion's editor, diff and tunnel commands,
// are command lines run here.

// hgNetwork are Mercurial's subcommands that reach another repository;
// hgUpdates those that put a given changeset in the working directory.
var (
	hgNetwork = set("clone", "pull", "push", "incoming", "in", "outgoing", "out")
	hgUpdates = set("update", "up", "checkout", "co")
	// hgValues are the options of hg and its subcommands that take a value.
	hgValues = set("-R", "--repository", "--cwd", "--config", "--encoding", "--encodingmode", "-r", "--rev", "-u",
		"--updaterev", "-b", "--branch", "-e", "--ssh", "--remotecmd", "-B", "--bookmark", "--color", "--pager")
)

// hg judges Mercurial.
func (a *auditor) hg(c invocation) cmdInfo {
	args := c.args()
	rev := false
	where := arg{text: ".", lit: true} // the repository's directory
	ops := operands(args, hgValues, true, func(flag string, w arg, val string) {
		w.text = val
		switch flag {
		case "-R", "--repository", "--cwd":
			where = w
		case "-r", "--rev", "-u", "--updaterev":
			rev = rev || commitSHA.MatchString(val)
		case "-e", "--ssh":
			if w.lit {
				a.envCommand(w, c.depth)
			}
		case "--config":
			if w.lit {
				a.hgConfig(w, c.depth)
			}
		}
	})
	if i := slices.IndexFunc(args, func(w arg) bool { return w.text == "--insecure" }); i >= 0 {
		a.add(CodeInsecureURL, args[i].path, "`hg` turns certificate checks off (--insecure), so what it downloads can be replaced on the way")
	}
	if len(ops) == 0 {
		return cmdInfo{name: c.name}
	}
	sub := ops[0].text
	if hgNetwork[sub] && (len(ops) < 2 || !ops[1].lit || remoteRepository(ops[1].text)) {
		a.inferred.Network = true // (a repository on this machine is not reached over it)
	}
	switch {
	case sub == "clone" && len(ops) > 1:
		if !rev && ops[1].lit && remoteRepository(ops[1].text) {
			a.pendingClone(ops[1], cloneTarget(ops[1:]), "hg clone", "changeset")
		}
	case hgNetwork[sub] && sub != "push" && sub != "outgoing" && sub != "out" && len(ops) > 1:
		a.plainFetch(ops[1], "hg", "fetches code")
	case hgUpdates[sub] && (rev || len(ops) > 1 && commitSHA.MatchString(ops[1].text)):
		a.checkedOut(a.within(where)) // the code that runs there is the changeset's
	}
	return cmdInfo{name: c.name}
}

// hgConfig judges one --config section.name=value of hg: a hook (unless it
// names a Python function) and the ssh, editor and pager programs are
// command lines hg runs through the shell.
func (a *auditor) hgConfig(kv arg, depth int) {
	key, value, ok := strings.Cut(kv.text, "=")
	if !ok {
		return
	}
	key = lower(strings.TrimSpace(key))
	hook := strings.HasPrefix(key, "hooks.") && !strings.HasPrefix(strings.TrimSpace(value), "python:")
	if hook || key == "ui.ssh" || key == "ui.editor" || key == "pager.pager" {
		a.envCommand(arg{text: value, path: kv.path, lit: true}, depth)
	}
}

// svnNetwork are Subversion's subcommands that reach the repository;
// svnCheckouts those that fetch a tree from a URL; svnUpdates those that
// move a working copy to a given revision.
var (
	svnNetwork   = set("checkout", "co", "export", "update", "up", "switch", "sw", "import", "commit", "ci")
	svnCheckouts = set("checkout", "co", "export")
	svnUpdates   = set("update", "up", "switch", "sw")
	svnRevision  = regexp.MustCompile(`^[0-9]+$`)
	// svnValues are the options of svn that take a value.
	svnValues = set("-r", "--revision", "-c", "--change", "--username", "--password", "--config-dir",
		"--config-option", "--depth", "--set-depth", "-m", "--message", "-F", "--file", "--encoding", "--native-eol",
		"--accept", "--diff-cmd", "--diff3-cmd", "--editor-cmd", "-x", "--extensions", "--cl", "--changelist", "-l",
		"--limit", "--search", "--search-and", "--with-revprop", "--targets", "--trust-server-cert-failures")
	// svnCommandOptions are the --config-option settings (FILE:SECTION:OPTION)
	// whose value is a command line svn runs: the helpers, and a tunnel
	// scheme's command.
	svnCommandOptions = set("editor-cmd", "diff-cmd", "diff3-cmd", "merge-tool-cmd")
)

// svn judges Subversion.
func (a *auditor) svn(c invocation) cmdInfo {
	args := c.args()
	rev := false
	ops := operands(args, svnValues, true, func(flag string, w arg, val string) {
		w.text = val
		switch flag {
		case "-r", "--revision":
			rev = svnRevision.MatchString(val)
		case "--diff-cmd", "--diff3-cmd", "--editor-cmd":
			if w.lit {
				a.envCommand(w, c.depth)
			}
		case "--config-option":
			// config:tunnels:ssh=CMD, config:helpers:editor-cmd=CMD
			if opt, value, ok := strings.Cut(val, "="); ok && w.lit {
				parts := strings.Split(lower(opt), ":")
				if len(parts) == 3 && (parts[1] == "tunnels" || parts[1] == "helpers" && svnCommandOptions[parts[2]]) {
					a.envCommand(arg{text: value, path: w.path, lit: true}, c.depth)
				}
			}
		case "--trust-server-cert-failures":
			a.add(CodeInsecureURL, w.path, "`svn` accepts certificates that fail its checks (--trust-server-cert-failures), so what it downloads can be replaced on the way")
		}
	})
	if i := slices.IndexFunc(args, func(w arg) bool { return w.text == "--trust-server-cert" }); i >= 0 {
		a.add(CodeInsecureURL, args[i].path, "`svn` accepts a certificate it cannot check (--trust-server-cert), so what it downloads can be replaced on the way")
	}
	if len(ops) == 0 {
		return cmdInfo{name: c.name}
	}
	sub := ops[0].text
	if svnNetwork[sub] || slices.ContainsFunc(ops[1:], func(w arg) bool { return strings.Contains(w.text, "://") }) {
		a.inferred.Network = true
	}
	switch {
	case svnCheckouts[sub] && len(ops) > 1 && ops[1].lit && strings.Contains(ops[1].text, "://"):
		url := ops[1].text
		if i := strings.LastIndexByte(url, '@'); i > strings.Index(url, "://") && svnRevision.MatchString(url[i+1:]) {
			rev = true // URL@REV, a peg revision
		}
		if !rev {
			a.pendingClone(ops[1], cloneTarget(ops[1:]), "svn "+sub, "revision")
		} else {
			a.plainFetch(ops[1], "svn", "fetches code")
		}
	case svnUpdates[sub] && rev:
		where := arg{text: ".", lit: true} // svn update [PATH]: the working copy's directory
		if len(ops) > 1 {
			where = ops[1]
		}
		a.checkedOut(a.within(where)) // the code that runs there is the revision's
	}
	return cmdInfo{name: c.name}
}

// gh judges GitHub's CLI: gh repo clone fetches a repository's latest
// commit unless the git options after -- name one (--revision), and gh
// extension install installs a program gh runs, pinned only by --pin at a
// full commit.
func (a *auditor) gh(c invocation) cmdInfo {
	args := c.args()
	switch {
	case len(args) >= 3 && args[0].text == "repo" && args[1].text == "clone":
		rest, gitArgs := args[2:], []arg(nil)
		if i := slices.IndexFunc(rest, func(w arg) bool { return w.text == "--" }); i >= 0 {
			rest, gitArgs = rest[:i], rest[i+1:]
		}
		pinned := false
		operands(gitArgs, gitCloneValues, true, func(flag string, _ arg, val string) {
			pinned = pinned || flag == "--revision" && commitSHA.MatchString(val)
		})
		ops := operands(rest, set("-u", "--upstream-remote-name"), true, nil)
		if len(ops) > 0 && ops[0].lit && !pinned {
			a.pendingClone(ops[0], cloneTarget(ops), "gh repo clone", "commit")
		}
	case len(args) >= 3 && (args[0].text == "extension" || args[0].text == "extensions" || args[0].text == "ext") && args[1].text == "install":
		pin := ""
		ops := operands(args[2:], set("--pin"), true, func(flag string, _ arg, val string) {
			if flag == "--pin" {
				pin = val
			}
		})
		if len(ops) > 0 && ops[0].lit && ops[0].text != "." && !commitSHA.MatchString(pin) {
			a.add(CodeUnpinned, ops[0].path, "`gh extension install` installs an extension, a program gh runs, without a full commit (--pin <commit>), so what runs can change without notice")
		}
	case len(args) >= 2 && args[0].text == "release" && args[1].text == "download":
		// Without a tag, gh takes the newest release.
		repo := ""
		ops := operands(args[2:], ghDownloadValues, true, func(flag string, w arg, val string) {
			if (flag == "-R" || flag == "--repo") && w.lit {
				repo = val
			}
		})
		if len(ops) == 0 {
			a.latestRelease(args[1], "gh release download", "downloads", repo, "tag")
		}
	case len(args) >= 1 && args[0].text == "api", len(args) >= 2 && args[0].text == "gist" && args[1].text == "view":
		// What GitHub's API or a gist holds, written out: eval "$(gh
		// gist view ID --raw)" runs it as eval "$(curl …)" would.
		return cmdInfo{name: c.name, fetches: true}
	}
	return cmdInfo{name: c.name}
}
