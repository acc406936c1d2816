package assess

import (
	"strings"

	"github.com/registryd/registryd/addon"

	"mvdan.cc/sh/v3/syntax"
)

// commandLine reports whether mcp.command holds a whole command line
// ("uvx some-server --flag", or srv|sh without a blank) rather than one
// program. A path with blanks in
// a directory name (C:\Program Files\nodejs\node.exe) is one program,
// unless its first word already names a program the audit knows
// (/usr/bin/env bash -c …), or an interpreter in a folder named after it
// (/Users/me/Python Projects/.venv/bin/python, interpreterFolder). Such a
// path may still be one program (auditor.folderBlank).
func commandLine(s string) bool {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		// No blank, but a character with which a shell or cmd.exe
		// chains, pipes or redirects (srv|sh, a&&b): a launcher that
		// hands command to a shell runs a line, not one program. The
		// brackets of a documentation placeholder (<executable>) are not
		// a redirection here.
		if !strings.ContainsAny(s, "|&;<>`") {
			return false
		}
		text, _ := placeholders(s, `'"`, '\\')
		return strings.ContainsAny(text, "|&;<>`")
	}
	if s[0] == '"' || s[0] == '\'' {
		end := strings.IndexByte(s[1:], s[0])
		return end >= 0 && strings.TrimSpace(s[end+2:]) != ""
	}
	if !executablePath(s) {
		return true
	}
	first := progName(s[:i])
	if interpreterFolder(first, s) {
		return false
	}
	_, wrapper := wrappers[first]
	rule, program := programs[first]
	return wrapper || program && !rule.inert() || programs[family(first)].judge != nil
}

// scriptInterpreters are the interpreter families whose first argument is
// the path of a local script to run.
var scriptInterpreters = set("python", "node", "ruby", "perl", "php", "lua")

// interpreterFolder reports whether path, a path with blanks
// (executablePath), names an interpreter inside a folder whose name
// begins with the interpreter's own name and a blank: the folder "Python
// Projects" of /Users/me/Python Projects/.venv/bin/python3, "Node Apps" of
// C:\Users\me\Node Apps\node.exe. first is the program name of the
// path's first word. Read as a command line, such a path runs that
// interpreter on a local script of the words after the blank (a relative
// path that ends in the interpreter itself), which fetches and runs
// nothing else; read as one path, it is the interpreter the wiring names,
// whose arguments are judged as always. So it is read as one path rather
// than refused as a command line.
func interpreterFolder(first, path string) bool {
	f := family(first)
	return scriptInterpreters[f] && family(progName(path)) == f
}

// folderBlank reports whether mcp.command, a path with blanks whose first
// word names a program the audit knows (commandLine), is one program after
// all: the blank falls inside a folder's name, so that the word after it
// goes on into folders (/Users/me/Git Repos/srv/bin/server, /opt/Docker
// Tools/bin/x), and the command line it would read as runs nothing the
// audit reports or infers: git, docker or go given a relative path for a
// subcommand fail, an interpreter or a shell runs a local file. Then the
// path is the program, and its words in mcp.args are judged as always. A
// command line that would fetch or run anything the audit sees (npx
// evil/bin/x, curl Tools/x) stays a command line. The command line is
// judged by an audit of its own, which sees only the words: the first
// has no blank, so that audit does not come back here.
func (a *auditor) folderBlank(args []arg) bool {
	cmd := strings.TrimSpace(a.m.MCP.Command)
	if cmd == "" || cmd[0] == '"' || cmd[0] == '\'' || !executablePath(cmd) {
		return false // quoted, or options, other paths or URLs follow
	}
	words := strings.Fields(cmd)
	if len(words) < 2 || !strings.ContainsAny(words[1], `/\`) {
		return false
	}
	line := make([]string, 0, len(words)-1+len(args))
	line = append(line, words[1:]...)
	for _, w := range args {
		line = append(line, w.text)
	}
	r := Audit(&addon.Manifest{
		MCP: addon.MCP{Declared: true, Transport: addon.TransportStdio, Command: words[0], Args: line},
	})
	return len(r.Findings) == 0 && r.Inferred == Inferred{}
}

// commandField returns the command line [mcp] runs when mcp.command holds a
// command line of its own (commandLine). It is reported, then read the way
// a launcher that accepts one reads it: through a shell (cmd.exe for a
// Windows path, sh otherwise), with mcp.args appended. One plain command
// comes back as its words followed by args; a script comes back as the
// shell running it.
func (a *auditor) commandField(args []arg) []arg {
	cmd := a.m.MCP.Command
	const path = "mcp.command"
	text, names := cmd, []docPlaceholder(nil)
	windows := strings.Contains(cmd, `\`)
	if windows {
		text, names = placeholders(cmd, `"`, '^')
	} else {
		text, names = placeholders(cmd, `'"`, '\\')
	}
	a.placeholderLeft(path, nil, names)
	var words []string
	plain := false
	if windows {
		words, plain = cmdPlainWords(text)
	} else {
		words, plain = shellPlainWords(text)
	}
	n := len(strings.Fields(cmd))
	if plain {
		n = len(words)
	}
	if !strings.ContainsAny(strings.TrimSpace(cmd), " \t") {
		a.add(CodeCommandLine, path, "holds a command line that chains, pipes or redirects, not one program; put the program in command and each word in args")
	} else {
		a.add(CodeCommandLine, path, "holds a whole command line of "+plural(n, "word")+", not one program; put the program in command and each word in args")
	}
	if !plain {
		line := cmd
		for _, w := range args {
			line += " " + w.text
		}
		if windows {
			return []arg{{text: "cmd", path: path, lit: true}, {text: "/c", path: path, lit: true}, {text: line, path: path, lit: true}}
		}
		return []arg{{text: "sh", path: path, lit: true}, {text: "-c", path: path, lit: true}, {text: line, path: path, lit: true}}
	}
	argv := make([]arg, 0, len(words)+len(args))
	for _, w := range words {
		argv = append(argv, arg{text: w, path: path, lit: true})
	}
	return append(argv, args...)
}

// shellPlainWords splits a POSIX command line into its words when it is one
// simple command of literal words (no operator, redirection, assignment or
// expansion).
func shellPlainWords(text string) ([]string, bool) {
	if len(text) > maxScriptBytes || bracketDepth(text) > 2*maxNesting {
		return nil, false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil || len(f.Stmts) != 1 || chains(f) {
		return nil, false
	}
	c, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 {
		return nil, false
	}
	words := make([]string, 0, len(c.Args))
	for _, w := range c.Args {
		t, ok := wordText(w)
		if !ok {
			return nil, false
		}
		words = append(words, t)
	}
	return words, len(words) > 0
}

// cmdPlainWords splits a cmd.exe command line into its words when it is
// one command without operators.
func cmdPlainWords(text string) ([]string, bool) {
	cmds, meta := cmdParse(text)
	if meta || len(cmds) != 1 {
		return nil, false
	}
	words := make([]string, len(cmds[0].words))
	for i, w := range cmds[0].words {
		words[i] = w.text
	}
	return words, true
}
