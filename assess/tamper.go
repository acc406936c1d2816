package assess

import (
	"slices"
	"strings"
)

// Traces removed and the machine's accounts changed. Clearing the shell's
// history or the system's logs, turning the history off and turning
// address randomisation off hide what ran or weaken the machine
// (defense_evasion). Creating an account, giving one a password or an
// administrators' group, writing the sudo rules or the account files,
// making a program setuid or giving it capabilities, and loading a
// kernel module give someone more power on the machine than the user
// gave the server (privilege_escalation). An MCP server does none of
// these.

// tamperJudges are the programs that may remove traces or change the
// machine's accounts, with how to tell.
var tamperJudges = map[string]func(a *auditor, c invocation){
	// History and logs.
	"history": func(a *auditor, c invocation) {
		if slices.ContainsFunc(c.args(), func(w arg) bool { return w.text == "-c" || w.text == "-cw" }) {
			a.evasion(c, "clears the shell's history")
		}
	},
	"clear-history": func(a *auditor, c invocation) { a.evasion(c, "clears the shell's history") },
	"wevtutil": func(a *auditor, c invocation) {
		if args := c.args(); len(args) > 0 && (strings.EqualFold(args[0].text, "cl") || strings.EqualFold(args[0].text, "clear-log")) {
			a.evasion(c, "clears a Windows event log")
		}
	},
	"clear-eventlog":  func(a *auditor, c invocation) { a.evasion(c, "clears a Windows event log") },
	"remove-eventlog": func(a *auditor, c invocation) { a.evasion(c, "deletes a Windows event log") },
	"journalctl": func(a *auditor, c invocation) {
		if slices.ContainsFunc(c.args(), func(w arg) bool { return strings.HasPrefix(w.text, "--vacuum-") }) {
			a.evasion(c, "deletes the system's journal")
		}
	},
	"set-psreadlineoption": func(a *auditor, c invocation) {
		if slices.ContainsFunc(c.args(), func(w arg) bool { return strings.EqualFold(w.text, "SaveNothing") }) {
			a.evasion(c, "turns the shell's history off")
		}
	},
	"sysctl": func(a *auditor, c invocation) {
		for _, w := range c.args() {
			if k, v, ok := strings.Cut(strings.ReplaceAll(w.text, "/", "."), "="); ok &&
				strings.TrimSpace(k) == "kernel.randomize_va_space" && strings.TrimSpace(v) == "0" {
				a.evasion(c, "turns address space randomisation off")
			}
		}
	},
	// Deleting, emptying or replacing a history or log file.
	"rm": (*auditor).removesTraces, "unlink": (*auditor).removesTraces, "shred": (*auditor).removesTraces,
	"truncate": (*auditor).removesTraces, "ln": (*auditor).links, "del": (*auditor).removesTraces,
	"remove-item": (*auditor).removesTraces, "ri": (*auditor).removesTraces, "erase": (*auditor).removesTraces,
	// Accounts.
	"useradd": (*auditor).createsAccount, "adduser": (*auditor).createsAccount,
	"new-localuser": (*auditor).createsAccount, "sysadminctl": func(a *auditor, c invocation) {
		if slices.ContainsFunc(c.args(), func(w arg) bool { return strings.EqualFold(w.text, "-addUser") }) {
			a.accounts(c, "creates an account on this machine")
		}
	},
	"dscl": func(a *auditor, c invocation) {
		if hasWords(c.args(), "-create", "/Users") || slices.ContainsFunc(c.args(), func(w arg) bool {
			return strings.HasPrefix(strings.ToLower(w.text), "/users/")
		}) && slices.ContainsFunc(c.args(), func(w arg) bool { return w.text == "-create" || w.text == "-passwd" }) {
			a.accounts(c, "creates or changes an account on this machine")
		}
	},
	"net": func(a *auditor, c invocation) {
		args := c.args()
		if len(args) < 2 || !slices.ContainsFunc(args, func(w arg) bool { return strings.EqualFold(w.text, "/add") }) {
			return
		}
		switch lower(args[0].text) {
		case "user":
			a.accounts(c, "creates an account on this machine")
		case "localgroup", "group":
			a.accounts(c, "adds an account to a group ("+safeText(args[1].text, 40)+")")
		}
	},
	"add-localgroupmember": func(a *auditor, c invocation) { a.accounts(c, "adds an account to a local group") },
	"usermod": func(a *auditor, c invocation) {
		for i, w := range c.args() {
			t := w.text
			if (t == "-G" || t == "-aG" || t == "--groups") && i+1 < len(c.args()) {
				if g := adminGroup(c.args()[i+1].text); g != "" {
					a.accounts(c, "adds an account to the "+g+" group")
				}
			}
		}
	},
	"gpasswd": func(a *auditor, c invocation) {
		args := c.args()
		if len(args) == 3 && (args[0].text == "-a" || args[0].text == "--add") {
			if g := adminGroup(args[2].text); g != "" {
				a.accounts(c, "adds an account to the "+g+" group")
			}
		}
	},
	"chpasswd": func(a *auditor, c invocation) { a.accounts(c, "sets the password of an account") },
	"chmod":    (*auditor).setuid,
	"setcap":   func(a *auditor, c invocation) { a.accounts(c, "gives a program capabilities of the superuser") },
	"insmod": func(a *auditor, c invocation) {
		a.accounts(c, "loads a kernel module (code that runs with the kernel's control)")
	},
	"modprobe": (*auditor).loadsModule,
	"visudo":   func(a *auditor, c invocation) { a.accounts(c, "edits the sudo rules") },
	"tee":      (*auditor).teeWrites,
	// DNS servers set.
	"networksetup": (*auditor).dnsServers, "set-dnsclientserveraddress": (*auditor).dnsServers,
	"resolvectl": (*auditor).dnsServers, "netsh": (*auditor).dnsServers,
	// Files written by PowerShell, and servers registered with the
	// tools that start them (config.go).
	"set-content": (*auditor).psWrites, "add-content": (*auditor).psWrites, "ac": (*auditor).psWrites,
	"out-file": (*auditor).psWrites,
	"claude":   (*auditor).registersServer, "gemini": (*auditor).registersServer, "codex": (*auditor).registersServer,
	"code": (*auditor).registersServer, "code-insiders": (*auditor).registersServer, "cursor": (*auditor).registersServer,
	"windsurf": (*auditor).registersServer,
}

