package assess

import (
	"net/url"
	"regexp"
	"strings"
)

var (
	// pep440Pattern is what pep440Exact matches; it reads a version with
	// a character outside ASCII itself (where case folding reaches
	// beyond ASCII: ſ is s, K is k).
	pep440Pattern = regexp.MustCompile(`(?i)^v?\d+(\.\d+)*((a|b|c|rc|alpha|beta|pre|preview)\d*)?(\.?(post|dev)\d*)*(\+[a-z0-9.]+)?$`)
	semverExact   = regexp.MustCompile(`^[v=]?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	commitSHA     = regexp.MustCompile(`^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$`)
	goVersion     = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+incompatible)?$`)
	imageDigest   = regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)
)

// parseAnyURL parses s as an absolute URL with a host.
func parseAnyURL(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, false
	}
	return u, true
}

// sourceIsURL reports whether a package spec names a git or URL source
// rather than a package of a registry. A message names such a source
// without echoing it: it may carry credentials.
func sourceIsURL(spec string) bool {
	return strings.Contains(spec, "://") || strings.Contains(spec, "@") && strings.Contains(spec, ":") && !strings.HasPrefix(spec, "@")
}

// unpinnedMessage is the message of a package spec that tool runs or
// installs (verb) without an exact version, made in one concatenation, as
// most audits make at least one.
func unpinnedMessage(tool, verb, spec string) string {
	const tail = " without an exact version"
	t := safeText(tool, 40)
	if sourceIsURL(spec) {
		return "`" + t + "` " + verb + " a git or URL package source" + tail
	}
	return "`" + t + "` " + verb + " the package `" + safeText(spec, 40) + "`" + tail
}

// unpinned records a package spec that is not an exact version.
func (a *auditor) unpinned(spec arg, runner string) {
	a.add(CodeUnpinned, spec.path, unpinnedMessage(runner, "runs", spec.text))
	a.plainFetch(spec, runner, "fetches a package")
}

// plainFetch records a download of code that nothing protects on the way:
// w names it by a URL over plain http (http://, git+http://, pkg @
// http://), git:// or svn://, to a host other than this machine. A source pinned by
// a hash or a full commit is checked when it arrives, and its callers do
// not pass it here. subject says who downloads what (`npx` fetches a
// package). The subject is made only for a finding: most words are not
// URLs.
func (a *auditor) plainFetch(w arg, who, does string) {
	if !w.lit {
		return
	}
	_, u, ok := wordURL(strings.TrimSpace(w.text))
	if !ok || loopbackHost(u.Hostname()) {
		return
	}
	subject := quoted(who) + " " + does
	switch lower(u.Scheme) {
	case "http":
		a.add(CodeInsecureURL, w.path, subject+" from "+safeText(u.Host, 80)+" over plain http, which anyone on the way can replace")
	case "git", "svn":
		a.add(CodeInsecureURL, w.path, subject+" from "+safeText(u.Host, 80)+" over "+lower(u.Scheme)+"://, which neither encrypts nor authenticates, so anyone on the way can replace it")
	}
}

// gitPinned reports whether a git or URL source names a full commit: after
// '#' (npm) or after the last '@' of the path (pip, uv).
func gitPinned(s string) bool {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		frag := s[i+1:]
		frag = strings.TrimPrefix(frag, "commit=")
		if commitSHA.MatchString(frag) {
			return true
		}
		if strings.HasPrefix(frag, "sha256=") && len(frag) == len("sha256=")+64 {
			return true // an archive pinned by hash
		}
		s = s[:i]
	}
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			path := rest[j:]
			if k := strings.LastIndexByte(path, '@'); k >= 0 && commitSHA.MatchString(path[k+1:]) {
				return true
			}
		}
	}
	return false
}

// localSpec reports whether a spec names a local path (nothing is fetched).
func localSpec(s string) bool {
	return strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "/") ||
		strings.HasPrefix(s, "file:") || strings.HasPrefix(s, "link:") || strings.HasPrefix(s, "~/") ||
		(len(s) > 2 && s[1] == ':' && (s[2] == '\\' || s[2] == '/'))
}

