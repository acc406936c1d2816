package assess

import (
	"regexp"
	"slices"
	"strings"
)

// The installers and package runners of other ecosystems: conda and its
// kin, pixi, pip-run, coursier, rye, volta, nix profile, the project
// managers' add, luarocks, cpanm, opam, composer, cabal, stack, nimble,
// raco, pipenv, easy_install, bundle add, dotnet add package, nuget, cpan,
// cpm, haxelib and dart pub global activate. Told to install or run
// a package when the server starts, each fetches whatever its index holds
// at that moment unless the wiring names an exact version, as with npx or
// uvx; and each uses the network.

// ecoTool is how one such tool names what it installs: the subcommands
// (word sequences) that install or run packages, the options that take a
// value, the option whose values are package specs when they are not the
// operands (pixi exec --spec), and whether a spec pins an exact version.
type ecoTool struct {
	subs     [][]string
	values   map[string]bool
	specFlag string
	pinned   func(spec string) bool
	sources  map[string]bool // the options whose value says where packages come from
	// pins, when set, says which package an option's value pins to an
	// exact version (cabal --constraint 'pkg ==1.2.3'), or "*" when it
	// pins them all (stack --resolver lts-22.3); "" for none.
	pins func(flag, val string) string
	// versionArg, when set, says whether the operand after a package is
	// its exact version (luarocks install NAME VERSION, dart pub global
	// activate NAME 1.2.3): the command then names one package.
	versionArg func(string) bool
}

