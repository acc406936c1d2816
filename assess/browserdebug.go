package assess

import "strings"

// A Chromium-based browser started with --remote-debugging-port serves the
// DevTools protocol on that port: whoever connects drives the browser,
// with the sessions, cookies and files of the profile it runs. On
// loopback (its default address) only this machine's programs reach it.
// --remote-debugging-address beyond loopback lets any host that reaches
// this machine connect, and --remote-allow-origins=* lets any web page the
// user opens, in any browser, connect through a WebSocket: both are
// inbound_access.

// chromiumBrowsers are the program names of Chromium-based browsers, as
// progName leaves them.
var chromiumBrowsers = set("chrome", "google-chrome", "google-chrome-stable", "google-chrome-beta",
	"google-chrome-unstable", "google chrome", "chromium", "chromium-browser", "chrome-headless-shell",
	"msedge", "microsoft-edge", "microsoft-edge-stable", "microsoft edge", "brave", "brave-browser", "brave browser",
	"vivaldi", "opera")

// geckoBrowsers are Firefox and its forks, which open the URLs they are
// given as Chromium's browsers do.
var geckoBrowsers = set("firefox", "firefox-esr", "firefox-developer-edition", "firefox-nightly", "librewolf",
	"waterfox", "floorp", "zen-browser")

// browserURLs judges a browser given a web page to open (chromium
// --headless --dump-dom URL, firefox --screenshot URL, msedge URL): it
// uses the network, whatever the page is.
func (a *auditor) browserURLs(c invocation) {
	for _, w := range c.args() {
		t := strings.TrimSpace(w.text)
		if !w.lit || strings.HasPrefix(t, "-") {
			continue
		}
		if u, ok := parseAnyURL(t); ok && (lower(u.Scheme) == "http" || lower(u.Scheme) == "https") && !loopbackHost(u.Hostname()) {
			a.inferred.Network = true
			return
		}
	}
}

// chromiumLaunchers are the switches of Chromium (and of Electron, which
// takes them too) whose value is a command its child processes are
// started through (the value's words go before the child's own command
// line: --gpu-launcher='cmd /c …' runs cmd) or, for
// --browser-subprocess-path, the program started as each child.
// Chromium splits such a value at blanks, without a shell.
var chromiumLaunchers = map[string]cmdOptKind{
	"--gpu-launcher": optBlanks, "--renderer-cmd-prefix": optBlanks, "--utility-cmd-prefix": optBlanks,
	"--ppapi-plugin-launcher": optBlanks, "--zygote-cmd-prefix": optBlanks, "--browser-subprocess-path": optProgram,
}

// browserLaunchers judges the commands of a Chromium-based browser's (or
// Electron's) launcher switches, written --switch=value as Chromium reads
// them (a next word is not a switch's value).
func (a *auditor) browserLaunchers(c invocation) {
	for _, w := range c.args() {
		if w.text == "--" {
			return
		}
		name, val, ok := strings.Cut(w.text, "=")
		if kind, known := chromiumLaunchers[name]; known && ok && w.lit {
			a.optionCommand(c, kind, arg{text: val, path: w.path, lit: true})
		}
	}
}

// browserDebugging judges a Chromium-based browser's DevTools switches
// (written --switch=value, as Chromium reads them).
func (a *auditor) browserDebugging(c invocation) {
	var port, address, origins *arg
	addr, allow := "", ""
	for _, w := range c.args() {
		name, val, ok := strings.Cut(w.text, "=")
		if !ok || !w.lit {
			continue
		}
		switch strings.TrimLeft(name, "-") {
		case "remote-debugging-port":
			port = &w
		case "remote-debugging-address":
			address, addr = &w, strings.TrimSpace(val)
		case "remote-allow-origins":
			origins, allow = &w, val
		}
	}
	if port == nil {
		return
	}
	a.inferred.Network = true
	if address != nil && openHost(strings.Trim(addr, "[]"), false) {
		a.add(CodeInboundAccess, address.path, "the browser's DevTools port listens on "+safeText(addr, 60)+
			", beyond this machine's loopback: whoever connects drives the browser, with the sessions, cookies and files of its profile ("+
			quoted(c.name)+")")
	}
	if origins != nil && anyOrigin(allow) {
		a.add(CodeInboundAccess, origins.path, "the browser's DevTools port accepts connections from every web page's origin "+
			"(--remote-allow-origins=*): any page the user opens can drive the browser, with the sessions, cookies and files of its profile ("+
			quoted(c.name)+")")
	}
}

// anyOrigin reports whether a comma-separated list of origins holds the
// wildcard.
func anyOrigin(list string) bool {
	for o := range strings.SplitSeq(list, ",") {
		if strings.Trim(strings.TrimSpace(o), `"'`) == "*" {
			return true
		}
	}
	return false
}
