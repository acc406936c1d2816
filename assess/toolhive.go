package assess

import "strings"

// ToolHive's CLI (`thv`) runs MCP servers in containers behind a local
// HTTP proxy. `thv run [options] SERVER [-- ARGS…]` takes, as SERVER:
//
//   - uvx://PACKAGE, npx://PACKAGE or go://PACKAGE: ToolHive writes a
//     container image that installs the package with that tool, builds it
//     and runs it, so the package must be pinned as it would be on the
//     tool's own command line (uv's name@1.2.3 or name==1.2.3, npm's
//     name@1.2.3, Go's module@v1.2.3 or a local path of go://);
//   - an http(s) URL: ToolHive proxies a remote MCP server;
//   - an image reference, which must be pinned as any image;
//   - a name of ToolHive's registry, whose entries name their images.
//
// Its options are read where they stand, before or after SERVER (cobra
// reads options anywhere until "--"), and an option ToolHive does not know
// is skipped with the word after it unless that word is an option (thv run
// accepts unknown options). -e KEY=VALUE, -v HOST:CONTAINER[:ro],
// --env-file and --network are docker run's; --env-file-dir reads every
// file of a folder as variables; --host is where the proxy listens
// (127.0.0.1 unless told otherwise), and beyond loopback it offers the
// server's tools to whoever reaches the machine.
//
// `thv client register` and `thv client setup` make ToolHive write the
// servers it runs into an AI client's configuration from then on:
// persistence, as `docker mcp client connect` is.

// thvRunSwitches are the options of thv run (and thv's own --debug) that
// take no value.
var thvRunSwitches = set("--debug", "-f", "--foreground", "--enable-audit", "--jwks-allow-private-ip",
	"--oidc-insecure-allow-http", "--otel-tracing-enabled", "--otel-metrics-enabled", "--otel-insecure",
	"--otel-enable-prometheus-metrics-path", "--isolate-network", "--trust-proxy-headers", "--ignore-globally",
	"--print-resolved-overlays", "--remote-auth-skip-browser", "-h", "--help")

// thvRunShort are thv run's one-letter options that take a value, for
// reading a cluster of them (-fe KEY=VALUE).
var thvRunShort = set("-e", "-v", "-l")

// toolhive judges `thv …`.
func (a *auditor) toolhive(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	words := thvOperands(c.args())
	if len(words) == 0 {
		return info
	}
	switch words[0].op.text {
	case "run":
		a.thvRun(c, words[0].rest)
	case "client":
		if len(words) > 1 && (words[1].op.text == "register" || words[1].op.text == "setup") {
			a.add(CodePersistence, words[1].op.path, "`thv client "+words[1].op.text+
				"` makes ToolHive write the MCP servers it runs into an AI client's configuration, which starts them on every later use")
		}
	}
	return info
}

// thvWord is an operand of a thv command line and the words after it.
type thvWord struct {
	op   arg
	rest []arg
}

// thvOperands reads args as cobra reads thv's: options anywhere, an
// unknown option taking the next word unless it is an option, "--" ending
// the options. It returns the operands before "--", each with the words
// after it.
func thvOperands(args []arg) []thvWord {
	var out []thvWord
	thvOptions(args, func(i int) { out = append(out, thvWord{op: args[i], rest: args[i+1:]}) }, nil)
	return out
}

// thvOptions walks args as thvOperands does, calling operand with the
// index of each operand before "--" and valued (when not nil) with each
// option that has a value, the word that holds it and the value. It
// returns the index of the first word after "--" (len(args) without one).
func thvOptions(args []arg, operand func(i int), valued func(flag string, w arg, val string)) int {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			return i + 1
		}
		if len(t) < 2 || t[0] != '-' {
			operand(i)
			continue
		}
		flag, val, joined := strings.Cut(t, "=")
		if !joined && t[1] != '-' && len(t) > 2 {
			// A cluster of short options: the first that takes a value
			// takes the rest of the word, or the next word.
			if flag, val, joined = shortCluster(t, thvRunShort); flag == "" {
				continue
			}
		}
		if !joined {
			if thvRunSwitches[flag] {
				continue
			}
			if i+1 >= len(args) || !thvValues[flag] && strings.HasPrefix(args[i+1].text, "-") {
				continue // no value: an unknown switch, or a value missing at the end
			}
			i++
			val = args[i].text
		}
		if valued != nil {
			valued(flag, args[i], val)
		}
	}
	return len(args)
}

