package assess

import (
	"slices"
	"strings"
)

// Where package tools download from, and whether they check who they talk
// to: a registry or index reached over plain http, and certificate checks
// turned off (by an option or a variable), let anyone on the way replace
// what is downloaded, pinned versions included, and read what is sent.

// packageTools are the programs whose registry and index options are read,
// by the ecosystem whose options they take.
var packageTools = map[string]string{
	"npx": "npm", "pnpx": "npm", "bunx": "npm", "npm": "npm", "pnpm": "npm", "yarn": "npm", "bun": "npm",
	"uvx": "python", "uv": "python", "pipx": "python", "pip": "python", "pip3": "python",
	"deno": "deno", "gem": "ruby",
}

// sourceOptions are, per ecosystem, the options whose value is where
// packages come from; trustOptions the options that turn a host's
// certificate checks off.
var (
	sourceOptions = map[string]map[string]bool{
		"npm":    set("--registry"),
		"python": set("--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--default-index", "--index"),
		"ruby":   set("--source", "-s"),
	}
	trustOptions = map[string]map[string]bool{
		"npm":    set("--no-strict-ssl"),
		"python": set("--trusted-host", "--allow-insecure-host"),
		"deno":   set("--unsafely-ignore-certificate-errors"),
	}
)

// toolValueOptions are the options of the package tools, other than
// sourceOptions, that take the next word as their value; toolSubcommands
// the words that name what the tool does before its options go on.
var (
	toolValueOptions = set("-p", "--package", "-c", "--call", "--prefix", "-C", "--dir", "-w", "--workspace",
		"--filter", "-F", "--cwd", "--userconfig", "--cache", "--from", "--with", "--with-editable",
		"--with-requirements", "--python", "--constraint", "--directory", "--project", "--spec", "-r",
		"--requirement", "-e", "--editable", "--target", "-t", "--config-file", "--env-file", "-L", "--log-level")
	toolSubcommands = set("exec", "dlx", "x", "run", "install", "i", "add", "tool", "pip", "sync", "create",
		"start", "test", "lock", "venv", "eval", "serve")
	// installSubcommands are those of toolSubcommands after which the
	// words are packages and the tool's own options, in any order (npm
	// install pkg --registry URL, pip install pkg -i URL), rather than a
	// command with words of its own.
	installSubcommands = set("install", "i", "add", "sync", "lock", "create")
)

// packageSources judges the registry, index and certificate options of a
// package tool: its options and subcommands up to the package or command
// it runs, whose own words are its own, and after an installing
// subcommand all its words, which are packages and the tool's options.
func (a *auditor) packageSources(c invocation) {
	eco := packageTools[c.name]
	sources, trust := sourceOptions[eco], trustOptions[eco]
	args := c.args()
	installing := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.text == "--" || !w.lit && !installing {
			return
		}
		if !w.lit || !strings.HasPrefix(w.text, "-") {
			switch {
			case installing: // a package
			case toolSubcommands[w.text]:
				installing = installSubcommands[w.text]
			default:
				return // the package or command: its words are its own
			}
			continue
		}
		flag, val, joined := strings.Cut(w.text, "=")
		if (c.name == "npm" || c.name == "npx") && len(flag) >= len("--reg") && strings.HasPrefix("--registry", flag) {
			// npm takes an option by any prefix no other of its
			// settings shares: --reg is --registry.
			flag = "--registry"
		}
		if eco == "npm" && !joined && npmBoolValue(args, i) {
			i++
			val, joined = args[i].text, true
		}
		switch {
		case trust[flag]:
			a.add(CodeInsecureURL, w.path, quoted(c.name)+" turns certificate checks off ("+safeText(flag, 40)+
				"), so what it downloads can be replaced on the way")
			if !joined && (flag == "--trusted-host" || flag == "--allow-insecure-host") {
				i++ // the host
			}
		case eco == "npm" && flag == "--strict-ssl" && joined && strings.EqualFold(val, "false"):
			a.add(CodeInsecureURL, w.path, quoted(c.name)+" turns certificate checks off (--strict-ssl=false), so what it downloads can be replaced on the way")
		case eco == "python" && flag == "--pip-args":
			// pipx hands pip a line of its own options, split as a
			// shell splits words.
			v, ok := optValue(args, &i, val, joined)
			if !ok {
				return
			}
			if words, ok := shellPlainWords(v.text); ok && v.lit {
				pip := make([]arg, len(words))
				for j, t := range words {
					pip[j] = arg{text: t, path: v.path, lit: true}
				}
				a.packageSources(invocation{argv: append([]arg{{text: "pip", path: v.path, lit: true}}, pip...), name: "pip", depth: c.depth})
			}
		case sources[flag]:
			v, ok := optValue(args, &i, val, joined)
			if !ok {
				return
			}
			if eco == "python" && flag == "--index" {
				// uv's --index [NAME=]URL
				if k, u, ok := strings.Cut(v.text, "="); ok && !strings.Contains(k, "/") {
					v.text = u
				}
			}
			a.packageSource(quoted(c.name)+" downloads packages", v)
		case toolValueOptions[flag] && !joined:
			i++
		}
	}
}

