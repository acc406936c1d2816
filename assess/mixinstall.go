package assess

import "strings"

// Installs of code that runs later through the tool that installed it:
// Mix archives and escripts (mix archive.install, mix escript.install),
// whose tasks and programs run on every later use, and kubectl plugins
// from krew's index (kubectl krew install), which kubectl runs as its own
// subcommands. Each fetches code at start; without an exact version what
// runs can change without notice.

// mixInstallValues are the options of mix archive.install and
// escript.install that take a value.
var mixInstallValues = set("--sha512", "--app", "--organization", "--repo", "--sparse")

// mixInstall judges `mix archive.install|escript.install [SOURCE]`:
// `hex PKG [VERSION]` is pinned by an exact version, `git URL` and
// `github user/project` by `ref` and a full commit (a branch or a tag
// moves), and an archive's URL (older Mix) by --sha512. A local path, or
// no argument (the project's own build), fetches nothing.
func (a *auditor) mixInstall(task arg, args []arg) {
	sha := false
	ops := operands(args, mixInstallValues, false, func(flag string, _ arg, val string) {
		sha = sha || flag == "--sha512" && val != ""
	})
	if len(ops) == 0 || !ops[0].lit {
		return
	}
	runner := "mix " + task.text
	switch kind := ops[0].text; {
	case kind == "hex":
		a.inferred.Network = true
		if len(ops) < 2 || !ops[1].lit {
			return
		}
		if len(ops) < 3 || !semverExact.MatchString(strings.TrimPrefix(ops[2].text, "== ")) {
			a.add(CodeUnpinned, ops[1].path, unpinnedMessage(runner, "installs", ops[1].text))
		}
	case kind == "git" || kind == "github":
		a.inferred.Network = true
		if len(ops) < 2 {
			return
		}
		pinned := len(ops) >= 4 && ops[2].text == "ref" && commitSHA.MatchString(ops[3].text)
		if !pinned {
			a.add(CodeUnpinned, ops[1].path, "`"+runner+"` builds and installs "+kind+" source "+quoted(safeText(ops[1].text, 80))+
				" at a branch, a tag or its newest commit, so what runs can change without notice; name a full commit with `ref`")
		}
	case strings.Contains(kind, "://"):
		a.inferred.Network = true
		if !sha {
			a.add(CodeUnpinned, ops[0].path, unpinnedMessage(runner, "installs", ops[0].text)+" (no --sha512)")
		}
	}
}

// krewValues are the options of kubectl krew install that take a value.
var krewValues = set("--manifest", "--manifest-url", "--archive")

// krew judges `kubectl krew install|upgrade …` (also kubectl-krew): a
// plugin from krew's index, or a manifest read from a URL, is installed
// at whatever version the index or the URL lists when the server starts,
// and kubectl runs it as its own subcommand. A local --manifest names the
// archive and its sha256, so it is pinned. Every subcommand but a local
// one talks to the index.
func (a *auditor) krew(args []arg) {
	local := false
	manifestURL := arg{}
	ops := operands(args, krewValues, false, func(flag string, w arg, val string) {
		switch flag {
		case "--manifest":
			local = true
		case "--manifest-url":
			manifestURL = w
			manifestURL.text = val
		}
	})
	if len(ops) == 0 {
		return
	}
	sub := ops[0].text
	if sub != "install" && sub != "upgrade" && sub != "update" && sub != "search" && sub != "info" && sub != "index" {
		return
	}
	if local && manifestURL.text == "" {
		return
	}
	a.inferred.Network = true
	if sub != "install" && sub != "upgrade" {
		return
	}
	runner := "kubectl krew " + sub
	if manifestURL.text != "" {
		a.add(CodeUnpinned, manifestURL.path, "`"+runner+"` installs a plugin from the manifest at a URL, which whoever serves it can change; download the manifest and name it with --manifest")
		return
	}
	plugins := ops[1:]
	if sub == "upgrade" && len(plugins) == 0 {
		a.add(CodeUnpinned, ops[0].path, "`"+runner+"` upgrades every installed kubectl plugin to the newest version krew's index lists, so what runs can change without notice")
		return
	}
	for _, p := range plugins {
		if !p.lit {
			continue
		}
		a.add(CodeUnpinned, p.path, "`"+runner+"` installs the kubectl plugin "+quoted(safeText(p.text, 60))+
			" at the newest version krew's index lists, which has no way to name another; install it from a local --manifest, which names its archive's sha256")
		return
	}
}

// kubectlKrew judges krew run as its own program (kubectl-krew).
func (a *auditor) kubectlKrew(c invocation) cmdInfo {
	a.krew(c.args())
	return cmdInfo{name: c.name}
}
