package assess

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Wrappers that run a command line in a prepared environment, a sandbox, a
// tracer or under a lock. Each is peeled by the grammar of its own options,
// so that what it runs is judged exactly; a wrapper the audit does not know
// is read by the rules of unknown.go.

// optionsThen peels `tool [options] command…` for a tool that reads its
// options as getopt does: the options in withValue take a value (the next
// word, or the rest of a cluster such as -fo/tmp/t), and those in envOpts
// take a NAME=value that is judged as an environment assignment.
func optionsThen(withValue []string, envOpts ...string) peeler {
	values := set(append(withValue, envOpts...)...)
	env := set(envOpts...)
	return func(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
		return a.peelOptions(c.args(), values, env, c.depth, true), cmdInfo{}, false
	}
}

// peelOptions drops leading options (and the values of those in values) and
// a "--" terminator, judging the NAME=value of the options in env, and
// returns the words that follow.
func (a *auditor) peelOptions(args []arg, values, env map[string]bool, depth int, getopt bool) []arg {
	return optionWords(args, values, getopt, func(flag string, w arg, val string) {
		if env[flag] {
			a.assignment(w, val, depth)
		}
	})
}

// optionWords drops leading options (and the values of those in values)
// and a "--" terminator and returns the words that follow, calling valued
// with each option that takes a value, the word that holds the value, and
// the value (valued may be nil). getopt: a word of one dash and several
// letters is a cluster of short options, the first of them that takes a
// value taking the rest of the word or, at its end, the next word.
func optionWords(args []arg, values map[string]bool, getopt bool, valued func(flag string, w arg, val string)) []arg {
	return readOptions(args, values, getopt, valued, true)
}

// operands returns the words of args that are neither options nor the
// values of the options in values, reading the options as optionWords
// does but in any order with the operands (as install commands take
// them); after "--" every word is an operand.
func operands(args []arg, values map[string]bool, getopt bool, valued func(flag string, w arg, val string)) []arg {
	return readOptions(args, values, getopt, valued, false)
}

// readOptions is optionWords when stop is true (the first operand ends
// the options, and the words from it on are returned as a part of args)
// and operands when it is false.
func readOptions(args []arg, values map[string]bool, getopt bool, valued func(flag string, w arg, val string), stop bool) []arg {
	out := []arg{}
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			if stop {
				return args[i+1:]
			}
			return append(out, args[i+1:]...)
		}
		if len(t) < 2 || t[0] != '-' {
			if stop {
				return args[i:]
			}
			out = append(out, args[i])
			continue
		}
		flag, val, joined := strings.Cut(t, "=")
		if !joined && !values[t] && getopt && t[1] != '-' {
			flag, val, joined = shortCluster(t, values)
			if flag == "" {
				continue
			}
		}
		if !joined {
			if !values[flag] {
				continue
			}
			if i++; i >= len(args) {
				break
			}
			val = args[i].text
		}
		if valued != nil {
			valued(flag, args[i], val)
		}
	}
	return out
}

// shortCluster reads a word of short options (-fo/tmp/t, -fo) as getopt
// does: it returns the first option of the cluster that takes a value, and
// the rest of the word as its value when there is one (joined); flag is ""
// when no option of the word takes a value.
func shortCluster(t string, values map[string]bool) (flag, val string, joined bool) {
	for j := 1; j < len(t); j++ {
		if f := "-" + t[j:j+1]; values[f] {
			return f, t[j+1:], j+1 < len(t)
		}
	}
	return "", "", false
}

// skipGetopt is skipFlags for a tool that reads its options as getopt
// does, short options in clusters included.
func skipGetopt(args []arg, withValue map[string]bool) []arg {
	return optionWords(args, withValue, true, nil)
}

// getoptThen peels `tool [options] command…` with skipGetopt.
func getoptThen(withValue ...string) peeler {
	values := set(withValue...)
	return func(_ *auditor, c invocation) ([]arg, cmdInfo, bool) {
		return skipGetopt(c.args(), values), cmdInfo{}, false
	}
}

// assignment judges NAME=value, the value of an option that sets a variable
// of the command's environment.
func (a *auditor) assignment(w arg, text string, depth int) {
	w.text = text
	if k, v, ok := assignedWord(w); ok {
		a.envSet(k, v, depth)
	}
}

// subThen peels `tool <sub> [options] command…` for each listed
// subcommand, with options as optionsThen reads them; any other use of the
// tool is judged as a program.
func subThen(subs []string, withValue []string, envOpts ...string) peeler {
	s := set(subs...)
	values := set(append(withValue, envOpts...)...)
	env := set(envOpts...)
	return func(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
		args := c.args()
		if len(args) == 0 || !s[args[0].text] {
			return nil, a.program(c), true
		}
		return a.peelOptions(args[1:], values, env, c.depth, true), cmdInfo{}, false
	}
}

// thenWord peels `tool [options] WORD command…` (chroot NEWROOT,
// s6-setuidgid ACCOUNT, faketime TIMESTAMP): the word after the options is
// the tool's own.
func thenWord(withValue ...string) peeler {
	values := set(withValue...)
	return func(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
		next := skipFlags(c.args(), values)
		if len(next) > 0 {
			next = next[1:]
		}
		return next, cmdInfo{}, false
	}
}

