package assess

import (
	"slices"
	"strings"
)

// gitValueOptions are git's options before the subcommand that take the
// next word as their value when it is not joined with `=`.
var gitValueOptions = set("-c", "-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env")

// gitNetwork are the subcommands that reach a remote.
var gitNetwork = set("clone", "fetch", "pull", "ls-remote", "push")

// git judges git: the subcommands that reach a remote use the network, and
// a configuration value given with -c that git runs as a command line
// (core.sshCommand, core.pager, an alias starting with `!` …) is judged
// like any script, as the same value in GIT_SSH_COMMAND or GIT_PAGER is.
func (a *auditor) git(c invocation) cmdInfo {
	args := c.args()
	i := 0
	where := arg{text: ".", lit: true} // the repository's directory
	for ; i < len(args); i++ {
		t := args[i].text
		if t == "--" || len(t) < 2 || t[0] != '-' {
			break
		}
		name, val, joined := strings.Cut(t, "=")
		if !gitValueOptions[name] {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			break
		}
		switch name {
		case "-c":
			a.gitConfig(w, c.depth)
		case "-C", "--work-tree":
			where = w
		case "--git-dir":
			w.text = strings.TrimSuffix(strings.TrimSuffix(strings.ReplaceAll(w.text, `\`, "/"), "/"), "/.git")
			where = w
		}
	}
	if i < len(args) && gitNetwork[args[i].text] {
		a.inferred.Network = true
	}
	if i < len(args) {
		switch sub := args[i].text; {
		case sub == "clone":
			a.gitClone(args[i+1:])
			a.gitTemplate(args[i+1:]) // githooks.go
		case sub == "init":
			a.gitTemplate(args[i+1:])
		case gitCheckouts[sub] && slices.ContainsFunc(args[i+1:], func(w arg) bool { return commitSHA.MatchString(w.text) }):
			a.checkedOut(a.within(where)) // the code that runs there is the commit's
		}
		a.gitSubcommand(args[i].text, args[i+1:], c.depth)
		a.gitRuns(args[i].text, args[i+1:], c)
	}
	return cmdInfo{name: c.name}
}

// gitCheckouts are the subcommands that put a given commit in the working
// tree (git checkout SHA, git switch --detach SHA, git reset --hard SHA).
var gitCheckouts = set("checkout", "switch", "reset")

// gitCloneValues are the options of git clone that take the next word as
// their value when it is not joined with `=`.
var gitCloneValues = set("-b", "--branch", "-o", "--origin", "-u", "--upload-pack", "-c", "--config", "--depth",
	"--reference", "--reference-if-able", "--separate-git-dir", "--template", "-j", "--jobs", "--filter",
	"--shallow-since", "--shallow-exclude", "--server-option", "--bundle-uri", "--revision", "--ref-format")

// gitClone judges the repository git clone fetches: what it gets is the
// head of a branch, which can change at any time, unless --revision names a
// full commit or the wiring checks one out afterwards; over plain http or
// git:// it can be replaced on the way. A repository on this machine is
// not fetched. The findings wait in a.clones for a checkout to withdraw.
func (a *auditor) gitClone(args []arg) {
	pinned := false
	ops := operands(args, gitCloneValues, true, func(flag string, _ arg, val string) {
		if flag == "--revision" && commitSHA.MatchString(val) {
			pinned = true
		}
	})
	if len(ops) == 0 || pinned || !ops[0].lit || !remoteRepository(ops[0].text) ||
		strings.HasPrefix(ops[0].text, "ext::") || strings.HasPrefix(ops[0].text, "fd::") {
		return // (ext:: runs a command, judged as one; fd:: reads a pipe)
	}
	a.pendingClone(ops[0], cloneTarget(ops), "git clone", "commit")
}

// cloneTarget returns the directory operand of a clone (after the
// repository), or nil.
func cloneTarget(ops []arg) *arg {
	if len(ops) > 1 {
		return &ops[1]
	}
	return nil
}

// pendingClone records the findings of a checkout of repo's latest code by
// tool (unpinned, and insecure_url over a plain transport) in a.clones,
// where a later checkout of a fixed commit in the clone's directory dir
// (the repository's name when nil) withdraws them. unit names what
// would fix it (a commit, a revision).
func (a *auditor) pendingClone(repo arg, dir *arg, tool, unit string) {
	n := len(a.findings)
	a.add(CodeUnpinned, repo.path, quoted(tool)+" fetches a repository's latest "+unit+", not a fixed one, so the code it gets can change without notice")
	a.plainFetch(repo, strings.Fields(tool)[0], "fetches code")
	a.clones = append(a.clones, pendingClone{dir: a.cloneDir(repo, dir), findings: slices.Clone(a.findings[n:])})
	a.findings = a.findings[:n]
}

// gitConfig judges one `-c key=value` of git: the value is a command line
// when the key names one. git runs it only when it needs it, so what it
// does is not counted as what the server uses.
func (a *auditor) gitConfig(kv arg, depth int) {
	if !kv.lit {
		return
	}
	key, value, ok := strings.Cut(kv.text, "=")
	if !ok {
		return
	}
	if sub, hooks := gitHooksKey(key); hooks {
		a.hooksDownloaded(arg{text: value, path: kv.path, lit: true}, sub) // githooks.go
	}
	if a.gitTrust(key, arg{text: value, path: kv.path, lit: true}) {
		return
	}
	script, ok := gitCommandValue(key, value)
	if !ok {
		return
	}
	a.gitCommand(key, arg{text: script, path: kv.path, lit: true}, depth)
}

// gitCommand judges the command line script that the configuration key
// has git run. A credential helper reads on its standard input the
// credentials git asks for or stores (protocol, host, username, password).
func (a *auditor) gitCommand(key string, script arg, depth int) {
	stdin := ""
	if credentialHelperKey(key) {
		stdin = "the user's git credentials (git writes them to its credential helper's input)"
	}
	a.envCommandReading(script, depth, stdin)
}

// credentialHelperKey reports whether a git configuration key names a
// credential helper: credential.helper or credential.<url>.helper.
func credentialHelperKey(key string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	return strings.HasPrefix(k, "credential.") && strings.HasSuffix(k, ".helper")
}

// gitCommandValue returns the command line that the configuration value
// value of key holds, and whether it holds one. The section and the last
// part of a key are case-insensitive; a subsection (diff.<driver>.command)
// is written between them.
func gitCommandValue(key, value string) (string, bool) {
	key = strings.ToLower(key)
	section, rest, _ := strings.Cut(key, ".")
	name := rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		name = rest[i+1:]
	}
	sub := rest != name // a key with a subsection
	switch {
	case !sub && gitCommandKeys[section+"."+name]:
	case sub && gitSubsectionCommandKeys[section+".*."+name]:
	case section == "pager":
		// pager.<command>: a boolean, or the pager to use for it.
		if _, isBool := gitBooleans[strings.ToLower(strings.TrimSpace(value))]; isBool {
			return "", false
		}
	case section == "alias" || (section == "credential" && name == "helper"):
		// Only a value starting with `!` is a shell command; otherwise an
		// alias names git's own subcommand and a helper git-credential-<name>.
		// A helper given by its absolute path is run, with its words,
		// through the shell as well.
		v := strings.TrimSpace(value)
		if section == "credential" && absolutePath(v) {
			return v, true
		}
		if !strings.HasPrefix(v, "!") {
			return "", false
		}
		return v[1:], true
	default:
		return "", false
	}
	if key == "core.fsmonitor" {
		// true or false select git's own monitor; anything else is a hook
		// it runs.
		if _, isBool := gitBooleans[strings.ToLower(strings.TrimSpace(value))]; isBool {
			return "", false
		}
	}
	return value, true
}

// gitCommandKeys are the keys without a subsection whose value git runs
// as a command line.
var gitCommandKeys = set("core.sshcommand", "core.pager", "core.editor", "core.askpass", "core.fsmonitor",
	"core.gitproxy", "diff.external", "sequence.editor", "gpg.program", "uploadpack.packobjectshook",
	"sendemail.sendmailcmd")

// gitSubsectionCommandKeys are those with a subsection (a diff or merge
// driver, a difftool, a filter, a signing format), written with * for it.
var gitSubsectionCommandKeys = set("diff.*.command", "diff.*.textconv", "difftool.*.cmd", "mergetool.*.cmd",
	"merge.*.driver", "filter.*.clean", "filter.*.smudge", "filter.*.process", "gpg.*.program",
	"gpg.*.defaultkeycommand", "browser.*.cmd", "remote.*.uploadpack", "remote.*.receivepack")

// gitBooleans are the spellings of a git boolean.
var gitBooleans = map[string]struct{}{"true": {}, "false": {}, "yes": {}, "no": {}, "on": {}, "off": {}, "1": {}, "0": {}, "": {}}

// gitRemoteSubcommands are the subcommands that take a repository URL: an
// ext:: URL among their words runs a command here.
var gitRemoteSubcommands = set("clone", "fetch", "pull", "ls-remote", "push", "archive", "submodule", "remote")

// gitSubcommand judges the words after git's subcommand: clone's -c/--config
// values are configuration as git -c's are, a repository reached over
// plain http or git:// can be replaced on the way, and an ext:: URL (git's
// remote helper that runs a command: ext::sh -c …) and the program given
// with --upload-pack, --receive-pack or --exec are command lines.
func (a *auditor) gitSubcommand(sub string, args []arg, depth int) {
	if !gitRemoteSubcommands[sub] {
		return
	}
	for i := 0; i < len(args); i++ {
		t := args[i].text
		name, val, joined := strings.Cut(t, "=")
		switch {
		case sub == "clone" && (name == "-c" || name == "--config"):
			if w, ok := optValue(args, &i, val, joined); ok {
				a.gitConfig(w, depth)
			}
		case name == "--upload-pack" || name == "--receive-pack" || name == "--exec" || (sub == "clone" && name == "-u"):
			// The program git starts for the other end: here, through
			// the shell, when the repository is a local path.
			if w, ok := optValue(args, &i, val, joined); ok && w.lit {
				a.envCommand(w, depth)
			}
		case strings.HasPrefix(t, "ext::") && args[i].lit:
			a.inferred.Exec = true
			words := gitExtWords(t[len("ext::"):])
			argv := make([]arg, len(words))
			for j, w := range words {
				argv[j] = arg{text: w, path: args[i].path, lit: true}
			}
			a.command(argv, depth+1, ctxNested)
		case sub == "archive" && name == "--remote":
			// git archive --remote=URL downloads the tree from there (a
			// path here is read through the local upload-archive).
			if w, ok := optValue(args, &i, val, joined); ok {
				if remoteRepository(w.text) {
					a.inferred.Network = true
					a.remoteArchive(w, args)
				}
				a.plainFetch(w, "git", "fetches code")
			}
		default:
			if gitFetchSubcommands[sub] && sub != "clone" { // gitClone judges clone's
				a.plainFetch(args[i], "git", "fetches code")
			}
		}
	}
}

// gitArchiveValues are the options of git archive that take the next word
// as their value when it is not joined with `=`.
var gitArchiveValues = set("-o", "--output", "--format", "--prefix", "--remote", "--exec", "--add-file",
	"--add-virtual-file", "--mtime")

// remoteArchive judges the tree git archive --remote fetches: a branch or
// a tag names whatever commit the repository has there when the server
// starts; only a full commit (or tree) ID names fixed code.
func (a *auditor) remoteArchive(repo arg, args []arg) {
	ops := operands(args, gitArchiveValues, true, nil)
	if len(ops) == 0 || !ops[0].lit {
		return
	}
	tree, _, _ := strings.Cut(ops[0].text, ":") // a path inside the tree
	tree, _, _ = strings.Cut(tree, "^")         // the tree of a commit (SHA^{tree})
	if commitSHA.MatchString(tree) {
		return
	}
	a.add(CodeUnpinned, repo.path, "`git archive` fetches a repository's tree at a branch or tag, not at a fixed commit, so the code it gets can change without notice")
}

// gitFetchSubcommands are the subcommands that download from the
// repositories their words name.
var gitFetchSubcommands = set("clone", "fetch", "pull", "ls-remote", "archive", "submodule")

// gitExtWords splits the command of an ext:: URL as git-remote-ext does:
// words are separated by blanks, "% " is a blank inside a word and "%%" a
// percent sign; %S, %s, %G and %V are git's own substitutions.
func gitExtWords(s string) []string {
	var words []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%' && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '%'):
			b.WriteByte(s[i+1])
			i++
		case c == ' ':
			if b.Len() > 0 {
				words = append(words, b.String())
				b.Reset()
			}
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() > 0 {
		words = append(words, b.String())
	}
	return words
}

// absolutePath reports whether s starts with an absolute path: /…, ~/…
// or a Windows drive (C:\…, C:/…).
func absolutePath(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~/") ||
		len(s) > 2 && s[1] == ':' && (s[2] == '\\' || s[2] == '/')
}

// remoteRepository reports whether git reaches a repository named so over
// the network: a URL, or scp's host:path (a drive letter, C:\repo, is a
// path).
func remoteRepository(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i > 1 && !strings.ContainsAny(s[:i], `/\`)
}
