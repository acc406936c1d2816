package assess

import (
	"regexp"
	"strings"
)

// denoValueFlags are the options of deno run, serve and x that take a value
// as the next word; denoInstallValues those of deno install, add and
// compile beyond them.
var (
	denoValueFlags = set("-c", "--config", "--import-map", "--cert", "--location", "--seed", "--ext", "-L",
		"--log-level", "--preload", "--require", "--env-file", "--lock", "--port", "--host")
	denoInstallValues = set("-c", "--config", "--import-map", "--cert", "--location", "--seed", "--ext", "-L",
		"--log-level", "--preload", "--require", "--env-file", "--lock", "--port", "--host",
		"-n", "--name", "--root", "-o", "--output", "--target", "--include", "--exclude", "--icon")
)

// deno judges Deno: `deno eval` is inline code; `deno run` and `deno serve`
// run a module and `deno x` (dx) a package, fetched at start when it is a
// jsr:, npm: or http(s) specifier, which must then pin an exact version.
func (a *auditor) deno(c invocation) cmdInfo {
	info := cmdInfo{name: "deno"}
	if len(c.args()) == 0 {
		info.stdinScript = true // the REPL reads what is piped in
		return info
	}
	// Options may come before the subcommand (deno --quiet run …), and
	// before a module run without one (deno -A jsr:@scope/server).
	args := skipFlags(c.args(), denoValueFlags)
	if len(args) == 0 {
		return info
	}
	sub := args[0].text
	a.denoOptions(c.args(), denoValueFlags)
	switch sub {
	case "eval":
		if rest := skipFlags(args[1:], denoValueFlags); len(rest) > 0 {
			a.add(CodeInlineCode, rest[0].path, "runs a `deno` program written inline in the wiring")
			if rest[0].lit {
				a.codeHeuristics(rest[0].text, rest[0].path)
				a.inlineCommands("deno", rest[0].text, rest[0].path, c.depth) // inlinecalls.go
			}
		}
	case "run", "serve", "x":
		runner := "deno " + sub
		a.denoOptions(args[1:], denoValueFlags)
		if rest := skipFlags(args[1:], denoValueFlags); len(rest) > 0 {
			if rest[0].text == "-" {
				info.stdinScript = true
				break
			}
			a.denoModule(rest[0], runner, "runs", sub == "x")
		}
	case "install", "i", "add", "compile":
		// deno install -g and deno compile take one module (the words
		// after it are its arguments); deno install and deno add without
		// -g add each package they name to the project.
		a.inferred.Network = true
		a.denoOptions(args[1:], denoInstallValues)
		global := sub == "compile"
		for _, w := range args[1:] {
			if w.text == "--entrypoint" || w.text == "-e" {
				return info // the operands are the project's own files
			}
			global = global || w.text == "-g" || w.text == "--global"
		}
		verb := "installs"
		if sub == "compile" {
			verb = "compiles"
		}
		for _, w := range skipFlags(args[1:], denoInstallValues) {
			if w.text == "--" || strings.HasPrefix(w.text, "-") {
				continue
			}
			// Without -g a bare name must be scoped (@std/fs, from JSR);
			// deno refuses an unscoped one.
			a.denoModule(w, "deno "+sub, verb, !global && strings.HasPrefix(w.text, "@"))
			if global {
				break
			}
		}
	case "cache", "outdated", "upgrade":
		a.inferred.Network = true
	case "task":
		a.inferred.Exec = true // tasks run through Deno's shell
	default:
		a.denoModule(args[0], "deno", "runs", false) // deno main.ts is deno run main.ts
	}
	return info
}

// dx judges dx, Deno's package runner (deno x).
func (a *auditor) dx(c invocation) cmdInfo {
	if rest := skipFlags(c.args(), denoValueFlags); len(rest) > 0 {
		a.denoOptions(c.args(), denoValueFlags)
		a.denoModule(rest[0], "dx", "runs", true)
	}
	return cmdInfo{name: "dx"}
}

// denoOptions judges the options before a Deno module that name code or
// resolution fetched at start: an import map read from a URL decides what
// every bare import loads, and --preload/--require modules run first.
func (a *auditor) denoOptions(args []arg, withValue map[string]bool) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" || len(t) < 2 || t[0] != '-' {
			return
		}
		name, value, joined := strings.Cut(t, "=")
		if !joined && withValue[name] {
			if i+1 >= len(args) {
				return
			}
			i++
			value = args[i].text
			if !args[i].lit {
				continue
			}
		} else if !joined || !args[i].lit {
			continue
		}
		w := arg{text: value, path: args[i].path, lit: true}
		switch name {
		case "--import-map":
			a.denoImportMap(w)
		case "--preload", "--require":
			a.denoModule(w, "deno", "preloads", false)
		}
	}
}

// denoImportMap judges an import map given by URL: fetched at start, over
// https, and pinned like a module URL, since it can point every import
// elsewhere.
func (a *auditor) denoImportMap(w arg) {
	lower := strings.ToLower(w.text)
	if !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://") {
		return
	}
	a.inferred.Network = true
	u, ok := parseAnyURL(w.text)
	if !ok {
		a.add(CodeUnpinned, w.path, "`deno` reads its import map from a URL without an exact version")
		return
	}
	a.urlSecrets(w.text, w.path)
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		a.add(CodeInsecureURL, w.path, "`deno` reads its import map over plain http, which anyone on the way can replace")
	}
	if !urlPinned(u.Path) {
		a.add(CodeUnpinned, w.path, "`deno` reads its import map from "+safeText(u.Host, 80)+
			" without an exact version in its URL, and the map decides what every import loads")
	}
}