// usesNetwork marks p's tool as one that uses the network (a proxy, a
// package fetch) and peels as p does.
func usesNetwork(p peeler) peeler {
	return func(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
		a.inferred.Network = true
		return p(a, c)
	}
}

// shellOption judges the script a wrapper hands to a shell with one of its
// options (script -c, flox activate -c, nix-shell --run): the script is
// inline shell, as with sh -c.
func (a *auditor) shellOption(c invocation, w arg) cmdInfo {
	ran := a.inlineShell(c.name, w, c.depth, true, c.env)
	return cmdInfo{name: c.name, runsArg: !w.lit, stdinScript: ran.stdinScript}
}

var watchValueFlags = set("-n", "--interval", "-q", "--equexit")

// peelWatch peels watch: with -x it runs its command, otherwise it hands
// the words, joined, to sh -c, which reads them as a command line.
func peelWatch(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	exec := false
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
		if t == "-x" || t == "--exec" || (t[1] != '-' && strings.ContainsRune(t[1:], 'x') && !watchValueFlags[t]) {
			exec = true
		}
		if watchValueFlags[t] {
			i++
		}
	}
	if i >= len(args) {
		return nil, cmdInfo{name: c.name}, true
	}
	if exec {
		return args[i:], cmdInfo{}, false
	}
	return nil, a.shellLine(args[i:], c.depth, false, false), true
}

var scriptValueFlags = set("-c", "--command", "-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B",
	"--log-io", "-T", "--log-timing", "-m", "--logging-format")

// peelScript judges `script -c command` (also -qc command, --command=…,
// before or after the file, as getopt permutes them): the command goes to
// the user's shell. Without -c script starts an interactive shell, which
// reads its commands from script's standard input.
func peelScript(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	operands := 0
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			operands += len(args) - i - 1
			break
		}
		if len(t) < 2 || t[0] != '-' {
			operands++
			continue
		}
		var flag, val string
		var joined bool
		if strings.HasPrefix(t, "--") {
			flag, val, joined = strings.Cut(t, "=")
		} else if flag, val, joined = shortCluster(t, scriptValueFlags); flag == "" {
			continue
		}
		if !scriptValueFlags[flag] {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			break
		}
		if flag == "-c" || flag == "--command" {
			return nil, a.shellOption(c, w), true
		}
	}
	// BSD's script takes a command after the file; util-linux's only the
	// file.
	return nil, cmdInfo{name: c.name, stdinScript: operands <= 1}, true
}

// peelFlock peels `flock [options] FILE command…` and judges `flock
// [options] FILE -c command`, which goes to sh -c.
func peelFlock(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	rest := skipGetopt(c.args(), set("-w", "--timeout", "-E", "--conflict-exit-code"))
	if len(rest) < 2 {
		return nil, cmdInfo{name: c.name}, true // flock FD: no command
	}
	if t := rest[1].text; t == "-c" || t == "--command" {
		if len(rest) < 3 {
			return nil, cmdInfo{name: c.name}, true
		}
		return nil, a.shellOption(c, rest[2]), true
	}
	return rest[1:], cmdInfo{}, false
}

// peelSg judges `sg GROUP [-c] command`: sg hands the command to sh -c.
func peelSg(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) > 0 && args[0].text == "-" {
		args = args[1:]
	}
	if len(args) < 2 {
		return nil, cmdInfo{name: c.name}, true
	}
	words := args[1:]
	if words[0].text == "-c" {
		words = words[1:]
	}
	return nil, a.shellLine(words, c.depth, false, false), true
}

// peelEnvchain peels `envchain NAMESPACE[,NAMESPACE…] command…`, which
// runs the command with variables from the keychain. An option first is
// one of its other modes (--set, --list, --unset …), which run nothing.
func peelEnvchain(_ *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) < 2 || strings.HasPrefix(args[0].text, "-") {
		return nil, cmdInfo{name: c.name}, true
	}
	return args[1:], cmdInfo{}, false
}

// peelGopass peels `gopass env [--keep-case] SECRET command…`, which runs
// the command with the secret's values in its environment; gopass's other
// subcommands run nothing.
func peelGopass(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := skipFlags(c.args(), nil)
	if len(args) == 0 || args[0].text != "env" {
		return nil, a.program(c), true
	}
	rest := skipFlags(args[1:], nil)
	if len(rest) < 2 {
		return nil, cmdInfo{name: c.name}, true
	}
	return rest[1:], cmdInfo{}, false
}

