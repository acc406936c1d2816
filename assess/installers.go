package assess

import "strings"

// Installers of MCP servers: programs, usually run by npx, whose one job
// is to write a server into an AI client's configuration, where the client
// starts it on every later use (persistence, as smithery install,
// fastmcp install and claude mcp add are).

// installMCPValues are the options of install-mcp that take one value;
// --header takes every word up to the next option (a yargs array).
var installMCPValues = set("--name", "--client", "--transport", "-t")

// installMCP judges install-mcp (npx install-mcp TARGET --client CLIENT),
// whose TARGET is a server URL, a package name (written as npx PACKAGE) or
// a whole command line. Every client's configuration is written, after a
// confirmation that --yes (-y) skips and that a prompt on its standard
// input, where the MCP client writes, may answer; warp's is only printed,
// and without a client (or with an empty one) nothing is written.
// Options come before or after the target, as yargs reads them.
func (a *auditor) installMCP(c invocation) cmdInfo {
	args := c.args()
	var target, clientWord *arg
	client := ""
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			if target == nil && i+1 < len(args) {
				target = &args[i+1]
			}
			break
		}
		if len(t) < 2 || t[0] != '-' {
			if target == nil {
				target = &args[i]
			}
			continue
		}
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case flag == "--header":
			for !joined && i+1 < len(args) && !strings.HasPrefix(args[i+1].text, "-") {
				i++
			}
		case installMCPValues[flag]:
			if !joined {
				if i+1 >= len(args) || args[i+1].text == "--" {
					continue
				}
				i++
				val = args[i].text
			}
			if flag == "--client" {
				client, clientWord = val, &args[i]
			}
		}
	}
	if target != nil && (strings.HasPrefix(target.text, "http://") || strings.HasPrefix(target.text, "https://")) {
		a.inferred.Network = true // it probes the server's transport
	}
	if clientWord == nil || client == "" || lower(client) == "warp" {
		return cmdInfo{name: c.name}
	}
	at, what := *clientWord, "a server it asks for"
	if target != nil {
		at, what = *target, "the server `"+safeText(target.text, 60)+"`"
	}
	a.add(CodePersistence, at.path, "`install-mcp` writes "+what+" into the configuration of "+quoted(safeText(client, 40))+
		", which starts it on every later use")
	return cmdInfo{name: c.name}
}

// mcpGet judges mcp-get (npx @michaellatman/mcp-get install PACKAGE
// [VERSION]), which reads its words by position: install writes the
// package's server into the configuration of the AI clients it finds.
func (a *auditor) mcpGet(c invocation) cmdInfo {
	args := c.args()
	if len(args) >= 2 && args[0].text == "install" && args[1].text != "" {
		a.add(CodePersistence, args[1].path, "`mcp-get install` writes the server `"+safeText(args[1].text, 60)+
			"` into the configuration of the AI clients it finds, which start it on every later use")
	}
	return cmdInfo{name: c.name}
}
