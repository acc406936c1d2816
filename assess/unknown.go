package assess

import (
	"slices"
	"strings"

	"github.com/registryd/registryd/registry"
)

// A program the audit does not know may be a wrapper: fakeroot, cgexec,
// rr record, a project's own launcher. Peeling only the wrappers it knows
// would let any other name hide what follows it (`fakeroot sh -c 'curl …
// | sh'` passed with no finding). So the words of an unknown program that
// name a program the audit knows are read as a command it may run:
//
//   - in command position (the first word that is not an option, the word
//     after `--`, after a run-like verb such as `run` or `start` in that
//     position (and after a version that follows the verb, as in `n exec
//     20 npx pkg`), after an option such as --exec, or the first word after
//     options that may each have taken the next word as its value, as in
//     `mcp-proxy --port 8080 uvx pkg`) the words from there on are judged
//     as the command the program runs;
//   - anywhere else they are judged only when they show code being run
//     (a shell's script, inline code, a download, a pipe into a shell,
//     obfuscated commands) or could not be analysed; otherwise what they
//     would add is dropped.
//
// Each reading costs one of maxTrials, so that no manifest can make the
// audit read the same words over and over.

// maxTrials bounds the readings of an unknown program's words as a command
// over the whole audit.
const maxTrials = 32

// runVerbs are first operands after which an unknown program's next word is
// in command position (pm2 start CMD, rr record CMD, perf stat CMD).
var runVerbs = set("run", "exec", "start", "launch", "spawn", "x", "wrap", "record", "stat", "trace", "do")

// runOptions are options whose value, the next word, is a command (an
// unknown launcher's --exec CMD …).
var runOptions = set("--exec", "--cmd", "--command", "--run", "--wrap")

// lineOptions are options after which an unknown program's word that
// holds a whole command line is in command position (a terminal's -e, -x
// or --execute). -c is not one of them: to most programs it names a
// configuration.
var lineOptions = set("-e", "-x", "--execute")

// commonWords are names of programs the audit knows that are also ordinary
// words of a command line (a subcommand, a mode): in command position they
// are judged only when they show code being run, as anywhere else.
var commonWords = set("arch", "builtin", "command", "exec", "start", "time", "script", "watch", "screen", "env",
	"op", "eval", "find", "make", "task", "just", "view", "port", "reg", "r", "ex", "expect", "hh", "bb", "dx",
	"go", "nu", "sg", "su", "x")

// runsCode are the codes whose finding shows that words judged as a
// command run code, or that what they run could not be analysed: they make
// a reading outside command position count, so that no bound the reading
// met is dropped with it.
var runsCode = set(CodeShellExec, CodeInlineCode, CodeFetchExec, CodePipeToShell, CodeObfuscatedExec, CodeUnparsableShell)

// unknownProgram judges the words of a program the audit has no rule for,
// as the comment at the top of this file says.
func (a *auditor) unknownProgram(c invocation) {
	args := c.args()
	first := slices.IndexFunc(args, func(w arg) bool { return !strings.HasPrefix(w.text, "-") })
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.lit || strings.HasPrefix(w.text, "-") {
			continue
		}
		// A word with blanks that begins with a known program's name is
		// a whole command line handed on in one word (xterm -e 'curl … |
		// sh', a launcher's --exec 'cmd args'): it is read as a shell
		// reads it. Otherwise a known program's name with words after it.
		line := strings.ContainsAny(w.text, " \t")
		name := progName(w.text)
		if line {
			fields := strings.Fields(w.text)
			if len(fields) == 0 {
				continue
			}
			name = progName(fields[0])
		} else if i+1 == len(args) {
			continue
		}
		if _, known := programFor(name); !known {
			continue
		}
		position := i == first ||
			i > 0 && (args[i-1].text == "--" || runOptions[args[i-1].text]) ||
			first >= 0 && i == first+1 && runVerbs[args[first].text] ||
			first >= 0 && i == first+2 && runVerbs[args[first].text] && versionWord(args[first+1].text) ||
			onlyOptionValues(args[:i])
		if line {
			// A line is read only as the value of an option that takes
			// a command or after --, and is then in command position:
			// elsewhere a string that begins with a program's name is
			// data (a name, a message).
			position = i > 0 && (args[i-1].text == "--" || runOptions[args[i-1].text] || lineOptions[args[i-1].text])
			if !position || commonWords[name] {
				continue
			}
		}
		position = position && !commonWords[name]
		if a.trials >= maxTrials {
			if a.trials == maxTrials { // reported once
				a.limit(w.path, "too many words read as commands of programs the audit does not know")
				a.trials++
			}
			return
		}
		a.trials++
		n, inferred, piped, persisted, cwd := len(a.findings), a.inferred, a.piped, a.persisted, a.cwd
		clones := slices.Clone(a.clones)
		a.shellEnv = c.env
		if line {
			a.shellLine(args[i:i+1], c.depth, false, false)
		} else {
			a.command(args[i:], c.depth+1, c.ctx)
		}
		if position || slices.ContainsFunc(a.findings[n:], func(f registry.Finding) bool { return runsCode[f.Code] }) {
			continue
		}
		a.findings, a.inferred, a.piped, a.persisted, a.clones, a.cwd = a.findings[:n], inferred, piped, persisted, clones, cwd
	}
}

// onlyOptionValues reports whether ws, the words before one that is not an
// option, are options and words each of which directly follows an option
// without a joined value (`--port 8080`), so that it may be that option's
// value: then the word after them is the first operand, whatever the
// options take.
func onlyOptionValues(ws []arg) bool {
	mayTake := false // the word before was an option that may take a value
	for _, w := range ws {
		switch {
		case w.text == "--":
			return false // what follows -- is judged on its own
		case len(w.text) > 1 && w.text[0] == '-':
			mayTake = !strings.Contains(w.text, "=")
		case mayTake:
			mayTake = false
		default:
			return false
		}
	}
	return true
}

// versionWord reports whether t names a version of a runtime, as a version
// manager's exec line gives it before the command (`n exec 20 npx pkg`):
// a number with an optional v, or a name such as lts or latest.
func versionWord(t string) bool {
	switch t {
	case "lts", "latest", "current", "stable":
		return true
	}
	t = strings.TrimPrefix(t, "v")
	return t != "" && '0' <= t[0] && t[0] <= '9' || strings.HasPrefix(t, "lts/")
}