// npmPinned reports whether an npm package spec pins an exact version:
// name@1.2.3, @scope/name@1.2.3, or a git source at a full commit. Dist-tags
// (latest, next, main), ranges (^1, ~1.2, >=1, 1, 1.x) and tarball URLs do
// not pin.
func npmPinned(spec string) bool {
	s := strings.TrimPrefix(spec, "npm:")
	switch {
	case localSpec(s):
		return true
	case strings.Contains(s, "://") || strings.HasPrefix(s, "git+") || strings.HasPrefix(s, "github:") ||
		strings.HasPrefix(s, "gitlab:") || strings.HasPrefix(s, "bitbucket:") || strings.HasPrefix(s, "gist:"):
		return gitPinned(s)
	case !strings.HasPrefix(s, "@") && strings.Contains(s, "/"):
		return gitPinned(s) // owner/repo is a GitHub shorthand
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 {
		return false
	}
	return semverExact.MatchString(s[at+1:])
}

// pyPinned reports whether a Python requirement pins an exact version:
// name==1.2.3, name===x, name[extra]==1.2.3, uv's name@1.2.3, or a VCS source
// at a full commit.
func pyPinned(spec string) bool {
	s := strings.TrimSpace(spec)
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = strings.TrimSpace(s[:i]) // environment marker
	}
	switch {
	case localSpec(s):
		return true
	case strings.Contains(s, "://") || strings.HasPrefix(s, "git+"):
		return gitPinned(s)
	}
	if i := strings.Index(s, "=="); i >= 0 {
		v := strings.TrimSpace(strings.TrimPrefix(s[i+2:], "="))
		if strings.HasPrefix(s[i+2:], "=") {
			return v != "" // === is arbitrary equality
		}
		return pep440Exact(v)
	}
	if strings.ContainsAny(s, "<>~!=") {
		return false
	}
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		return pep440Exact(strings.TrimSpace(s[at+1:]))
	}
	return false
}

// imagePinned reports whether a container image reference pins its content:
// a digest pins; a tag pins unless it is missing or floating (latest, main,
// edge, nightly …). A registry port (localhost:5000/img) is not a tag.
func imagePinned(ref string) (pinned bool, why string) {
	r := strings.ToLower(ref)
	if imageDigest.MatchString(r) {
		return true, ""
	}
	if strings.Contains(r, "@") {
		return false, "has a malformed digest"
	}
	slash := strings.LastIndexByte(r, '/')
	colon := strings.LastIndexByte(r, ':')
	if colon <= slash {
		return false, "has no tag, so it runs whatever latest is"
	}
	switch r[colon+1:] {
	case "latest", "main", "master", "edge", "nightly", "dev", "develop", "stable", "head":
		return false, "uses a floating tag"
	}
	return true, ""
}