// peelCapsh peels capsh, whose options (all --name=value) act in order:
// `--` and `-+` run the shell (/bin/bash, or --shell's) with the words
// that follow, so `capsh -- -c 'script'` is `bash -c 'script'`; `==` and
// `=+` run capsh again with them. Without one of these capsh only prints
// or changes its own state.
func peelCapsh(_ *auditor, c invocation) ([]arg, cmdInfo, bool) {
	shell := "/bin/bash"
	args := c.args()
	for i, w := range args {
		switch {
		case strings.HasPrefix(w.text, "--shell="):
			shell = w.text[len("--shell="):]
		case w.text == "--" || w.text == "-+":
			return append([]arg{{text: shell, path: w.path, lit: w.lit}}, args[i+1:]...), cmdInfo{}, false
		case w.text == "==" || w.text == "=+":
			return append([]arg{{text: c.name, path: w.path, lit: true}}, args[i+1:]...), cmdInfo{}, false
		}
	}
	return nil, cmdInfo{name: c.name}, true
}

var runuserValueFlags = set("-u", "--user", "-g", "--group", "-G", "--supp-group", "-w",
	"--whitelist-environment", "-s", "--shell")

// peelRunuser judges runuser: with -c its script is judged as su's;
// `runuser -u USER [--] command…` runs the command.
func peelRunuser(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	for _, w := range c.args() {
		if w.text == "-c" || w.text == "--command" {
			return peelSu(a, c)
		}
	}
	return skipGetopt(c.args(), runuserValueFlags), cmdInfo{}, false
}

// peelNvm peels nvm's `exec [VERSION] command…` and `run [VERSION]
// args…` (run starts node with the args). A first word that names a Node
// version or alias is nvm's.
func peelNvm(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) == 0 || (args[0].text != "exec" && args[0].text != "run") {
		return nil, a.program(c), true
	}
	sub := args[0]
	rest := skipFlags(args[1:], nil)
	if len(rest) > 1 && nodeVersionWord(rest[0].text) {
		rest = rest[1:]
	}
	if sub.text == "exec" {
		return rest, cmdInfo{}, false
	}
	return append([]arg{{text: "node", path: sub.path, lit: true}}, rest...), cmdInfo{}, false
}

// nodeVersionWord reports whether t names a Node version for nvm: 20,
// v20.11.1, lts/*, lts/iron, node, iojs, stable, system.
func nodeVersionWord(t string) bool {
	switch t {
	case "node", "iojs", "stable", "unstable", "system", "default":
		return true
	}
	t = strings.TrimPrefix(t, "v")
	return strings.HasPrefix(t, "lts/") || (t != "" && '0' <= t[0] && t[0] <= '9')
}

// peelRustup peels `rustup run [--install] TOOLCHAIN command…`.
func peelRustup(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) == 0 || args[0].text != "run" {
		return nil, a.program(c), true
	}
	rest := skipFlags(args[1:], nil)
	if len(rest) > 0 {
		rest = rest[1:]
	}
	return rest, cmdInfo{}, false
}

// corepackManagers are the package managers corepack starts.
var corepackManagers = set("npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg")

// peelCorepack peels `corepack pnpm@8.15.0 …`: corepack fetches the
// package manager and runs it, judged as itself.
func peelCorepack(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) == 0 {
		return nil, cmdInfo{name: c.name}, true
	}
	name, _, _ := strings.Cut(args[0].text, "@")
	if !corepackManagers[name] {
		return nil, a.program(c), true
	}
	a.inferred.Network = true
	pm := args[0]
	pm.text = name
	return append([]arg{pm}, args[1:]...), cmdInfo{}, false
}

// peelFlox judges `flox activate`: `-c script` goes to a shell, `--
// command…` runs the command.
func peelFlox(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) == 0 || args[0].text != "activate" {
		return nil, a.program(c), true
	}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		t := rest[i].text
		switch {
		case t == "--":
			return rest[i+1:], cmdInfo{}, false
		case t == "-c" || t == "--command":
			if w, ok := optValue(rest, &i, "", false); ok {
				return nil, a.shellOption(c, w), true
			}
		case t == "-r" || t == "--remote":
			a.inferred.Network = true
			i++
		case t == "-d" || t == "--dir" || t == "-m" || t == "--mode":
			i++
		}
	}
	return nil, cmdInfo{name: c.name}, true
}

// devboxValues are the options of devbox run that take a value.
var devboxValues = set("-c", "--config", "--env-file", "--environment", "-e", "--env")

// peelDevbox judges `devbox [global] run [options] [--] COMMAND args…`:
// devbox hands the command to a shell that evaluates it, the command's
// word as written and each argument in double quotes (so `devbox run
// 'curl … | sh'` is a pipeline, and a $(…) in an argument still runs). A
// script of devbox.json by that name runs instead, and is not visible.
func peelDevbox(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	a.inferred.Network = true // it installs the environment's packages
	if len(args) > 0 && args[0].text == "global" {
		args = args[1:]
	}
	if len(args) == 0 || args[0].text != "run" {
		return nil, a.program(c), true
	}
	rest := a.peelOptions(args[1:], devboxValues, set("-e", "--env"), c.depth, true)
	if len(rest) == 0 {
		return nil, cmdInfo{name: c.name}, true
	}
	// In double quotes only $, `, \ and " are not themselves: without
	// them each argument is the word it was, and the command is judged
	// as those words.
	same := rest[0].lit && plainShellWord(rest[0].text)
	for _, w := range rest[1:] {
		same = same && w.lit && !strings.ContainsAny(w.text, "$`\\\"")
	}
	if same {
		return rest, cmdInfo{}, false
	}
	line := make([]arg, len(rest))
	line[0] = rest[0]
	for i, w := range rest[1:] {
		if !plainShellWord(w.text) {
			w.text = strconv.Quote(w.text)
		}
		line[i+1] = w
	}
	return nil, a.shellLine(line, c.depth, false, false), true
}

