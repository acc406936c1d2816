package assess

import "strings"

// Configuration that tools read and act on every time they run: the MCP
// settings of AI coding tools (which start the servers they list), the
// settings of package managers, git, ssh and the editor, git's hooks and
// the editor's tasks. A wiring that writes one of them outlives the
// server: whatever it puts there runs, or decides where code comes from,
// in every later session (persistence), as the settings written with a
// tool's own command are since 2026.12.71.

// startsServers is what writing an AI coding tool's MCP settings does.
const startsServers = "which starts the MCP servers it lists"

// configFile says which tool reads the file at p on every run, and what
// writing it does (a git hook has no tool: does says what it is); both ""
// when p is no such file.
func configFile(p string) (tool, does string) {
	lp := strings.ToLower(cleanPath(p))
	base := lp[strings.LastIndexByte(lp, '/')+1:]
	dir := lp[:max(strings.LastIndexByte(lp, '/'), 0)]
	parent := dir[strings.LastIndexByte(dir, '/')+1:]
	const servers, settings = startsServers, "which it reads and acts on every time it runs"
	switch {
	case base == "mcp.json" && parent == ".cursor":
		return "Cursor", servers
	case base == "claude_desktop_config.json":
		return "Claude Desktop", servers
	case base == ".claude.json" || parent == ".claude" && strings.HasPrefix(base, "settings"):
		return "Claude Code", servers
	case base == "mcp_config.json" && parent == "windsurf":
		return "Windsurf", servers
	case base == "mcp.json" && (parent == ".vscode" || parent == "user"):
		return "VS Code", servers
	case (base == "settings.json" || base == "tasks.json") && (parent == ".vscode" || parent == "user" && strings.Contains(dir, "code")):
		return "VS Code", "which runs the tasks, terminals and servers it names"
	case parent == ".continue" && strings.HasPrefix(base, "config."):
		return "Continue", servers
	case base == "settings.json" && parent == "zed":
		return "Zed", servers
	case base == "cline_mcp_settings.json":
		return "Cline", servers
	case base == "config.toml" && parent == ".codex":
		return "Codex", servers
	case base == "settings.json" && parent == ".gemini":
		return "Gemini CLI", servers
	case parent == "hooks" && strings.HasSuffix(dir, ".git/hooks"):
		return "", "a git hook, which git runs whenever the repository is committed to, checked out or pushed"
	case base == ".gitconfig" || base == "config" && (parent == "git" || strings.HasSuffix(dir, "/.git") || dir == ".git"):
		return "git", settings
	case base == "config" && parent == ".ssh":
		return "ssh", settings
	case base == ".npmrc":
		return "npm", settings
	case base == ".yarnrc" || base == ".yarnrc.yml":
		return "Yarn", settings
	case base == "pip.conf" || base == "pip.ini" || base == ".pydistutils.cfg":
		return "pip", settings
	case base == ".condarc":
		return "conda", settings
	case base == ".gemrc":
		return "gem", settings
	case (base == "config" || base == "config.toml") && parent == ".cargo":
		return "Cargo", settings
	case base == "settings.xml" && parent == ".m2":
		return "Maven", settings
	case parent == ".gradle" && (base == "gradle.properties" || base == "init.gradle" || strings.HasSuffix(base, ".init.gradle")):
		return "Gradle", settings
	case base == "nuget.config":
		return "NuGet", settings
	case base == "config.json" && parent == ".docker":
		return "Docker", settings
	case base == "bunfig.toml" || base == ".bunfig.toml":
		return "Bun", settings
	case base == ".curlrc" || base == ".wgetrc":
		return base[1:], settings
	}
	return "", ""
}

// configWritten records a tool's configuration written at p.
func (a *auditor) configWritten(p, path string) {
	tool, does := configFile(p)
	switch {
	case tool != "":
		a.add(CodePersistence, path, "writes the configuration of "+tool+" ("+safeText(cleanPath(p), 60)+"), "+does)
	case does != "":
		a.add(CodePersistence, path, "writes "+does+" ("+safeText(cleanPath(p), 60)+")")
	}
}

// psWrites judges PowerShell's Set-Content, Add-Content and Out-File: the
// file of -Path, -LiteralPath or -FilePath (any unambiguous prefix), or
// the first word that is no parameter.
func (a *auditor) psWrites(c invocation) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		name, val, colon := strings.Cut(lower(args[i].text), ":")
		if !strings.HasPrefix(name, "-") {
			if args[i].lit {
				a.writesTo(args[i].text, args[i].path)
			}
			return
		}
		if len(name) > 2 && (strings.HasPrefix("-path", name) || strings.HasPrefix("-literalpath", name) ||
			strings.HasPrefix("-filepath", name)) {
			if w, ok := optValue(args, &i, val, colon); ok && w.lit {
				a.writesTo(w.text, w.path)
			}
			return
		}
		if !colon && i+1 < len(args) && !strings.HasPrefix(args[i+1].text, "-") {
			i++ // another parameter's value
		}
	}
}

// registersServer judges the command lines of AI coding tools and editors
// that register an MCP server or install an extension for every later
// session: claude, gemini and codex mcp add; code, code-insiders, cursor
// and windsurf --add-mcp and --install-extension.
func (a *auditor) registersServer(c invocation) {
	args := c.args()
	for i, w := range args {
		switch {
		case w.text == "mcp" && i+1 < len(args) && strings.HasPrefix(args[i+1].text, "add"):
			a.add(CodePersistence, c.argv[0].path, "registers an MCP server with "+quoted(c.name)+", which starts it in every later session")
			return
		case w.text == "--add-mcp" || strings.HasPrefix(w.text, "--add-mcp="):
			a.add(CodePersistence, c.argv[0].path, "registers an MCP server with "+quoted(c.name)+", which starts it in every later session")
			return
		case w.text == "--install-extension" || strings.HasPrefix(w.text, "--install-extension="):
			a.add(CodePersistence, c.argv[0].path, "installs an extension into "+quoted(c.name)+", which runs it in every later session")
			return
		}
	}
}
