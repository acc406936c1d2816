package assess

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Package managers told to install a package when the server starts
// (`pip install pkg && pkg`, `npm i -g pkg`, `cargo install crate`, `gem
// install name`, `dotnet tool install -g id`): what they install is
// whatever the registry holds at that moment unless the wiring names an
// exact version, as with a package runner.

// unpinnedInstall records a package that tool installs without an exact
// version.
func (a *auditor) unpinnedInstall(spec arg, tool string) {
	a.add(CodeUnpinned, spec.path, unpinnedMessage(tool, "installs", spec.text))
	a.plainFetch(spec, tool, "fetches a package")
}

// requirementFiles are the options of pip install, uv pip install, uv's
// runners and pipx that name a file of requirements to install from;
// constraintFiles those that name a file of versions to hold them to.
var (
	requirementFiles = set("-r", "--requirement", "--requirements", "--with-requirements")
	constraintFiles  = set("-c", "--constraint", "--constraints", "--overrides", "-b", "--build-constraints")
)

// requirementsURL judges a requirements or constraints file named by a URL
// (val, the value of flag in w): it is downloaded over whatever the URL
// says, and a requirements file lists packages that can change at any
// time, unless the URL names a commit. verb says what tool does with the
// packages (installs, downloads). A file on this machine is not read.
func (a *auditor) requirementsURL(flag string, w arg, val, tool, verb string) {
	if !w.lit || !strings.Contains(val, "://") || !(requirementFiles[flag] || constraintFiles[flag]) {
		return
	}
	w.text = val
	kind := "requirements file"
	if constraintFiles[flag] {
		kind = "constraints file"
	}
	a.plainFetch(w, tool, "downloads a "+kind)
	if requirementFiles[flag] && !commitURL(val) {
		a.add(CodeUnpinned, w.path, quoted(tool)+" "+verb+" what a requirements file at a URL lists, which can change at any time")
	}
}

// commitURL reports whether a URL names a full commit in its path
// (raw.githubusercontent.com/o/r/<sha>/requirements.txt): what it serves
// cannot change.
func commitURL(raw string) bool {
	u, ok := parseAnyURL(strings.TrimSpace(raw))
	if !ok {
		return false
	}
	for seg := range strings.SplitSeq(u.Path, "/") {
		if commitSHA.MatchString(seg) {
			return true
		}
	}
	return false
}

// localArchive reports whether a spec names a package file on this machine
// by its file name alone (pkg-1.0-py3-none-any.whl, pkg-1.0.tgz, x.gem,
// x.nupkg), or the current or parent directory.
func localArchive(s string) bool {
	if s == "." || s == ".." {
		return true
	}
	if strings.Contains(s, "://") {
		return false
	}
	l := lower(s)
	for _, ext := range []string{".whl", ".tar.gz", ".tgz", ".zip", ".gem", ".nupkg", ".crate"} {
		if strings.HasSuffix(l, ext) {
			return true
		}
	}
	return false
}

// pipGlobalValues are the options pip takes before its subcommand that
// take a value; pipInstallValues those of pip install, uv pip install,
// uv tool install and pipx install (a union: no option takes a value in
// one and is a switch in another, except pipx's -e, whose word is judged
// as a requirement either way).
var (
	pipGlobalValues = set("--python", "--log", "--log-file", "--proxy", "--retries", "--timeout",
		"--exists-action", "--trusted-host", "--cert", "--client-cert", "--cache-dir", "--keyring-provider",
		"--use-feature", "--use-deprecated", "--resume-retries")
	pipInstallValues = set("-r", "--requirement", "--requirements", "-c", "--constraint", "--constraints",
		"--overrides", "-e", "--editable", "-t", "--target", "--platform", "--python-version", "--python-platform",
		"--implementation", "--abi", "--root", "--prefix", "--src", "--upgrade-strategy", "-C", "--config-settings",
		"--config-setting", "--global-option", "--no-binary", "--only-binary", "--progress-bar", "--root-user-action",
		"--report", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--index", "--default-index",
		"--group", "--extra", "--python", "-p", "--log", "--log-file", "--proxy", "--retries", "--timeout",
		"--exists-action", "--trusted-host", "--cert", "--client-cert", "--cache-dir", "--keyring-provider",
		"--use-feature", "--use-deprecated", "--resume-retries", "--index-strategy", "--resolution", "--prerelease",
		"--exclude-newer", "--link-mode", "--allow-insecure-host", "--directory", "--project", "--config-file",
		"--color", "--torch-backend", "--from", "--with", "-w", "--with-editable", "--with-requirements",
		"--suffix", "--pip-args", "--preinstall", "--build-constraints", "-b")
	// pipFetchValues are those of pip download and pip wheel.
	pipFetchValues = set("-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-d", "--dest",
		"-w", "--wheel-dir", "--platform", "--python-version", "--implementation", "--abi", "--src",
		"-C", "--config-settings", "--global-option", "--build-option", "--no-binary", "--only-binary",
		"--progress-bar", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--report",
		"--python", "--log", "--log-file", "--proxy", "--retries", "--timeout", "--exists-action",
		"--trusted-host", "--cert", "--client-cert", "--cache-dir", "--keyring-provider", "--use-feature",
		"--use-deprecated", "--resume-retries", "--group")
)

