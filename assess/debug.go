package assess

import "strings"

// Debuggers that wait for a client: whoever connects to one runs code in
// the process it debugs, with the user's rights. Bound to this machine's
// loopback (the default of each, except where noted) only this machine
// reaches them; bound to every interface or to another address, any host
// that reaches this machine does: inbound_access. A placeholder address
// (${HOST}) is not judged.

// debugJudges are the programs that may start such a listener, by family.
var debugJudges = map[string]func(a *auditor, c invocation){
	"node": (*auditor).jsInspector, "bun": (*auditor).jsInspector, "deno": (*auditor).jsInspector,
	"python":    (*auditor).debugpy,
	"java":      (*auditor).jdwp,
	"dlv":       (*auditor).delve,
	"rdbg":      (*auditor).rdbg,
	"gdbserver": (*auditor).gdbserver,
}

// debugListener reports a debugger of program c that listens beyond
// loopback, at w (the option or word that says where) and address addr.
func (a *auditor) debugListener(c invocation, w arg, addr, what string) {
	a.inferred.Network = true
	a.add(CodeInboundAccess, w.path, what+" listens on "+safeText(addr, 60)+", beyond this machine's loopback: "+
		"whoever connects runs code in the server, with the user's rights ("+quoted(c.name)+")")
}

// openHost reports whether a debugger bound to host listens beyond
// loopback: empty says every interface when empty is, and a placeholder
// is not judged.
func openHost(host string, empty bool) bool {
	h := strings.TrimSpace(host)
	if h == "" {
		return empty
	}
	return !bindsLoopback(h) && !placeholder(h)
}

// splitHostPort splits a debugger's [host:]port (also [v6]:port): ok is
// false when there is no host part at all (a port alone).
func splitHostPort(s string) (host string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", false
	}
	return s[:i], true
}

// jsInspector judges Node.js's, Bun's and Deno's inspector options
// (--inspect, --inspect-brk, --inspect-wait, --inspect-port, each
// =[host:]port) among the runtime's options, before its script; Node's
// value may be a host alone, Bun's a ws:// URL. Without a host each
// listens on 127.0.0.1.
func (a *auditor) jsInspector(c invocation) {
	fam := family(c.name)
	args := c.args()
	if fam != "node" && len(args) > 0 && jsSubcommands[args[0].text] {
		args = args[1:] // deno run …, bun run …
	}
	valueFlags := inlineCodeFlags[fam] + inlineValueFlags[fam]
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--" || t == "-" || !strings.HasPrefix(t, "-"):
			return // the script, or its program from stdin
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t, "=")
			switch {
			case inspectOptions[name] && hasVal && args[i].lit:
				addr := val
				if strings.Contains(val, "://") {
					u, ok := parseAnyURL(val)
					if !ok {
						continue // not an address: the runtime refuses it
					}
					addr = u.Host
				}
				host, ok := splitHostPort(addr)
				if !ok && fam == "node" && strings.Trim(addr, "0123456789") != "" {
					host, ok = addr, true // node --inspect=0.0.0.0: a host, on the default port
				}
				if ok && openHost(strings.Trim(host, "[]"), false) {
					a.debugListener(c, args[i], val, "the "+jsRuntimeNames[fam]+" inspector")
				}
			case codeOptions[name] || valueOptions[name] || moduleOptionNames[name]:
				if !hasVal {
					i++
				}
			}
		default:
			if last := t[len(t)-1]; len(t) > 1 && strings.IndexByte(valueFlags, last) >= 0 {
				i++
			}
		}
	}
}

var (
	// jsSubcommands are Deno's and Bun's subcommands whose options come
	// before the script they run.
	jsSubcommands = set("run", "serve", "test", "x", "repl", "eval")
	// inspectOptions open the inspector at the address they are given.
	inspectOptions = set("--inspect", "--inspect-brk", "--inspect-wait", "--inspect-port")
	// jsRuntimeNames name each runtime in a message.
	jsRuntimeNames = map[string]string{"node": "Node.js", "bun": "Bun", "deno": "Deno"}
)

