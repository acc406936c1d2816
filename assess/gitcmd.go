package assess

import "strings"

// Subcommands of git that run a command line they are given: rebase's
// --exec after each commit, submodule foreach in each submodule, bisect
// run at each step, filter-branch's filters for each commit, difftool's
// --extcmd for each file; and git config, which writes a command line for
// git to run later.

// gitFilterOptions are filter-branch's options whose value is a shell
// script it evaluates.
var gitFilterOptions = set("--setup", "--env-filter", "--tree-filter", "--index-filter", "--parent-filter",
	"--msg-filter", "--commit-filter", "--tag-name-filter")

// gitConfigValues are git config's options that take a value; gitConfigQueries
// the words that make it read, remove or edit rather than set a key.
var (
	gitConfigValues  = set("-f", "--file", "--blob", "--type", "--default", "--comment", "--value")
	gitConfigQueries = set("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color",
		"--get-colorbool", "--unset", "--unset-all", "-l", "--list", "-e", "--edit", "--rename-section",
		"--remove-section", "get", "list", "unset", "edit", "rename-section", "remove-section")
)

// gitRuns judges the command lines git's subcommand sub runs, given its
// words args.
func (a *auditor) gitRuns(sub string, args []arg, c invocation) {
	shell := func(what string, w arg) {
		a.inlineShell(what, w, c.depth, true, c.env)
	}
	switch sub {
	case "rebase":
		gitOptionValues(args, "--exec", "-x", func(w arg) { shell("git rebase --exec", w) })
	case "submodule":
		// git submodule [--quiet] foreach [--recursive] COMMAND…: the words
		// are one command line, evaluated by a shell in each submodule.
		for i, w := range args {
			if w.text == "foreach" {
				if rest := skipFlags(args[i+1:], nil); len(rest) > 0 {
					shell("git submodule foreach", joinArgs(rest))
				}
				break
			}
		}
	case "bisect":
		// git bisect run CMD ARG…: the command itself, at each step.
		if len(args) > 1 && args[0].text == "run" {
			a.command(args[1:], c.depth+1, ctxNested)
		}
	case "filter-branch":
		for i := 0; i < len(args); i++ {
			name, val, joined := strings.Cut(args[i].text, "=")
			if gitFilterOptions[name] {
				if w, ok := optValue(args, &i, val, joined); ok {
					shell("git filter-branch "+name, w)
				}
			}
		}
	case "difftool":
		gitOptionValues(args, "--extcmd", "-x", func(w arg) { shell("git difftool --extcmd", w) })
	case "config":
		a.gitConfigSet(args, c.depth)
	}
}

// gitOptionValues calls each with the value of every long option given
// as `long VALUE` or `long=VALUE` and short option as `short VALUE` or
// `shortVALUE`, up to "--".
func gitOptionValues(args []arg, long, short string, each func(arg)) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		name, val, joined := strings.Cut(t, "=")
		switch {
		case t == "--":
			return
		case name == long || t == short:
			if w, ok := optValue(args, &i, val, joined && name == long); ok {
				each(w)
			}
		case strings.HasPrefix(t, short):
			each(arg{text: t[len(short):], path: args[i].path, lit: args[i].lit})
		}
	}
}

// gitConfigSet judges git config KEY VALUE (and git config set KEY VALUE):
// a value that git runs as a command line is judged like one given with
// git -c, and written into the configuration of every repository
// (--global, --system) it is a command planted for every later use of git,
// as a hooks directory set there is.
func (a *auditor) gitConfigSet(args []arg, depth int) {
	global := false
	for _, w := range args {
		switch {
		case w.text == "--global" || w.text == "--system":
			global = true
		case strings.HasPrefix(w.text, "-") && gitConfigQueries[w.text]:
			return
		}
	}
	ops := operands(args, gitConfigValues, true, nil)
	if len(ops) > 0 && gitConfigQueries[ops[0].text] {
		return
	}
	if len(ops) > 0 && ops[0].text == "set" {
		ops = ops[1:]
	}
	if len(ops) < 2 || !ops[0].lit || !ops[1].lit {
		return
	}
	key, value := ops[0].text, ops[1].text
	if sub, hooks := gitHooksKey(key); hooks {
		a.hooksDownloaded(ops[1], sub) // githooks.go
	}
	script, ok := gitCommandValue(key, value)
	if ok {
		a.gitCommand(key, arg{text: script, path: ops[1].path, lit: true}, depth)
	}
	if global && (ok || strings.EqualFold(key, "core.hooksPath")) {
		a.add(CodePersistence, ops[1].path, "writes a command for git to run into the configuration of every repository ("+
			safeText(key, 60)+"), where it runs whenever git does")
	}
	if a.gitTrust(key, ops[1]) && global {
		a.add(CodePersistence, ops[1].path, "writes where git fetches from, or whether it checks certificates, into the configuration of every repository ("+
			safeText(key, 60)+")")
	}
}

// gitTrust judges a git setting that changes where git fetches from
// (url.<base>.insteadOf: every address that starts with the value is
// fetched from base instead) or turns its certificate checks off
// (http.sslVerify false), and reports whether key is one of them.
func (a *auditor) gitTrust(key string, value arg) bool {
	lk := strings.ToLower(key)
	last := strings.LastIndexByte(key, '.')
	switch {
	case strings.HasPrefix(lk, "url.") && last >= len("url.") &&
		(strings.HasSuffix(lk, ".insteadof") || strings.HasSuffix(lk, ".pushinsteadof")):
		base := key[len("url."):last]
		a.plainFetch(arg{text: base, path: value.path, lit: value.lit}, "git", "fetches repositories")
		return true
	case lk == "http.sslverify" || strings.HasPrefix(lk, "http.") && strings.HasSuffix(lk, ".sslverify"):
		if v := strings.ToLower(strings.TrimSpace(value.text)); value.lit && (v == "false" || v == "no" || v == "off" || v == "0") {
			a.add(CodeInsecureURL, value.path, "`git` is set to turn certificate checks off ("+safeText(key, 60)+
				"), so what it fetches can be replaced on the way")
		}
		return true
	}
	return false
}