var kubectlExecValueFlags = set("-c", "--container", "-n", "--namespace", "-f", "--filename",
	"--context", "--cluster", "--user", "--kubeconfig", "-s", "--server", "--pod-running-timeout",
	"--token", "--as", "--as-group", "--request-timeout", "-l", "--selector", "--image", "--restart",
	"--overrides", "--port", "--labels", "--env", "--serviceaccount", "--profile", "--target", "--copy-to",
	"--set-image", "--custom", "--image-pull-policy")

// kubectl judges `kubectl exec … -- command…` (the command runs in a pod of
// the cluster, as docker exec's does in a container), `kubectl run NAME
// --image=IMAGE … [--] [command…]` (the image is pulled: it must be
// pinned; --privileged runs it with the node's devices and capabilities)
// and `kubectl debug` (its --image as run's, its command as exec's; a
// node as its target, or --profile=sysadmin, gives the pod the node).
// Any kubectl command talks to the cluster's API server.
func (a *auditor) kubectl(c invocation) cmdInfo {
	a.kubeConnection(c)
	args := skipFlags(c.args(), kubectlGlobalValues)
	a.inferred.Network = true
	if len(args) > 0 && (args[0].text == "apply" || args[0].text == "create" || args[0].text == "replace") {
		a.kubectlApply(args[0].text, args[1:])
		return cmdInfo{name: c.name}
	}
	if len(args) > 0 && args[0].text == "krew" {
		a.krew(args[1:])
	}
	if len(args) == 0 || (args[0].text != "exec" && args[0].text != "run" && args[0].text != "debug") {
		info := cmdInfo{name: c.name}
		a.remoteCopies(c)                              // kubectl cp
		a.credentialFlow(c, sideJudges[c.name], &info) // kubectl config view --raw
		return info
	}
	sub := args[0].text
	rest := args[1:]
	var cmd, positional []arg
	for i := 0; i < len(rest); i++ {
		t := rest[i].text
		if t == "--" {
			cmd = rest[i+1:]
			break
		}
		if len(t) < 2 || t[0] != '-' {
			positional = append(positional, rest[i])
			continue
		}
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case flag == "--privileged" && sub == "run" && switchOn(val, joined):
			a.add(CodeContainerHostAccess, rest[i].path, "runs a privileged pod (kubectl run --privileged), which controls the node it runs on")
		case flag == "--overrides" && sub == "run":
			if w, ok := optValue(rest, &i, val, joined); ok {
				a.podSpec(w, "kubectl run --overrides", c.depth)
			}
			continue
		case flag == "--profile" && sub == "debug":
			profile := val
			if !joined && i+1 < len(rest) {
				profile = rest[i+1].text
			}
			if lower(profile) == "sysadmin" {
				a.add(CodeContainerHostAccess, rest[i].path, "starts a privileged debugging container (kubectl debug --profile=sysadmin), which controls the node it runs on")
			}
		}
		if flag == "--image" && sub != "exec" {
			img, ok := arg{}, false
			if joined {
				img, ok = rest[i], true
				img.text = val
			} else if i+1 < len(rest) {
				img, ok = rest[i+1], true
			}
			if ok && img.lit {
				if pinned, why := imagePinned(img.text); !pinned {
					a.add(CodeUnpinned, img.path, "the container image "+quoted(img.text)+" "+why+"; pin a digest or a version tag")
				}
				a.minerImage(img)
			}
		}
		if !joined && kubectlExecValueFlags[t] {
			i++
		}
	}
	if sub == "debug" && len(positional) > 0 {
		if target := lower(positional[0].text); strings.HasPrefix(target, "node/") || strings.HasPrefix(target, "nodes/") {
			a.add(CodeContainerHostAccess, positional[0].path, "starts a pod in a node's namespaces with the node's root file system mounted (kubectl debug node/…), which controls the node")
		}
	}
	if cmd == nil && sub == "exec" && len(positional) > 1 {
		// The older form without "--": the pod, then the command's words
		// (kubectl takes any option among them as its own).
		cmd = positional[1:]
	}
	if len(cmd) > 0 {
		inner := a.command(cmd, c.depth+1, ctxNested)
		return cmdInfo{name: c.name, stdinScript: inner.stdinScript}
	}
	return cmdInfo{name: c.name}
}