// Each package manager's options that take the next word as their value
// when it is not joined by '=', wherever they stand: before the
// subcommand (`npm --loglevel silent exec pkg`, `pnpm --store-dir D dlx
// pkg`, `bun --cwd D x pkg`) or among a runner's own options (`npx
// --registry URL pkg`). Read as a flag alone, the value would be taken for
// the subcommand or the package, and what runs would go unjudged.
var (
	// npm's settings whose type is not a boolean (strings, paths, URLs,
	// numbers, enumerations), with the short forms that stand for one.
	npmValueOptions = set("--registry", "--cache", "--prefix", "-C", "--userconfig", "--globalconfig",
		"--workspace", "-w", "--node-options", "--shell", "--script-shell", "--loglevel", "--logs-dir",
		"--logs-max", "--ca", "--cafile", "--cert", "--key", "--proxy", "--https-proxy", "--noproxy",
		"--local-address", "--scope", "--tag", "--otp", "--before", "--location", "-L", "--omit",
		"--include", "--install-strategy", "--user-agent", "--auth-type", "--fetch-retries",
		"--fetch-retry-factor", "--fetch-retry-mintimeout", "--fetch-retry-maxtimeout", "--fetch-timeout",
		"--maxsockets", "--editor", "--browser", "--viewer", "--git", "--node-gyp", "--color", "--depth",
		"--lockfile-version", "--cpu", "--os", "--libc", "--replace-registry-host", "--heading", "--umask",
		"--message", "-m", "--preid", "--save-prefix", "--tag-version-prefix", "--init-module",
		"--pack-destination", "--cidr", "--which", "--expect-result-count", "--provenance-file", "--allow-git",
		"--package",
		// npm takes an option by any prefix that no other of its
		// settings shares: --reg is --registry.
		"--reg", "--regi", "--regis", "--regist", "--registr")
	pnpmValueOptions = set("-C", "--dir", "--filter", "-F", "--filter-prod", "--test-pattern",
		"--changed-files-ignore-pattern", "--reporter", "--loglevel", "--store-dir", "--virtual-store-dir",
		"--modules-dir", "--lockfile-dir", "--global-dir", "--global-bin-dir", "--cache-dir", "--state-dir",
		"--registry", "--package", "--allow-build", "--workspace-concurrency", "--network-concurrency",
		"--child-concurrency", "--use-node-version", "--node-linker", "--package-import-method",
		"--resolution-mode", "--npm-path", "--resume-from")
	yarnValueOptions = set("--cwd", "--modules-folder", "--cache-folder", "--global-folder", "--link-folder",
		"--preferred-cache-folder", "--mutex", "--network-timeout", "--network-concurrency", "--registry",
		"--use-yarnrc", "--proxy", "--https-proxy", "--otp")
	bunValueOptions = set("--cwd", "--env-file", "--config", "-c", "--preload", "-r", "--require", "--import",
		"--define", "-d", "--loader", "-l", "--tsconfig-override", "--jsx-factory", "--jsx-fragment",
		"--jsx-import-source", "--jsx-runtime", "--main-fields", "--extension-order", "--conditions",
		"--origin", "--port", "--shell", "--console-depth", "--fetch-preconnect", "--max-http-header-size",
		"--dns-result-order", "--elide-lines", "--filter", "-F", "--user-agent", "--title",
		"--unhandled-rejections")
)

// managerValueOptions returns the options of the package manager or
// runner named name (npm, npx, pnpm, pnpx, yarn, bun, bunx, or a runner
// such as "pnpm dlx") that take a value.
func managerValueOptions(name string) map[string]bool {
	if i := strings.IndexByte(name, ' '); i > 0 {
		name = name[:i]
	}
	switch name {
	case "pnpm", "pnpx":
		return pnpmValueOptions
	case "yarn":
		return yarnValueOptions
	case "bun", "bunx":
		return bunValueOptions
	}
	return npmValueOptions
}

// managerSub returns the words of a package manager's command line from
// its subcommand on, past the options before it (an empty list when
// there is none). For bun it returns nil when an option before any
// subcommand is inline code (-e, --eval, -p, --print): bun runs the code.
func managerSub(name string, args []arg) []arg {
	withValue := managerValueOptions(name)
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			return args[i+1:]
		case len(t) < 2 || t[0] != '-':
			return args[i:]
		case name == "bun" && (t == "-e" || t == "--eval" || t == "-p" || t == "--print" ||
			strings.HasPrefix(t, "--eval=") || strings.HasPrefix(t, "--print=")):
			return nil
		case withValue[t]:
			i++
		case name == "npm" && npmBoolValue(args, i):
			i++ // --yes false: npm reads the word as the option's value
		}
	}
	return []arg{}
}

// npmBoolValue reports whether the word after the option args[i] is its
// value although not joined to it by '=': npm reads `--name true` and
// `--name false` as a value for every option it does not know to take
// another kind of value (--strict-ssl false, --yes false), rather than as
// the package.
func npmBoolValue(args []arg, i int) bool {
	t := args[i].text
	if !strings.HasPrefix(t, "--") || strings.Contains(t, "=") || i+1 >= len(args) {
		return false
	}
	v := args[i+1].text
	return v == "true" || v == "false"
}