// debugpy judges python -m debugpy --listen [host:]port (its address;
// 127.0.0.1 without a host) and the older python -m ptvsd --host HOST.
func (a *auditor) debugpy(c invocation) {
	args := c.args()
	mod := -1
	for i := 0; i+1 < len(args); i++ {
		if args[i].text == "-m" && (args[i+1].text == "debugpy" || args[i+1].text == "ptvsd") {
			mod = i + 1
			break
		}
		if t := args[i].text; t == "--" || !strings.HasPrefix(t, "-") {
			return // the script: its words are its own
		}
	}
	if mod < 0 {
		return
	}
	rest := args[mod+1:]
	for i := 0; i < len(rest); i++ {
		t := rest[i].text
		if t == "--" || !strings.HasPrefix(t, "-") {
			return // the program debugged, and its words
		}
		name, val, hasVal := strings.Cut(t, "=")
		if name != "--listen" && name != "--host" {
			if !hasVal && debugpyValues[name] {
				i++
			}
			continue
		}
		w, ok := optValue(rest, &i, val, hasVal)
		if !ok || !w.lit || strings.HasPrefix(w.text, "-") {
			continue // an option for a value is an error: nothing runs
		}
		host := w.text
		if name == "--listen" {
			if host, ok = splitHostPort(w.text); !ok {
				continue // a port alone: 127.0.0.1
			}
		}
		if openHost(strings.Trim(host, "[]"), false) {
			a.debugListener(c, w, w.text, "the Python debugger ("+args[mod].text+")")
		}
	}
}

// debugpyValues are debugpy's and ptvsd's options that take a value.
var debugpyValues = set("--connect", "--port", "--log-to", "--configure-subProcess", "--pid", "-m", "-c")

// jdwp judges the JVM's debug agent (-agentlib:jdwp=… or -Xrunjdwp:…) as
// a server (server=y) at an address with a host: * or another address
// than loopback. A port alone listens on loopback (Java 9 and later).
func (a *auditor) jdwp(c invocation) {
	for _, w := range c.args() {
		t := w.text
		if t == "-jar" || !strings.HasPrefix(t, "-") {
			return // the program and its words
		}
		var opts string
		switch {
		case strings.HasPrefix(t, "-agentlib:jdwp="):
			opts = t[len("-agentlib:jdwp="):]
		case strings.HasPrefix(t, "-Xrunjdwp:"):
			opts = t[len("-Xrunjdwp:"):]
		default:
			continue
		}
		server, addr := false, ""
		for _, kv := range strings.Split(opts, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "server":
				server = v == "y"
			case "address":
				addr = v
			}
		}
		if host, ok := splitHostPort(addr); server && ok && w.lit && (host == "*" || openHost(strings.Trim(host, "[]"), false)) {
			a.debugListener(c, w, addr, "the JVM's debug agent (jdwp)")
		}
	}
}

// delve judges dlv's headless server (--headless, and dlv dap): --listen
// (-l) with an empty host listens on every interface, as Go's listeners
// do; its default is 127.0.0.1.
func (a *auditor) delve(c invocation) {
	args := c.args()
	headless := len(args) > 0 && args[0].text == "dap"
	var listen *arg
	var addr string
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			break // the debugged program's words
		}
		name, val, hasVal := strings.Cut(t, "=")
		switch name {
		case "--headless":
			headless = !hasVal || boolTrue(val)
		case "--listen", "-l":
			if w, ok := optValue(args, &i, val, hasVal); ok && w.lit {
				listen, addr = &args[i], w.text
			}
		}
	}
	if listen == nil || !headless {
		return
	}
	if host, ok := splitHostPort(addr); ok && openHost(strings.Trim(host, "[]"), true) {
		a.debugListener(c, *listen, addr, "the Go debugger's server")
	}
}

// rdbg judges Ruby's debugger opened for a remote client (--open, -O) on
// TCP: --host names the address (localhost without it; without --host
// or --port it opens a UNIX socket).
func (a *auditor) rdbg(c invocation) {
	args := c.args()
	open := false
	var host *arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			break
		}
		name, val, hasVal := strings.Cut(t, "=")
		switch {
		case name == "--open" || name == "-O":
			open = true
		case name == "--host":
			if w, ok := optValue(args, &i, val, hasVal); ok && w.lit {
				host = &w
			}
		}
	}
	if open && host != nil && openHost(strings.Trim(host.text, "[]"), false) {
		a.debugListener(c, *host, host.text, "Ruby's debugger")
	}
}

// gdbserver judges gdbserver's connection, its first word that is not an
// option: [host]:port (or tcp:[host]:port) listens for gdb, on every
// interface when the host is empty; a device or "-" (stdio) does not.
func (a *auditor) gdbserver(c invocation) {
	for _, w := range c.args() {
		t := w.text
		if strings.HasPrefix(t, "-") && t != "-" {
			continue
		}
		comm := strings.TrimPrefix(strings.TrimPrefix(t, "tcp:"), "tcp4:")
		if host, ok := splitHostPort(comm); ok && w.lit && !strings.HasPrefix(t, "/") && openHost(strings.Trim(host, "[]"), true) {
			a.debugListener(c, w, comm, "gdbserver")
		}
		return
	}
}
