package assess

import "strings"

// MCP bridges: programs that start an MCP server from its command line and
// offer it over HTTP (mcpo, mcp-proxy, supergateway --stdio), or connect
// this machine's standard input and output to a remote MCP server
// (mcp-proxy URL, supergateway --sse URL, mcpo --server-type sse -- URL),
// and the MCP Inspector, which starts a server's command for its web page.
// What a bridge starts is the server: it is judged as the wiring's own
// command line is, so that wrapping a command in a bridge hides nothing.
// The remote server a bridge connects to is a remote_endpoint; an HTTP
// server it opens beyond loopback hands the server's tools, and what they
// reach, to whoever connects (inbound_access).

// bridgeServes reports a bridge that offers the server over HTTP on host
// (at w), unless host is loopback or not known; dflt says the host is the
// bridge's default rather than a word of the wiring.
func (a *auditor) bridgeServes(c invocation, bridge string, host string, w arg, dflt bool) {
	a.inferred.Network = true
	if strings.HasPrefix(host, "-") || !openHost(strings.Trim(host, "[]"), true) {
		return // an option where the address should be: not an address
	}
	where := "on " + safeText(host, 60)
	if dflt {
		where = "on every interface (its default address, " + safeText(host, 20) + ")"
	}
	if host == "" {
		where = "on every interface (no address given)"
	}
	a.add(CodeInboundAccess, w.path, quoted(bridge)+" offers the MCP server's tools over HTTP "+where+
		", so whoever reaches this machine can call them")
}

// proxyEndpoint judges the remote MCP server a bridge connects this
// machine to, at w: a remote_endpoint beyond loopback, insecure_url over
// plain http. It reports whether w is an http(s) URL.
func (a *auditor) proxyEndpoint(w arg) bool {
	if !w.lit {
		return false
	}
	u, ok := parseEndpoint(w.text)
	if !ok {
		return false
	}
	a.inferred.Network = true
	if loopbackHost(u.Hostname()) {
		return true
	}
	a.add(CodeRemoteEndpoint, w.path, "the server is a local proxy to the remote host "+safeText(u.Host, 80)+": your context leaves this machine")
	if !secureScheme(u.Scheme) {
		a.add(CodeInsecureURL, w.path, "the proxied endpoint uses plain http, so traffic and credentials travel unencrypted")
	}
	return true
}

// mcpoValues are mcpo's options that take a value.
var mcpoValues = set("--host", "-h", "--port", "-p", "--cors-allow-origins", "--api-key", "-k", "--env", "-e",
	"--env-path", "--type", "--server-type", "--config", "-c", "--name", "-n", "--description", "-d", "--version",
	"-v", "--ssl-certfile", "-t", "--ssl-keyfile", "-K", "--root-path", "--path-prefix", "--header", "-H",
	"--log-level", "--client-header-forwarding")

// peelMcpo peels `mcpo [options] -- command…`: it offers the command's
// server as an OpenAPI server on --host (every interface, 0.0.0.0, unless
// told otherwise); --env KEY=VALUE sets the server's variables; with
// --server-type sse or streamable-http the words after "--" are the remote
// server's URL. Without "--" (and without --config) mcpo starts nothing.
func peelMcpo(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	host, hostAt, dflt := "0.0.0.0", c.argv[0], true
	remote, known := false, true
	var rest []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			rest = args[i+1:]
			break
		}
		flag, val, joined := strings.Cut(t, "=")
		if !mcpoValues[flag] {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			break
		}
		switch flag {
		case "--host", "-h":
			host, hostAt, dflt, known = w.text, w, false, w.lit
		case "--env", "-e":
			a.assignment(w, w.text, c.depth)
		case "--type", "--server-type":
			remote = !strings.EqualFold(w.text, "stdio")
		}
	}
	if known {
		a.bridgeServes(c, "mcpo", host, hostAt, dflt)
	}
	a.inferred.Network = true
	if len(rest) == 0 {
		return nil, cmdInfo{name: c.name}, true
	}
	if a.proxyEndpoint(rest[0]) || remote {
		return nil, cmdInfo{name: c.name}, true
	}
	return rest, cmdInfo{}, false
}

// mcpProxyValues are the options of the Python mcp-proxy that take one
// value; mcpProxyPairs those that take two (KEY VALUE, NAME COMMAND).
var (
	mcpProxyValues = set("--transport", "--cwd", "--log-level", "--named-server-config", "--port", "--host",
		"--sse-port", "--sse-host")
	mcpProxyPairs = set("-H", "--headers", "-e", "--env", "--named-server")
)

