package assess

import "strings"

// Writes to the settings a package tool keeps for the user: npm, pnpm and
// yarn config set, pip config set, go env -w, gem sources --add, conda
// config, dotnet nuget add source. Every later use of the tool reads them,
// on every project of the user's: a setting that changes where packages
// come from, turns certificate checks off or names a program the tool
// runs outlives the server, as a git hooks directory written with git
// config --global does (persistence). Its value is judged as the variable
// that stands for the same setting is: a plain-http source or checks
// turned off are insecure_url.

// settingWriters says, per program, how its settings are written.
var settingWriters = map[string]func(a *auditor, c invocation){
	"npm": (*auditor).npmConfigSet, "pnpm": (*auditor).npmConfigSet, "yarn": (*auditor).npmConfigSet,
	"pip": (*auditor).pipConfigSet, "pip3": (*auditor).pipConfigSet,
	"go":    (*auditor).goEnvWrite,
	"gem":   (*auditor).gemSourcesAdd,
	"conda": (*auditor).condaConfig, "mamba": (*auditor).condaConfig, "micromamba": (*auditor).condaConfig,
	"dotnet": (*auditor).nugetSourceAdd,
}

// settingWritten records a setting of tool written into the user's
// settings for every later use.
func (a *auditor) settingWritten(tool, key string, at arg) {
	a.add(CodePersistence, at.path, "writes "+quoted(tool)+"'s settings ("+safeText(key, 60)+
		"), which every later use of it reads, on every project")
}

// npmSettings are the npm (and pnpm) settings that say where packages
// come from, whether certificates are checked, or what program npm runs;
// a scope's registry (@scope:registry) is one too.
var npmSettings = set("registry", "strict-ssl", "ca", "cafile", "script-shell", "shell", "node-options",
	"ignore-scripts", "git", "onload-script", "prefix", "globalconfig", "userconfig", "init-module",
	"replace-registry-host", "npmregistryserver", "enablestrictssl", "unsafehttpwhitelist", "httpsca",
	"cafilepath")

// npmConfigSet judges `npm config set KEY VALUE…` (also KEY=VALUE, npm set
// and npm c set, pnpm's and yarn's config set).
func (a *auditor) npmConfigSet(c invocation) {
	args := managerSub(c.name, c.args())
	switch {
	case len(args) > 1 && (args[0].text == "config" || args[0].text == "c") && args[1].text == "set":
		args = args[2:]
	case len(args) > 0 && args[0].text == "set" && c.name == "npm":
		args = args[1:]
	default:
		return
	}
	ops := operands(args, set("--location", "-L", "--userconfig", "--globalconfig"), false, nil)
	for i := 0; i < len(ops); i++ {
		key, val := ops[i], arg{}
		if k, v, ok := strings.Cut(key.text, "="); ok && !strings.HasPrefix(k, "//") {
			key.text, val = k, arg{text: v, path: key.path, lit: key.lit}
		} else if i+1 < len(ops) {
			i++
			val = ops[i]
		} else {
			return
		}
		if !key.lit || !val.lit {
			continue
		}
		k := strings.ToLower(key.text)
		last := k[strings.LastIndexAny(k, ".:")+1:]
		switch {
		case last == "registry" || last == "npmregistryserver":
			a.packageSource(quoted(c.name)+" downloads packages", val)
		case last == "strict-ssl" || last == "enablestrictssl":
			if strings.EqualFold(strings.TrimSpace(val.text), "false") {
				a.add(CodeInsecureURL, val.path, quoted(c.name)+" is set to turn certificate checks off ("+
					safeText(key.text, 40)+"), so what it downloads can be replaced on the way")
			}
		case last == "unsafehttpwhitelist":
			a.add(CodeInsecureURL, val.path, quoted(c.name)+" is set to download from "+safeText(val.text, 60)+
				" over plain http, which anyone on the way can replace")
		}
		if npmSettings[last] {
			a.settingWritten(c.name, key.text, val)
		}
	}
}

// pipSettings are pip's settings (by their name without the section)
// that say where packages come from or whose certificate is trusted.
var pipSettings = set("index-url", "extra-index-url", "find-links", "trusted-host", "cert", "client-cert",
	"index", "default-index")

