package assess

import "strings"

// Configuration management tools run commands they are given on the
// hosts they manage, this machine among them: ansible's ad-hoc modules
// (-m shell -a 'CMD'; command, the default, splits CMD into words), salt's
// execution functions (cmd.run 'CMD' …), pyinfra's exec and server.shell,
// Puppet and Chef code written inline (puppet apply -e, chef-apply -e),
// and the playbooks ansible-pull fetches from a repository, and the hooks
// pre-commit try-repo fetches, at whatever commit it holds when the server
// starts. What they run is judged like the wiring's own command.

// ansibleValues are ansible's options that take a value.
var ansibleValues = set("-m", "--module-name", "-a", "--args", "-i", "--inventory", "--inventory-file", "-c",
	"--connection", "-u", "--user", "-e", "--extra-vars", "-f", "--forks", "-l", "--limit", "-M", "--module-path",
	"-T", "--timeout", "-t", "--tree", "-P", "--poll", "-B", "--background", "--private-key", "--key-file",
	"--vault-password-file", "--vault-id", "--become-user", "--become-method", "--become-password-file",
	"--connection-password-file", "--ssh-common-args", "--sftp-extra-args", "--scp-extra-args", "--ssh-extra-args",
	"--playbook-dir", "-R", "--su-user", "-U", "--sudo-user")

// ansible judges an ansible ad-hoc command: the module's arguments are the
// command it runs (shell and raw through a shell, command and the default
// split into words, script a file of this machine it copies and runs).
func (a *auditor) ansible(c invocation) cmdInfo {
	module, cmdArgs := "command", arg{}
	operands(c.args(), ansibleValues, true, func(flag string, w arg, val string) {
		switch flag {
		case "-m", "--module-name":
			module = strings.TrimPrefix(strings.TrimPrefix(lower(val), "ansible.builtin."), "ansible.legacy.")
		case "-a", "--args":
			cmdArgs = w
			cmdArgs.text = val
		}
	})
	if cmdArgs.path == "" || !cmdArgs.lit {
		return cmdInfo{name: c.name}
	}
	a.inferred.Exec = true
	switch module {
	case "shell", "raw":
		a.inlineShell("ansible -m "+module, cmdArgs, c.depth, true, c.env)
	case "command", "script":
		// The words, split as a shell splits them (ansible's own
		// key=value arguments such as chdir= stay words of the command).
		words, ok := shellPlainWords(cmdArgs.text)
		if !ok || len(words) == 0 {
			return cmdInfo{name: c.name}
		}
		argv := make([]arg, len(words))
		for i, w := range words {
			argv[i] = arg{text: w, path: cmdArgs.path, lit: true}
		}
		a.command(argv, c.depth+1, ctxNested)
	}
	return cmdInfo{name: c.name}
}

// ansiblePullValues are ansible-pull's options that take a value.
var ansiblePullValues = set("-U", "--url", "-C", "--checkout", "-d", "--directory", "-i", "--inventory", "-e",
	"--extra-vars", "-m", "--module-name", "-s", "--sleep", "--vault-password-file", "--vault-id", "-t", "--tags",
	"--skip-tags", "--private-key", "--key-file", "-u", "--user", "-c", "--connection", "-T", "--timeout",
	"--accept-host-key", "--purge", "-o", "--only-if-changed", "--full", "--track-subs", "--clean")

// ansiblePull judges ansible-pull: it clones the repository of -U and runs
// its playbook on this machine, so the code it runs is the repository's at
// the branch -C names (its default branch without) unless -C is a full
// commit.
func (a *auditor) ansiblePull(c invocation) cmdInfo {
	var url arg
	pinned := false
	operands(c.args(), ansiblePullValues, true, func(flag string, w arg, val string) {
		switch flag {
		case "-U", "--url":
			url = w
			url.text = val
		case "-C", "--checkout":
			pinned = commitSHA.MatchString(val)
		}
	})
	a.inferred.Exec = true
	if url.path == "" || !url.lit {
		return cmdInfo{name: c.name}
	}
	a.inferred.Network = true
	a.plainFetch(url, c.name, "fetches code")
	if !pinned {
		a.add(CodeUnpinned, url.path, "`ansible-pull` runs the playbooks of a repository's latest commit on a branch, not a fixed one, so what runs can change without notice; name a full commit with -C")
	}
	return cmdInfo{name: c.name}
}

// saltShell are the salt execution functions whose first argument is a
// command line they run through a shell.
var saltShell = set("cmd.run", "cmd.run_all", "cmd.run_stdout", "cmd.run_stderr", "cmd.shell", "cmd.retcode",
	"cmd.run_bg", "cmd.powershell")

