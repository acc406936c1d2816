package assess

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A shell script the wiring runs sees the variables the server's process
// was started with: `sh -c '$RUN'` with RUN = "npx -y pkg" in [mcp.env]
// runs npx, and `eval "$RUN"` runs whatever RUN holds. The audit carries
// the env block's values into such a script, and a script's exported
// variables into the shells it starts, so that what they name is judged
// like any other command. Only what is known to reach the shell is
// carried: the env block for the [mcp] command line, through wrappers that
// keep the environment as it is (keepsEnv); a container, a remote host, an
// elevated or cleared environment starts without it.

// keepsEnv are the wrappers that run their command with their own
// environment, the project runners (uv run, poetry run, conda run, mise
// exec …) that run it with that environment and their project's variables
// added, and the package runners (npx, uvx, pipx run, pnpm dlx …), whose
// package's command inherits their environment: a variable the env block
// sets reaches the command unless the runner is told to read a file of
// variables (readsEnvFile).
var keepsEnv = set("nohup", "setsid", "exec", "builtin", "time", "caffeinate", "command", "nice", "ionice",
	"chrt", "taskset", "stdbuf", "timeout", "unbuffer",
	"uv", "poetry", "pipenv", "pdm", "hatch", "rye", "pixi", "conda", "mamba", "micromamba", "asdf", "mise", "rtx",
	"npx", "pnpx", "bunx", "bun", "npm", "pnpm", "yarn", "uvx", "pipx")

// readsEnvFile reports whether a runner's own options (the words of argv
// before next, the command it runs) name a file of variables to load: uv
// run --env-file, and the same option of other runners. Such a file may set
// any variable again, so what the env block gave is no longer known.
func readsEnvFile(argv, next []arg) bool {
	opts := argv
	if n := len(argv) - len(next); n >= 0 {
		opts = argv[:n]
	}
	for _, o := range opts {
		if t := o.text; t == "--env-file" || strings.HasPrefix(t, "--env-file=") {
			return true
		}
	}
	return false
}

// inherit gives the script the variables its shell starts with. A name the
// shell could not read as a variable is left out, and so is a value that
// holds a ${…} placeholder the host fills in: what it stands for is not
// known.
func (s *scan) inherit(env map[string]string) {
	if len(env) == 0 || !s.a.spend(len(env), s.path) {
		return
	}
	for k, v := range env {
		if !shellName(k) || strings.Contains(v, "${") {
			continue
		}
		if s.exported == nil {
			s.exported = map[string]bool{}
		}
		s.exported[k] = true
		if len(v) > maxVarBytes {
			if s.overlong == nil {
				s.overlong = map[string]bool{}
			}
			s.overlong[k] = true
			continue
		}
		if s.vars == nil {
			s.vars = map[string]string{}
		}
		s.vars[k] = v
	}
}

