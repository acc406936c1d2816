package assess

import (
	"slices"
	"strings"
)

// Ways into this machine from outside: a tunnel that publishes a local
// port on the internet (ngrok, cloudflared, localtunnel, bore, Tailscale
// Funnel, zrok), ssh's reverse forwarding, a shared terminal (tmate), a
// remote-development tunnel (code tunnel, devtunnel host), and a web
// server of the working directory on every interface (python -m
// http.server). An MCP server talks to its host on this machine; none of
// these is a part of that.

// inboundJudges are the programs that may open such a way in, with how
// to tell.
var inboundJudges = map[string]func(a *auditor, c invocation){
	"ngrok":       subInbound("publishes a local port on the internet", "http", "tcp", "tls", "start", "tunnel"),
	"cloudflared": (*auditor).cloudflared,
	"lt": func(a *auditor, c invocation) {
		a.inbound(c, "publishes a local port on the internet")
	},
	"bore":      subInbound("publishes a local port on the internet", "local"),
	"tailscale": subInbound("publishes a local port on the internet", "funnel"),
	"zrok":      subInbound("publishes a local service on the internet", "share"),
	"tmate": func(a *auditor, c invocation) {
		a.inbound(c, "shares a terminal of this machine with whoever has its link")
	},
	"code":      subInbound("opens remote access to this machine", "tunnel"),
	"devtunnel": subInbound("publishes a local port on the internet", "host"),
	"tmole": func(a *auditor, c invocation) {
		a.inbound(c, "publishes a local port on the internet")
	},
	"untun": subInbound("publishes a local port on the internet", "tunnel"),
	// More tunnel clients and servers: frp's client (its configuration
	// names the ports it publishes), chisel (a client's R: remotes, or its
	// server, which forwards connections into this machine's network),
	// rathole, PageKite, inlets, playit.gg, Telebit and LocalXpose.
	"frpc":        unlessWord("publishes local ports on the internet through an frp server", "-v", "--version", "-h", "--help", "verify"),
	"chisel":      (*auditor).chisel,
	"rathole":     unlessWord("publishes local ports on the internet", "-V", "--version", "-h", "--help", "--genkey"),
	"pagekite":    always("publishes a local port on the internet"),
	"pagekite.py": always("publishes a local port on the internet"),
	"inlets":      subInbound("publishes a local port on the internet", "client", "tcp", "http", "uplink"),
	"inlets-pro":  subInbound("publishes a local port on the internet", "client", "tcp", "http", "uplink"),
	"playit":      unlessWord("publishes local ports on the internet", "version", "-V", "--version", "-h", "--help"),
	"telebit":     subInbound("publishes a local port on the internet", "http", "tcp", "ssh"),
	"loclx":       subInbound("publishes a local port on the internet", "tunnel"),
	// Servers that hand this machine to whoever connects: a terminal in a
	// web page, an SSH or VNC server, a notebook or an editor served
	// beyond loopback, and file servers of the working directory on every
	// interface.
	"ttyd": always("serves a terminal of this machine to whoever connects"), "gotty": always("serves a terminal of this machine to whoever connects"),
	"wetty": always("serves a terminal of this machine to whoever connects"), "shellinaboxd": always("serves a terminal of this machine to whoever connects"),
	"websocketd": always("serves a program of this machine to whoever connects"),
	"telnetd":    telnetd,
	"utelnetd":   telnetd,
	"in.telnetd": telnetd,
	"sshd":       unlessWord("runs an SSH server on this machine", "-t", "-T", "-V", "-G"),
	"dropbear":   unlessWord("runs an SSH server on this machine", "-V"),
	"x11vnc":     always("serves this machine's desktop to whoever connects (VNC)"), "vncserver": always("serves a desktop of this machine to whoever connects (VNC)"),
	"tigervncserver": always("serves a desktop of this machine to whoever connects (VNC)"), "xvnc": always("serves a desktop of this machine to whoever connects (VNC)"),
	"jupyter":      boundBeyond("serves a notebook, whose code runs on this machine, to every host that can reach it", false, "--ip", "--ServerApp.ip", "--NotebookApp.ip"),
	"code-server":  boundBeyond("serves an editor with a terminal of this machine to every host that can reach it", false, "--bind-addr"),
	"php":          boundBeyond("serves the working directory, and runs its PHP, to every host that can reach this machine", false, "-S"),
	"http-server":  boundBeyond("serves the working directory to every host that can reach this machine", true, "-a"),
	"uploadserver": boundBeyond("serves the working directory, and takes uploads into it, from every host that can reach this machine", true, "--bind", "-b"),
	"httpd":        boundBeyond("serves a folder of this machine to every host that can reach it", true, "-p"),
}

// telnetd judges a telnet server: a login of this machine for whoever
// connects.
var telnetd = always("serves a login of this machine to whoever connects, over unencrypted telnet,")

// always judges a program that opens a way in whatever its words.
func always(what string) func(a *auditor, c invocation) {
	return func(a *auditor, c invocation) { a.inbound(c, what) }
}

// unlessWord judges a server that opens a way in unless one of the words
// given (a test of its configuration, its version) says it only reports.
func unlessWord(what string, words ...string) func(a *auditor, c invocation) {
	s := set(words...)
	return func(a *auditor, c invocation) {
		if !slices.ContainsFunc(c.args(), func(w arg) bool { return s[w.text] }) {
			a.inbound(c, what)
		}
	}
}