var (
	condaValues = set("-n", "--name", "-p", "--prefix", "-c", "--channel", "--file", "--subdir", "--platform",
		"--repodata-fn", "--experimental", "--solver", "--override-channels-only", "-r", "--root-prefix")
	pyAddValues = set("--group", "-G", "--optional", "--extra", "-E", "--package", "--script", "--python", "-p",
		"--index", "--index-url", "--default-index", "--extra-index-url", "--find-links", "-f", "--source",
		"--rev", "--tag", "--branch", "--bounds", "--directory", "--project", "-C", "--config-file", "--markers",
		"-m", "--editable", "-e", "--lockfile", "-L", "-v", "--venv", "-g", "--global-project", "-R", "--root")
	ecoTools = map[string]ecoTool{
		"conda":      {subs: [][]string{{"install"}, {"create"}, {"update"}}, values: condaValues, pinned: condaPinned, sources: channelOptions},
		"mamba":      {subs: [][]string{{"install"}, {"create"}, {"update"}}, values: condaValues, pinned: condaPinned, sources: channelOptions},
		"micromamba": {subs: [][]string{{"install"}, {"create"}, {"update"}}, values: condaValues, pinned: condaPinned, sources: channelOptions},
		"pixi": {subs: [][]string{{"exec"}, {"global", "install"}, {"add"}}, specFlag: "--spec", pinned: condaPinned, sources: channelOptions,
			values: set("-s", "--spec", "-c", "--channel", "-p", "--platform", "--manifest-path", "-e", "--environment",
				"--feature", "-f", "--with", "-w")},
		"pip-run": {subs: [][]string{{}}, values: set("-r", "--requirement", "-c", "--constraint", "-i",
			"--index-url", "--extra-index-url", "-f", "--find-links"), pinned: pyPinned, sources: pyIndexOptions},
		"coursier": {subs: [][]string{{"launch"}, {"install"}, {"fetch"}}, values: coursierValues, pinned: coordinatePinned, sources: set("-r", "--repository")},
		"cs":       {subs: [][]string{{"launch"}, {"install"}, {"fetch"}}, values: coursierValues, pinned: coordinatePinned, sources: set("-r", "--repository")},
		"rye":      {subs: [][]string{{"install"}, {"tools", "install"}, {"add"}}, values: pyAddValues, pinned: pyPinned, sources: pyIndexOptions},
		"poetry":   {subs: [][]string{{"add"}}, values: pyAddValues, pinned: poetryPinned, sources: pyIndexOptions},
		"pdm":      {subs: [][]string{{"add"}}, values: pyAddValues, pinned: pyPinned, sources: pyIndexOptions},
		"volta":    {subs: [][]string{{"install"}, {"fetch"}}, values: set("--node", "--npm", "--pnpm", "--yarn"), pinned: npmPinned},
		"nix": {subs: [][]string{{"profile", "install"}, {"profile", "add"}}, pinned: flakePinned,
			values: set("--profile", "--priority", "--option", "--extra-experimental-features", "--override-input", "-I")},
		"luarocks": {subs: [][]string{{"install"}}, values: set("--server", "--only-server", "--tree", "--lua-version",
			"--branch"), pinned: func(string) bool { return false }, sources: set("--server", "--only-server"),
			versionArg: luarocksVersion.MatchString},
		// More registries anyone publishes to: PyPI through pipenv,
		// easy_install and uv add, RubyGems through bundle add, NuGet
		// through dotnet add package and nuget install, CPAN through cpan
		// and cpm, Haxe's lib.haxe.org, and pub.dev through dart and
		// flutter pub global activate.
		"pipenv": {subs: [][]string{{"install"}}, values: set("--python", "--pypi-mirror", "-i", "--index", "--categories",
			"-r", "--requirements", "-c", "--constraints"), pinned: pyPinned, sources: set("--pypi-mirror", "-i", "--index")},
		"easy_install": {subs: [][]string{{}}, values: set("-i", "--index-url", "-f", "--find-links", "-d", "--install-dir",
			"-s", "--script-dir", "-b", "--build-directory"), pinned: pyPinned, sources: set("-i", "--index-url", "-f", "--find-links")},
		"uv":     {subs: [][]string{{"add"}}, values: pyAddValues, pinned: pyPinned, sources: pyIndexOptions},
		"bundle": {subs: [][]string{{"add"}}, values: set("-v", "--version", "-g", "--group", "-s", "--source", "--require", "--path", "--git", "--github", "--branch", "--ref", "--glob"), pinned: func(string) bool { return false }, pins: versionOptionPins("-v", "--version"), sources: set("-s", "--source")},
		"dotnet": {subs: [][]string{{"add", "package"}}, values: set("-v", "--version", "-f", "--framework", "-s", "--source", "--package-directory"), pinned: func(string) bool { return false }, pins: versionOptionPins("-v", "--version"), sources: set("-s", "--source")},
		"nuget":  {subs: [][]string{{"install"}}, values: set("-version", "-Version", "-source", "-Source", "-outputdirectory", "-OutputDirectory", "-configfile", "-ConfigFile", "-framework", "-Framework"), pinned: func(string) bool { return false }, pins: versionOptionPins("-version", "-Version"), sources: set("-source", "-Source")},
		"cpan":   {subs: [][]string{{"install"}}, pinned: cpanPinned},
		"cpm":    {subs: [][]string{{"install"}}, values: set("-L", "--local-lib-contained", "-l", "--local-lib", "-w", "--workers", "-r", "--resolver", "--mirror", "--cpanfile", "--snapshot"), pinned: cpanPinned, sources: set("--mirror")},
		"haxelib": {subs: [][]string{{"install"}}, values: set("--cwd", "--repo"), pinned: func(string) bool { return false },
			versionArg: exactVersion},
		"dart": {subs: [][]string{{"pub", "global", "activate"}}, values: dartActivateValues, pinned: func(string) bool { return false },
			versionArg: exactVersion, sources: set("-u", "--hosted-url")},
		"flutter": {subs: [][]string{{"pub", "global", "activate"}}, values: dartActivateValues, pinned: func(string) bool { return false },
			versionArg: exactVersion, sources: set("-u", "--hosted-url")},
		"cpanm":    {subs: [][]string{{}}, values: set("-l", "--local-lib", "-L", "--mirror", "--from", "-M"), pinned: cpanPinned, sources: set("--mirror", "--from", "-M")},
		"opam":     {subs: [][]string{{"install"}}, values: set("--switch", "-j", "--jobs", "--root"), pinned: opamPinned},
		"composer": {subs: [][]string{{"require"}, {"global", "require"}}, values: set("-d", "--working-dir"), pinned: composerPinned},
		// Haskell's installers take packages from Hackage (cabal) or from
		// a snapshot of it (stack), Nim's from the git repositories its
		// package list names, Racket's from its catalog's sources.
		"cabal": {subs: [][]string{{"install"}, {"v2-install"}, {"new-install"}}, pinned: hackagePinned, pins: cabalPins,
			values: set("--constraint", "--index-state", "--installdir", "--install-method", "--overwrite-policy",
				"-w", "--with-compiler", "--project-file", "--project-dir", "--builddir", "--prefix", "--package-env",
				"--env", "--ghc-options", "--config-file", "--store-dir", "--allow-newer", "--allow-older", "--flags", "-f")},
		"stack": {subs: [][]string{{"install"}}, pinned: hackagePinned, pins: stackPins,
			values: set("--resolver", "--snapshot", "--stack-yaml", "--local-bin-path", "--ghc-options", "--flag",
				"--work-dir", "--stack-root", "--arch", "--compiler", "-j", "--jobs", "--verbosity", "--ta",
				"--test-arguments", "--ba", "--benchmark-arguments", "--docker-image", "--nix-packages")},
		"nimble": {subs: [][]string{{"install"}}, pinned: nimblePinned},
		// Plugin managers of version managers: a plugin is a repository
		// of scripts, cloned at its latest commit from the URL given or
		// the plugin index, that installs and runs the tool it manages
		// (asdf plugin add NAME [URL], mise plugins install NAME [URL],
		// vfox add NAME). The name is judged; a URL after it is where
		// the same plugin comes from.
		"asdf": {subs: [][]string{{"plugin", "add"}, {"plugin-add"}}, pinned: never, versionArg: never},
		"mise": {subs: [][]string{{"plugins", "install"}, {"plugin", "install"}, {"plugins", "add"}, {"plugin", "add"},
			{"plugins", "i"}, {"plugin", "i"}}, pinned: never, versionArg: never},
		"vfox": {subs: [][]string{{"add"}}, pinned: never, versionArg: never},
		// Installers of llm's plugins and JupyterLab's extensions
		// (packages of PyPI and npm).
		"llm":     {subs: [][]string{{"install"}}, pinned: pyPinned, values: set("-e", "--editable")},
		"jupyter": {subs: [][]string{{"labextension", "install"}}, pinned: npmPinned},
		// SWI-Prolog's pack app: swipl pack install NAME|URL.
		"swipl": {subs: [][]string{{"pack", "install"}}, pinned: packPinned},
		// Ansible Galaxy's roles and collections, Vagrant's plugins
		// (srcpins.go).
		"ansible-galaxy": {subs: [][]string{{"install"}, {"role", "install"}, {"collection", "install"}}, pinned: galaxyPinned,
			sources: set("-s", "--server"), values: set("-r", "--role-file", "--requirements-file", "-p", "--roles-path",
				"--collections-path", "-s", "--server", "--api-key", "--token", "--timeout", "-c", "--keyring",
				"--signature", "--required-valid-signature-count", "--ignore-signature-status-code", "--offline-dir")},
		"vagrant": {subs: [][]string{{"plugin", "install"}}, pinned: func(string) bool { return false },
			pins: versionOptionPins("--plugin-version"), sources: set("--plugin-source"),
			values: set("--plugin-version", "--plugin-source", "--entry-point")},
		"raco": {subs: [][]string{{"pkg", "install"}, {"pkg", "update"}}, pinned: racoPinned, pins: racoPins,
			sources: set("--catalog"),
			values: set("-t", "--type", "-n", "--name", "--checksum", "--scope", "--scope-dir", "--catalog",
				"--deps", "-j", "--jobs", "--multi-clone", "--dep-fail")},
	}
	// channelOptions are conda's and pixi's options that name a channel;
	// pyIndexOptions the Python tools' that name an index or a page of
	// links.
	channelOptions = set("-c", "--channel")
	pyIndexOptions = set("-i", "--index", "--index-url", "--default-index", "--extra-index-url", "-f", "--find-links")
	coursierValues = set("-r", "--repository", "-M", "--main", "--main-class", "-E", "--exclude", "-I",
		"--intransitive", "--java-opt", "-J", "--jvm", "--install-dir", "--dir", "--channel", "--scala",
		"--scala-version", "-e", "--extra-jars", "--property", "-D", "--fork")
)