// shellName reports whether k is a name a POSIX shell reads as a variable.
func shellName(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// export marks the variables of an export clause as passed to the commands
// the script runs (their values are recorded by setVar as for any
// assignment).
func (s *scan) export(x *syntax.DeclClause) {
	if x.Variant == nil || x.Variant.Value != "export" {
		return
	}
	for _, as := range x.Args {
		if as.Name == nil || !shellName(as.Name.Value) {
			continue
		}
		if s.exported == nil {
			s.exported = map[string]bool{}
		}
		s.exported[as.Name.Value] = true
	}
}

// unset forgets the variables an unset command names.
func (s *scan) unset(argv []arg) {
	for _, w := range argv[1:] {
		if w.lit && w.text == "HISTFILE" {
			s.a.add(CodeDefenseEvasion, s.path, "turns the shell's history off (unset HISTFILE)")
		}
		if w.lit && !strings.HasPrefix(w.text, "-") {
			delete(s.vars, w.text)
			delete(s.overlong, w.text)
			delete(s.exported, w.text)
		}
	}
}

// childEnv returns the variables a command the script runs starts with,
// where their values are known: the exported ones as the script last set
// them, and the command's own prefix assignments (X=1 cmd).
func (s *scan) childEnv(assigns []*syntax.Assign) map[string]string {
	if n := len(s.exported) + len(assigns); n == 0 || !s.a.spend(n, s.path) {
		return nil
	}
	var env map[string]string
	put := func(k, v string) {
		if env == nil {
			env = make(map[string]string, len(s.exported)+len(assigns))
		}
		env[k] = v
	}
	for k := range s.exported {
		if v, ok := s.vars[k]; ok {
			put(k, v)
		}
	}
	for _, as := range assigns {
		if as.Name == nil || as.Naked || as.Index != nil || as.Array != nil || as.Append {
			continue
		}
		v, ok := "", true
		if as.Value != nil {
			v, ok = s.wordValue(as.Value)
		}
		if ok && len(v) <= maxVarBytes {
			put(as.Name.Value, v)
		} else {
			delete(env, as.Name.Value)
		}
	}
	return env
}

// windowsEnv returns the variables of env as cmd.exe and PowerShell read
// them, by lower-case name (Windows' names ignore case): the names that
// only differ in case from another, and values with a ${…} placeholder or
// past maxVarBytes, are left out as not known. It is nil when none is left,
// or when copying them would pass the audit's budget.
func (a *auditor) windowsEnv(env map[string]string, path string) map[string]string {
	if len(env) == 0 || !a.spend(len(env), path) {
		return nil
	}
	var out map[string]string
	var clash map[string]bool
	for k, v := range env {
		lk := lower(k)
		if _, dup := out[lk]; dup || clash[lk] {
			if clash == nil {
				clash = map[string]bool{}
			}
			clash[lk] = true
			delete(out, lk)
			continue
		}
		if k == "" || strings.Contains(v, "${") || len(v) > maxVarBytes {
			continue
		}
		if out == nil {
			out = make(map[string]string, len(env))
		}
		out[lk] = v
	}
	return out
}

// cmdEnvWords returns the words of a cmd.exe line with each %NAME% of a
// variable in env replaced by its value, as cmd.exe reads the line before
// it parses it; %NAME% of any other variable stays as written. ok is false
// once the expansions pass maxExpandedBytes.
func (a *auditor) cmdEnvWords(words []arg, env map[string]string, path string) (out []arg, ok bool) {
	if len(words) == 0 {
		return words, true
	}
	vars := cmdVars{vals: a.windowsEnv(env, path)}
	if len(vars.vals) == 0 {
		return words, true
	}
	out = words
	for i, w := range words {
		if !w.lit || strings.IndexByte(w.text, '%') < 0 {
			continue
		}
		t, ok := vars.expand(w.text, '%')
		if !ok {
			return nil, false
		}
		if t != w.text {
			if &out[0] == &words[0] {
				out = slices.Clone(words)
			}
			out[i].text = t
		}
	}
	return out, true
}

// envAfter returns the variables env's command starts with: env's own
// (inherited) changed by its options and NAME=value words; -i starts from
// none. The inherited map is never written.
func (a *auditor) envAfter(args []arg, inherited map[string]string) map[string]string {
	env := inherited
	owned := false
	own := func() {
		if !owned {
			if !a.spend(len(env)+1, args[0].path) {
				env = map[string]string{}
				owned = true
				return
			}
			cp := make(map[string]string, len(env)+1)
			for k, v := range env {
				cp[k] = v
			}
			env, owned = cp, true
		}
	}
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			return env
		case t == "-" || t == "-i" || t == "--ignore-environment" ||
			strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Trim(t[1:], "iv0") == "" && strings.Contains(t, "i"):
			env, owned = map[string]string{}, true
		case t == "-u" || t == "--unset":
			if i+1 < len(args) {
				i++
				own()
				delete(env, args[i].text)
			}
		case strings.HasPrefix(t, "--unset="):
			own()
			delete(env, strings.TrimPrefix(t, "--unset="))
		case t == "-C" || t == "--chdir" || t == "-P":
			i++
		case strings.HasPrefix(t, "-S") || strings.HasPrefix(t, "--split-string"):
			return env // peelEnv hands the split words back to env
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			k, ok := isAssignment(t)
			if !ok {
				return env
			}
			own()
			if args[i].lit {
				env[k] = t[len(k)+1:]
			} else {
				delete(env, k)
			}
		}
	}
	return env
}