// boundBeyond judges a server whose options (opts, with the value after
// them, '=' or, for a one-letter option, joined) name the address it
// listens on: it opens a way in when one names another address than
// loopback, or, for a server that listens on every interface unless told
// (anyByDefault), when none names loopback. The address may carry a port
// (127.0.0.1:8080, [::1]:80, tcp://0.0.0.0:3000) or be a port alone, which
// such a server listens on everywhere.
func boundBeyond(what string, anyByDefault bool, opts ...string) func(a *auditor, c invocation) {
	s := set(opts...)
	return func(a *auditor, c invocation) {
		args := c.args()
		named := false
		for i := 0; i < len(args); i++ {
			flag, val, joined := strings.Cut(args[i].text, "=")
			if !joined && len(flag) > 2 && flag[1] != '-' && s[flag[:2]] {
				flag, val, joined = flag[:2], flag[2:], true // -S0.0.0.0:80
			}
			if !s[flag] {
				continue
			}
			v, ok := optValue(args, &i, val, joined)
			if !ok || !v.lit || placeholder(v.text) {
				return
			}
			named = true
			if !bindsLoopback(listenHost(v.text)) {
				a.inbound(c, what)
				return
			}
		}
		if anyByDefault && !named {
			a.inbound(c, what)
		}
	}
}

// listenHost is the host of a listening address: HOST, HOST:PORT,
// [V6]:PORT or SCHEME://HOST:PORT; "" (every interface) for a port alone.
func listenHost(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.Index(v, "://"); i >= 0 {
		v = v[i+3:]
	}
	if strings.HasPrefix(v, "[") {
		if end := strings.IndexByte(v, ']'); end > 0 {
			return v[1:end]
		}
	}
	if strings.Count(v, ":") == 1 {
		v, _, _ = strings.Cut(v, ":")
	}
	if isDigits(v) {
		return ""
	}
	return v
}

// tunnelPackages are the packages of npm and PyPI that run a tunnel or a
// server of the working directory, with the command they run (npx ngrok
// http 80, uvx pyngrok, npx http-server …): judged as that command is.
var tunnelPackages = map[string]string{
	"ngrok": "ngrok", "localtunnel": "lt", "cloudflared": "cloudflared", "tunnelmole": "tmole", "untun": "untun",
	"pyngrok": "ngrok", "http-server": "http-server", "wetty": "wetty", "uploadserver": "uploadserver",
}

// inbound records a way in that c opens, over the network.
func (a *auditor) inbound(c invocation, what string) {
	a.inferred.Network = true
	a.add(CodeInboundAccess, c.argv[0].path, what+" with "+quoted(c.name))
}

// subInbound judges a tool whose listed subcommands open a way in (any
// word of its command line, so that a global option's value before the
// subcommand does not hide it).
func subInbound(what string, subs ...string) func(a *auditor, c invocation) {
	s := set(subs...)
	return func(a *auditor, c invocation) {
		for _, w := range c.args() {
			if w.text == "--" {
				return
			}
			if s[w.text] {
				a.inbound(c, what)
				return
			}
		}
	}
}

// chisel judges chisel: a client given a remote that starts R: has the
// server publish a port of this machine; a server forwards the
// connections its clients ask for into this machine's network.
func (a *auditor) chisel(c invocation) {
	args := skipFlags(c.args(), nil)
	if len(args) == 0 {
		return
	}
	switch args[0].text {
	case "server":
		a.inbound(c, "runs a tunnel server that forwards whoever connects into this machine's network")
	case "client":
		a.inferred.Network = true
		for _, w := range args[1:] {
			if strings.HasPrefix(w.text, "R:") {
				a.inbound(c, "publishes a local port through a chisel server")
				return
			}
		}
	}
}

// cloudflared judges cloudflared tunnel: a quick tunnel (--url) or a
// named one it runs publishes a local service on the internet; its other
// tunnel commands (list, create, route, login …) only manage them.
func (a *auditor) cloudflared(c invocation) {
	args := c.args()
	tunnel := false
	for _, w := range args {
		switch t := w.text; {
		case t == "tunnel":
			tunnel = true
		case tunnel && (t == "run" || t == "--url" || strings.HasPrefix(t, "--url=")):
			a.inbound(c, "publishes a local service on the internet")
			return
		}
	}
}

// httpServer judges python -m http.server: it serves the working
// directory, on every interface unless --bind (-b) names a loopback
// address.
func (a *auditor) httpServer(c invocation) {
	args := c.args()
	server := false
	for i, w := range args {
		t := w.text
		switch {
		case t == "-m" && i+1 < len(args) && fileServerModules[args[i+1].text], strings.HasPrefix(t, "-m") && fileServerModules[t[2:]]:
			server = true
		case server && (t == "-b" || t == "--bind") && i+1 < len(args):
			if bindsLoopback(args[i+1].text) {
				return
			}
		case server && strings.HasPrefix(t, "--bind="):
			if bindsLoopback(t[len("--bind="):]) {
				return
			}
		}
	}
	if server {
		a.inbound(c, "serves the working directory to every host that can reach this machine")
	}
}

// fileServerModules are Python's modules that serve the working directory
// (uploadserver also takes uploads into it).
var fileServerModules = set("http.server", "SimpleHTTPServer", "uploadserver")

// bindsLoopback reports whether a server bound to address h listens on
// this machine only (the unspecified address, 0.0.0.0 or ::, listens on
// every interface).
func bindsLoopback(h string) bool {
	h = strings.Trim(strings.ToLower(h), "[]")
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}