// bwrapArity is how many words bubblewrap's options with values take.
var bwrapArity = map[string]int{
	"--args": 1, "--argv0": 1, "--userns": 1, "--userns2": 1, "--pidns": 1, "--uid": 1, "--gid": 1,
	"--hostname": 1, "--chdir": 1, "--unsetenv": 1, "--lock-file": 1, "--sync-fd": 1, "--remount-ro": 1,
	"--exec-label": 1, "--file-label": 1, "--proc": 1, "--dev": 1, "--tmpfs": 1, "--mqueue": 1, "--dir": 1,
	"--seccomp": 1, "--add-seccomp-fd": 1, "--info-fd": 1, "--json-status-fd": 1, "--block-fd": 1,
	"--userns-block-fd": 1, "--cap-add": 1, "--cap-drop": 1, "--perms": 1, "--size": 1, "--overlay-src": 1,
	"--tmp-overlay": 1, "--ro-overlay": 1,
	"--setenv": 2, "--bind": 2, "--bind-try": 2, "--dev-bind": 2, "--dev-bind-try": 2, "--ro-bind": 2,
	"--ro-bind-try": 2, "--bind-fd": 2, "--ro-bind-fd": 2, "--file": 2, "--bind-data": 2, "--ro-bind-data": 2,
	"--symlink": 2, "--chmod": 2,
	"--overlay": 3,
}

// peelBwrap peels bubblewrap: its options take up to three words each, and
// --setenv VAR VALUE is judged as an assignment.
func peelBwrap(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			return args[i+1:], cmdInfo{}, false
		}
		if len(t) < 2 || t[0] != '-' {
			return args[i:], cmdInfo{}, false
		}
		if t == "--setenv" && i+2 < len(args) && args[i+1].lit {
			a.envSet(args[i+1].text, args[i+2], c.depth)
		}
		i += bwrapArity[t]
	}
	return []arg{}, cmdInfo{}, false
}

// archOptions peels macOS's arch, whose options are words of one dash that
// are not clusters (-x86_64, -arm64e, -arch NAME); -e NAME=value sets a
// variable.
func archOptions(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	return a.peelOptions(c.args(), set("-arch", "-d", "-e"), set("-e"), c.depth, false), cmdInfo{}, false
}

// tmuxValueFlags are the options of tmux's commands that start a program
// that take a value, tmuxRunners those commands.
var (
	tmuxValueFlags = set("-s", "-n", "-c", "-t", "-x", "-y", "-e", "-F", "-l", "-p", "-L", "-S", "-f", "-T", "-d")
	tmuxRunners    = set("new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane",
		"respawnp", "respawn-window", "respawnw", "run-shell", "run", "display-popup", "popup")
)

// tmux judges the program a tmux command starts: one word goes to the
// shell (sh -c), several are run as they are; `tmux -c command` hands its
// command to the shell.
func (a *auditor) tmux(c invocation) cmdInfo {
	args := c.args()
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if t == "-c" && i+1 < len(args) {
			return a.shellOption(c, args[i+1])
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
		if t == "-L" || t == "-S" || t == "-f" || t == "-T" {
			i++
		}
	}
	if i >= len(args) || !tmuxRunners[args[i].text] {
		return cmdInfo{name: c.name}
	}
	sub := args[i].text
	words := args[i+1:]
	j := 0
	for ; j < len(words); j++ {
		t := words[j].text
		if t == "--" {
			j++
			break
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
		// run-shell -d takes a delay; new-session -d only detaches.
		if f := t[len(t)-1:]; tmuxValueFlags["-"+f] && !(f == "d" && sub != "run-shell" && sub != "run") {
			j++
		}
	}
	if j >= len(words) {
		return cmdInfo{name: c.name}
	}
	a.inferred.Exec = true
	if cmd := words[j:]; len(cmd) > 1 {
		return a.command(cmd, c.depth+1, ctxNested)
	}
	return a.shellLine(words[j:], c.depth, false, false)
}

// peelChrt peels `chrt [options] [PRIORITY] command…`: the priority is a
// number before the command.
func peelChrt(_ *auditor, c invocation) ([]arg, cmdInfo, bool) {
	rest := skipGetopt(c.args(), set("-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"))
	if len(rest) > 0 && isDigits(rest[0].text) {
		rest = rest[1:]
	}
	return rest, cmdInfo{}, false
}

// peelRunas judges `runas /user:NAME [/options] "program args"`: the
// program is the first word that is not an option, a command line Windows
// starts as it is.
func peelRunas(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	for _, w := range c.args() {
		if !strings.HasPrefix(w.text, "/") {
			a.windowsCommand(c, w)
			break
		}
	}
	return nil, cmdInfo{name: c.name}, true
}

// psexecValues are PsExec's options that take a value.
var psexecValues = set("-u", "-p", "-n", "-r", "-w", "-a", "-c", "-f", "-v")

// peelPsexec peels Sysinternals PsExec (and PAExec): `psexec [\\host…]
// [-u user] [-s|-h] [-i [session]] … command args`. -s runs the command as
// SYSTEM and -h with the account's elevated token: privilege escalation.
// A \\host (or @file of hosts) runs it on other machines: a remote
// endpoint, whose command is judged all the same.
func peelPsexec(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		switch {
		case strings.HasPrefix(t, `\\`) || strings.HasPrefix(t, "@"):
			a.add(CodeRemoteEndpoint, args[i].path, "runs the server on another host through "+quoted(c.name)+": your context leaves this machine")
			a.inferred.Network = true
		case lower(t) == "-s" || lower(t) == "-h":
			a.add(CodePrivilegeEscalation, c.argv[0].path, "runs its command with elevated privileges through "+quoted(c.name))
		case lower(t) == "-i":
			if i+1 < len(args) && isDigits(args[i+1].text) {
				i++ // the session
			}
		case lower(t) == "-c" || lower(t) == "-f" || lower(t) == "-v":
			// -c copies the program to the remote host: no value.
		case psexecValues[lower(t)]:
			i++
		case len(t) > 1 && t[0] == '-':
		default:
			return args[i:], cmdInfo{}, false
		}
	}
	return nil, cmdInfo{name: c.name}, true
}

