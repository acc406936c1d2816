package assess

import (
	"strings"
)

// Windows programs, shipped with the system or with common software, that
// download a file for whoever names it in their words, or run code handed
// to them: Defender's command-line tool (MpCmdRun -DownloadFile -url URL
// -path FILE), the certificate request tool (certreq -Post -config URL IN
// OUT), Intel's graphics download helper (GfxDownloadWrapper URL FILE), the
// lock-screen image helper (desktopimgdownldr /lockscreenurl:URL), the
// Configuration Manager's policy tool (ConfigSecurityPolicy URL), the WCF
// data service generator (DataSvcUtil /uri:URL /out:FILE), the Squirrel
// installers behind many desktop applications (Squirrel.exe and Update.exe
// --download, --update or --updateRollback URL, which install the package
// they fetch), the App Installer (ms-appinstaller:?source=URL), the
// connection manager's downloader (cmdl32 /vpn /lan PROFILE, which fetches
// what the profile names). Each is judged as curl is: fetch_exec, network use, and a
// plain http URL is insecure_url; a file it writes is recorded, so that
// running it later is judged as running a download.
//
// Beside them: the Windows Script Host (cscript and wscript, peeled to the
// script they run, so that SyncAppvPublishingServer.vbs and pubprn.vbs are
// judged as when run directly), pubprn.vbs, which runs the scriptlet a
// script: URL names, msdt, whose /param text evaluates PowerShell written
// in $(…) (the Follina form, also as an ms-msdt: link), and mavinject, which
// loads a library into a running process.

// winOption returns the value of a Windows program's option, written -name
// or /name in any case and followed by its value as the next word, or with
// the value joined by ':' or '=' (--download=URL for the Squirrel
// installers).
func winOption(args []arg, name string) (arg, bool) {
	for i, w := range args {
		t := strings.TrimLeft(w.text, "-/")
		if len(t) == len(w.text) || t == "" {
			continue
		}
		k, v, joined := t, "", false
		if j := strings.IndexAny(t, ":="); j >= 0 {
			k, v, joined = t[:j], t[j+1:], true
		}
		if !strings.EqualFold(k, name) {
			continue
		}
		if joined {
			return arg{text: v, path: w.path, lit: w.lit}, true
		}
		if i+1 < len(args) {
			return args[i+1], true
		}
		return arg{}, false
	}
	return arg{}, false
}

// winSwitch reports whether a Windows program's words hold the switch
// name (-name or /name, any case).
func winSwitch(args []arg, name string) bool {
	for _, w := range args {
		t := strings.TrimLeft(w.text, "-/")
		if len(t) < len(w.text) && strings.EqualFold(t, name) {
			return true
		}
	}
	return false
}

// webSource reports whether w names what a download tool fetches: a web
// URL or a share (\\host\…) written literally, or a word whose value is
// not known.
func webSource(w arg) bool {
	if !w.lit {
		return w.text != "" || w.path != ""
	}
	t := strings.TrimSpace(w.text)
	if strings.HasPrefix(t, `\\`) {
		return true
	}
	_, u, ok := wordURL(t)
	return ok && (lower(u.Scheme) == "http" || lower(u.Scheme) == "https" || lower(u.Scheme) == "ftp")
}

// winOperands are a Windows program's words that are neither options nor
// the values of the options in values (lower case, without - or /).
func winOperands(args []arg, values map[string]bool) []arg {
	var ops []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if s := strings.TrimLeft(t, "-/"); len(s) < len(t) && s != "" {
			if values[lower(s)] {
				i++
			}
			continue
		}
		ops = append(ops, args[i])
	}
	return ops
}

// certreqValues are certreq's options that take a value.
var certreqValues = set("config", "attrib", "binary", "policyserver", "cert", "f", "q", "user", "machine", "credential")