// pipConfigSet judges `pip config [--global|--user|--site] set
// SECTION.NAME VALUE`, as the PIP_NAME variable of the same setting is.
func (a *auditor) pipConfigSet(c invocation) {
	args := skipFlags(c.args(), pipGlobalValues)
	if len(args) == 0 || args[0].text != "config" {
		return
	}
	ops := operands(args[1:], set("--editor"), false, nil)
	if len(ops) < 3 || ops[0].text != "set" || !ops[1].lit || !ops[2].lit {
		return
	}
	key, val := ops[1].text, ops[2]
	name := strings.ToLower(key[strings.LastIndexByte(key, '.')+1:])
	switch name {
	case "index-url", "extra-index-url", "find-links", "index", "default-index":
		for _, f := range strings.Fields(val.text) { // pip's lists are blank-separated
			a.packageSource(quoted(c.name)+" downloads packages", arg{text: f, path: val.path, lit: true})
		}
	case "trusted-host":
		if v := strings.TrimSpace(val.text); v != "" && !placeholder(v) {
			a.add(CodeInsecureURL, val.path, quoted(c.name)+" is set to turn certificate checks off (trusted-host), so what it downloads can be replaced on the way")
		}
	}
	if pipSettings[name] {
		a.settingWritten(c.name, key, val)
	}
}

// goSettings are the variables of go env -w that say where modules come
// from, whether they are checked, or what the go command runs.
var goSettings = set("GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE", "GOPRIVATE", "GONOPROXY",
	"GOFLAGS", "GOTOOLCHAIN", "CC", "CXX", "GOVCS", "GOAUTH")

// goEnvWrite judges `go env -w NAME=VALUE…`: each written variable is
// judged as the variable itself is, and stays in go's settings.
func (a *auditor) goEnvWrite(c invocation) {
	args := skipFlags(c.args(), goGlobalValues)
	if len(args) < 2 || args[0].text != "env" {
		return
	}
	write := false
	for _, w := range args[1:] {
		if w.text == "-w" {
			write = true
			continue
		}
		k, v, ok := strings.Cut(w.text, "=")
		if !write || !ok || !w.lit {
			continue
		}
		val := arg{text: v, path: w.path, lit: true}
		a.envTrust(k, val)
		if goSettings[strings.ToUpper(k)] {
			a.settingWritten("go", k, val)
		}
	}
}

// gemSourcesAdd judges `gem sources --add URL` (-a URL).
func (a *auditor) gemSourcesAdd(c invocation) {
	args := skipFlags(c.args(), gemGlobalValues)
	if len(args) == 0 || args[0].text != "sources" {
		return
	}
	optionWords(args[1:], set("-a", "--add", "-r", "--remove", "-p", "--http-proxy"), true, func(flag string, w arg, val string) {
		if flag == "-a" || flag == "--add" {
			w.text = val
			a.packageSource("`gem` downloads gems", w)
			a.settingWritten("gem", "sources", w)
		}
	})
}

// condaSettings are conda's settings that say where packages come from
// or whether certificates are checked.
var condaSettings = set("channels", "default_channels", "channel_alias", "custom_channels", "ssl_verify",
	"allowlist_channels", "whitelist_channels")

// condaConfig judges `conda config --add|--append|--prepend|--set KEY
// VALUE`.
func (a *auditor) condaConfig(c invocation) {
	args := c.args()
	if len(args) == 0 || args[0].text != "config" {
		return
	}
	args = args[1:]
	for i := 0; i+2 < len(args); i++ {
		switch args[i].text {
		case "--add", "--append", "--prepend", "--set":
		default:
			continue
		}
		key, val := args[i+1], args[i+2]
		if !key.lit || !val.lit {
			continue
		}
		k := strings.ToLower(key.text)
		switch {
		case k == "ssl_verify" && (strings.EqualFold(val.text, "false") || strings.EqualFold(val.text, "no")):
			a.add(CodeInsecureURL, val.path, quoted(c.name)+" is set to turn certificate checks off (ssl_verify), so what it downloads can be replaced on the way")
		case k != "ssl_verify":
			a.packageSource(quoted(c.name)+" downloads packages", val)
		}
		if condaSettings[k] {
			a.settingWritten(c.name, key.text, val)
		}
		i += 2
	}
}

// nugetSourceAdd judges `dotnet nuget add source URL`.
func (a *auditor) nugetSourceAdd(c invocation) {
	args := skipFlags(c.args(), dotnetHostValues)
	if len(args) < 4 || args[0].text != "nuget" || args[1].text != "add" || args[2].text != "source" {
		return
	}
	ops := operands(args[3:], set("-n", "--name", "-u", "--username", "-p", "--password", "--configfile",
		"--valid-authentication-types", "--protocol-version"), false, nil)
	if len(ops) == 0 {
		return
	}
	a.packageSource("`dotnet` downloads packages", ops[0])
	a.settingWritten("dotnet nuget", "source", ops[0])
}
