package assess

import "strings"

// FastMCP's CLI (`fastmcp`, read from its source):
//
//   - `fastmcp run SPEC [options] [-- ARGS…]` runs the server of a Python
//     file, a fastmcp.json or an MCP configuration file, or, when SPEC is
//     an http(s) URL, a local proxy to that remote server (a
//     remote_endpoint, as mcp-remote's URL is). --with PACKAGE (again and
//     again) and --with-requirements FILE make it run the server under `uv
//     run --with …`, which installs them: each must be pinned, as uv run's
//     --with. --transport http|sse|streamable-http serves it over HTTP on
//     --host (127.0.0.1 unless told otherwise): beyond loopback that hands
//     the server to whoever connects.
//   - `fastmcp dev SPEC` starts the MCP Inspector with npx, at the version
//     --inspector-version gives or, without it, the latest.
//   - `fastmcp install CLIENT SPEC` writes the server into an AI client's
//     configuration (claude-desktop, claude-code, cursor, gemini-cli,
//     goose …): persistence; the mcp-json and stdio targets print it.
//
// Options stand anywhere before "--" (cyclopts reads them so).
//
// The official MCP Python SDK's CLI (`mcp`, from mcp[cli]), which FastMCP
// grew out of, has the same run, dev and install: `mcp run FILE`, `mcp dev
// FILE [--with PACKAGE]` (the Inspector by npx, always at its latest) and
// `mcp install FILE` (into Claude Desktop's configuration). It is read
// when the program word is `mcp` itself: MCP is also a common folder name
// (/Users/me/MCP servers/.venv/bin/python), so the name is not one of the
// programs by which mcp.command is read as a whole command line.

// fastmcpValues are the options of fastmcp's commands that take a value.
var fastmcpValues = set("--transport", "-t", "--host", "--port", "-p", "--path", "--log-level", "-l", "--python",
	"--with", "--project", "--with-requirements", "--with-editable", "--server-spec", "--name", "-n",
	"--env", "--env-file", "-f", "--ui-port", "--server-port", "--inspector-version", "--output", "-o",
	"--workspace", "--config")

// fastmcpPrinted are fastmcp install's targets that print the
// configuration rather than write it.
var fastmcpPrinted = set("mcp-json", "stdio")

// fastmcp judges `fastmcp run|dev|install …`.
func (a *auditor) fastmcp(c invocation) cmdInfo {
	info, _ := a.fastmcpCLI(c, false)
	return info
}

// mcpSDK judges the MCP Python SDK's `mcp run|dev|install …`; ok is false
// for another command of a program by that name (mcptools' `mcp tools`
// …), which is then judged as an unknown program.
func (a *auditor) mcpSDK(c invocation) (cmdInfo, bool) { return a.fastmcpCLI(c, true) }

// fastmcpCLI judges FastMCP's CLI, or the MCP SDK's when sdk is true (run,
// dev and install only; ok is false for another command).
func (a *auditor) fastmcpCLI(c invocation, sdk bool) (cmdInfo, bool) {
	info := cmdInfo{name: c.name}
	who := "fastmcp"
	if sdk {
		who = "mcp"
	}
	args := c.args()
	if end := indexWord(args, "--"); end >= 0 {
		args = args[:end]
	}
	ops := operands(args, fastmcpValues, false, nil)
	if sdk && (len(ops) == 0 || ops[0].text != "run" && ops[0].text != "dev" && ops[0].text != "install") {
		return info, false
	}
	var transport, inspector string
	var host *arg
	operands(args, fastmcpValues, false, func(flag string, w arg, val string) {
		v := arg{text: val, path: w.path, lit: w.lit}
		switch flag {
		case "--with":
			a.inferred.Network = true
			for _, part := range strings.Split(val, ",") {
				if part = strings.TrimSpace(part); part != "" && v.lit && !pyPinned(part) && !localSpec(part) {
					a.add(CodeUnpinned, v.path, unpinnedMessage(who, "installs", part))
					a.plainFetch(arg{text: part, path: v.path, lit: true}, who, "fetches a package")
				}
			}
		case "--with-requirements":
			a.inferred.Network = true
			a.requirementsURL(flag, v, val, who, "installs")
		case "--transport", "-t":
			transport = lower(strings.TrimSpace(val))
		case "--host":
			host = &v
		case "--inspector-version":
			inspector = strings.TrimSpace(val)
		}
	})
	if len(ops) == 0 {
		return info, true
	}
	switch sub := ops[0]; sub.text {
	case "run":
		if sdk {
			break // a file of this machine: the SDK's run takes no URL and no --host
		}
		if len(ops) > 1 && ops[1].lit && (strings.HasPrefix(lower(ops[1].text), "http://") || strings.HasPrefix(lower(ops[1].text), "https://")) {
			a.proxyEndpoint(ops[1])
		}
		if host != nil && host.lit && (transport == "http" || transport == "sse" || transport == "streamable-http") {
			a.bridgeServes(c, who, strings.TrimSpace(host.text), *host, false)
		}
	case "dev":
		a.inferred.Network = true
		a.inspectorAuth(c.env, sub)
		if !sdk {
			a.inspectorVersion(inspector, sub)
		}
		if sdk {
			a.add(CodeUnpinned, sub.path, "`mcp dev` runs the MCP Inspector with npx without an exact version (it takes none)")
		} else if !semverExact.MatchString(inspector) {
			a.add(CodeUnpinned, sub.path, "`fastmcp dev` runs the MCP Inspector with npx without an exact version (--inspector-version)")
		}
	case "install":
		if sdk {
			a.add(CodePersistence, sub.path, "`mcp install` writes the server into Claude Desktop's configuration, which starts it on every later use")
		} else if len(ops) > 1 && !fastmcpPrinted[lower(ops[1].text)] {
			a.add(CodePersistence, ops[1].path, "`fastmcp install "+safeText(ops[1].text, 30)+
				"` writes the server into an AI client's configuration, which starts it on every later use")
		}
	}
	return info, true
}

// indexWord returns the index of the first word of args that is w, or -1.
func indexWord(args []arg, w string) int {
	for i, a := range args {
		if a.text == w {
			return i
		}
	}
	return -1
}