// winDownload judges the Windows download tools of this file.
func (a *auditor) winDownload(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	args := c.args()
	var src, out arg
	found := false
	switch c.name {
	case "mpcmdrun":
		if winSwitch(args, "downloadfile") {
			src, found = winOption(args, "url")
			out, _ = winOption(args, "path")
		}
	case "certreq":
		if src, found = winOption(args, "config"); found && src.lit && !webSource(src) {
			found = false // a certification authority's name (HOST\CA)
		}
		if ops := winOperands(args, certreqValues); found && len(ops) >= 2 {
			out = ops[1] // certreq -Post -config URL REQUEST ANSWER
		}
	case "desktopimgdownldr":
		src, found = winOption(args, "lockscreenurl")
	case "datasvcutil":
		src, found = winOption(args, "uri")
		out, _ = winOption(args, "out")
	case "squirrel", "update":
		for _, o := range []string{"download", "update", "updaterollback"} {
			if src, found = winOption(args, o); found {
				break
			}
		}
	case "gfxdownloadwrapper", "configsecuritypolicy":
		for i, w := range args {
			if w.lit && webSource(w) {
				src, found = w, true
				if c.name == "gfxdownloadwrapper" && i+1 < len(args) {
					out = args[i+1]
				}
				break
			}
		}
	case "appinstaller":
		for _, w := range args {
			if l := lower(w.text); strings.HasPrefix(l, "ms-appinstaller:") {
				if _, v, ok := strings.Cut(w.text, "source="); ok {
					src, found = arg{text: v, path: w.path, lit: w.lit}, true
				}
			}
		}
	case "cmdl32":
		if winSwitch(args, "lan") || winSwitch(args, "vpn") {
			a.inferred.Network = true
			a.add(CodeFetchExec, c.argv[0].path, "runs "+quoted(c.name)+", which downloads what its connection profile names when the server starts")
			info.fetches = true
		}
		return info
	}
	if !found || !webSource(src) {
		return info
	}
	a.inferred.Network = true
	a.add(CodeFetchExec, c.argv[0].path, "runs "+quoted(c.name)+", which downloads content when the server starts")
	a.plainFetch(src, c.name, "downloads content")
	if out.lit && out.text != "" {
		a.addFetched(out.text, c.name)
	}
	info.fetches = true
	return info
}

// peelScriptHost peels the Windows Script Host: cscript and wscript take
// their own options as //NAME words, then run the script their next word
// names with the words after it.
func peelScriptHost(_ *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	for len(args) > 0 && strings.HasPrefix(args[0].text, "//") {
		args = args[1:]
	}
	if len(args) == 0 {
		return nil, cmdInfo{name: c.name}, true
	}
	return args, cmdInfo{}, false
}

// pubprn judges pubprn.vbs, which publishes a printer to a directory and
// runs the scriptlet its second word names as script:LOCATION: a scriptlet
// given by URL is downloaded and run.
func (a *auditor) pubprn(c invocation) cmdInfo {
	for _, w := range c.args() {
		loc, ok := cutFold(w.text, "script:")
		if !ok {
			continue
		}
		v := arg{text: loc, path: w.path, lit: w.lit}
		if webSource(v) {
			a.inferred.Network = true
			a.add(CodeFetchExec, w.path, quoted(c.name)+" downloads a script and runs it")
			a.plainFetch(v, c.name, "downloads a script")
		}
	}
	return cmdInfo{name: c.name}
}

// cutFold returns s after prefix when s starts with it in any case.
func cutFold(s, prefix string) (string, bool) {
	t := strings.TrimSpace(s)
	if len(t) >= len(prefix) && strings.EqualFold(t[:len(prefix)], prefix) {
		return t[len(prefix):], true
	}
	return "", false
}

// maxSubexpressions bounds the $(…) read from one word.
const maxSubexpressions = 4

// msdt judges the support diagnostic tool: the answers a troubleshooter
// is given in /param (or in an ms-msdt: link) reach PowerShell, which
// evaluates what is written in $(…) (CVE-2022-30190): each is judged as
// an inline PowerShell script.
func (a *auditor) msdt(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	for _, w := range c.args() {
		for _, sub := range psSubexpressions(w.text) {
			a.psScript(c.name, arg{text: sub, path: w.path, lit: w.lit}, w.path, c.depth, c.env)
			info.runsArg = !w.lit
		}
	}
	return info
}

// psSubexpressions returns the text inside each PowerShell $(…) of s (at
// most maxSubexpressions), its parentheses matched; an unclosed one runs
// to the end of s.
func psSubexpressions(s string) []string {
	var subs []string
	for len(subs) < maxSubexpressions {
		i := strings.Index(s, "$(")
		if i < 0 {
			break
		}
		s = s[i+2:]
		depth, end := 1, len(s)
		for j := 0; j < len(s); j++ {
			switch s[j] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				end = j
				break
			}
		}
		if t := strings.TrimSpace(s[:end]); t != "" {
			subs = append(subs, t)
		}
		s = s[end:]
	}
	return subs
}

// mavinject judges mavinject, the App-V helper that loads a library into a
// running process (/INJECTRUNNING, /HMODULE=…): the library's code then
// runs as that program's, out of sight of what watches programs start.
func (a *auditor) mavinject(c invocation) cmdInfo {
	for _, w := range c.args() {
		if l := lower(w.text); l == "/injectrunning" || strings.HasPrefix(l, "/hmodule=") {
			a.add(CodeDefenseEvasion, w.path, "loads a library into another program's running process with "+quoted(c.name))
			break
		}
	}
	return cmdInfo{name: c.name}
}
