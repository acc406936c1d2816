package assess

import "strings"

// Playwright's MCP server (@playwright/mcp, whose command is
// mcp-server-playwright) drives a browser, with the sessions of its
// profile, for whoever calls its tools. Given a port (--port, or
// PLAYWRIGHT_MCP_PORT) it serves them over HTTP, on localhost unless
// --host (or PLAYWRIGHT_MCP_HOST) names another address: beyond loopback,
// whoever reaches the machine drives the browser.

// playwrightMCPValues are the server's options that take a value.
var playwrightMCPValues = set("--allowed-origins", "--blocked-origins", "--browser", "--caps", "--cdp-endpoint",
	"--config", "--device", "--executable-path", "--host", "--image-responses", "--output-dir", "--port",
	"--proxy-bypass", "--proxy-server", "--storage-state", "--user-agent", "--user-data-dir", "--viewport-size",
	"--allowed-hosts", "--cdp-header", "--init-script", "--save-video", "--secrets", "--timeout-action",
	"--timeout-navigation", "--console-level", "--init-page", "--grant-permissions", "--codegen", "--snapshot-mode",
	"--test-id-attribute")

// playwrightMCP judges mcp-server-playwright's address: a port and a host
// beyond loopback is inbound_access.
func (a *auditor) playwrightMCP(c invocation) cmdInfo {
	port, portSet := c.env["PLAYWRIGHT_MCP_PORT"]
	host := c.env["PLAYWRIGHT_MCP_HOST"]
	where := c.argv[0]
	operands(c.args(), playwrightMCPValues, false, func(flag string, w arg, val string) {
		switch flag {
		case "--port":
			port, portSet = val, true
		case "--host":
			host, where = val, w
			if !w.lit {
				host = ""
			}
		}
	})
	if !portSet || strings.TrimSpace(port) == "" {
		return cmdInfo{name: c.name} // standard input and output only
	}
	a.inferred.Network = true
	if host == "" || !openHost(strings.Trim(strings.TrimSpace(host), "[]"), false) {
		return cmdInfo{name: c.name}
	}
	a.add(CodeInboundAccess, where.path, "`@playwright/mcp` offers its browser tools over HTTP on "+safeText(host, 60)+
		", so whoever reaches this machine can drive the browser, with the sessions of its profile")
	return cmdInfo{name: c.name}
}