// pip judges pip: `pip install` of a requirement without an exact version
// is unpinned, and so is `pip download` or `pip wheel` of one (a source
// distribution's build runs its code while pip reads its metadata, and
// what is downloaded is there to be installed); the three use the
// network.
func (a *auditor) pip(c invocation) cmdInfo {
	sub := skipFlags(c.args(), pipGlobalValues)
	if len(sub) > 0 {
		switch sub[0].text {
		case "install":
			a.inferred.Network = true
			a.pyInstall(sub[1:], "pip install")
		case "download", "wheel":
			a.inferred.Network = true
			a.pipFetch(sub[1:], "pip "+sub[0].text)
		}
	}
	return cmdInfo{name: c.name}
}

// pipFetch judges the requirements of pip download and pip wheel, each
// operand and -e/--editable value, as pyInstall judges pip install's.
func (a *auditor) pipFetch(args []arg, tool string) {
	check := func(w arg) {
		s := strings.TrimSpace(w.text)
		if w.lit && s != "" && !localArchive(s) && !localSpec(s) && !pyPinned(s) {
			a.add(CodeUnpinned, w.path, unpinnedMessage(tool, "downloads", w.text))
			a.plainFetch(w, tool, "fetches a package")
		}
	}
	specs := operands(args, pipFetchValues, true, func(flag string, w arg, val string) {
		a.requirementsURL(flag, w, val, tool, "downloads")
		if flag == "-e" || flag == "--editable" {
			w.text = val
			check(w)
		}
	})
	for _, w := range specs {
		check(w)
	}
}

// pyInstall judges the requirements of pip install, uv pip install, uv
// tool install and pipx install: each operand, each -e/--editable value,
// uv's --from and --with. A requirements file (-r) is not read.
func (a *auditor) pyInstall(args []arg, tool string) {
	check := func(w arg) {
		s := strings.TrimSpace(w.text)
		if w.lit && s != "" && !localArchive(s) && !pyPinned(s) {
			a.unpinnedInstall(w, tool)
		}
	}
	specs := operands(args, pipInstallValues, true, func(flag string, w arg, val string) {
		a.requirementsURL(flag, w, val, tool, "installs")
		switch flag {
		case "-e", "--editable", "--from":
			w.text = val
			check(w)
		case "--with", "-w", "--with-editable":
			for _, part := range strings.Split(val, ",") {
				w.text = part
				check(w)
			}
		}
	})
	for _, w := range specs {
		check(w)
	}
}

// npmInstallSubs are the subcommands (and npm's abbreviations and
// misspellings of install, which it accepts) that install the packages
// they name.
var npmInstallSubs = set("install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal",
	"isntall", "add", "install-test", "it")

// npmInstallValues are the options of npm, pnpm, yarn and bun install and
// add that take a value.
var npmInstallValues = set("--registry", "--prefix", "--cache", "--userconfig", "--globalconfig", "-w",
	"--workspace", "--tag", "--omit", "--include", "--install-strategy", "--before", "--location", "-C", "--dir",
	"--filter", "-F", "--cwd", "--save-prefix", "--loglevel", "--config", "--network-concurrency",
	"--modules-folder", "--cache-folder", "--global-folder", "--cache-dir", "--backend", "--cafile", "--ca",
	"--cert", "--key", "--proxy", "--https-proxy", "--noproxy", "--ignore-scripts-except", "--trust",
	"--concurrent-scripts", "--network-timeout", "--mutex", "--virtual-store-dir", "--store-dir", "--node-linker",
	"--reporter", "--resolution-mode", "--allowed-deprecated-versions")