// peelPcalua peels the Program Compatibility Assistant's `pcalua -a
// PROGRAM [-c ARGUMENTS] [-d DIR]`: it starts PROGRAM with the arguments
// of -c (one string, split at blanks here).
func peelPcalua(_ *auditor, c invocation) ([]arg, cmdInfo, bool) {
	var prog *arg
	var rest []arg
	args := c.args()
	for i := 0; i+1 < len(args); i++ {
		switch lower(args[i].text) {
		case "-a":
			i++
			prog = &args[i]
		case "-c":
			for i++; i < len(args) && lower(args[i].text) != "-a" && lower(args[i].text) != "-d"; i++ {
				for _, f := range strings.Fields(args[i].text) {
					rest = append(rest, arg{text: f, path: args[i].path, lit: args[i].lit})
				}
			}
			i--
		case "-d":
			i++
		}
	}
	if prog == nil {
		return []arg{}, cmdInfo{}, false
	}
	return append([]arg{*prog}, rest...), cmdInfo{}, false
}

// peelScriptRunner peels `scriptrunner -appvscript PROGRAM [args…]` (also
// -appvscriptrunnerparameters): it starts PROGRAM.
func peelScriptRunner(_ *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	for i, w := range args {
		if t := lower(w.text); t == "-appvscript" || t == "/appvscript" {
			return args[i+1:], cmdInfo{}, false
		}
	}
	return []arg{}, cmdInfo{}, false
}

// peelPnpm peels `pnpm exec [options] command…`, which runs a command of
// the project's packages; with -c (--shell-mode) the words go to a shell
// as one command line. pnpm's other uses are judged as a program.
func peelPnpm(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := managerSub(c.name, c.args())
	if len(args) == 0 || args[0].text != "exec" {
		return nil, a.program(c), true
	}
	a.packageSources(c)
	shellMode := false
	rest := optionWords(args[1:], set("--resume-from", "--filter", "-F"), false, nil)
	for _, w := range args[1 : len(args)-len(rest)] {
		shellMode = shellMode || w.text == "-c" || w.text == "--shell-mode"
	}
	if shellMode {
		if len(rest) > 0 {
			a.inlineShell("pnpm exec -c", joinArgs(rest), c.depth, true, c.env)
		}
		return nil, cmdInfo{name: "sh"}, true
	}
	return rest, cmdInfo{}, false
}

// peelYarn peels `yarn exec command…` and `yarn node args…` (node with the
// project's setup); yarn's other uses are judged as a program.
func peelYarn(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := managerSub(c.name, c.args())
	if len(args) > 0 && args[0].text == "exec" {
		a.packageSources(c)
		return skipFlags(args[1:], nil), cmdInfo{}, false
	}
	if len(args) > 0 && args[0].text == "node" {
		node := args[0]
		return append([]arg{node}, args[1:]...), cmdInfo{}, false
	}
	return nil, a.program(c), true
}

// kubectlGlobalValues are kubectl's options that take a value and may come
// before its subcommand.
// kubeConnection judges how kubectl reaches the cluster: with its
// certificate checks turned off (--insecure-skip-tls-verify, also written
// into a kubeconfig by config set-cluster) or to an API server over plain
// http (-s, --server), anyone on the way can read the credentials it sends
// and answer in the cluster's name: insecure_url. Its options may stand
// anywhere before "--", after which the words are a command's.
func (a *auditor) kubeConnection(c invocation) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			return
		}
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case flag == "--insecure-skip-tls-verify" && (!joined || boolTrue(val)):
			a.add(CodeInsecureURL, args[i].path, quoted(c.name)+" turns certificate checks off (--insecure-skip-tls-verify), "+
				"so anyone on the way can read the credentials it sends and answer in the cluster's name")
		case flag == "-s" || flag == "--server":
			w, ok := optValue(args, &i, val, joined)
			if !ok || !w.lit {
				continue
			}
			if u, ok := parseAnyURL(strings.TrimSpace(w.text)); ok && strings.EqualFold(u.Scheme, "http") && !loopbackHost(u.Hostname()) {
				a.add(CodeInsecureURL, w.path, quoted(c.name)+" talks to the cluster's API server on "+safeText(u.Host, 80)+
					" over plain http, so anyone on the way can read the credentials it sends and answer in the cluster's name")
			}
		}
	}
}