// npmRunner judges npx, pnpx, bunx, npm exec, pnpm dlx, yarn dlx, bun x:
// the packages (--package/-p or the first positional) must be pinned; -c
// runs a script through a shell. env is what the runner inherits, which
// the command it runs inherits in turn.
func (a *auditor) npmRunner(args []arg, runner string, depth int, env map[string]string) {
	var specs []arg
	var first *arg // the package, or with -p the command
	cmd := 0       // first's index
	withValue := managerValueOptions(runner)
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			if i+1 < len(args) {
				first, cmd = &args[i+1], i+1
			}
			i = len(args)
		case t == "-p" || t == "--package":
			if i+1 < len(args) {
				specs = append(specs, args[i+1])
				i++
			}
		case strings.HasPrefix(t, "--package="):
			w := args[i]
			w.text = strings.TrimPrefix(t, "--package=")
			specs = append(specs, w)
		case (t == "--node-options" || strings.HasPrefix(t, "--node-options=")) && (runner == "npx" || strings.HasPrefix(runner, "npm ")):
			if w, ok := optValue(args, &i, strings.TrimPrefix(t, "--node-options="), strings.HasPrefix(t, "--node-options=")); ok {
				a.nodeOptions(w, depth)
			}
		case t == "-c" || t == "--call" || strings.HasPrefix(t, "--call="):
			w, ok := optValue(args, &i, strings.TrimPrefix(t, "--call="), strings.HasPrefix(t, "--call="))
			if ok {
				a.inlineShell(runner+" -c", w, depth, true, nil)
			}
			a.checkNpmSpecs(specs, runner)
			return
		case withValue[t]:
			i++
		case strings.HasPrefix(t, "-"):
			if npmBoolValue(args, i) {
				i++ // --yes false: npm reads the word as the option's value
			}
		default:
			first, cmd = &args[i], i
			i = len(args)
		}
	}
	fromFirst := len(specs) == 0 && first != nil
	if fromFirst {
		specs = append(specs, *first)
	}
	a.checkNpmSpecs(specs, runner)
	if first != nil && len(specs) == 1 && remoteProxies[npmName(specs[0].text)] {
		a.proxyTarget(args, first)
	}
	if first != nil && first.lit {
		// The program is the package's own (npx tsx@4 -e …) or one that
		// -p installed (npx -p tsx@4 tsx -e …).
		name := first.text
		if fromFirst {
			name = npmName(name)
			if bin, ok := npmBins[name]; ok {
				name = bin
			}
		}
		a.runnerCommand(name[strings.LastIndexByte(name, '/')+1:], args[cmd:], depth, !fromFirst, env)
	}
}

// checkNpmSpecs reports the npm specs that are not pinned.
func (a *auditor) checkNpmSpecs(specs []arg, runner string) {
	for _, s := range specs {
		a.lookalike(s, "package")
		if s.lit && !npmPinned(s.text) {
			a.unpinned(s, runner)
		}
	}
}

// remoteProxies are packages that bridge a local stdio client to a remote
// MCP endpoint given as an argument.
var remoteProxies = set("mcp-remote", "@modelcontextprotocol/mcp-remote")

// npmName is the package name of an npm spec, without its version.
func npmName(spec string) string {
	if at := strings.LastIndexByte(spec, '@'); at > 0 {
		return spec[:at]
	}
	return spec
}

// proxyTarget judges the endpoint a remote proxy connects to: the first
// http(s) URL among the words after the package.
func (a *auditor) proxyTarget(args []arg, pkg *arg) {
	after := false
	for i := range args {
		if &args[i] == pkg {
			after = true
			continue
		}
		if !after || !args[i].lit {
			continue
		}
		u, ok := parseEndpoint(args[i].text)
		if !ok {
			continue
		}
		a.inferred.Network = true
		if loopbackHost(u.Hostname()) {
			return
		}
		a.add(CodeRemoteEndpoint, args[i].path, "the server is a local proxy to the remote host "+safeText(u.Host, 80)+": your context leaves this machine")
		if !secureScheme(u.Scheme) {
			a.add(CodeInsecureURL, args[i].path, "the proxied endpoint uses plain http, so traffic and credentials travel unencrypted")
		}
		return
	}
}