// saltValues are the options of salt and salt-call that take a value.
var saltValues = set("-c", "--config-dir", "-t", "--timeout", "-l", "--log-level", "--log-file", "--out", "--output",
	"--out-file", "--return", "--id", "--master", "-s", "--static", "--file-root", "--pillar-root", "--retcode-passthrough",
	"-G", "--grain", "-E", "--pcre", "-L", "--list", "-N", "--nodegroup", "-C", "--compound", "-b", "--batch-size",
	"-a", "--auth", "--saltenv", "--pillarenv")

// salt judges salt-call (and salt, after its target): cmd.run and its kin
// run their first argument through a shell, cmd.script runs a script it
// fetches from its source (an http(s) URL at start).
func (a *auditor) salt(c invocation) cmdInfo {
	ops := operands(c.args(), saltValues, true, nil)
	if c.name == "salt" && len(ops) > 0 {
		ops = ops[1:] // the target
	}
	if len(ops) < 2 {
		return cmdInfo{name: c.name}
	}
	fn := lower(ops[0].text)
	switch {
	case saltShell[fn]:
		a.inlineShell(c.name+" "+fn, ops[1], c.depth, fn != "cmd.powershell", c.env)
	case fn == "cmd.script":
		a.inferred.Exec = true
		if l := lower(ops[1].text); ops[1].lit && (strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")) {
			a.codeURL(ops[1], c.name+" cmd.script", "runs", "script")
		}
	case fn == "cmd.exec_code" && len(ops) > 2:
		a.add(CodeInlineCode, ops[2].path, "runs a "+quoted(ops[1].text)+" program written inline in the wiring (salt cmd.exec_code)")
		a.inferred.Exec = true
	}
	return cmdInfo{name: c.name}
}

// pyinfra judges `pyinfra INVENTORY exec -- COMMAND…` (a command line
// pyinfra runs through the host's shell) and `pyinfra INVENTORY
// server.shell 'CMD'…`.
func (a *auditor) pyinfra(c invocation) cmdInfo {
	args := c.args()
	ops := operands(args, set("--user", "--port", "--key", "--key-password", "--password", "--sudo-user", "--su-user",
		"--parallel", "--data", "--group-data", "--config", "--chdir", "--limit", "--shell-executable", "--retry",
		"--retry-delay"), false, nil)
	if len(ops) < 2 {
		return cmdInfo{name: c.name}
	}
	switch ops[1].text {
	case "exec":
		for i, w := range args {
			if w.text == "--" && i+1 < len(args) {
				a.inlineShell("pyinfra exec", joinArgs(args[i+1:]), c.depth, true, c.env)
				break
			}
		}
	case "server.shell":
		for _, w := range ops[2:] {
			if !strings.Contains(w.text, "=") || strings.ContainsAny(w.text, " ;|&") {
				a.inlineShell("pyinfra server.shell", w, c.depth, true, c.env)
			}
		}
	}
	return cmdInfo{name: c.name}
}

// inlineDSL judges puppet apply -e and chef-apply -e: Puppet's or Chef's
// (Ruby) code written inline, whose exec and execute resources run
// command lines.
func (a *auditor) inlineDSL(c invocation) cmdInfo {
	args := c.args()
	if c.name == "puppet" {
		if len(args) == 0 || args[0].text != "apply" {
			return cmdInfo{name: c.name}
		}
		args = args[1:]
	}
	for i := 0; i < len(args); i++ {
		name, val, joined := strings.Cut(args[i].text, "=")
		if name != "-e" && name != "--execute" {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			break
		}
		a.add(CodeInlineCode, w.path, "runs a "+quoted(c.name)+" program written inline in the wiring")
		a.inferred.Exec = true
		if w.lit {
			a.inlineCode(w.text, w.path)
			a.inlineCommands(c.name, w.text, w.path, c.depth) // inlinecalls.go
		}
		break
	}
	return cmdInfo{name: c.name}
}

// preCommit judges pre-commit try-repo REPO: it clones the repository at
// its newest commit (or --ref) and runs its hooks here.
func (a *auditor) preCommit(c invocation) cmdInfo {
	args := c.args()
	if len(args) == 0 {
		return cmdInfo{name: c.name}
	}
	a.inferred.Exec = true // the hooks of its configuration run
	if args[0].text != "try-repo" {
		return cmdInfo{name: c.name}
	}
	pinned := false
	ops := operands(args[1:], set("--ref", "--rev", "--hook-stage", "--from-ref", "--to-ref", "--files", "-c", "--config",
		"--color"), false, func(flag string, _ arg, val string) {
		if flag == "--ref" || flag == "--rev" {
			pinned = commitSHA.MatchString(val)
		}
	})
	if len(ops) == 0 || !ops[0].lit || !remoteRepository(ops[0].text) {
		return cmdInfo{name: c.name}
	}
	a.inferred.Network = true
	a.plainFetch(ops[0], c.name, "fetches code")
	if !pinned {
		a.add(CodeUnpinned, ops[0].path, "`pre-commit try-repo` runs the hooks of a repository's latest commit, not a fixed one, so what runs can change without notice; name a full commit with --ref")
	}
	return cmdInfo{name: c.name}
}