// boolTrue reports whether an option's boolean value is true as Go's
// flag packages read it; a value they refuse is an error, and nothing
// runs.
func boolTrue(v string) bool {
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

var kubectlGlobalValues = set("--context", "--cluster", "--user", "-n", "--namespace", "--kubeconfig", "-s",
	"--server", "--token", "--as", "--as-group", "--as-uid", "--certificate-authority", "--client-certificate",
	"--client-key", "--cache-dir", "--request-timeout", "--tls-server-name", "-v", "--v", "--log-file",
	"--profile", "--profile-output", "--username", "--password", "--vmodule", "--log-dir")

// peelStartStopDaemon peels `start-stop-daemon --start … --exec PATH [--
// args…]`: it runs the program of --startas (-a), or else of --exec (-x),
// with the words after -- as its arguments.
func peelStartStopDaemon(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	var startas, exec *arg
	var rest []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			rest = args[i+1:]
			break
		}
		flag, val, joined := strings.Cut(t, "=")
		switch flag {
		case "-a", "--startas":
			if w, ok := optValue(args, &i, val, joined); ok {
				startas = &w
			}
		case "-x", "--exec":
			if w, ok := optValue(args, &i, val, joined); ok {
				exec = &w
			}
		}
	}
	prog := cmp.Or(startas, exec)
	if prog == nil {
		return nil, cmdInfo{name: c.name}, true
	}
	return append([]arg{*prog}, rest...), cmdInfo{}, false
}

// ipValues are ip's options before its object that take a value.
var ipValues = set("-n", "-netns", "-b", "-batch", "-rc", "-rcvbuf", "-l", "-loops", "-f", "-family")

// peelIPExec peels iproute2's `ip [options] netns exec NAME command…` and
// `ip vrf exec NAME command…`; ip's other commands are judged as a
// program.
func peelIPExec(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := skipFlags(c.args(), ipValues)
	if len(args) >= 3 && (args[0].text == "netns" || args[0].text == "vrf") && args[1].text == "exec" {
		return args[3:], cmdInfo{}, false
	}
	return nil, a.program(c), true
}

// setarchAliases are the names setarch is also installed under, each one
// architecture (linux32 is setarch i386 …): they take no architecture
// word.
var setarchAliases = set("linux32", "linux64", "i386", "i686", "x86_64", "uname26")

// peelSetarch peels `setarch ARCH [options] [command…]` and its aliases
// (linux32 [options] [command…]): the command runs with another
// personality; without one, setarch starts /bin/sh, which reads its
// commands from setarch's standard input. Its options take no value.
func peelSetarch(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if !setarchAliases[c.name] {
		if i := slices.IndexFunc(args, func(w arg) bool { return !strings.HasPrefix(w.text, "-") }); i >= 0 {
			args = append(slices.Clone(args[:i]), args[i+1:]...) // the architecture
		} else {
			return nil, cmdInfo{name: c.name}, true // --list, --help: no command
		}
	}
	rest := skipGetopt(args, nil)
	if len(rest) == 0 {
		if slices.ContainsFunc(args, func(w arg) bool { return w.text == "--list" || strings.HasPrefix(w.text, "--show") }) {
			return nil, cmdInfo{name: c.name}, true
		}
		return nil, cmdInfo{name: "sh", stdinScript: true}, true
	}
	return rest, cmdInfo{}, false
}

// perfValues are the options of perf record, stat, trace and ftrace that
// take a value.
var perfValues = set("-e", "--event", "-o", "--output", "-p", "--pid", "-t", "--tid", "-C", "--cpu", "-c", "--count",
	"-F", "--freq", "-m", "--mmap-pages", "-G", "--cgroup", "-u", "--uid", "-r", "--repeat", "-x", "--field-separator",
	"-I", "--interval-print", "-D", "--delay", "-j", "--branch-filter", "--filter", "--switch-output", "-T",
	"--tracer", "-N", "--notrace-funcs", "--graph-funcs", "--nograph-funcs", "--duration", "--call-graph")

// perfRuns are perf's subcommands that run the command after their
// options (perf record CMD, perf sched record CMD …).
var perfRuns = set("record", "stat", "trace", "ftrace")

// peelPerf peels `perf record|stat|trace|ftrace [options] command…`, also
// after sched, mem, lock, kmem, c2c or kwork; perf's other subcommands are
// judged as a program.
func peelPerf(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) > 1 && !perfRuns[args[0].text] && perfRuns[args[1].text] {
		args = args[1:] // perf sched record …
	}
	if len(args) == 0 || !perfRuns[args[0].text] {
		return nil, a.program(c), true
	}
	rest := skipGetopt(args[1:], perfValues)
	if len(rest) == 0 {
		return nil, cmdInfo{name: c.name}, true // perf stat -a: the whole system
	}
	return rest, cmdInfo{}, false
}

// hatchGlobals are hatch's options before its subcommand that take a
// value.
var hatchGlobals = set("-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config")