// packageSource judges a registry or index URL: credentials in it are
// literal secrets, and plain http lets the packages be replaced on the way.
// subject says who downloads (`npx` downloads packages).
func (a *auditor) packageSource(subject string, w arg) {
	if !w.lit {
		return
	}
	a.urlSecrets(w.text, w.path)
	u, ok := parseAnyURL(strings.TrimSpace(w.text))
	if ok && strings.EqualFold(u.Scheme, "http") && !loopbackHost(u.Hostname()) {
		a.add(CodeInsecureURL, w.path, subject+" from "+safeText(u.Host, 80)+
			" over plain http, which anyone on the way can replace")
	}
}

// Variables that name a package registry or index, and those that turn
// certificate checks off, with the value that does.
var (
	sourceEnv = set("NPM_CONFIG_REGISTRY", "YARN_NPM_REGISTRY_SERVER", "YARN_REGISTRY", "BUN_CONFIG_REGISTRY",
		"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL",
		"UV_DEFAULT_INDEX", "UV_INDEX", "UV_FIND_LINKS", "GOPROXY", "HEX_MIRROR", "PUB_HOSTED_URL")
	// mirrorEnv name where a tool downloads the programs it installs or
	// runs: Python builds for uv, Node.js for nvm, n and fnm, Rust for
	// rustup, the headers node-gyp builds against, and the binaries npm
	// packages fetch when installed (Electron, Puppeteer's and
	// Playwright's browsers, Cypress, Sass, the web drivers).
	mirrorEnv = set("UV_PYTHON_INSTALL_MIRROR", "UV_PYPY_INSTALL_MIRROR", "UV_PYTHON_DOWNLOADS_JSON_URL",
		"NVM_NODEJS_ORG_MIRROR", "NVM_IOJS_ORG_MIRROR", "N_NODE_MIRROR", "FNM_NODE_DIST_MIRROR", "NODE_BUILD_MIRROR_URL",
		"NODEJS_ORG_MIRROR", "RUSTUP_DIST_SERVER", "RUSTUP_UPDATE_ROOT", "ELECTRON_MIRROR", "PUPPETEER_DOWNLOAD_BASE_URL",
		"PUPPETEER_DOWNLOAD_HOST", "PLAYWRIGHT_DOWNLOAD_HOST", "CYPRESS_DOWNLOAD_MIRROR", "SASS_BINARY_SITE",
		"CHROMEDRIVER_CDNURL", "GECKODRIVER_CDNURL")
	// trustOffEnv: "" for any value, "true" for any value but 0 and
	// false.
	trustOffEnv = map[string]string{
		"NODE_TLS_REJECT_UNAUTHORIZED":            "0",
		"PYTHONHTTPSVERIFY":                       "0",
		"NPM_CONFIG_STRICT_SSL":                   "false",
		"YARN_ENABLE_STRICT_SSL":                  "false",
		"PIP_TRUSTED_HOST":                        "",
		"UV_INSECURE_HOST":                        "",
		"DENO_UNSAFELY_IGNORE_CERTIFICATE_ERRORS": "",
		"YARN_UNSAFE_HTTP_WHITELIST":              "",
		"GOINSECURE":                              "",
		"GIT_SSL_NO_VERIFY":                       "",
		"PERL_LWP_SSL_VERIFY_HOSTNAME":            "0",
		"HEX_UNSAFE_HTTPS":                        "true",
	}
	// checksumOffEnv are the variables that turn off the Go checksum
	// database, which is what pins a module version's content, with the
	// value that does.
	checksumOffEnv = map[string]string{"GOSUMDB": "off", "GONOSUMCHECK": "", "GONOSUMDB": "*"}
)