// npmInstall judges the packages that npm, pnpm, yarn or bun install or add
// names: each must be pinned. Without a package the lockfile decides.
func (a *auditor) npmInstall(args []arg, tool string) {
	a.inferred.Network = true
	for _, w := range operands(args, npmInstallValues, false, nil) {
		if w.lit && !localArchive(w.text) && !npmPinned(w.text) {
			a.unpinnedInstall(w, tool)
		}
	}
}

// cargoInstallValues are the options of cargo install and cargo binstall
// that take a value.
var cargoInstallValues = set("--version", "--vers", "--git", "--branch", "--tag", "--rev", "--path", "--root",
	"--index", "--registry", "--target", "--target-dir", "--features", "-F", "--profile", "-j", "--jobs", "--bin",
	"--example", "--config", "-Z", "--color", "--message-format", "--manifest-path", "--pkg-url", "--pkg-fmt",
	"--bin-dir", "--install-path", "--strategies", "--disable-strategies", "--github-token", "--rate-limit",
	"--maximum-resolution-timeout", "--min-tls-version", "--root-certificates", "--log-level", "--cargo-toml")

// cargoInstall judges cargo install and cargo binstall: a crate at
// crate@1.2.3 or with an exact --version, a git source at a full --rev, or
// a local --path pins what is built.
func (a *auditor) cargoInstall(args []arg, tool string) {
	a.inferred.Network = true
	var version, rev string
	var git *arg
	local := false
	crates := operands(args, cargoInstallValues, true, func(flag string, w arg, val string) {
		switch flag {
		case "--version", "--vers":
			version = val
		case "--rev":
			rev = val
		case "--git":
			w.text = val
			git = &w
		case "--index":
			w.text = cargoIndexURL(val)
			a.packageSource(quoted(tool)+" downloads crates", w)
		case "--path":
			local = true
		}
	})
	switch {
	case local:
	case git != nil:
		if git.lit && !commitSHA.MatchString(rev) {
			a.unpinnedInstall(*git, tool)
		}
	default:
		namedVersions(crates, version, '@', semverExact.MatchString, func(w arg) { a.unpinnedInstall(w, tool) })
	}
}

// cargoIndexURL is the URL of a Cargo registry index as written in
// --index or a registry's index setting, without the protocol Cargo reads
// it with (sparse+https://…, registry+https://…).
func cargoIndexURL(s string) string {
	for _, p := range []string{"sparse+", "registry+"} {
		if len(s) > len(p) && strings.EqualFold(s[:len(p)], p) {
			return s[len(p):]
		}
	}
	return s
}

// namedVersions calls unpinned with each package of names (literal, not a
// package file) whose version is not exact: the version after sep in its
// name (crate@1.2.3, gem:1.2.3), else version, which an option gave.
func namedVersions(names []arg, version string, sep byte, exact func(string) bool, unpinned func(arg)) {
	for _, w := range names {
		if !w.lit || localArchive(w.text) {
			continue
		}
		v := version
		if i := strings.LastIndexByte(w.text, sep); i > 0 {
			v = w.text[i+1:]
		}
		if !exact(strings.TrimSpace(v)) {
			unpinned(w)
		}
	}
}

// cargo judges cargo: install and binstall fetch and build crates. A
// first word +TOOLCHAIN picks rustup's toolchain.
func (a *auditor) cargo(c invocation) cmdInfo {
	args := c.args()
	if len(args) > 0 && strings.HasPrefix(args[0].text, "+") {
		args = args[1:]
	}
	for i := 0; i < len(args) && args[i].text != "--"; i++ {
		if v, ok := cutPrefixFold(args[i].text, "--config="); ok && args[i].text[:2] == "--" {
			w := args[i]
			w.text = v
			a.cargoConfig(w, c.depth)
		} else if args[i].text == "--config" && i+1 < len(args) {
			i++
			a.cargoConfig(args[i], c.depth)
		}
	}
	sub := skipGetopt(args, set("--config", "-Z", "-C", "--color"))
	if len(sub) > 0 && (sub[0].text == "install" || sub[0].text == "binstall") {
		a.cargoInstall(sub[1:], "cargo "+sub[0].text)
	}
	return cmdInfo{name: c.name}
}

