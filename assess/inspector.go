package assess

import (
	"strings"

	"github.com/registryd/registryd/addon"
)

// The MCP Inspector's proxy (port 6277) starts any command a request to it
// names, to connect its web page to that command's server. From 0.14.1 it
// listens on loopback and asks every request for a session token; before
// that it asked for none (CVE-2025-49596), and DANGEROUSLY_OMIT_AUTH turns
// the check off again (the Inspector reads any non-empty value as set).
// Without the check, any web page the user opens can make it run commands
// on this machine; HOST beyond loopback lets whoever reaches the machine
// do so as well.

// inspectorFixed is the first release whose proxy asks for a token.
var inspectorFixed = func() addon.SemVer {
	v, err := addon.ParseSemVer("0.14.1")
	if err != nil {
		panic(err)
	}
	return v
}()

// inspectorVersion judges the MCP Inspector named by an exact version
// (@modelcontextprotocol/inspector@0.10.0, fastmcp dev --inspector-version
// 0.10.0) at w: one before inspectorFixed takes no token.
func (a *auditor) inspectorVersion(version string, w arg) {
	v, err := addon.ParseSemVer(strings.TrimLeft(strings.TrimSpace(version), "v="))
	if err != nil || v.Compare(inspectorFixed) >= 0 {
		return
	}
	a.add(CodeInboundAccess, w.path, "runs the MCP Inspector "+safeText(v.String(), 20)+", whose proxy starts any command a "+
		"request names and, before 0.14.1, asks for no token (CVE-2025-49596): any web page the user opens can run commands on this machine")
}

// inspectorAuth judges the variables the MCP Inspector inherits (env) at
// w: DANGEROUSLY_OMIT_AUTH turns its token check off, and a token written
// into the wiring (MCP_PROXY_AUTH_TOKEN, not a placeholder the host fills
// in) is known to whoever reads it.
func (a *auditor) inspectorAuth(env map[string]string, w arg) {
	where := "any web page the user opens"
	if h, ok := env["HOST"]; ok && openHost(strings.Trim(strings.TrimSpace(h), "[]"), false) {
		where += ", and whoever reaches this machine (HOST=" + safeText(strings.TrimSpace(h), 40) + "),"
	}
	switch {
	case env["DANGEROUSLY_OMIT_AUTH"] != "":
		a.add(CodeInboundAccess, w.path, "runs the MCP Inspector with its token check off (DANGEROUSLY_OMIT_AUTH): its proxy "+
			"starts any command a request names, so "+where+" can run commands on this machine")
	case !placeholder(env["MCP_PROXY_AUTH_TOKEN"]):
		a.add(CodeInboundAccess, w.path, "runs the MCP Inspector with the token its proxy asks for written into the wiring "+
			"(MCP_PROXY_AUTH_TOKEN): its proxy starts any command a request names, so "+where+" can run commands on this "+
			"machine once it knows the token")
	}
}