// pyRunnerValueFlags are the options of uvx, uv tool run and pipx run that
// take a value.
var pyRunnerValueFlags = set("--python", "-p", "--index", "--index-url", "--extra-index-url", "--default-index",
	"--find-links", "-f", "--constraints", "-c", "--overrides", "--directory", "--project", "--config-file",
	"--cache-dir", "--python-preference", "--env-file", "--pip-args", "--backend", "--exclude-newer",
	"--index-strategy", "--resolution", "--prerelease", "--with-requirements", "--with-editable", "-b",
	"--build-constraints", "--keyring-provider", "--link-mode", "--color", "--allow-insecure-host", "--trusted-host")

// pyRunner judges uvx, uv tool run and pipx run: --from/--spec name the
// package (else the first positional does); --with adds packages. env is
// what the runner inherits, handed on to its command.
func (a *auditor) pyRunner(args []arg, runner string, depth int, env map[string]string) {
	if len(args) > 0 && (args[0].text == "run") {
		args = args[1:]
	}
	var specs []arg
	var from *arg
	cmd := -1 // the index of the command the runner starts
	withValue := pyRunnerValueFlags
	for i := 0; i < len(args); i++ {
		t := args[i].text
		name, val, hasVal := strings.Cut(t, "=")
		switch {
		case t == "--":
			if i+1 < len(args) {
				cmd = i + 1
				if from == nil {
					specs = append(specs, args[i+1])
				}
			}
			i = len(args)
		case name == "--from" || name == "--spec":
			w, ok := optValue(args, &i, val, hasVal)
			if ok {
				from = &w
			}
		case name == "--with" || name == "-w" && runner != "pipx run":
			if w, ok := optValue(args, &i, val, hasVal); ok {
				for _, part := range strings.Split(w.text, ",") {
					if part = strings.TrimSpace(part); part != "" {
						specs = append(specs, arg{text: part, path: w.path, lit: w.lit})
					}
				}
			}
		case withValue[name]:
			if w, ok := optValue(args, &i, val, hasVal); ok {
				a.requirementsURL(name, w, w.text, runner, "installs")
			}
		case strings.HasPrefix(t, "-"):
		default:
			cmd = i
			if from == nil {
				specs = append(specs, args[i])
			}
			i = len(args)
		}
	}
	if from != nil {
		specs = append(specs, *from)
	}
	for _, s := range specs {
		a.lookalike(s, "package")
		if s.lit && !pyPinned(s.text) {
			a.unpinned(s, runner)
		}
	}
	if cmd >= 0 && args[cmd].lit {
		// uvx python@3.12 -c …, uvx --from pkg python -c …: the command
		// named without its version.
		name := args[cmd].text
		if i := strings.IndexAny(name, "=<>!~@[ "); i > 0 {
			name = name[:i]
		}
		a.runnerCommand(name, args[cmd:], depth, from != nil, env)
	}
}

// optValue returns the value of an option written as --opt=value or
// --opt value, advancing *i past a separate value.
func optValue(args []arg, i *int, val string, hasVal bool) (arg, bool) {
	if hasVal {
		w := args[*i]
		w.text = val
		return w, true
	}
	if *i+1 < len(args) {
		*i++
		return args[*i], true
	}
	return arg{}, false
}

// nodeOptions judges the value of npm's --node-options, which npm hands
// to what it runs as NODE_OPTIONS: every Node.js process started under it
// reads the words as its own options (--require, --import, --loader …),
// and they are judged as they are on node's command line.
func (a *auditor) nodeOptions(w arg, depth int) {
	if !w.lit {
		return
	}
	words := nodeOptionWords(w.text)
	if len(words) == 0 {
		return
	}
	argv := make([]arg, 0, len(words)+1)
	argv = append(argv, arg{text: "node", path: w.path, lit: true})
	for _, s := range words {
		argv = append(argv, arg{text: s, path: w.path, lit: true})
	}
	a.command(argv, depth+1, ctxNested)
}