// cargoConfig judges a setting given with cargo --config KEY=VALUE (a
// path names a file, which is not read): the value is TOML, read with the
// TOML library. The programs Cargo runs in place of rustc, rustdoc or the
// linker, or to run what it built (target.<triple>.runner, its words
// split at blanks or given as an array), are judged as the variables that
// name them are (envProgram); a registry's index or a source's registry
// is where crates come from.
func (a *auditor) cargoConfig(w arg, depth int) {
	if !w.lit || !strings.Contains(w.text, "=") || len(w.text) > maxScriptBytes || bracketDepth(w.text) > 2*maxNesting {
		return // a setting nested past the bounds on scripts is not read
	}
	var doc map[string]any
	if _, err := toml.Decode(w.text, &doc); err != nil {
		return // Cargo refuses it
	}
	str := func(v any) (string, bool) { s, ok := v.(string); return s, ok }
	run := func(words []string) {
		argv := make([]arg, 0, len(words))
		for _, t := range words {
			argv = append(argv, arg{text: t, path: w.path, lit: true})
		}
		if len(argv) > 0 {
			saved := a.inferred
			a.command(argv, depth+1, ctxNested)
			a.inferred = saved
		}
	}
	table := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	for _, key := range []string{"rustc-wrapper", "rustc-workspace-wrapper", "rustc", "rustdoc"} {
		if p, ok := str(table(doc["build"])[key]); ok && strings.TrimSpace(p) != "" {
			run([]string{strings.TrimSpace(p)})
		}
	}
	targets := table(doc["target"])
	for _, name := range slices.Sorted(maps.Keys(targets)) {
		t := table(targets[name])
		switch r := t["runner"].(type) {
		case string:
			run(strings.Fields(r))
		case []any:
			words := make([]string, 0, len(r))
			for _, x := range r {
				if s, ok := str(x); ok {
					words = append(words, s)
				}
			}
			run(words)
		}
		if p, ok := str(t["linker"]); ok && strings.TrimSpace(p) != "" {
			run([]string{strings.TrimSpace(p)})
		}
	}
	for _, group := range [][2]string{{"registries", "index"}, {"source", "registry"}} {
		regs := table(doc[group[0]])
		for _, name := range slices.Sorted(maps.Keys(regs)) {
			if u, ok := str(table(regs[name])[group[1]]); ok {
				v := w
				v.text = cargoIndexURL(strings.TrimSpace(u))
				a.packageSource("`cargo` downloads crates", v)
			}
		}
	}
}

// gemValues are the options of gem install and gem exec that take a value.
var gemValues = set("-v", "--version", "--platform", "-i", "--install-dir", "-n", "--bindir", "--document",
	"--build-root", "-P", "--trust-policy", "-s", "--source", "-p", "--http-proxy", "-g", "--file", "--without",
	"--gem", "--target-rbconfig")

// gemGlobalValues are gem's options before its command that take a value.
var gemGlobalValues = set("--config-file")

// gemVersionExact matches a RubyGems version given as an exact one
// (1.2.3, 1.2.3.pre, = 1.2.3); a requirement with another operator does
// not pin.
var gemVersionExact = regexp.MustCompile(`^(=\s*)?\d+(\.[0-9A-Za-z]+)*$`)

// gem judges gem install and gem exec: a gem without an exact version
// (-v 1.2.3 or name:1.2.3) is unpinned; --local installs from this machine.
func (a *auditor) gem(c invocation) cmdInfo {
	args := skipFlags(c.args(), gemGlobalValues)
	if len(args) == 0 || (args[0].text != "install" && args[0].text != "i" && args[0].text != "exec") {
		return cmdInfo{name: c.name}
	}
	tool := "gem " + args[0].text
	var version string
	var named *arg // gem exec --gem NAME
	local := false
	read := operands
	if args[0].text == "exec" {
		read = optionWords // the command's own options follow it
	}
	names := read(args[1:], gemValues, true, func(flag string, w arg, val string) {
		switch flag {
		case "-v", "--version":
			version = val
		case "--gem":
			w.text = val
			named = &w
		}
	})
	for _, w := range args[1:] {
		local = local || w.text == "-l" || w.text == "--local"
	}
	if local {
		return cmdInfo{name: c.name}
	}
	a.inferred.Network = true
	if args[0].text == "exec" {
		// The first operand is the command; its arguments are its own.
		switch {
		case named != nil:
			names = []arg{*named}
		case len(names) > 0:
			names = names[:1]
		}
	}
	unpinned := func(w arg) { a.unpinnedInstall(w, tool) }
	if args[0].text == "exec" {
		unpinned = func(w arg) { a.unpinned(w, tool) }
	}
	namedVersions(names, version, ':', gemVersionExact.MatchString, unpinned)
	return cmdInfo{name: c.name}
}

