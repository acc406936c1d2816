package assess

import "strings"

// systemd's ways of running a command as another user, and Flatpak's of
// running one in an application's sandbox.

// run0ValueOptions are the options of run0 that take a value.
var run0ValueOptions = []string{"-u", "--user", "-g", "--group", "--nice", "-D", "--chdir", "--unit", "--property",
	"--description", "--slice", "--background", "--shell-prompt-prefix", "--lightweight", "--machine"}

// systemdRunValueOptions are the options of systemd-run that take a value;
// -E and --setenv set a variable of the command's environment.
var systemdRunValueOptions = set("-u", "--unit", "-p", "--property", "--description", "--slice", "-M", "--machine",
	"-H", "--host", "--uid", "--gid", "--nice", "--working-directory", "--service-type", "--on-active", "--on-boot",
	"--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property",
	"--path-property", "--socket-property", "-E", "--setenv")

// peelSystemdRun peels systemd-run, which hands its command to a service
// manager to run as a unit: without --user, to the system's, which runs
// it as root unless --uid says otherwise (polkit asks the user to allow
// it). That is privilege escalation, as with sudo. With a timer (--on-boot,
// --on-calendar …) it is a scheduled job: persistence.
func peelSystemdRun(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	rest := a.peelOptions(args, systemdRunValueOptions, set("-E", "--setenv"), c.depth, true)
	user, timer := false, false
	for _, w := range args[:len(args)-len(rest)] {
		user = user || w.text == "--user"
		timer = timer || strings.HasPrefix(w.text, "--on-")
	}
	if timer {
		// A timer unit: the command runs later, at boot or on a
		// calendar, outside the server, as `at` and cron run theirs.
		a.add(CodePersistence, c.argv[0].path, "schedules a job with "+quoted(c.name)+", which runs code later, outside the server")
	}
	if !user {
		a.add(CodePrivilegeEscalation, c.argv[0].path,
			"runs its command as a system service, as root unless --uid says otherwise, through "+quoted(c.name))
	}
	return rest, cmdInfo{}, false
}

// machinectlValueOptions are the options of machinectl (and of its shell
// command) that take a value.
var machinectlValueOptions = set("-M", "--machine", "-H", "--host", "--uid", "-E", "--setenv", "-p", "--property",
	"-s", "--signal", "--kill-whom", "-o", "--output", "-n", "--lines", "--verify", "--format", "--max-addresses")

// peelMachinectl peels `machinectl shell [[USER@]MACHINE [PROGRAM [ARG…]]]`,
// which runs the program (or a login shell) as USER, root when none is
// given, through polkit: as root, privilege escalation. Other machinectl
// commands are judged as a program.
func peelMachinectl(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	user := ""
	valued := func(flag string, w arg, val string) {
		switch flag {
		case "--uid":
			user = val
		case "-E", "--setenv":
			a.assignment(w, val, c.depth)
		}
	}
	words := optionWords(c.args(), machinectlValueOptions, true, valued)
	if len(words) == 0 || words[0].text != "shell" {
		return nil, a.program(c), true
	}
	// The shell command's own options come after it.
	words = optionWords(words[1:], machinectlValueOptions, true, valued)
	if len(words) > 0 {
		if u, _, ok := strings.Cut(words[0].text, "@"); ok && user == "" {
			user = u
		}
		words = words[1:]
	}
	if user == "" || user == "root" || user == "0" {
		a.add(CodePrivilegeEscalation, c.argv[0].path, "runs a shell or its command as root through "+quoted(c.name)+" shell")
	}
	return words, cmdInfo{}, false
}

// flatpakRunValueOptions are the options of flatpak run (and flatpak's
// own before it) that take a value; --env sets a variable of the
// command's environment.
var flatpakRunValueOptions = set("--installation", "--arch", "--command", "--branch", "--cwd", "--runtime",
	"--runtime-version", "--share", "--unshare", "--socket", "--nosocket", "--device", "--nodevice", "--allow",
	"--disallow", "--filesystem", "--nofilesystem", "--add-policy", "--remove-policy", "--env", "--unset-env",
	"--env-fd", "--own-name", "--talk-name", "--no-talk-name", "--system-own-name", "--system-talk-name",
	"--system-no-talk-name", "--persist", "--commit", "--runtime-commit", "--app-path", "--usr-path",
	"--instance-id-fd", "--parent-pid")

// peelFlatpak peels `flatpak run --command=PROGRAM APP [ARG…]`, which
// runs PROGRAM with the arguments in APP's sandbox: that command line is
// what is judged. Without --command the application's own program runs,
// and flatpak is judged as a program, as are its other commands.
func peelFlatpak(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].text, "-") {
		if flatpakRunValueOptions[args[i].text] {
			i++
		}
		i++
	}
	if i >= len(args) || args[i].text != "run" {
		return nil, a.program(c), true
	}
	var program *arg
	rest := optionWords(args[i+1:], flatpakRunValueOptions, false, func(flag string, w arg, val string) {
		switch flag {
		case "--command":
			w.text = val
			program = &w
		case "--env":
			a.assignment(w, val, c.depth)
		}
	})
	if program == nil || len(rest) == 0 {
		return nil, a.program(c), true
	}
	return append([]arg{*program}, rest[1:]...), cmdInfo{}, false
}