// param1 returns the value of a positional parameter ($0 … $9, $#, and
// $@ or $* joined with blanks) when name is one; ok says whether the
// value is known.
func (s *scan) param1(name string) (v string, ok, positional bool) {
	switch {
	case name == "@" || name == "*":
		if s.params == nil {
			return "", false, true
		}
		return strings.Join(s.params[1:], " "), true, true
	case name == "#":
		if s.params == nil {
			return "", false, true
		}
		return strconv.Itoa(len(s.params) - 1), true, true
	case len(name) == 1 && name[0] >= '0' && name[0] <= '9':
		if s.params == nil {
			return "", false, true
		}
		if i := int(name[0] - '0'); i < len(s.params) {
			return s.params[i], true, true
		}
		return "", true, true // not set: empty
	}
	return "", false, false
}

// allParams returns the words of "$@": each positional parameter from $1
// on, as it is.
func (s *scan) allParams(p syntax.WordPart) ([]string, bool) {
	dq, ok := p.(*syntax.DblQuoted)
	if !ok || len(dq.Parts) != 1 {
		return nil, false
	}
	pe, ok := dq.Parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Param.Value != "@" || pe.Exp != nil || pe.Length || pe.Excl ||
		pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 || len(pe.Modifiers) > 0 {
		return nil, false
	}
	if s.params == nil {
		return nil, false
	}
	return s.params[1:], true
}

// shift follows shift [N] and set [-- ] ARG…: the positional parameters
// they leave. A count or a word not known leaves them unknown; set with
// options only (set -e, set -o pipefail) leaves them as they are.
func (s *scan) shift(argv []arg) {
	if s.params == nil {
		return
	}
	if progName(argv[0].text) == "set" {
		words := argv[1:]
		for len(words) > 0 && words[0].lit && len(words[0].text) > 1 &&
			(words[0].text[0] == '-' || words[0].text[0] == '+') && words[0].text != "--" {
			if words[0].text == "-o" || words[0].text == "+o" {
				words = words[min(1, len(words)-1):]
			}
			words = words[1:]
		}
		if len(words) > 0 && words[0].lit && words[0].text == "--" {
			words = words[1:]
		} else if len(words) == 0 {
			return
		}
		params := []string{s.params[0]}
		for _, w := range words {
			if !w.lit {
				s.params = nil
				return
			}
			params = append(params, w.text)
		}
		s.params = params
		return
	}
	n := 1
	if len(argv) > 1 {
		var err error
		if n, err = strconv.Atoi(argv[1].text); err != nil || !argv[1].lit || n < 0 {
			s.params = nil
			return
		}
	}
	if n > len(s.params)-1 {
		s.params = nil // shift fails: bash goes on, sh stops
		return
	}
	s.params = append([]string{s.params[0]}, s.params[1+n:]...)
}

// hasFunc reports whether the script declares a function (or is too
// large to tell).
func hasFunc(f *syntax.File) bool {
	found, over := findNode(f, func(node syntax.Node) bool {
		_, ok := node.(*syntax.FuncDecl)
		return ok
	})
	return found || over
}

// spend takes n from the audit's budget for copying variables, as a walk
// takes a node: once the budget is gone the overrun is reported and the
// copy is not made, so that a long script with a large env block stays
// bounded.
func (a *auditor) spend(n int, path string) bool {
	if a.budget < n {
		a.budget = 0
		a.overrunAt(path)
		return false
	}
	a.budget -= n
	return true
}

// envUser reports whether a program a script runs could read the
// variables the script passes it (a shell, cmd.exe, PowerShell, env, a
// wrapper that keeps them for its command, or docker and podman, which
// read where their engine is from DOCKER_HOST and CONTAINER_HOST): for
// any other, they are not copied.
func envUser(name string) bool {
	switch name {
	case "cmd", "powershell", "pwsh", "pwsh-preview", "env", "docker", "podman":
		return true
	}
	return isPOSIXShell(name) || keepsEnv[name]
}