// dotnetToolValues are the options of dotnet tool install and update that
// take a value (-v is the verbosity there, not the version).
var dotnetToolValues = set("--version", "--add-source", "--source", "--configfile", "--framework", "-f",
	"--tool-path", "--tool-manifest", "-a", "--arch", "-v", "--verbosity")

// dotnetHostValues are the options of the dotnet host, before its command,
// that take a value.
var dotnetHostValues = set("--roll-forward", "--fx-version", "--additionalprobingpath", "--additional-deps",
	"--depsfile", "--runtimeconfig")

// dotnet judges dotnet tool install and update (the tool's package must be
// pinned by --version or id@version) and dotnet tool exec and dotnet dnx,
// which are dnx.
func (a *auditor) dotnet(c invocation) cmdInfo {
	args := skipFlags(c.args(), dotnetHostValues)
	switch {
	case len(args) > 0 && args[0].text == "dnx":
		a.inferred.Network = true
		a.dnxRunner(args[1:], "dotnet dnx")
	case len(args) > 0 && args[0].text == "script":
		a.dotnetScript(args[1:], c.depth)
	case len(args) > 1 && args[0].text == "tool" && args[1].text == "exec":
		a.inferred.Network = true
		a.dnxRunner(args[2:], "dotnet tool exec")
	case len(args) > 1 && args[0].text == "tool" && (args[1].text == "install" || args[1].text == "update"):
		a.inferred.Network = true
		version := ""
		tool := "dotnet tool " + args[1].text
		ids := operands(args[2:], dotnetToolValues, false, func(flag string, w arg, val string) {
			switch flag {
			case "--version":
				version = val
			case "--source", "--add-source":
				w.text = val
				a.packageSource(quoted(tool)+" downloads packages", w)
			}
		})
		namedVersions(ids, version, '@', semverExact.MatchString, func(w arg) { a.unpinnedInstall(w, tool) })
	}
	return cmdInfo{name: c.name}
}

// dotnetScript judges dotnet-script (dotnet script): a script given by its
// URL is downloaded and run, so it must be pinned (a URL at a full commit);
// eval runs C# written inline.
func (a *auditor) dotnetScript(args []arg, depth int) {
	rest := optionWords(args, set("-c", "--configuration", "-s", "--sources", "--verbosity", "--cache-dir"), false, nil)
	if len(rest) == 0 || !rest[0].lit {
		return
	}
	if rest[0].text == "eval" {
		// dotnet script eval CODE: C# written inline.
		if len(rest) > 1 {
			a.inlineProgram(invocation{name: "dotnet script", depth: depth}, "csharp", rest[1])
		}
		return
	}
	if u, ok := parseAnyURL(rest[0].text); ok && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")) {
		a.inferred.Network = true
		if !commitSegment(rest[0].text) {
			a.unpinned(rest[0], "dotnet script")
		}
	}
}

// pythonModule returns the module python's -m runs and the words after it,
// reading python's options as it does: -m takes the rest of its word or
// the next word; -c (a program) and a script file end the options.
func pythonModule(args []arg) (module arg, rest []arg, ok bool) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if len(t) < 2 || t[0] != '-' || t == "--" {
			return arg{}, nil, false
		}
		if strings.HasPrefix(t, "--") {
			if t == "--check-hash-based-pycs" {
				i++ // its value
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			switch t[j] {
			case 'm':
				if j+1 < len(t) {
					w := args[i]
					w.text = t[j+1:]
					return w, args[i+1:], true
				}
				if i+1 < len(args) {
					return args[i+1], args[i+2:], true
				}
				return arg{}, nil, false
			case 'c':
				return arg{}, nil, false
			case 'W', 'X':
				if j+1 == len(t) {
					i++ // the value is the next word
				}
				j = len(t)
			}
		}
	}
	return arg{}, nil, false
}

