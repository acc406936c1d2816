package assess

import "strings"

// Process managers of the Node ecosystem: pm2 and forever start a program
// under a daemon of their own, which keeps it running (and restarts it)
// after the server exits. The program they start is judged as a command
// line the wiring runs; pm2 startup installs a boot script, which starts
// pm2's processes at every boot (persistence).

// pm2Values are pm2's options that take a value.
var pm2Values = set("--name", "-n", "-i", "--instances", "--interpreter", "--interpreter-args", "--node-args",
	"-o", "--output", "-e", "--error", "-l", "--log", "--log-type", "--cwd", "--ignore-watch",
	"--max-memory-restart", "-c", "--cron", "--cron-restart", "--env", "--namespace", "--max-restarts",
	"--restart-delay", "--exp-backoff-restart-delay", "-u", "--user", "--uid", "--gid", "--kill-timeout",
	"--listen-timeout", "--log-date-format", "-p", "--pid", "--instance-var", "--filter-env", "--hp",
	"--service-name", "--wait-ready-timeout")

// pm2 judges pm2 start (and pm2-runtime): the program it starts, with
// --interpreter or --node-args when given, and the words after "--" as
// its arguments; a target with blanks is a program and its words, as pm2
// splits it. pm2 startup installs a boot script.
func (a *auditor) pm2(c invocation) cmdInfo {
	args := c.args()
	if c.name == "pm2-runtime" {
		if len(args) > 0 && args[0].text == "start" {
			args = args[1:]
		}
	} else {
		sub := skipFlags(args, pm2Values)
		if len(sub) == 0 {
			return cmdInfo{name: c.name}
		}
		switch sub[0].text {
		case "startup":
			a.add(CodePersistence, sub[0].path, "installs a boot script for "+quoted(c.name)+", which starts its processes at every boot")
			return cmdInfo{name: c.name}
		case "start", "restart", "reload":
			args = sub[1:]
		default:
			return cmdInfo{name: c.name}
		}
	}
	var target *arg
	var interp, nodeArgs arg
	var rest []arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			rest = args[i+1:]
			break
		}
		if len(t) < 2 || t[0] != '-' {
			if target == nil {
				target = &args[i]
			}
			continue
		}
		flag, val, joined := strings.Cut(t, "=")
		if !pm2Values[flag] {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			break
		}
		switch flag {
		case "--interpreter":
			interp = w
		case "--node-args", "--interpreter-args":
			nodeArgs = w
		}
	}
	if target == nil || !target.lit {
		return cmdInfo{name: c.name}
	}
	a.inferred.Exec = true
	var argv []arg
	switch {
	case interp.lit && interp.text != "" && interp.text != "none":
		argv = append(argv, interp)
	case jsScript(target.text):
		argv = append(argv, arg{text: "node", path: target.path, lit: true})
	}
	if len(argv) > 0 && nodeArgs.lit {
		for _, f := range strings.Fields(nodeArgs.text) {
			argv = append(argv, arg{text: f, path: nodeArgs.path, lit: true})
		}
	}
	for _, f := range strings.Fields(target.text) {
		argv = append(argv, arg{text: f, path: target.path, lit: true})
	}
	a.command(append(argv, rest...), c.depth+1, ctxNested)
	return cmdInfo{name: c.name}
}

// jsScript reports whether a process manager's target is a JavaScript or
// TypeScript file, which it runs with node.
func jsScript(s string) bool {
	for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"} {
		if strings.HasSuffix(strings.ToLower(s), ext) {
			return true
		}
	}
	return false
}

// foreverValues are forever's options that take a value.
var foreverValues = set("-c", "--command", "-l", "--logFile", "-o", "--outFile", "-e", "--errFile", "-p",
	"--path", "--sourceDir", "--workingDir", "-u", "--uid", "-m", "--max", "--minUptime", "--spinSleepTime",
	"--killSignal", "--pidFile", "--id", "--watchDirectory", "--append", "--colors", "--plain")

// forever judges forever [start|restart] [options] SCRIPT [args…]: it
// runs the script with -c's command (words split at blanks; node without
// it).
func (a *auditor) forever(c invocation) cmdInfo {
	args := c.args()
	if len(args) > 0 && (args[0].text == "start" || args[0].text == "restart") {
		args = args[1:]
	}
	var command arg
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			args = args[i+1:]
			break
		}
		if len(t) < 2 || t[0] != '-' {
			args = args[i:]
			break
		}
		flag, val, joined := strings.Cut(t, "=")
		if !foreverValues[flag] {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			return cmdInfo{name: c.name}
		}
		if flag == "-c" || flag == "--command" {
			command = w
		}
		if i == len(args)-1 {
			return cmdInfo{name: c.name}
		}
	}
	if len(args) == 0 || len(args[0].text) > 0 && args[0].text[0] == '-' {
		return cmdInfo{name: c.name}
	}
	a.inferred.Exec = true
	var argv []arg
	if command.lit && strings.TrimSpace(command.text) != "" {
		for _, f := range strings.Fields(command.text) {
			argv = append(argv, arg{text: f, path: command.path, lit: true})
		}
	} else {
		argv = append(argv, arg{text: "node", path: args[0].path, lit: true})
	}
	a.command(append(argv, args...), c.depth+1, ctxNested)
	return cmdInfo{name: c.name}
}
