package assess

import (
	"strings"
)

// Runtime options that run a command line or load code from elsewhere.
//
//   - The JVM's -XX:OnOutOfMemoryError=CMD and -XX:OnError=CMD (each
//     CMD;CMD… a list) run their commands through /bin/sh -c (cmd /c on
//     Windows) when the heap runs out or the JVM fails, which a wiring can
//     bring about at will (-Xmx1m): what each runs is judged.
//     The same options in the variables the JVM (JAVA_TOOL_OPTIONS,
//     JDK_JAVA_OPTIONS, _JAVA_OPTIONS) and its launchers (JAVA_OPTS,
//     MAVEN_OPTS, GRADLE_OPTS) read are judged the same way.
//   - PHP's -d auto_prepend_file=URL and -d auto_append_file=URL run the
//     script a URL serves on every request (with allow_url_include): a
//     script run by its URL, unpinned as groovy's or zx's is, insecure_url
//     over plain http or ftp.

// jvmOptionVariables are the variables whose value the JVM, or a launcher
// of it, reads as JVM options.
var jvmOptionVariables = set("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTS", "MAVEN_OPTS", "GRADLE_OPTS")

// runtimeOptions judges the options of the runtimes this file knows.
func (a *auditor) runtimeOptions(c invocation) {
	switch c.name {
	case "java", "javaw":
		a.jvmOptions(c)
	case "php":
		a.phpIncludes(c)
	}
}

// jvmOptions judges java's options, before its main class or -jar.
func (a *auditor) jvmOptions(c invocation) {
	for _, w := range c.args() {
		t := w.text
		if t == "-jar" || !strings.HasPrefix(t, "-") {
			return // the program and its words
		}
		a.jvmOption(c.name, w, c.depth)
	}
}

// jvmOption judges one JVM option of the program (or variable) who, and
// reports whether it names commands. Each command is judged as man's
// pager is: a plain command line as the command it runs, one that pipes,
// chains or substitutes as the script it is; the option alone is not
// shell_exec, as -XX:OnOutOfMemoryError='kill -9 %p' is common and runs
// only kill.
func (a *auditor) jvmOption(who string, w arg, depth int) bool {
	if !w.lit {
		return false
	}
	found := false
	for _, name := range []string{"-XX:OnOutOfMemoryError=", "-XX:OnError="} {
		cmd, ok := strings.CutPrefix(w.text, name)
		if !ok {
			continue
		}
		found = true
		cmd = strings.Trim(cmd, `"'`)
		for part := range strings.SplitSeq(cmd, ";") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			v := w
			v.text = part
			a.optionCommand(invocation{name: who, depth: depth}, optWords, v)
		}
	}
	return found
}

// jvmOptionsEnv judges the JVM options a variable of jvmOptionVariables
// holds, split at blanks as the JVM splits them (a quoted value kept
// whole), and reports whether they name commands.
func (a *auditor) jvmOptionsEnv(key string, value arg, depth int) bool {
	if !value.lit || !jvmOptionVariables[strings.ToUpper(key)] || !strings.Contains(value.text, "-XX:On") {
		return false
	}
	found := false
	for _, f := range jvmSplit(value.text) {
		if a.jvmOption(key, arg{text: f, path: value.path, lit: true}, depth) {
			found = true
		}
	}
	return found
}

// jvmSplit splits a JVM options variable at blanks outside double or
// single quotes, dropping the quotes.
func jvmSplit(s string) []string {
	var out []string
	var b strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, in = r, true
		case quote == 0 && (r == ' ' || r == '\t' || r == '\n'):
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// phpIncludes judges php's -d settings (-d KEY=VALUE, -dKEY=VALUE) that
// have it run a file before or after every script: one given by a URL is
// a script run by its URL.
func (a *auditor) phpIncludes(c invocation) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" || !strings.HasPrefix(t, "-") {
			return // the script and its words
		}
		var w arg
		switch {
		case t == "-d" || t == "--define":
			if i+1 >= len(args) {
				return
			}
			i++
			w = args[i]
		case strings.HasPrefix(t, "-d"):
			w = args[i]
			w.text = t[2:]
		default:
			continue
		}
		key, val, ok := strings.Cut(w.text, "=")
		if key = strings.TrimSpace(key); !ok || !w.lit || key != "auto_prepend_file" && key != "auto_append_file" {
			continue
		}
		w.text = strings.Trim(strings.TrimSpace(val), `"'`)
		u, ok := parseAnyURL(w.text)
		if !ok || loopbackHost(u.Hostname()) {
			continue
		}
		scheme := lower(u.Scheme)
		if scheme != "http" && scheme != "https" && scheme != "ftp" {
			continue
		}
		who := "php -d " + key
		a.inferred.Network = true
		if scheme == "ftp" {
			a.add(CodeInsecureURL, w.path, quoted(who)+" runs a script from "+safeText(u.Host, 80)+" over plain ftp, which anyone on the way can replace")
		} else {
			a.plainFetch(w, who, "runs a script")
		}
		if !commitURL(w.text) {
			a.add(CodeUnpinned, w.path, quoted(who)+" runs the PHP script "+safeText(u.Host, 80)+
				" serves with every request, which can change without notice; ship the script with the server")
		}
	}
}