// luarocksVersion is a rock's version: 1.2.3-1 (with its revision) or 1.2.3.
var luarocksVersion = regexp.MustCompile(`^\d+(\.\d+)*-\d+$|^\d+(\.\d+)+$`)

// voltaToolchains are the tools volta installs by name as toolchains.
var voltaToolchains = set("node", "npm", "yarn", "pnpm")

// ecosystemTool reports whether name is one of ecoTools.
func ecosystemTool(name string) bool { _, ok := ecoTools[name]; return ok }

// ecosystemInstall judges c when it installs or runs packages through one
// of ecoTools; it reports whether it did.
func (a *auditor) ecosystemInstall(c invocation) bool {
	tool, ok := ecoTools[c.name]
	if !ok {
		return false
	}
	var specs []arg
	args := c.args()
	if c.name == "pip-run" {
		// pip-run REQUIREMENT… [-- PYTHON-ARGS…]
		if i := slices.IndexFunc(args, func(w arg) bool { return w.text == "--" }); i >= 0 {
			args = args[:i]
		}
	}
	var sources []arg
	pinnedBy := map[string]bool{}
	ops := operands(args, tool.values, true, func(flag string, w arg, val string) {
		if tool.pins != nil && w.lit {
			if name := tool.pins(flag, val); name != "" {
				pinnedBy[name] = true
			}
		}
		if flag == tool.specFlag || tool.specFlag == "--spec" && flag == "-s" {
			w.text = val
			specs = append(specs, w)
		}
		if tool.sources[flag] {
			w.text = val
			sources = append(sources, w)
		}
	})
	i := slices.IndexFunc(tool.subs, func(sub []string) bool { return startsWith(ops, sub...) })
	if i < 0 {
		return false
	}
	sub := tool.subs[i]
	verb := strings.TrimSpace(c.name + " " + strings.Join(sub, " "))
	a.inferred.Network = true
	for _, w := range sources {
		a.packageSource(quoted(verb)+" downloads packages", w)
	}
	pkgs := ops[len(sub):]
	switch {
	case len(specs) > 0:
		pkgs = specs
	case c.name == "pixi" && sub[0] == "exec" && len(pkgs) > 0:
		pkgs = pkgs[:1] // the command's package; the words after it are the command's
	case tool.versionArg != nil && len(pkgs) > 1:
		// luarocks install NAME VERSION names the exact version.
		if tool.versionArg(pkgs[1].text) {
			return true
		}
		pkgs = pkgs[:1]
	}
	for _, w := range pkgs {
		if c.name == "volta" && voltaToolchains[w.text] {
			continue // volta install node: the toolchain volta manages, not a package of the wiring's
		}
		if pinnedBy["*"] || pinnedBy[specName(c.name, w.text)] {
			continue
		}
		if w.lit && !localSpec(w.text) && !localArchive(w.text) && !tool.pinned(w.text) {
			a.unpinnedInstall(w, verb)
		}
	}
	return true
}