// teeWrites judges tee: the files it writes (echo … | sudo tee -a
// /etc/sudoers).
func (a *auditor) teeWrites(c invocation) {
	for _, w := range c.args() {
		if w.lit && !strings.HasPrefix(w.text, "-") {
			a.writesTo(w.text, w.path)
		}
	}
}

// writesTo judges a file the wiring writes (a redirection, tee, the
// target of a copy or a move, PowerShell's Set-Content): the sudo rules or
// the account files, a history or a log emptied, address randomisation
// turned off, a tool's configuration (config.go).
func (a *auditor) writesTo(p, path string) {
	if r := a.atCwd(p); r != p {
		// cd ~/.ssh; echo KEY >> authorized_keys
		if persistencePath(r) && !persistencePath(p) {
			a.add(CodePersistence, path, "writes to a location that runs code at login, at boot or when a program starts")
		}
		p = r
	}
	if what := accountFile(p); what != "" {
		a.add(CodePrivilegeEscalation, path, "writes "+what+" ("+safeText(cleanPath(p), 40)+"), which decide who may do what on this machine")
	}
	if what := traceFile(p); what != "" {
		a.add(CodeDefenseEvasion, path, "overwrites "+what)
	}
	if strings.TrimSuffix(cleanPath(p), "/") == "/proc/sys/kernel/randomize_va_space" {
		a.add(CodeDefenseEvasion, path, "writes the setting of address space randomisation")
	}
	a.configWritten(p, path)
	if dir := searchPathDir(p); dir != "" {
		a.add(CodePersistence, path, "puts a program in "+dir+", a folder on the search path, where every later command that names it runs it")
	}
	if what := nameResolution(p); what != "" {
		a.add(CodePersistence, path, "writes "+what+", which decides where every later connection by name goes")
	}
}

