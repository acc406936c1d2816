package assess

import "strings"

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
}

// tunnelPackages are the packages of npm and PyPI that run a tunnel, with
// the command they run (npx ngrok http 80, uvx pyngrok …): judged as
// that command is.
var tunnelPackages = map[string]string{
	"ngrok": "ngrok", "localtunnel": "lt", "cloudflared": "cloudflared", "tunnelmole": "tmole", "untun": "untun",
	"pyngrok": "ngrok",
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
		case t == "-m" && i+1 < len(args) && args[i+1].text == "http.server", t == "-mhttp.server":
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

// bindsLoopback reports whether a server bound to address h listens on
// this machine only (the unspecified address, 0.0.0.0 or ::, listens on
// every interface).
func bindsLoopback(h string) bool {
	h = strings.Trim(strings.ToLower(h), "[]")
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}