// peelMcpProxy peels the Python mcp-proxy: its first operand is a remote
// server's URL (it connects this machine's standard input and output to
// it) or the command of the server it starts and offers over HTTP on
// --host (127.0.0.1 unless told otherwise), with the other operands as
// the command's words; its options may stand anywhere before "--".
// --named-server NAME 'COMMAND' starts another server from a command
// string, split as a shell splits words; -e KEY VALUE sets the default
// server's variables.
func peelMcpProxy(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	host, hostAt, known := "127.0.0.1", c.argv[0], true
	var ops []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if len(t) < 2 || t[0] != '-' {
			ops = append(ops, args[i])
			continue
		}
		flag, val, joined := strings.Cut(t, "=")
		flag = mcpProxyOption(flag)
		switch {
		case flag == "--allow-origin":
			for !joined && i+1 < len(args) && !strings.HasPrefix(args[i+1].text, "-") {
				i++ // one or more origins
			}
		case mcpProxyPairs[flag]:
			if i+2 >= len(args) {
				i = len(args)
				break
			}
			k, v := args[i+1], args[i+2]
			i += 2
			switch flag {
			case "-e", "--env":
				if k.lit {
					a.envSet(k.text, v, c.depth)
				}
			case "--named-server":
				a.commandString(v, c.depth)
			}
		case mcpProxyValues[flag]:
			w, ok := optValue(args, &i, val, joined)
			if ok && (flag == "--host" || flag == "--sse-host") {
				host, hostAt, known = w.text, w, w.lit
			}
		}
	}
	a.inferred.Network = true
	if len(ops) > 0 && a.proxyEndpoint(ops[0]) {
		return nil, cmdInfo{name: c.name}, true
	}
	if len(ops) == 0 {
		// Without an operand mcp-proxy takes its SSE_URL variable for it:
		// a URL there is the remote server it connects to (a placeholder
		// the user fills in is not judged).
		u, ok := c.env["SSE_URL"]
		w := arg{text: u, path: c.argv[0].path, lit: true}
		if own, set := a.m.MCP.Env["SSE_URL"]; !ok && set || ok && set && own == u {
			u, ok = own, true
			w = arg{text: u, path: envPath("SSE_URL"), lit: true} // the server's own variable
		}
		if ok && a.proxyEndpoint(w) {
			return nil, cmdInfo{name: c.name}, true
		}
	}
	if known {
		a.bridgeServes(c, "mcp-proxy", host, hostAt, false)
	}
	if len(ops) == 0 {
		return nil, cmdInfo{name: c.name}, true
	}
	return ops, cmdInfo{}, false
}

// mcpProxyLong are the Python mcp-proxy's long options.
var mcpProxyLong = []string{"--version", "--headers", "--transport", "--env", "--cwd", "--pass-environment",
	"--no-pass-environment", "--log-level", "--debug", "--no-debug", "--named-server", "--named-server-config",
	"--port", "--host", "--stateless", "--no-stateless", "--sse-port", "--sse-host", "--allow-origin", "--help"}

// mcpProxyOption is the long option flag stands for: Python's argparse
// takes a unique prefix of a long option as that option (--hos is
// --host). Any other word is returned as it is.
func mcpProxyOption(flag string) string {
	if !strings.HasPrefix(flag, "--") || len(flag) < 3 {
		return flag
	}
	found := ""
	for _, o := range mcpProxyLong {
		if o == flag {
			return o
		}
		if strings.HasPrefix(o, flag) {
			if found != "" {
				return flag // ambiguous: argparse refuses it
			}
			found = o
		}
	}
	if found == "" {
		return flag
	}
	return found
}

// commandString judges a command line a bridge splits into words as a
// shell does and runs without one (mcp-proxy's --named-server).
func (a *auditor) commandString(w arg, depth int) {
	if !w.lit {
		return
	}
	words, ok := shellPlainWords(w.text)
	if !ok {
		a.inlineShell("mcp-proxy --named-server", w, depth, true, nil)
		return
	}
	argv := make([]arg, len(words))
	for i, s := range words {
		argv[i] = arg{text: s, path: w.path, lit: true}
	}
	a.command(argv, depth+1, ctxNested)
}

// mcpProxyJSBooleans are the npm mcp-proxy's options that take no value:
// it reads every other option with the next word as its value, as yargs
// does.
var mcpProxyJSBooleans = set("--debug", "--shell", "--stateless", "--help", "--version", "--no-debug", "--no-shell")