// searchPathDirs are the folders on the search path of a usual shell (the
// user's own among them), lower case, as cleanPath writes them.
var searchPathDirs = set("/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/usr/sbin", "/bin", "/sbin",
	"/opt/homebrew/bin", "~/.local/bin", "~/bin", "c:/windows", "c:/windows/system32", "%windir%",
	"%windir%/system32", "%systemroot%", "%systemroot%/system32")

// searchPathDir returns the folder on the search path that p is, or is
// directly in; "" for any other path.
func searchPathDir(p string) string {
	lp := strings.ToLower(cleanPath(p))
	if searchPathDirs[lp] {
		return safeText(cleanPath(p), 40)
	}
	if i := strings.LastIndexByte(lp, '/'); i > 0 && searchPathDirs[lp[:i]] {
		return safeText(cleanPath(p)[:i], 40)
	}
	return ""
}

// nameResolution says what a path holds when it decides where names
// resolve to (the hosts file, the resolver's settings); "" otherwise.
func nameResolution(p string) string {
	switch strings.ToLower(cleanPath(p)) {
	case "/etc/hosts", "/private/etc/hosts", "c:/windows/system32/drivers/etc/hosts",
		"%windir%/system32/drivers/etc/hosts", "%systemroot%/system32/drivers/etc/hosts":
		return "the hosts file"
	case "/etc/resolv.conf", "/etc/systemd/resolved.conf":
		return "the resolver's settings"
	}
	return ""
}

// links judges ln: a link in place of a history or a log hides what ran
// (removesTraces), and the link it makes is a file written, as a copy's
// target is (ln TARGET LINK, ln TARGET… DIR, ln -t DIR TARGET…).
func (a *auditor) links(c invocation) {
	a.removesTraces(c)
	written := func(w arg) {
		if w.lit && traceFile(w.text) == "" { // a trace is removesTraces' to tell
			a.writesTo(w.text, w.path)
		}
	}
	ops := operands(c.args(), set("-t", "--target-directory", "-S", "--suffix"), true, func(flag string, w arg, val string) {
		if flag == "-t" || flag == "--target-directory" {
			w.text = val
			written(w)
		}
	})
	if len(ops) >= 2 {
		written(ops[len(ops)-1])
	}
}

// dnsServers judges the commands that set the machine's DNS servers.
func (a *auditor) dnsServers(c invocation) {
	args := c.args()
	sets := false
	switch c.name {
	case "networksetup":
		sets = slices.ContainsFunc(args, func(w arg) bool { return strings.EqualFold(w.text, "-setdnsservers") })
	case "netsh":
		sets = slices.ContainsFunc(args, func(w arg) bool {
			t := strings.ToLower(w.text)
			return t == "dns" || t == "dnsservers" || t == "dnsserver"
		}) && slices.ContainsFunc(args, func(w arg) bool {
			t := strings.ToLower(w.text)
			return t == "set" || t == "add"
		})
	case "set-dnsclientserveraddress":
		sets = true
	case "resolvectl":
		sets = len(args) > 1 && args[0].text == "dns"
	}
	if sets {
		a.add(CodePersistence, c.argv[0].path, "changes the machine's DNS servers with "+quoted(c.name)+
			", which decide where every later connection by name goes")
	}
}

// accounts records a change to who may do what on the machine.
func (a *auditor) accounts(c invocation, what string) {
	a.add(CodePrivilegeEscalation, c.argv[0].path, what+" with "+quoted(c.name))
}

// adminGroup returns the administrators' group among a comma-separated
// list of groups (sudo, wheel, admin, root, docker, whose members control
// the Docker daemon and so the machine), or "".
func adminGroup(list string) string {
	for _, g := range strings.Split(list, ",") {
		switch g = strings.TrimSpace(g); g {
		case "sudo", "wheel", "admin", "root", "docker", "adm":
			return g
		}
	}
	return ""
}

// createsAccount judges useradd, adduser and New-LocalUser given a name.
func (a *auditor) createsAccount(c invocation) {
	if slices.ContainsFunc(c.args(), func(w arg) bool { return !strings.HasPrefix(w.text, "-") }) {
		a.accounts(c, "creates an account on this machine")
	}
}