// envTrust judges a variable that points package downloads elsewhere or
// turns certificate checks off. Names are matched without case, as npm
// reads npm_config_registry like NPM_CONFIG_REGISTRY.
func (a *auditor) envTrust(key string, value arg) {
	k := strings.ToUpper(key)
	if off, ok := checksumOffEnv[k]; ok {
		v := strings.TrimSpace(value.text)
		if off == "" && v != "" && v != "0" && !placeholder(v) || off != "" && strings.EqualFold(v, off) {
			a.add(CodeInsecureURL, value.path, "the variable "+k+" turns Go's checksum database off, so the modules the server downloads are not checked against what was published")
		}
		return
	}
	if k == "GOFLAGS" && slices.Contains(strings.Fields(value.text), "-insecure") {
		a.add(CodeInsecureURL, value.path, "the variable GOFLAGS turns certificate checks off (-insecure), so what the server downloads can be replaced on the way")
		return
	}
	if strings.HasPrefix(k, "CARGO_REGISTRIES_") && strings.HasSuffix(k, "_INDEX") {
		v := value
		v.text = cargoIndexURL(strings.TrimSpace(v.text))
		a.packageSource("the variable "+k+" has crates downloaded", v)
		return
	}
	if mirrorEnv[k] {
		a.packageSource("the variable "+k+" has programs downloaded", value)
		return
	}
	if strings.HasPrefix(k, "BUNDLE_MIRROR__") {
		// Bundler's mirror of a gem source (BUNDLE_MIRROR__ALL, or the
		// source's URL with its dots and slashes spelled out).
		a.packageSource("the variable "+k+" has gems downloaded", value)
		return
	}
	if k == "SSLKEYLOGFILE" {
		if v := strings.TrimSpace(value.text); v != "" && !placeholder(v) {
			a.add(CodeInsecureURL, value.path, "the variable SSLKEYLOGFILE has TLS libraries (OpenSSL, Python's ssl, curl, NSS) "+
				"write the session keys of every connection to "+safeText(v, 60)+", so whoever reads that file can read "+
				"what the server sent and received, credentials included")
		}
		return
	}
	if sourceEnv[k] {
		// pip's lists are blank-separated, GOPROXY's by commas and bars
		text := value.text
		if k == "GOPROXY" {
			text = strings.NewReplacer(",", " ", "|", " ").Replace(text)
		}
		fields := strings.Fields(text)
		for _, f := range fields {
			v := value
			v.text = f
			a.packageSource("the variable "+k+" has packages downloaded", v)
		}
		return
	}
	off, ok := trustOffEnv[k]
	if !ok {
		return
	}
	v := strings.TrimSpace(value.text)
	if off == "true" {
		// a boolean: any value but 0 and false turns the checks off
		off = ""
		if v == "0" || strings.EqualFold(v, "false") {
			return
		}
	}
	if off == "" && v != "" && !placeholder(v) || off != "" && strings.EqualFold(v, off) {
		a.add(CodeInsecureURL, value.path, "the variable "+k+" turns certificate checks off, so what the server downloads or sends can be read and replaced on the way")
	}
}
