package assess

import "strings"

// Installers of MCP servers: programs, usually run by npx, whose one job
// is to write a server into an AI client's configuration, where the client
// starts it on every later use (persistence, as smithery install,
// fastmcp install and claude mcp add are).

// installMCPValues are the options of install-mcp that take one value;
// --header and --env take every word up to the next option (yargs
// arrays).
var installMCPValues = set("--name", "--client", "--project", "--oauth", "--transport", "-t")

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
		case flag == "--header" || flag == "--env":
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

// addMCPValues are add-mcp's options that take a value (commander reads
// them anywhere among the operands).
var addMCPValues = set("-a", "--agent", "-n", "--name", "-t", "--transport", "--type", "-h", "--header", "--env",
	"--args", "--timeout", "--scopes", "--oauth-scopes", "--bearer-token-env", "--approve-tool")

// addMCPCommands are add-mcp's subcommands: they list, search, remove or
// sync the servers already configured; any other first operand is the
// server to add.
var addMCPCommands = set("list-agents", "list", "find", "search", "remove", "sync", "unify")

// addMCP judges add-mcp TARGET (npx add-mcp URL|PACKAGE|COMMAND -a
// AGENT …), which writes the target into the configuration of the coding
// agents chosen (-a, --all, or the ones it finds); without a target it
// prints a banner.
func (a *auditor) addMCP(c invocation) cmdInfo {
	ops := operands(c.args(), addMCPValues, true, nil)
	if len(ops) == 0 || addMCPCommands[ops[0].text] || ops[0].text == "" {
		return cmdInfo{name: c.name}
	}
	a.add(CodePersistence, ops[0].path, "`add-mcp` writes the server `"+safeText(ops[0].text, 60)+
		"` into the configuration of AI coding agents, which start it on every later use")
	return cmdInfo{name: c.name}
}

// composioValues are the options of Composio's MCP CLI that take a value.
var composioValues = set("--client", "--name", "--url")

// composioMCP judges Composio's MCP CLI (npx @composio/mcp, whose command
// is named mcp): setup URL [NAME] writes the server into an AI client's
// configuration (Claude Desktop's when --client is not given; for VS Code
// it runs code --add-mcp), and start --url URL bridges this machine to
// that server.
func (a *auditor) composioMCP(c invocation) cmdInfo {
	a.inferred.Network = true
	var url *arg
	ops := operands(c.args(), composioValues, false, func(flag string, w arg, _ string) {
		if flag == "--url" {
			url = &w
		}
	})
	if len(ops) == 0 {
		return cmdInfo{name: c.name}
	}
	switch ops[0].text {
	case "setup":
		if len(ops) > 1 && ops[1].text != "" {
			a.add(CodePersistence, ops[1].path, "Composio's `mcp setup` writes the server `"+safeText(ops[1].text, 60)+
				"` into an AI client's configuration, which starts it on every later use")
		}
	case "start":
		if url != nil {
			a.proxyEndpoint(*url)
		}
	}
	return cmdInfo{name: c.name}
}

// mcpmEdits are the options of mcpm client edit that write servers or
// profiles into the client's configuration.
var mcpmEdits = set("--add-server", "--set-servers", "--add-profile", "--set-profiles")

// mcpm judges MCPM's CLI (click: its subcommands' options follow them):
// client edit CLIENT --add-server … writes `mcpm run SERVER` entries into
// that AI client's configuration; share SERVER publishes a server of this
// machine on the internet through share.mcpm.sh; run and profile run
// with --http or --sse serve the server over HTTP on --host (loopback
// by default). install writes only MCPM's own configuration.
func (a *auditor) mcpm(c invocation) cmdInfo {
	args := c.args()
	a.inferred.Network = true
	switch {
	case startsWith(args, "client", "edit"):
		for _, w := range args[2:] {
			if flag, _, _ := strings.Cut(w.text, "="); mcpmEdits[flag] {
				a.add(CodePersistence, w.path, "`mcpm client edit` writes MCP servers into an AI client's configuration, which starts them on every later use")
				break
			}
		}
	case startsWith(args, "share"):
		a.add(CodeInboundAccess, args[0].path, "`mcpm share` publishes an MCP server of this machine on the internet (through share.mcpm.sh)")
	case startsWith(args, "run"), startsWith(args, "profile", "run"):
		http := false
		var host *arg
		for i := 1; i < len(args); i++ {
			flag, val, joined := strings.Cut(args[i].text, "=")
			switch flag {
			case "--http", "--sse":
				http = true
			case "--host":
				if !joined {
					if i+1 == len(args) {
						// click refuses an option without its value:
						// nothing is served.
						return cmdInfo{name: c.name}
					}
					i++
					val = args[i].text
				}
				w := args[i]
				w.text = val
				host = &w
			}
		}
		if http && host != nil && host.lit {
			a.bridgeServes(c, "mcpm", strings.TrimSpace(host.text), *host, false)
		}
	}
	return cmdInfo{name: c.name}
}