// denoModule judges the module or package a Deno runner starts (verb:
// runs, installs, compiles). pkg: a bare name is a package (deno x, dx:
// npm; deno add: JSR when scoped).
func (a *auditor) denoModule(spec arg, runner, verb string, pkg bool) {
	if !spec.lit {
		return
	}
	s := spec.text
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "data:"):
		a.add(CodeInlineCode, spec.path, quoted(runner)+" "+verb+" a program written inline in the wiring as a data: URL module")
		if spec.lit {
			a.inlineCode(s, spec.path)
		}
	case strings.HasPrefix(s, "npm:"):
		a.inferred.Network = true
		if !npmPinned(npmPackage(s[len("npm:"):])) {
			a.add(CodeUnpinned, spec.path, quoted(runner)+" "+verb+" the npm package "+quoted(npmName(npmPackage(s[len("npm:"):])))+" without an exact version")
		}
	case strings.HasPrefix(s, "jsr:"):
		a.inferred.Network = true
		if !jsrPinned(s[len("jsr:"):]) {
			a.add(CodeUnpinned, spec.path, quoted(runner)+" "+verb+" the JSR package "+quoted(jsrName(s[len("jsr:"):]))+" without an exact version")
		}
	case strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "http://"):
		a.codeURL(spec, runner, verb, "module")
	case pkg && !localSpec(s):
		a.inferred.Network = true
		if !npmPinned(npmPackage(s)) {
			a.add(CodeUnpinned, spec.path, unpinnedMessage(runner, verb, spec.text))
		}
	}
}

// urlScriptRunners are the runners that run a script named by its URL
// (groovy URL, kscript URL, scala-cli [run] URL, zx URL), with the options of each
// that take a value.
var urlScriptRunners = map[string]map[string]bool{
	"groovy": set("-cp", "-classpath", "--classpath", "-l", "-a", "--encoding", "--configscript", "-b", "--basescript",
		"-D", "--define"),
	"scala": set("-cp", "--classpath", "--class-path", "-S", "--scala-version", "--dep", "--dependency", "-M",
		"--main-class", "-O", "--jvm", "--java-opt", "-J", "--server", "--platform", "--js-version"),
	"scala-cli": set("-cp", "--classpath", "--class-path", "-S", "--scala-version", "--dep", "--dependency", "-M",
		"--main-class", "-O", "--jvm", "--java-opt", "-J", "--server", "--platform", "--js-version"),
	"kscript": set("-d", "--dependency"),
	"zx":      set("--shell", "--prefix", "--postfix", "--cwd", "--ext", "--registry", "--env"),
}

// urlScript judges the script a runner of urlScriptRunners is given when
// it is named by an http(s) URL: fetched at start, like uv run's.
func (a *auditor) urlScript(c invocation) {
	values, ok := urlScriptRunners[c.name]
	if !ok {
		return
	}
	rest := skipFlags(c.args(), values)
	if len(rest) > 0 && rest[0].text == "run" && c.name != "groovy" && c.name != "kscript" {
		rest = skipFlags(rest[1:], values)
	}
	if len(rest) == 0 || !rest[0].lit {
		return
	}
	if l := lower(rest[0].text); strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
		a.codeURL(rest[0], c.name, "runs", "script")
	}
}

// codeURL judges code a runner fetches from an http(s) URL at start (a
// Deno module, a script uv runs): it uses the network, must come over
// https, carries no credential, and must name an exact version or commit
// in its path. what names the code in messages (module, script).
func (a *auditor) codeURL(spec arg, runner, verb, what string) {
	a.inferred.Network = true
	u, ok := parseAnyURL(spec.text)
	if !ok {
		a.add(CodeUnpinned, spec.path, quoted(runner)+" "+verb+" a "+what+" URL without an exact version")
		return
	}
	a.urlSecrets(spec.text, spec.path)
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		a.add(CodeInsecureURL, spec.path, quoted(runner)+" fetches code over plain http, which anyone on the way can replace")
	}
	if !urlPinned(u.Path) {
		a.add(CodeUnpinned, spec.path, quoted(runner)+" "+verb+" a "+what+" from "+safeText(u.Host, 80)+" without an exact version in its URL")
	}
}

// npmPackage cuts the path inside a package from an npm specifier
// (@scope/name@1.2.3/bin/cli.js is @scope/name@1.2.3).
func npmPackage(s string) string {
	s = strings.TrimPrefix(s, "/")
	from := 0
	if strings.HasPrefix(s, "@") {
		i := strings.IndexByte(s, '/')
		if i < 0 {
			return s
		}
		from = i + 1
	}
	if j := strings.IndexByte(s[from:], '/'); j >= 0 {
		return s[:from+j]
	}
	return s
}

// jsrPinned reports whether a jsr: specifier (@scope/name@1.2.3[/path])
// pins an exact version.
func jsrPinned(s string) bool {
	p := npmPackage(s)
	at := strings.LastIndexByte(p, '@')
	return at > 0 && semverExact.MatchString(p[at+1:])
}

// jsrName is the package name of a jsr: specifier.
func jsrName(s string) string { return npmName(npmPackage(s)) }

// versionSegment is a path segment that names an exact version: mod@1.2.3,
// @v1.2.3, 1.2.3 (jsr.io, cdn paths) or a full commit.
var versionSegment = regexp.MustCompile(`^(.*@)?v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$|^[0-9a-f]{40}$`)

// urlPinned reports whether a module URL's path names an exact version in
// one of its segments (deno.land/x/mod@v1.0.0/mod.ts, esm.sh/pkg@1.2.3,
// jsr.io/@scope/name/1.2.3/mod.ts, raw.githubusercontent.com/o/r/<commit>/x).
func urlPinned(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if versionSegment.MatchString(seg) {
			return true
		}
	}
	return false
}
