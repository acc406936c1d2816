package assess

import (
	"regexp"
	"strings"
)

// Command lines in inline programs. An inline program that hands a string
// to its language's call that runs a command line through /bin/sh (os.system
// and os.popen, subprocess with shell=True, child_process's exec and
// execSync, system, exec, backquotes and qx, shell_exec, passthru, popen,
// os.execute, io.popen, awk's system and its pipes) runs that string as a
// shell script: the string, written literally in the program, is judged as
// one (python -c "import os; os.system('curl … | sh')" pipes a download
// into a shell; os.system('npx -y pkg') runs an unpinned package). The
// calls that take the program and its arguments as a list of strings
// (subprocess.run(['npx', '-y', 'pkg']), spawn('npx', ['-y', 'pkg']),
// execFile, system('npx', '-y', 'pkg') in Perl and Ruby) run that command
// line without a shell: it is judged as the command it is. Strings built
// at run time are not read.

// strLit matches a string literal in single or double quotes on one line,
// its text in the first or second group.
const strLit = `(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)")`

// oneString follows a string literal that is a call's only argument: the
// same call given a list (system('npx', '-y', 'pkg')) runs no shell.
const oneString = `(?:\s*[^\s,]|\s*$)`

// shellCalls are, per language, the calls whose string argument is a
// command line for /bin/sh, each with the literal in its groups.
var shellCalls = map[string][]*regexp.Regexp{
	"python": {
		regexp.MustCompile(`\b(?:os\.system|os\.popen|subprocess\.getoutput|subprocess\.getstatusoutput|commands\.getoutput)\s*\(\s*[rRuU]?` + strLit),
	},
	"node": {
		regexp.MustCompile(`\b(?:exec|execSync)\s*\(\s*` + strLit),
		regexp.MustCompile("\\b(?:exec|execSync)\\s*\\(\\s*`([^`$\\\\]*)`"),
	},
	"perl": {
		regexp.MustCompile(`\b(?:system|exec)\s*\(?\s*` + strLit + oneString),
		regexp.MustCompile("`([^`\n]*)`"),
		regexp.MustCompile(`\bqx\s*(?:\{([^}\n]*)\}|\(([^)\n]*)\)|/([^/\n]*)/)`),
	},
	"ruby": {
		regexp.MustCompile(`(?:\b(?:system|exec|spawn)|IO\.popen|Open3\.\w+)\s*\(?\s*` + strLit + oneString),
		regexp.MustCompile("`([^`\n]*)`"),
		regexp.MustCompile(`%x(?:\{([^}\n]*)\}|\(([^)\n]*)\))`),
	},
	"php": {
		regexp.MustCompile(`\b(?:system|exec|shell_exec|passthru|popen|proc_open)\s*\(\s*` + strLit),
		regexp.MustCompile("`([^`\n]*)`"),
	},
	"lua": {
		regexp.MustCompile(`\b(?:os\.execute|io\.popen)\s*\(?\s*` + strLit),
	},
	"awk": {
		regexp.MustCompile(`\bsystem\s*\(\s*"((?:[^"\\\n]|\\.)*)"`),
		regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"\s*\|\s*getline`),
		regexp.MustCompile(`\|&?\s*"((?:[^"\\\n]|\\.)*)"`),
	},
}

// pythonShellTrue matches the subprocess calls that take a string as a
// command line because shell=True is among their arguments.
var pythonShellTrue = regexp.MustCompile(`\bsubprocess\.(?:run|call|check_call|check_output|Popen)\s*\(\s*[rRuU]?` + strLit + `[^)\n]*\bshell\s*=\s*True`)

// argvCalls are, per language, the calls that take a program and its
// arguments as string literals: the first group holds the list.
var argvCalls = map[string][]*regexp.Regexp{
	"python": {regexp.MustCompile(`\b(?:subprocess\.(?:run|call|check_call|check_output|Popen)|os\.execvp?e?|pty\.spawn)\s*\(\s*\[([^\]\n]*)\]`)},
	"node": {
		regexp.MustCompile(`\b(?:spawn|spawnSync|execFile|execFileSync)\s*\(\s*(` + strLit + `\s*,\s*\[[^\]\n]*)\]`),
	},
	"perl": {regexp.MustCompile(`\b(?:system|exec)\s*\(?\s*(` + strLit + `(?:\s*,\s*` + strLit + `)+)`)},
	"ruby": {regexp.MustCompile(`\b(?:system|exec|spawn)\s*\(?\s*(` + strLit + `(?:\s*,\s*` + strLit + `)+)`)},
}

// stringLits matches each string literal of a list.
var stringLits = regexp.MustCompile(strLit)

// literalEscapes undoes the escapes of a quoted literal that matter to a
// command line: a quote, a backslash, a line feed and a tab.
var literalEscapes = strings.NewReplacer(`\'`, `'`, `\"`, `"`, `\\`, `\`, `\n`, "\n", `\t`, "\t")

// maxInlineCalls bounds the command lines read from one inline program,
// maxInlineArgs the words of one.
const maxInlineCalls, maxInlineArgs = 8, 64

// inlineCommands judges the command lines an inline program of language
// lang hands to a shell, as scripts that shell runs.
func (a *auditor) inlineCommands(lang, code, path string, depth int) {
	name := lang
	switch lang {
	case "bun", "tsx", "ts-node", "deno":
		lang = "node"
	}
	res := shellCalls[lang]
	if len(res) == 0 {
		return
	}
	if lang == "node" && !strings.Contains(code, "child_process") {
		return // exec( is RegExp's too
	}
	n := 0
	for _, re := range argvCalls[lang] {
		for _, m := range re.FindAllStringSubmatch(code, maxInlineCalls) {
			var argv []arg
			for _, lit := range stringLits.FindAllStringSubmatch(m[1], maxInlineArgs) {
				argv = append(argv, arg{text: literalEscapes.Replace(lit[1] + lit[2]), path: path, lit: true})
			}
			if len(argv) == 0 || argv[0].text == "" {
				continue
			}
			if n++; n > maxInlineCalls {
				return
			}
			a.inferred.Exec = true
			a.command(argv, depth+1, ctxNested)
		}
	}
	if lang == "python" && strings.Contains(code, "shell") {
		res = append(res[:len(res):len(res)], pythonShellTrue)
	}
	for _, re := range res {
		for _, m := range re.FindAllStringSubmatch(code, maxInlineCalls) {
			text := ""
			for _, g := range m[1:] {
				if g != "" {
					text = g
					break
				}
			}
			if text = strings.TrimSpace(literalEscapes.Replace(text)); text == "" {
				continue
			}
			if n++; n > maxInlineCalls {
				return
			}
			a.add(CodeShellExec, path, "the inline "+quoted(name)+" program runs a command line through a shell")
			a.inferred.Exec = true
			sc := &scan{a: a, path: path, depth: depth + 1, lenient: true}
			sc.script(text)
		}
	}
}