// setuid judges chmod: setting the setuid or setgid bit (u+s, g+s, +s, a
// four-digit mode with 4, 2 or 6 first) makes a program run as its owner.
func (a *auditor) setuid(c invocation) {
	for _, w := range c.args() {
		t := w.text
		if strings.HasPrefix(t, "-") && !strings.ContainsAny(t, "+=") {
			continue
		}
		symbolic := strings.ContainsAny(t, "+=") && strings.Contains(t[strings.IndexAny(t, "+="):], "s")
		numeric := len(t) == 4 && strings.Trim(t, "01234567") == "" && t[0] != '0' && t[0] != '1'
		if symbolic || numeric {
			a.accounts(c, "makes a program run as its owner (setuid or setgid)")
			return
		}
	}
}

// loadsModule judges modprobe: loading a module (not -r, --remove, -n,
// --dry-run, -c or --show…).
func (a *auditor) loadsModule(c invocation) {
	args := c.args()
	for _, w := range args {
		switch t := w.text; {
		case t == "-r" || t == "--remove" || t == "-n" || t == "--dry-run" || t == "-c" || t == "--showconfig" ||
			strings.HasPrefix(t, "--show"):
			return
		}
	}
	if slices.ContainsFunc(args, func(w arg) bool { return !strings.HasPrefix(w.text, "-") }) {
		a.accounts(c, "loads a kernel module (code that runs with the kernel's control)")
	}
}

// removesTraces judges rm, shred, truncate, ln (-sf /dev/null), del and
// Remove-Item given a shell's history file or a system log.
func (a *auditor) removesTraces(c invocation) {
	for _, w := range c.args() {
		if !w.lit || strings.HasPrefix(w.text, "-") {
			continue
		}
		if what := traceFile(w.text); what != "" {
			a.evasion(c, "deletes or empties "+what)
			return
		}
	}
}

// traceFile says what a path holds when it is a record of what ran: a
// shell's history (.bash_history, .zsh_history, .history, fish's
// history, PowerShell's ConsoleHost_history.txt) or the system's logs
// (/var/log and what is under it, and utmp, wtmp, btmp, lastlog); "" for
// any other path.
func traceFile(p string) string {
	p = cleanPath(p)
	lp := strings.ToLower(p)
	base := lp[strings.LastIndexByte(lp, '/')+1:]
	switch base {
	case ".bash_history", ".zsh_history", ".history", ".sh_history", ".ash_history", "fish_history",
		"consolehost_history.txt", ".python_history", ".mysql_history", ".psql_history", ".lesshst", ".viminfo":
		return "a shell's history"
	}
	if lp == "/var/log" || strings.HasPrefix(lp, "/var/log/") || strings.HasPrefix(lp, "/var/run/utmp") {
		return "the system's logs"
	}
	return ""
}

// historyOff reports a script's variable set to turn the shell's history
// off: HISTFILE emptied or pointed at /dev/null, HISTSIZE, HISTFILESIZE
// or SAVEHIST set to 0.
func (a *auditor) historyOff(key string, value arg) {
	v := strings.TrimSpace(value.text)
	switch key {
	case "HISTFILE":
		if v == "" || v == "/dev/null" {
			a.add(CodeDefenseEvasion, value.path, "turns the shell's history off (HISTFILE)")
		}
	case "HISTSIZE", "HISTFILESIZE", "SAVEHIST":
		if v == "0" {
			a.add(CodeDefenseEvasion, value.path, "turns the shell's history off ("+key+"=0)")
		}
	}
}

// accountFile says what a path the wiring writes holds when it decides
// who may do what on the machine: the sudo rules, the account and
// password files, the loader's preload list; "" for any other path.
func accountFile(p string) string {
	switch lp := strings.ToLower(cleanPath(p)); {
	case lp == "/etc/sudoers" || strings.HasPrefix(lp, "/etc/sudoers.d"):
		return "the sudo rules"
	case lp == "/etc/passwd" || lp == "/etc/shadow" || lp == "/etc/group" || lp == "/etc/gshadow":
		return "the system's accounts"
	}
	return ""
}