// pythonModuleTools are the Python tools that, run as modules, start the
// command they are given (python -m uv run cmd, python -m dotenv run cmd).
var pythonModuleTools = set("uv", "poetry", "pdm", "hatch", "pipenv", "dotenv", "conda", "pip-run")

// pythonModuleNames are the modules whose program has another name.
var pythonModuleNames = map[string]string{"pip_run": "pip-run"}

// pythonTool judges `python -m pip …` and `python -m pipx …` as the tool
// it runs: a package installed or run by it must be pinned, and its index
// options are read; the tools of pythonModuleTools are judged as commands
// of their own. It reports whether the module was such a tool.
func (a *auditor) pythonTool(c invocation) (cmdInfo, bool) {
	mod, rest, ok := pythonModule(c.args())
	if !ok || !mod.lit {
		return cmdInfo{}, false
	}
	name := mod.text
	if family(name) == "pip" {
		name = "pip"
	}
	if n, ok := pythonModuleNames[name]; ok {
		name = n
	}
	if name == "pdb" {
		a.pdbCode(c, rest) // optcmds.go
		return cmdInfo{}, false
	}
	if pythonModuleTools[name] {
		// python -m uv run …, python -m poetry run …: the tool, as if
		// run by its own name.
		w := mod
		w.text = name
		return a.command(append([]arg{w}, rest...), c.depth+1, ctxNested), true
	}
	if name != "pip" && name != "pipx" {
		return cmdInfo{}, false
	}
	inner := invocation{name: name, argv: append([]arg{mod}, rest...), depth: c.depth, ctx: c.ctx}
	a.inferred.Network = true
	a.packageSources(inner)
	if name == "pip" {
		a.pip(inner)
	} else {
		a.pipx(inner)
	}
	return cmdInfo{name: family(c.name)}, true
}

// jbangCommands are jbang's subcommands other than run, the default.
var jbangCommands = set("build", "edit", "init", "alias", "catalog", "trust", "cache", "completion", "jdk",
	"config", "export", "info", "app", "template", "wrapper", "version", "deps")

// jbangValues are the options of jbang and jbang run that take a value
// (picocli reads -j17 and -Dkey=value as an option with its value).
var jbangValues = set("-j", "--java", "-m", "--main", "--deps", "--repos", "--cp", "--class-path", "-R",
	"--runtime-option", "-C", "--compile-option", "-N", "--native-option", "--javaagent", "-s", "--sources",
	"--files", "--config", "--source-type", "--catalog", "--manifest", "-D")

// mavenExact matches a Maven version that names one release: not LATEST
// or RELEASE, a range ([1,2)), a dynamic version (1.+) nor a SNAPSHOT.
var mavenExact = regexp.MustCompile(`^\d+(\.[0-9A-Za-z]+)*([.-][0-9A-Za-z]+)*$`)

// gavPinned reports whether group:artifact:version[:classifier][@type]
// names an exact version.
func gavPinned(gav string) bool {
	gav, _, _ = strings.Cut(gav, "@")
	parts := strings.Split(gav, ":")
	return len(parts) >= 3 && mavenExact.MatchString(parts[2]) && !strings.HasSuffix(lower(parts[2]), "snapshot")
}

// isGAV reports whether s is a Maven coordinate group:artifact[:version…].
func isGAV(s string) bool {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || strings.ContainsAny(s, `/\ `) {
		return false
	}
	return parts[0] != "" && parts[1] != ""
}

// jbangScript reports whether ref names a script or archive file by its
// extension (a file may contain '@').
func jbangScript(ref string) bool {
	l := lower(ref)
	for _, ext := range []string{".java", ".jsh", ".kt", ".groovy", ".jar", ".war", ".md"} {
		if strings.HasSuffix(l, ext) {
			return true
		}
	}
	return false
}

// commitSegment reports whether a URL's path holds a full commit hash as
// one of its segments (a GitHub blob or raw URL at a commit, a gist
// revision).
func commitSegment(u string) bool {
	p, ok := parseAnyURL(u)
	if !ok {
		return false
	}
	for _, seg := range strings.Split(p.Path, "/") {
		if commitSHA.MatchString(seg) {
			return true
		}
	}
	return false
}