// dartActivateValues are the options of dart (and flutter) pub global
// activate that take a value.
var dartActivateValues = set("-s", "--source", "--git-path", "--git-ref", "-u", "--hosted-url", "-x", "--executable",
	"--overwrite-executables")

// versionOptionPins returns a pins function for a tool whose version
// option (bundle add --version, dotnet add package --version, nuget install
// -Version) pins every package it adds when its value is an exact version.
func versionOptionPins(flags ...string) func(flag, val string) string {
	names := set(flags...)
	return func(flag, val string) string {
		if names[flag] && exactVersion(strings.TrimPrefix(strings.TrimSpace(val), "= ")) {
			return "*"
		}
		return ""
	}
}

// condaPinned reports whether a conda match spec pins an exact version:
// name==1.2.3, or name=1.2.3=build (a single = is a prefix: 1.2.3*).
func condaPinned(spec string) bool {
	s := spec
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:] // channel::name
	}
	if i := strings.Index(s, "=="); i >= 0 {
		return exactVersion(s[i+2:])
	}
	if parts := strings.Split(s, "="); len(parts) == 3 {
		return exactVersion(parts[1]) && parts[2] != "" && !strings.Contains(parts[2], "*")
	}
	return false
}

// exactVersion reports whether v is a version with no range or wildcard.
func exactVersion(v string) bool {
	return mavenExact.MatchString(strings.TrimSpace(v))
}