// nodeOptionWords splits a NODE_OPTIONS value into words as Node.js does:
// at spaces, where double quotes group and a backslash inside them keeps
// the next character. An unclosed quote is an error for node, which then
// does not start: nodeOptionWords returns nil.
func nodeOptionWords(s string) []string {
	var words []string
	var cur []byte
	in, started := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case in && c == '\\' && i+1 < len(s):
			i++
			cur = append(cur, s[i])
		case c == '"':
			in, started = !in, true
		case !in && c == ' ':
			if started {
				words = append(words, string(cur))
				cur, started = cur[:0], false
			}
		default:
			cur, started = append(cur, c), true
		}
	}
	if in {
		return nil
	}
	if started {
		words = append(words, string(cur))
	}
	return words
}

// dnxRunner judges .NET's dnx (and dotnet dnx, dotnet tool exec, named
// runner): pkg@1.2.3 or --version 1.2.3 pins.
func (a *auditor) dnxRunner(args []arg, runner string) {
	var spec *arg
	version := ""
	for i := 0; i < len(args); i++ {
		t := args[i].text
		name, val, hasVal := strings.Cut(t, "=")
		switch {
		case name == "--version" || name == "-v":
			if w, ok := optValue(args, &i, val, hasVal); ok {
				version = w.text
			}
		case name == "--source" || name == "--add-source":
			if w, ok := optValue(args, &i, val, hasVal); ok {
				a.packageSource(quoted(runner)+" downloads packages", w)
			}
		case name == "--configfile" || name == "--verbosity":
			if !hasVal {
				i++
			}
		case strings.HasPrefix(t, "-"):
		default:
			if spec == nil {
				spec = &args[i]
			}
		}
		if spec != nil && version != "" {
			break
		}
	}
	if spec == nil || !spec.lit {
		return
	}
	if at := strings.LastIndexByte(spec.text, '@'); at > 0 && semverExact.MatchString(spec.text[at+1:]) {
		return
	}
	if semverExact.MatchString(version) {
		return
	}
	a.unpinned(*spec, runner)
}

// goValueFlags are the build options of go run, go install and the other
// building subcommands that take the next word as their value (Go's flag
// package reads -name and --name alike), so that the word after one is not
// read as the package.
var goValueFlags = func() map[string]bool {
	names := []string{"C", "p", "asmflags", "buildmode", "compiler", "gccgoflags", "gcflags", "installsuffix",
		"ldflags", "mod", "modfile", "overlay", "pgo", "pkgdir", "tags", "toolexec", "covermode", "coverpkg", "o",
		"exec", "debug-actiongraph", "debug-runtime-trace", "debug-trace"}
	m := make(map[string]bool, 2*len(names))
	for _, n := range names {
		m["-"+n], m["--"+n] = true, true
	}
	return m
}()

// goRun judges `go run pkg@version` and `go install pkg@version`.
func (a *auditor) goRun(args []arg, get bool) {
	rest := skipFlags(args, goValueFlags)
	if len(rest) == 0 || !rest[0].lit {
		return
	}
	s := rest[0].text
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		// A local package; but go get of a module path without a
		// version fetches its newest release.
		if first, _, _ := strings.Cut(s, "/"); get && strings.Contains(first, ".") && !strings.HasPrefix(first, ".") {
			a.inferred.Network = true
			a.unpinnedInstall(rest[0], "go get")
		}
		return
	}
	a.inferred.Network = true
	if !goVersion.MatchString(s[at+1:]) && !commitSHA.MatchString(s[at+1:]) {
		a.unpinned(rest[0], "go")
	}
}

var uvRunValueFlags = set("--python", "-p", "--package", "--extra", "--group", "--only-group", "--directory",
	"--project", "--index", "--index-url", "--extra-index-url", "--default-index", "--env-file",
	"--config-file", "--cache-dir", "-f", "--find-links", "--with-requirements", "--with-editable",
	"--python-preference", "--no-group", "--exclude-newer", "--allow-insecure-host", "--trusted-host", "--index-strategy",
	"--keyring-provider", "--resolution", "--prerelease", "--link-mode", "--color")