// peelHatch peels `hatch [options] run command…`: the command runs in the
// project's environment; hatch's other subcommands are judged as a program.
func peelHatch(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := skipFlags(c.args(), hatchGlobals)
	if len(args) == 0 || args[0].text != "run" {
		return nil, a.program(c), true
	}
	return skipGetopt(args[1:], nil), cmdInfo{}, false
}

// hyperfineValues are hyperfine's options that take a value; hyperfineShell
// those whose value is a command line it runs through its shell besides
// the commands it times, and hyperfineMulti those that take two or three.
var (
	hyperfineValues = set("-w", "--warmup", "-m", "--min-runs", "-M", "--max-runs", "-r", "--runs", "-S", "--shell",
		"--style", "--sort", "-u", "--time-unit", "--export-asciidoc", "--export-csv", "--export-json",
		"--export-markdown", "--export-orgmode", "--output", "--input", "-n", "--command-name", "-D",
		"--parameter-step-size", "--min-benchmarking-time", "--reference")
	hyperfineShell = set("-s", "--setup", "-p", "--prepare", "-c", "--cleanup", "--conclude")
	hyperfineMulti = map[string]int{"-P": 3, "--parameter-scan": 3, "-L": 2, "--parameter-list": 2}
)

// hyperfine judges hyperfine: each command it times, and those of
// --setup, --prepare, --cleanup and --conclude, is a command line its
// shell runs (sh -c), or, with -N or --shell=none, split into words and
// run directly.
func (a *auditor) hyperfine(c invocation) cmdInfo {
	args := c.args()
	noShell := slices.ContainsFunc(args, func(w arg) bool { return w.text == "-N" || w.text == "--shell=none" })
	run := func(w arg) {
		a.inferred.Exec = true
		if noShell {
			a.shellLine([]arg{w}, c.depth, false, false)
			return
		}
		a.inlineShell(c.name, w, c.depth, true, c.env)
	}
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			for _, w := range args[i+1:] {
				run(w)
			}
			break
		}
		if len(t) < 2 || t[0] != '-' {
			run(args[i])
			continue
		}
		name, val, joined := strings.Cut(t, "=")
		switch {
		case hyperfineShell[name]:
			if w, ok := optValue(args, &i, val, joined); ok {
				run(w)
			}
		case hyperfineMulti[name] > 0:
			i += hyperfineMulti[name]
		case hyperfineValues[name] && !joined:
			i++
		}
	}
	return cmdInfo{name: c.name}
}

// wtGlobals are Windows Terminal's options before its subcommand that take
// a value; wtValues those of new-tab and split-pane; wtSubs its
// subcommands that open a pane running a command line.
var (
	wtGlobals = set("-w", "--window", "--pos", "--size")
	wtValues  = set("-p", "--profile", "-d", "--startingDirectory", "--title", "--tabColor", "--colorScheme", "-s",
		"--size")
	wtSubs = set("new-tab", "nt", "split-pane", "sp")
)

// peelWt peels Windows Terminal: `wt [options] [new-tab|split-pane
// [options]] command line` runs the command line in a new tab or pane
// (new-tab when no subcommand is named). A `;` word starts another
// subcommand: only the first command line is judged.
func peelWt(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := skipFlags(c.args(), wtGlobals)
	if len(args) > 0 && wtSubs[args[0].text] {
		args = skipFlags(args[1:], wtValues)
	} else if len(args) > 0 && strings.HasPrefix(args[0].text, "-") {
		return nil, cmdInfo{name: c.name}, true
	}
	if i := slices.IndexFunc(args, func(w arg) bool { return w.text == ";" }); i >= 0 {
		args = args[:i]
	}
	if len(args) == 0 {
		return nil, cmdInfo{name: c.name}, true // the default profile's shell
	}
	return args, cmdInfo{}, false
}

// limactlValues are the options of limactl shell that take a value.
var limactlValues = set("--workdir", "--shell", "--preserve-env", "--log-level")

// peelLimactl peels `limactl shell [options] INSTANCE [command…]`, which
// runs the command in the Lima virtual machine INSTANCE (its login shell
// without one); limactl's other subcommands run nothing of the wiring's.
// lima, its shorthand, runs its words in the default instance.
func peelLimactl(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := skipFlags(c.args(), nil)
	if len(args) == 0 || args[0].text != "shell" {
		return nil, a.program(c), true
	}
	rest := skipFlags(args[1:], limactlValues)
	if len(rest) < 2 {
		return nil, cmdInfo{name: c.name}, true
	}
	return rest[1:], cmdInfo{}, false
}

// syncAppvScript judges SyncAppvPublishingServer.exe (and its .vbs), which
// pastes its argument into a PowerShell command line: after the first
// `;` the argument is PowerShell of the wiring's own (n; IEX …).
func (a *auditor) syncAppvScript(c invocation) cmdInfo {
	line := joinArgs(c.args())
	if !line.lit {
		return cmdInfo{name: c.name}
	}
	_, script, ok := strings.Cut(line.text, ";")
	if !ok || strings.TrimSpace(script) == "" {
		return cmdInfo{name: c.name}
	}
	line.text = script
	return a.psScript(c.name, line, line.path, c.depth, c.env)
}