// coordinatePinned reports whether a Maven-style coordinate (org:name:ver,
// org::name:ver) or a coursier app (name:ver) names an exact version; latest.release,
// ranges and a missing version do not.
func coordinatePinned(s string) bool {
	i := strings.LastIndexByte(s, ':')
	return i > 0 && exactVersion(s[i+1:])
}

// poetryPinned reports whether poetry add's spec pins: name@1.2.3 or
// name==1.2.3 (name@^1.2, name@latest do not).
func poetryPinned(s string) bool {
	if at := strings.LastIndexByte(s, '@'); at > 0 && !strings.Contains(s, "://") {
		return exactVersion(strings.TrimPrefix(s[at+1:], "=="))
	}
	return pyPinned(s)
}

// cpanPinned reports whether a cpanm target pins: Module@1.23, or
// Module~"==1.23".
func cpanPinned(s string) bool {
	if i := strings.Index(s, "=="); i >= 0 {
		return exactVersion(strings.Trim(s[i+2:], `"' `))
	}
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		return exactVersion(s[at+1:])
	}
	return false
}

// opamPinned reports whether an opam package pins: name.1.2.3 or name=1.2.3.
func opamPinned(s string) bool {
	if i := strings.IndexByte(s, '='); i > 0 {
		return exactVersion(s[i+1:])
	}
	if i := strings.IndexByte(s, '.'); i > 0 {
		return exactVersion(s[i+1:])
	}
	return false
}

// composerPinned reports whether a composer requirement pins:
// vendor/name:1.2.3 (a constraint with ^, ~, *, a range or dev- does not).
func composerPinned(s string) bool {
	i := strings.IndexAny(s, ":= ")
	return i > 0 && exactVersion(strings.TrimPrefix(strings.TrimSpace(s[i+1:]), "v"))
}

// hackageVersion is the version a Hackage package identifier ends in
// (aeson-2.2.1.0): names are words of letters and digits, each with a
// letter, joined by '-', so a last word of digits and dots is a version.
var hackageVersion = regexp.MustCompile(`^[0-9A-Za-z-]*[A-Za-z][0-9A-Za-z]*-\d+(\.\d+)*$`)

// hackagePinned reports whether a cabal or stack target names an exact
// version: pkg-1.2.3, with a component (pkg-1.2.3:exe:name) or, for stack,
// a revision or hash (pkg-1.2.3@rev:1, pkg-1.2.3@sha256:…).
func hackagePinned(s string) bool {
	s, _, _ = strings.Cut(s, "@")
	s, _, _ = strings.Cut(s, ":")
	return hackageVersion.MatchString(s)
}

// indexState is a time cabal's --index-state accepts: a date (and time)
// or @ and seconds since the epoch.
var indexState = regexp.MustCompile(`^(@\d+|\d{4}-\d{2}-\d{2}([T ][0-9:]+Z?)?)$`)

