package assess

import "strings"

// WebAssembly runtimes that fetch what they run: wasmer run of a package
// of the Wasmer registry or of a URL, and spin up of an application in an
// OCI registry. mix run's -e, Elixir code written inline, is judged here
// too, as the other tools' options that take a program.

// wasmerValues are the options of wasmer run that take a value.
var wasmerValues = set("--dir", "--mapdir", "--volume", "--env", "--use", "--include-webc", "--map-command",
	"--stack-size", "-e", "--entrypoint", "--invoke", "-i", "--command", "--command-name", "--coredump-on-trap",
	"--registry", "--token", "--cache-dir", "--wasmer-dir", "--addr", "--cwd", "--journal", "--journal-restore",
	"--snapshot-on", "--snapshot-period", "--snapshot-interval")

// wasmer judges wasmer run: a package of the Wasmer registry
// (namespace/name[@version], also one added with --use) is whatever its
// newest version is unless an exact version or a sha256 hash is named;
// a URL is downloaded and run as it is; --registry names the registry.
func (a *auditor) wasmer(c invocation) cmdInfo {
	args := c.args()
	a.inferred.Network = true
	if len(args) == 0 || args[0].text != "run" {
		return cmdInfo{name: c.name}
	}
	input := []arg(nil)
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		flag, val, joined := strings.Cut(w.text, "=")
		switch {
		case w.text == "--":
			i = len(rest)
		case len(w.text) > 1 && w.text[0] == '-':
			if !wasmerValues[flag] || !joined && i+1 >= len(rest) {
				continue
			}
			v := w
			if joined {
				v.text = val
			} else {
				i++
				v = rest[i]
			}
			switch flag {
			case "--use":
				a.wasmerPackage(v)
			case "--registry":
				a.packageSource("`wasmer` downloads packages", v)
			}
		case input == nil:
			input = rest[i : i+1]
			i = len(rest) // the package's own arguments follow
		}
	}
	if input != nil {
		a.wasmerPackage(input[0])
	}
	return cmdInfo{name: c.name}
}

// wasmerPackage reports a package wasmer fetches without fixing it: a
// registry package without an exact version or hash, or a URL.
func (a *auditor) wasmerPackage(w arg) {
	s := strings.TrimSpace(w.text)
	if !w.lit || localSpec(s) {
		return
	}
	if strings.Contains(s, "://") {
		a.add(CodeUnpinned, w.path, "`wasmer run` downloads a package from a URL and runs it as it is when the server starts, with no digest to check it against")
		a.plainFetch(w, "wasmer", "fetches a package")
		return
	}
	name, version, _ := strings.Cut(s, "@")
	if !strings.Contains(name, "/") || strings.ContainsAny(name, `\:`) || strings.HasSuffix(name, ".wasm") || strings.HasSuffix(name, ".webc") {
		return // a file or a folder
	}
	if !semverExact.MatchString(version) && !(strings.HasPrefix(version, "sha256:") && sha256Hex.MatchString(version)) {
		a.add(CodeUnpinned, w.path, unpinnedMessage("wasmer", "runs", s))
	}
}

// spinValues are the options of spin up that take a value.
var spinValues = set("-f", "--from", "--from-file", "--file", "--from-registry", "--profile", "-e", "--env", "--temp",
	"--tmp", "--cache-dir", "-c", "--component-id", "--listen", "--runtime-config-file", "--state-dir", "-L",
	"--log-dir", "--key-value", "--sqlite", "--tls-cert", "--tls-key")

// spin judges spin up: the application --from names is pulled from an
// OCI registry when it is a reference to one (a host with a dot, a port
// or localhost, then a path), and must be pinned as an image is;
// --from-registry is always one; --insecure turns the registry's
// certificate checks off; the HTTP trigger's --listen beyond loopback
// serves the application to the network.
func (a *auditor) spin(c invocation) cmdInfo {
	args := c.args()
	a.inferred.Network = true
	if len(args) == 0 || args[0].text != "up" {
		return cmdInfo{name: c.name}
	}
	var ref *arg
	insecure := false
	operands(args[1:], spinValues, true, func(flag string, w arg, val string) {
		w.text = val
		switch flag {
		case "-f", "--from":
			if ociReference(val) {
				ref = &w
			}
		case "--from-registry":
			ref = &w
		case "--listen":
			if w.lit {
				a.bridgeServes(c, "spin", listenHost(val), w, false)
			}
		}
	})
	for _, w := range args[1:] {
		insecure = insecure || w.text == "-k" || w.text == "--insecure"
	}
	if ref == nil || !ref.lit {
		return cmdInfo{name: c.name}
	}
	s := strings.TrimSpace(ref.text)
	if s == "" {
		return cmdInfo{name: c.name} // spin refuses it
	}
	if ok, why := imagePinned(s); !ok {
		a.add(CodeUnpinned, ref.path, "`spin up` pulls the application "+quoted(safeText(s, 60))+", which "+why+"; pin a digest or a version tag")
	}
	if insecure {
		a.add(CodeInsecureURL, ref.path, "`spin up --insecure` pulls the application without checking the registry's certificate, so anyone on the way can replace it")
	}
	return cmdInfo{name: c.name}
}

// ociReference reports whether s reads as a reference to an OCI registry
// rather than a path: a first part that is a host (a dot, a port or
// localhost) followed by a path, and not a manifest or Wasm file.
func ociReference(s string) bool {
	s = strings.TrimSpace(s)
	host, rest, ok := strings.Cut(s, "/")
	if !ok || rest == "" || localSpec(s) || strings.ContainsAny(s, `\ `) {
		return false
	}
	for _, ext := range []string{".toml", ".wasm", ".wat"} {
		if strings.HasSuffix(lower(s), ext) {
			return false
		}
	}
	return strings.ContainsAny(host, ".:") || host == "localhost"
}

// mixRunValues are the options of mix run that take a value.
var mixRunValues = set("-r", "--require", "-p", "--parallel-require", "--preload-modules")

// mix judges Mix: run evaluates the Elixir code of -e (--eval) before it
// runs the project, an inline program; a file after the options is a
// script whose own arguments follow.
func (a *auditor) mix(c invocation) cmdInfo {
	args := c.args()
	if len(args) > 0 {
		switch args[0].text {
		case "archive.install", "escript.install":
			a.mixInstall(args[0], args[1:])
		case "local.hex", "local.rebar":
			a.inferred.Network = true
		}
	}
	if len(args) == 0 || args[0].text != "run" {
		return cmdInfo{name: c.name}
	}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		t := rest[i].text
		if t == "--" || len(t) < 2 || t[0] != '-' {
			break // the script file and its arguments
		}
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case flag == "-e" || flag == "--eval":
			code := arg{text: val, path: rest[i].path, lit: rest[i].lit}
			if !joined {
				if i+1 >= len(rest) {
					return cmdInfo{name: c.name}
				}
				code = rest[i+1]
			}
			a.add(CodeInlineCode, code.path, "runs a `mix run -e` (Elixir) program written inline in the wiring")
			if code.lit {
				a.inlineCode(code.text, code.path)
			}
			return cmdInfo{name: c.name}
		case mixRunValues[flag] && !joined:
			i++
		}
	}
	return cmdInfo{name: c.name}
}