// peelUVRun judges `uv run`'s options (its --with packages must be pinned)
// and returns the command it runs.
func (a *auditor) peelUVRun(args []arg) []arg {
	withValue := uvRunValueFlags
	for i := 0; i < len(args); i++ {
		t := args[i].text
		name, val, hasVal := strings.Cut(t, "=")
		switch {
		case t == "--":
			return args[i+1:]
		case name == "--with" || name == "-w":
			if w, ok := optValue(args, &i, val, hasVal); ok {
				for _, part := range strings.Split(w.text, ",") {
					if part = strings.TrimSpace(part); part != "" && w.lit && !pyPinned(part) {
						a.unpinned(arg{text: part, path: w.path, lit: true}, "uv run --with")
					}
				}
			}
		case withValue[name]:
			if w, ok := optValue(args, &i, val, hasVal); ok {
				a.requirementsURL(name, w, w.text, "uv run", "installs")
			}
		case strings.HasPrefix(t, "-"):
		default:
			return args[i:]
		}
	}
	return []arg{}
}

// uvOther judges the other uv subcommands that fetch packages: what uv pip
// install and uv tool install install must be pinned.
func (a *auditor) uvOther(argv []arg) {
	if len(argv) > 1 {
		switch argv[1].text {
		case "pip", "sync", "add", "tool", "python", "lock", "venv", "init":
			a.inferred.Network = true
		}
	}
	if len(argv) > 2 && (argv[1].text == "pip" || argv[1].text == "tool") && argv[2].text == "install" {
		a.pyInstall(argv[3:], "uv "+argv[1].text+" install")
	}
}

// pep440Exact reports whether v is an exact PEP 440 version, the way
// registryd reads one: case aside, an optional v, a release (1, 1.2,
// 1.2.3 …), an optional pre-release (a, b, c, rc, alpha, beta, pre,
// preview, each with an optional number), any number of post- and
// dev-releases (an optional dot, post or dev, an optional number) and an
// optional local version (+ and letters, digits and dots). It is
// pep440Pattern (the tests hold it to it) matched by hand for ASCII,
// without the allocations of the regexp package's backtracker, as every
// Python requirement is.
func pep440Exact(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] >= 0x80 {
			return pep440Pattern.MatchString(v)
		}
	}
	if len(v) > 0 && (v[0] == 'v' || v[0] == 'V') {
		v = v[1:]
	}
	n := leadingDigits(v)
	if n == 0 {
		return false
	}
	v = v[n:]
	for len(v) > 1 && v[0] == '.' && isDigit(v[1]) {
		v = v[1+leadingDigits(v[1:]):]
	}
	if pep440Tail(v) {
		return true
	}
	// A pre-release tag: a and alpha, pre and preview both begin the
	// rest, so each tag that does is tried.
	for _, tag := range pep440PreTags {
		if len(v) >= len(tag) && strings.EqualFold(v[:len(tag)], tag) {
			rest := v[len(tag):]
			if pep440Tail(rest[leadingDigits(rest):]) {
				return true
			}
		}
	}
	return false
}

var pep440PreTags = []string{"a", "b", "c", "rc", "alpha", "beta", "pre", "preview"}

// pep440Tail reports whether v is post- and dev-releases then an optional
// local version, as pep440Exact reads them after the pre-release.
func pep440Tail(v string) bool {
	for {
		w := v
		if len(w) > 0 && w[0] == '.' {
			w = w[1:]
		}
		switch {
		case len(w) >= 4 && strings.EqualFold(w[:4], "post"):
			w = w[4:]
		case len(w) >= 3 && strings.EqualFold(w[:3], "dev"):
			w = w[3:]
		default:
			if v == "" {
				return true
			}
			if v[0] != '+' || len(v) == 1 {
				return false
			}
			for i := 1; i < len(v); i++ {
				if c := v[i] | 0x20; !(isDigit(v[i]) || 'a' <= c && c <= 'z' || v[i] == '.') {
					return false
				}
			}
			return true
		}
		v = w[leadingDigits(w):]
	}
}

// leadingDigits is the number of ASCII digits s begins with.
func leadingDigits(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