// cabalPins reads cabal install's --constraint: 'pkg ==1.2.3' pins pkg
// (a range, an installed or source constraint does not), and
// --index-state at a time (not HEAD), which fixes which versions Hackage
// holds for the solver and so pins them all.
func cabalPins(flag, val string) string {
	switch flag {
	case "--index-state":
		if indexState.MatchString(strings.TrimSpace(val)) {
			return "*"
		}
	case "--constraint":
		name, ver, ok := strings.Cut(val, "==")
		name = strings.TrimSpace(name)
		if ok && name != "" && !strings.ContainsAny(name, " <>&|") && exactVersion(ver) {
			return name
		}
	}
	return ""
}

// stackSnapshot is a snapshot that cannot change: an LTS release or a
// dated nightly (lts and nightly alone name the newest).
var stackSnapshot = regexp.MustCompile(`^(lts-\d+\.\d+|nightly-\d{4}-\d{2}-\d{2})$`)

// stackPins reads stack's --resolver and --snapshot: a fixed snapshot
// holds one version of each package it lists.
func stackPins(flag, val string) string {
	if (flag == "--resolver" || flag == "--snapshot") && stackSnapshot.MatchString(strings.TrimSpace(val)) {
		return "*"
	}
	return ""
}

// nimblePinned reports whether a nimble package pins: name@1.2.3 or
// name@==1.2.3 (a tag of its repository, taken as a version as dub's are),
// or name@#COMMIT and URL@#COMMIT at a full commit; @#head, a branch and
// ranges do not.
func nimblePinned(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 {
		return false
	}
	v := strings.TrimSpace(s[at+1:])
	if ref, ok := strings.CutPrefix(v, "#"); ok {
		return commitSHA.MatchString(ref)
	}
	return exactVersion(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(v, "==")), "v"))
}

// racoPinned reports whether a Racket package source pins: a git
// source at a full commit (…#COMMIT, github://github.com/u/r/COMMIT). A
// catalog name resolves to whatever source the catalog lists now.
func racoPinned(s string) bool {
	if i := strings.LastIndexByte(s, '#'); i >= 0 {
		return commitSHA.MatchString(s[i+1:])
	}
	return strings.Contains(s, "://") && commitURL(s)
}

// never is the pinned test of a tool that names no version.
func never(string) bool { return false }

// packPinned reports whether a SWI-Prolog pack is named by a URL that
// holds a full commit (…/archive/COMMIT.zip, an archive of one commit); a
// pack's name installs whatever version the pack list holds.
func packPinned(s string) bool {
	if !strings.Contains(s, "://") {
		return false
	}
	for _, ext := range []string{".zip", ".tar.gz", ".tgz"} {
		s = strings.TrimSuffix(s, ext)
	}
	return commitURL(s)
}

// racoPins reads raco pkg install's --checksum, which holds the one
// package it installs to that content.
func racoPins(flag, val string) string {
	if flag == "--checksum" && commitSHA.MatchString(strings.TrimSpace(val)) {
		return "*"
	}
	return ""
}

// specName is the package a spec names, as the pins of its tool name it:
// a cabal or stack target without its component.
func specName(tool, s string) string {
	if tool == "cabal" || tool == "stack" {
		s, _, _ = strings.Cut(s, ":")
	}
	return s
}

// webi judges Webi (webi NAME[@VERSION]…), which downloads the installer
// script webinstall.dev serves for each name and runs it: what runs is
// whatever that site serves when the server starts.
func (a *auditor) webi(c invocation) cmdInfo {
	for _, w := range c.args() {
		if !strings.HasPrefix(w.text, "-") {
			a.inferred.Network, a.inferred.Exec = true, true
			a.add(CodeFetchExec, w.path, "runs "+quoted(c.name)+", which downloads an installer script from webinstall.dev and runs it")
			break
		}
	}
	return cmdInfo{name: c.name}
}