// thvValues are the options of thv run that take a value: the value is
// the next word even when it begins with "-".
var thvValues = set("--transport", "--proxy-mode", "--name", "--group", "--host", "--port", "--proxy-port",
	"--target-port", "--target-host", "--permission-profile", "-e", "--env", "-v", "--volume", "--secret",
	"--authz-config", "--audit-config", "--k8s-pod-patch", "--ca-cert", "--image-verification", "--thv-ca-bundle",
	"--jwks-auth-token-file", "--resource-url", "--otel-endpoint", "--otel-service-name", "--otel-sampling-rate",
	"--otel-headers", "--otel-env-vars", "--otel-custom-attributes", "--network", "-l", "--label", "--tools",
	"--tools-override", "--from-config", "--env-file", "--env-file-dir", "--oidc-issuer", "--oidc-audience",
	"--oidc-jwks-url", "--oidc-introspection-url", "--oidc-client-id", "--oidc-client-secret",
	"--remote-auth-client-id", "--remote-auth-client-secret", "--remote-auth-client-secret-file",
	"--remote-auth-scopes", "--remote-auth-timeout", "--remote-auth-callback-port", "--remote-auth-issuer",
	"--remote-auth-authorize-url", "--remote-auth-token-url", "--remote-auth-resource")

// thvRun judges the words after `thv run`.
func (a *auditor) thvRun(c invocation, args []arg) {
	a.inferred.Network = true // the image is pulled or built, or the server is remote
	server := -1
	pull := true
	after := thvOptions(args, func(i int) {
		if server < 0 {
			server = i
		}
	}, func(flag string, w arg, val string) {
		v := arg{text: val, path: w.path, lit: w.lit}
		switch flag {
		case "-e", "--env", "-v", "--volume", "--env-file", "--network":
			a.containerOption(strings.Replace(flag, "--volume", "-v", 1), v, &pull, c.depth)
		case "--env-file-dir":
			s := strings.TrimRight(strings.ReplaceAll(val, `\`, "/"), "/")
			if what := credentialMount(s); what != "" && v.lit {
				a.add(CodeCredentialMount, v.path, "hands "+what+" to the MCP server's container as its variables (--env-file-dir reads every file of the folder), where whatever runs can read and use them")
			}
		case "--host":
			if v.lit {
				a.bridgeServes(c, "thv", strings.TrimSpace(val), v, false)
			}
		case "--k8s-pod-patch":
			a.podSpec(v, "thv run --k8s-pod-patch", c.depth)
		}
	})
	if server < 0 && after < len(args) {
		server = after // cobra counts the words after "--" among the operands
	}
	if server < 0 || !args[server].lit {
		return
	}
	a.thvServer(args[server])
}

// thvServer judges the server of thv run.
func (a *auditor) thvServer(w arg) {
	s := strings.TrimSpace(w.text)
	scheme, spec, ok := strings.Cut(s, "://")
	if !ok {
		if strings.ContainsAny(s, "/:@") {
			if ok, why := imagePinned(s); !ok {
				a.add(CodeUnpinned, w.path, "ToolHive runs the container image "+quoted(s)+", which "+why+"; pin a digest or a version tag")
			}
			a.minerImage(w)
		}
		return // a server of ToolHive's registry
	}
	var pinned bool
	switch lower(scheme) {
	case "uvx":
		pinned = localSpec(spec) || pyPinned(spec)
	case "npx":
		pinned = npmPinned(spec)
	case "go":
		at := strings.LastIndexByte(spec, '@')
		pinned = localSpec(spec) || spec == "." || at > 0 && (goVersion.MatchString(spec[at+1:]) || commitSHA.MatchString(spec[at+1:]))
	case "http", "https":
		a.proxyEndpoint(arg{text: s, path: w.path, lit: true})
		return
	default:
		return // ToolHive refuses another scheme: nothing runs
	}
	if !pinned && spec != "" {
		a.add(CodeUnpinned, w.path, unpinnedMessage("thv", "builds and runs", spec)+" ("+lower(scheme)+"://)")
	}
}