// peelMcpProxyJS peels the npm mcp-proxy (`npx mcp-proxy [options]
// command [args…]`): it starts the command's server and offers it over
// HTTP on --host (every interface unless told otherwise); with --shell the
// command and its words run through a shell as one line.
func peelMcpProxyJS(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	host, hostAt, known := "", c.argv[0], true
	shell := false
	var ops []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if len(t) < 2 || t[0] != '-' {
			ops = append(ops, args[i])
			continue
		}
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case flag == "--shell":
			shell = !joined || boolTrue(val)
		case mcpProxyJSBooleans[flag]:
		default:
			w, ok := optValue(args, &i, val, joined)
			if ok && flag == "--host" {
				host, hostAt, known = w.text, w, w.lit
			}
		}
	}
	a.inferred.Network = true
	if len(ops) > 0 && a.proxyEndpoint(ops[0]) {
		return nil, cmdInfo{name: c.name}, true
	}
	if known {
		a.bridgeServes(c, "mcp-proxy", host, hostAt, false)
	}
	switch {
	case len(ops) == 0:
		return nil, cmdInfo{name: c.name}, true
	case shell:
		a.inlineShell("mcp-proxy --shell", joinArgs(ops), c.depth, true, c.env)
		return nil, cmdInfo{name: "sh"}, true
	}
	return ops, cmdInfo{}, false
}

// supergatewayBooleans are supergateway's options that take no value.
var supergatewayBooleans = set("--stateful", "--help", "--version", "--healthEndpoint", "--cors")

// supergateway judges supergateway: --stdio 'COMMAND' starts a server
// from a shell command line and offers it over HTTP on --host (every
// interface without one); --sse URL and --streamableHttp URL connect this
// machine's standard input and output to a remote server.
func (a *auditor) supergateway(c invocation) cmdInfo {
	args := c.args()
	var stdio *arg
	host, hostAt, known := "", c.argv[0], true
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			break
		}
		if len(t) < 2 || t[0] != '-' {
			continue
		}
		flag, val, joined := strings.Cut(t, "=")
		if supergatewayBooleans[flag] && !joined {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			break
		}
		switch flag {
		case "--stdio":
			stdio = &w
		case "--sse", "--streamableHttp":
			a.proxyEndpoint(w)
		case "--host":
			host, hostAt, known = w.text, w, w.lit
		}
	}
	a.inferred.Network = true
	if stdio == nil {
		return cmdInfo{name: c.name}
	}
	if known {
		a.bridgeServes(c, "supergateway", host, hostAt, false)
	}
	if stdio.lit {
		a.inlineShell("supergateway --stdio", *stdio, c.depth, true, c.env)
	}
	return cmdInfo{name: c.name}
}

// inspectorValues are the MCP Inspector's options that take a value.
var inspectorValues = set("--config", "--server", "--transport", "--server-url", "--method", "--tool-name",
	"--tool-arg", "--uri", "--prompt-name", "--prompt-args", "--log-level", "--header")

// peelInspector peels the MCP Inspector (`mcp-inspector [options]
// command [args…]`, npx @modelcontextprotocol/inspector …): it starts the
// command's server; -e KEY=VALUE sets its variables. Its own web page and
// proxy listen on loopback, the proxy asking for a token unless the
// variables it inherits say otherwise (inspector.go).
func peelInspector(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	a.inspectorAuth(c.env, c.argv[0])
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			return args[i+1:], cmdInfo{}, false
		}
		if len(t) < 2 || t[0] != '-' {
			return args[i:], cmdInfo{}, false
		}
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case flag == "-e":
			if w, ok := optValue(args, &i, val, joined); ok {
				a.assignment(w, w.text, c.depth)
			}
		case inspectorValues[flag] && !joined:
			i++
		}
	}
	return nil, cmdInfo{name: c.name}, true
}

// smitheryValues are the options of the Smithery CLI's commands that take
// a value.
var smitheryValues = set("--config", "--key", "--profile", "--client", "--port", "--prompt", "-c", "-o", "--out",
	"--transport", "--namespace")

// smithery judges the Smithery CLI (npx @smithery/cli …). `run SERVER`
// looks the server up in the Smithery registry when it starts and runs
// what the registry lists for it (a package started here, or a hosted
// server it connects this machine to): nothing in the wiring fixes what
// that is, so it is unpinned. `install SERVER` writes the server into an
// AI client's configuration, which starts it on every later use.
func (a *auditor) smithery(c invocation) cmdInfo {
	a.inferred.Network = true
	rest := optionWords(c.args(), smitheryValues, false, nil)
	if len(rest) < 2 {
		return cmdInfo{name: c.name}
	}
	servers := operands(rest[1:], smitheryValues, false, nil)
	if len(servers) == 0 {
		return cmdInfo{name: c.name}
	}
	server := servers[0]
	name := safeText(server.text, 60)
	switch rest[0].text {
	case "run":
		a.add(CodeUnpinned, server.path, "`smithery run` runs the server `"+name+"` as the Smithery registry lists it when the server starts: what runs can change without notice")
	case "install":
		a.add(CodePersistence, server.path, "`smithery install` writes the server `"+name+"` into an AI client's configuration, which starts it on every later use")
	}
	return cmdInfo{name: c.name}
}