// jbang judges jbang, which builds and runs Java from a file, a URL, a
// Maven coordinate or a catalog alias, fetching what it names and the
// dependencies --deps adds: a URL not at a commit, an alias, and a
// coordinate without an exact version are unpinned. --insecure turns
// certificate checks off.
func (a *auditor) jbang(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	valued := func(flag string, w arg, val string) {
		switch flag {
		case "--deps":
			a.inferred.Network = true
			for _, dep := range strings.Split(val, ",") {
				if dep = strings.TrimSpace(dep); dep != "" && w.lit && isGAV(dep) && !gavPinned(dep) {
					a.unpinned(arg{text: dep, path: w.path, lit: true}, "jbang --deps")
				}
			}
		case "--repos":
			a.inferred.Network = true
			for _, repo := range strings.Split(val, ",") {
				if _, u, ok := strings.Cut(repo, "="); ok {
					repo = u
				}
				a.packageSource(quoted("jbang")+" downloads dependencies", arg{text: strings.TrimSpace(repo), path: w.path, lit: w.lit})
			}
		}
	}
	args := c.args()
	for _, w := range args {
		if w.text == "--" {
			break
		}
		if w.text == "--insecure" {
			a.add(CodeInsecureURL, w.path, quoted(c.name)+" turns certificate checks off (--insecure), so what it downloads can be replaced on the way")
		}
	}
	rest := optionWords(args, jbangValues, true, valued)
	if len(rest) > 0 && rest[0].text == "run" {
		rest = optionWords(rest[1:], jbangValues, true, valued)
	} else if len(rest) > 0 && jbangCommands[rest[0].text] {
		return info
	}
	if len(rest) == 0 || !rest[0].lit {
		return info
	}
	ref := rest[0]
	t := strings.TrimSpace(ref.text)
	switch {
	case t == "-":
		info.stdinScript = true
	case localSpec(t):
	case strings.Contains(t, "://"):
		if u, ok := parseAnyURL(t); ok && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")) {
			a.inferred.Network = true
			if !commitSegment(t) {
				a.unpinned(ref, "jbang")
			}
		}
	case jbangScript(t):
	case strings.Contains(t, "@"):
		a.inferred.Network = true // an alias from a catalog
		a.unpinned(ref, "jbang")
	case isGAV(t):
		a.inferred.Network = true
		if !gavPinned(t) {
			a.unpinned(ref, "jbang")
		}
	}
	return info
}

// installPackage judges the package the [install] block names. Its
// version pins a package of the manager's registry; a package that names
// a git or URL source, one that npm reads as a GitHub repository
// (owner/repo), or a formula of a third-party Homebrew tap
// (owner/tap/formula) is whatever that source holds when the client
// installs it, which the version does not pin. A local path is not
// fetched.
func (a *auditor) installPackage() {
	in := a.m.Install
	pkg := strings.TrimSpace(in.Package)
	w := arg{text: pkg, path: "install.package", lit: true}
	tool := quoted(in.Manager)
	switch {
	case localSpec(pkg):
	case sourceIsURL(pkg) || gitPrefixed(pkg):
		a.plainFetch(w, in.Manager, "fetches the package of the [install] block")
		if _, ok := parseAnyURL(pkg); ok {
			a.urlSecrets(pkg, w.path)
		}
		if !gitPinned(pkg) {
			a.add(CodeUnpinned, w.path, "the [install] block has "+tool+
				" install a git or URL package source, which its version does not pin")
		}
	case in.Manager == "npm" && !strings.HasPrefix(pkg, "@") && strings.Contains(pkg, "/"):
		a.add(CodeUnpinned, w.path, "`npm` reads the [install] package `"+safeText(pkg, 60)+
			"` as a GitHub repository, which its version does not pin")
	case in.Manager == "brew" && strings.Count(pkg, "/") == 2 && !strings.HasPrefix(lower(pkg), "homebrew/"):
		tap := pkg[:strings.LastIndexByte(pkg, '/')]
		a.add(CodeUnpinned, w.path, "`brew` installs the [install] package from the third-party tap `"+
			safeText(tap, 60)+"`, whose formula can change at any time; its version does not pin it")
	}
}

// gitPrefixed reports whether a package spec starts with one of the git
// source forms npm and pip read without a URL scheme.
func gitPrefixed(s string) bool {
	for _, p := range []string{"git+", "git:", "github:", "gitlab:", "bitbucket:", "gist:"} {
		if strings.HasPrefix(lower(s), p) {
			return true
		}
	}
	return false
}
