package assess

import "strings"

// The two tables below are the audit's knowledge of programs: which ones
// wrap another command line (and how that line is found), and how every
// other program is judged. A runner or wrapper is added with one entry.
//
// Names are matched as progName gives them (base name, lower case, without a
// Windows executable suffix); a program not in the table is looked up again
// by its family (python3.12 is python, nodejs is node).

// peeler judges the words a wrapper itself takes and returns the command
// line it runs. done reports that the wrapper judged that line itself, and
// info is then the result for the whole command.
type peeler func(a *auditor, c invocation) (next []arg, info cmdInfo, done bool)

// programRule says how a program that runs (after its wrappers are peeled)
// is judged.
type programRule struct {
	// judge reports what the program does; nil: nothing beyond its words.
	judge func(a *auditor, c invocation) cmdInfo
	// net and exec: the program always uses the network, always spawns.
	net, exec bool
	// reader: the program reads the files its arguments name, so a
	// startup location among them is not a write.
	reader bool
	// shell: the program is a shell; its -c script is judged by its parsed
	// structure, not as a word.
	shell shellKind
	// sendsWords: a network client that sends the words of its command
	// line, or what they name, to another host (a URL, a header, a form
	// field, a DNS name, a remote command).
	sendsWords bool
}

// inert reports whether r is the rule of a program that runs nothing and
// reads nothing of note (cd, mkdir, sleep …): known only so that its words
// are not read as a command.
func (r programRule) inert() bool {
	return r.judge == nil && !r.net && !r.exec && !r.reader && r.shell == notShell
}

type shellKind uint8

const (
	notShell   shellKind = iota
	posixShell           // parsed with mvdan.cc/sh
	otherShell           // its scripts are not parsed
)

// invocation is one program the wiring runs, with its words.
type invocation struct {
	name  string // progName of argv[0]
	argv  []arg
	depth int // scripts and wrappers already entered
	ctx   ctxKind
	// env holds the variables the program inherits with known values
	// (env.go); nil when none is known.
	env map[string]string
}

func (c invocation) args() []arg { return c.argv[1:] }

var (
	// wrappers run the rest of their command line, or a line they build
	// from it. Judging them means peeling them off.
	wrappers map[string]peeler
	// programs are judged by what they are.
	programs map[string]programRule
)

// The tables are filled in init because their entries call back into the
// audit, which reads the tables: a package-level initializer would be an
// initialization cycle.
func init() {
	wrappers = map[string]peeler{
		// Environment: env judges its assignments through envpolicy.
		"env": func(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
			return a.peelEnv(c.args(), c.depth), cmdInfo{}, false
		},
		// Privilege: reported, then peeled (su and runas take a script).
		"sudo": escalates(peelSudo),
		"doas": escalates(peelSudo),
		// sudo-rs (sudo rewritten, under its own name where both are
		// installed) and please (pleaser): sudo's kin.
		"sudo-rs": escalates(peelSudo),
		"please": escalates(getoptThen("-c", "--check", "-d", "--dir", "-g", "--group", "-r", "--reason", "-t",
			"--target", "-u", "--user")),
		"pkexec": escalates(peelSudo),
		"run0":   escalates(optionsThen(run0ValueOptions, "--setenv")),
		// systemd-run and machinectl shell: through polkit, as root unless
		// told otherwise.
		"systemd-run": peelSystemdRun,
		"machinectl":  peelMachinectl,
		"gosu":        escalates(thenWord()), // gosu USER[:GROUP] command…
		"su-exec":     escalates(thenWord()),
		"su":          escalates(peelSu),
		"runas":       escalates(peelRunas),
		// gsudo [-n -w -d -s --ti -i LEVEL -u USER …] command: Windows'
		// sudo, always elevated.
		"gsudo": escalates(getoptThen("-i", "--integrity", "-u", "--user", "--chdir")),
		// PsExec and its clone PAExec: elevated with -s or -h, remote
		// with \\host.
		"psexec": peelPsexec, "psexec64": peelPsexec, "paexec": peelPsexec,
		// Process attributes: options, then the command.
		"busybox":    skipOptions(),
		"nohup":      skipOptions(),
		"setsid":     skipOptions(),
		"exec":       skipOptions("-a"),
		"builtin":    skipOptions(),
		"time":       getoptThen("-f", "--format", "-o", "--output"),
		"caffeinate": getoptThen("-t", "-w"),
		"command":    peelCommand,
		"nice":       getoptThen("-n", "--adjustment"),
		"ionice":     getoptThen("-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"),
		"chrt":       peelChrt,
		"taskset":    thenWord(), // taskset [-acp] MASK|LIST command…
		"stdbuf":     getoptThen("-i", "-o", "-e", "--input", "--output", "--error"),
		"timeout":    peelTimeout,
		// Command interpreters of other systems: the line they read is
		// judged as what they run.
		"cmd":          done((*auditor).cmdExe),
		"powershell":   done((*auditor).powershell),
		"pwsh":         done((*auditor).powershell),
		"pwsh-preview": done((*auditor).powershell),
		"wsl":          done((*auditor).wsl),
		// PowerShell's Start-Process (start, saps): -FilePath and
		// -ArgumentList.
		"start-process": peelStartProcess,
		"saps":          peelStartProcess,
		"start":         peelStartProcess,
		// Project and environment runners: they run the command that
		// follows their options in a prepared environment (uv run syncs it
		// first). Their other subcommands are judged as programs.
		"uv":      peelUV,
		"poetry":  runsAfter("run"),
		"pipenv":  runsAfter("run"),
		"pdm":     runsAfter("run", "-p", "--project", "-v", "--venv"),
		"hatch":   peelHatch,
		"perf":    peelPerf,
		"setarch": peelSetarch, "linux32": peelSetarch, "linux64": peelSetarch, "i386": peelSetarch,
		"i686": peelSetarch, "x86_64": peelSetarch, "uname26": peelSetarch,
		"rye":        runsAfter("run", "--pyproject"),
		"pixi":       runsAfter("run", "-e", "--environment", "--manifest-path"),
		"conda":      runsAfter("run", "-n", "--name", "-p", "--prefix", "--cwd"),
		"mamba":      runsAfter("run", "-n", "--name", "-p", "--prefix", "--cwd"),
		"micromamba": runsAfter("run", "-n", "--name", "-p", "--prefix", "--cwd"),
		"asdf":       runsAfter("exec"),
		"mise":       peelMise,
		"pkgx":       peelPkgx,
		"wt":         peelWt,
		"appvlp":     skipOptions(),
		"cscript":    peelScriptHost, "wscript": peelScriptHost,
		"stack": subThen([]string{"exec"}, []string{"--package", "--rts-options", "--cwd"}),
		"cabal": runsAfterDashes("exec"),
		"proto": peelProto,
		"n":     peelN,
		"pnpm":  peelPnpm,
		// MCP bridges: the server they start (bridges.go).
		"mcpo":          peelMcpo,
		"mcp-proxy":     peelMcpProxy,
		"fastmcp":       done((*auditor).fastmcp),
		"mcp-proxy-js":  peelMcpProxyJS,
		"mcp-inspector": peelInspector,
		// Node launchers: variables, then the command.
		"cross-env":       peelCrossEnv,
		"cross-env-shell": peelCrossEnv,
		"dotenv":          peelDotenv,
		"env-cmd":         peelEnvCmd,
		"unbuffer":        skipOptions(),
		"watchexec":       peelWatchexec,
		"entr":            peelEntr,
		"yarn":            peelYarn,
		"rtx":             peelMise,
		"direnv":          peelDirenv,
		"ip":              peelIPExec,
		"op":              runsAfter("run", "--env-file", "--account", "--config"),
		"doppler":         secretsRunner,
		"infisical":       secretsRunner,
		"dotenvx":         peelDotenvx,
		"aws-vault":       peelAwsVault,
		"sops":            done((*auditor).sops),
		"with-contenv":    skipOptions(),
		"rlwrap": getoptThen("-b", "-C", "-D", "-e", "-f", "-F", "-g", "-H", "-l", "-M", "-O", "-P", "-q", "-S", "-s",
			"-t", "-w", "-z"),
		// Sandboxes and containers of the desktop that run a command on
		// the host or in a toolbox.
		"flatpak-spawn":   skipOptions(),
		"flatpak":         peelFlatpak,
		"host-spawn":      skipOptions(),
		"toolbox":         subThen([]string{"run"}, []string{"-c", "--container", "-d", "--distro", "-r", "--release"}),
		"distrobox":       runsAfterDashes("enter"),
		"limactl":         peelLimactl,
		"lima":            skipOptions(),
		"distrobox-enter": afterDashes,
		"nsenter":         peelNsenter,
		"proot": getoptThen("-r", "--rootfs", "-b", "--bind", "-m", "--mount", "-w", "--pwd", "--cwd", "-q", "--qemu",
			"-k", "--kernel-release", "-i", "--change-id", "-p", "--port"),
		"tini":      getoptThen("-p", "-e"),
		"dumb-init": getoptThen("-r", "--rewrite"),
		"xvfb-run": getoptThen("-n", "-s", "-f", "-e", "-w", "-p", "--server-num", "--server-args", "--auth-file",
			"--error-file", "--wait", "--xauth-protocol"),
		// Session helpers that start the command they are given.
		"ssh-agent":        getoptThen("-a", "-E", "-P", "-t", "-O"),
		"dbus-run-session": getoptThen("--config-file", "--dbus-daemon"),
		"dbus-launch":      getoptThen("--autolaunch", "--config-file"),
		// Debian's daemon starter: the program of --startas or --exec,
		// with the arguments after --.
		"start-stop-daemon": peelStartStopDaemon,
		// Nix: flakes are fetched and must be pinned; shell and develop
		// run the command of --command, nix-shell its --run script.
		"nix":       peelNix,
		"nix-shell": peelNixShell,
		// Environments and version managers that run a command with the
		// tools they provide.
		"devbox":   peelDevbox,
		"devenv":   peelDevenv,
		"flox":     peelFlox,
		"volta":    subThen([]string{"run"}, []string{"--node", "--npm", "--pnpm", "--yarn"}, "--env"),
		"fnm":      subThen([]string{"exec"}, []string{"--using"}),
		"nvm":      peelNvm,
		"pyenv":    subThen([]string{"exec"}, nil),
		"rbenv":    subThen([]string{"exec"}, nil),
		"nodenv":   subThen([]string{"exec"}, nil),
		"goenv":    subThen([]string{"exec"}, nil),
		"jenv":     subThen([]string{"exec"}, nil),
		"bundle":   subThen([]string{"exec"}, []string{"--gemfile"}),
		"rustup":   peelRustup,
		"opam":     runsAfterDashes("exec"),
		"corepack": peelCorepack,
		// Sandboxes, tracers, locks and schedulers: options, then the
		// command (watch, script -c, flock -c and sg hand theirs to a
		// shell).
		"firejail":     skipOptions(),
		"bwrap":        peelBwrap,
		"unshare":      getoptThen("-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd", "--map-user", "--map-group", "--map-users", "--map-groups", "--propagation"),
		"chroot":       thenWord(),
		"sandbox-exec": optionsThen([]string{"-f", "-n", "-p", "-D"}),
		"setpriv":      getoptThen("--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"),
		"prlimit":      getoptThen("-p", "--pid", "-o", "--output"),
		"numactl":      getoptThen("-N", "-m", "-C", "-p", "-i", "-P", "-w", "--cpunodebind", "--membind", "--physcpubind", "--preferred", "--interleave", "--preferred-many", "--weighted-interleave"),
		"strace":       withOptionCommands(optionsThen([]string{"-a", "-b", "-e", "-I", "-o", "-O", "-p", "-P", "-s", "-S", "-u", "-U", "-X", "--output", "--attach", "--string-limit", "--user", "--trace", "--signal", "--status", "--trace-path", "--columns", "--summary-sort-by"}, "-E", "--env")),
		"ltrace":       getoptThen("-a", "-A", "-D", "-e", "-F", "-l", "-n", "-o", "-p", "-s", "-u", "-w", "-x", "--align", "--config", "--library", "--indent", "--output", "--where"),
		"valgrind":     skipOptions(),
		"eatmydata":    skipOptions(),
		"catchsegv":    skipOptions(),
		"winpty":       skipOptions(),
		// Windows programs that start the command line they are given.
		"conhost":      skipOptions("--width", "--height", "--signal", "--server", "--feature", "--vtmode"),
		"pcalua":       peelPcalua,
		"scriptrunner": peelScriptRunner,
		"cpulimit":     getoptThen("-l", "--limit", "-p", "--pid", "-e", "--exe", "-c", "--cpu"),
		"trickle":      getoptThen("-d", "-u", "-w", "-t", "-l", "-n", "-L"),
		"chpst":        getoptThen("-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c", "-r", "-t"),
		"s6-setuidgid": thenWord(),
		// daemontools and s6: a program's state (user, environment
		// directory, limits, a lock), then the program.
		"setuidgid":      thenWord(), // setuidgid ACCOUNT child
		"envuidgid":      thenWord(), // envuidgid ACCOUNT child
		"envdir":         thenWord(), // envdir DIR child
		"setlock":        thenWord(), // setlock [-nNxX] FILE child
		"softlimit":      getoptThen("-a", "-c", "-d", "-f", "-l", "-m", "-o", "-p", "-r", "-s", "-t"),
		"pgrphack":       skipOptions(),
		"fghack":         skipOptions(),
		"s6-envdir":      thenWord("-c"),
		"s6-envuidgid":   thenWord("-D"),
		"s6-applyuidgid": getoptThen("-u", "-g", "-G"),
		"s6-softlimit":   getoptThen("-a", "-c", "-d", "-f", "-l", "-m", "-o", "-p", "-r", "-s", "-t"),
		"s6-setlock":     thenWord("-t", "-d"),
		"s6-setsid":      getoptThen("-d"),
		"s6-fghack":      skipOptions(),
		// Secrets from the keychain or a password store, then the command.
		"envchain": peelEnvchain,
		"gopass":   peelGopass,
		// capsh runs bash (or --shell's program) with the words after --.
		"capsh":    peelCapsh,
		"faketime": thenWord("--date-prog"),
		"xargs":    done((*auditor).xargs),
		"arch":     archOptions,
		"watch":    peelWatch,
		"script":   peelScript,
		"flock":    peelFlock,
		"sg":       peelSg,
		"runuser":  escalates(peelRunuser),
		// Proxies: the command's traffic goes through them.
		"proxychains":  usesNetwork(getoptThen("-f")),
		"proxychains4": usesNetwork(getoptThen("-f")),
		"torsocks":     usesNetwork(getoptThen("-u", "-p", "-a", "-P", "--user", "--pass", "--address", "--port")),
		// Terminal multiplexers: the program of a new session or window.
		"tmux":   done((*auditor).tmux),
		"screen": getoptThen("-c", "-S", "-s", "-t", "-p", "-h", "-e", "-T"),
		// Compose: the service's command, and the options of run.
		"docker-compose": done(func(a *auditor, c invocation) cmdInfo { return a.compose(c.name, c.args(), c.depth) }),
		"podman-compose": done(func(a *auditor, c invocation) cmdInfo { return a.compose(c.name, c.args(), c.depth) }),
		// Kubernetes: exec runs the command in a pod; run pulls an image.
		"kubectl": done((*auditor).kubectl),
		// Helm and kustomize: a chart or a kustomization from elsewhere.
		"helm":      done((*auditor).helm),
		"kustomize": done((*auditor).kustomize),
		// Containers: the image is pulled; the command runs inside.
		"docker":  done((*auditor).container),
		"podman":  done((*auditor).container),
		"nerdctl": done((*auditor).container),
		"finch":   done((*auditor).container), // Finch's commands are docker's
		// Docker's MCP gateway, as its CLI plugin run on its own.
		"docker-mcp": done(func(a *auditor, c invocation) cmdInfo { return a.dockerMCP(c, c.args()) }),
		// ToolHive: thv run starts a server in a container, from an image,
		// a package or a remote URL.
		"thv": done((*auditor).toolhive),
		// Apptainer (formerly Singularity): the image is pulled; exec's
		// command runs inside.
		"apptainer":   done((*auditor).apptainer),
		"singularity": done((*auditor).apptainer),
	}

	shell := programRule{judge: (*auditor).shellProgram, exec: true, shell: posixShell}
	foreignShell := programRule{judge: (*auditor).shellProgram, exec: true, shell: otherShell}
	fetcher := programRule{judge: (*auditor).fetcher, net: true, exec: true, sendsWords: true}
	winDownloader := programRule{judge: (*auditor).winDownload}
	// HTTPie's http and https are a fetcher when given a URL; a bare
	// `http` is as often another program's word (a container's mode).
	httpie := programRule{judge: (*auditor).httpie, sendsWords: true}
	netTool := programRule{judge: (*auditor).netTool, net: true, sendsWords: true}
	hosted := programRule{net: true} // a hosted service's client: it talks to the service
	netExecTool := programRule{judge: (*auditor).netExec, net: true, sendsWords: true}
	editor := programRule{judge: (*auditor).vim}
	evaluator := programRule{judge: (*auditor).evaluator}
	readsCmds := programRule{judge: (*auditor).readsCommands} // cmdreaders.go
	sshTool := programRule{judge: (*auditor).sshTool, net: true, sendsWords: true}
	interpreter := programRule{judge: (*auditor).interpreter}
	wordInterpreter := programRule{judge: (*auditor).wordInterpreter}
	psGallery := programRule{judge: (*auditor).psGallery, net: true}
	reader := programRule{reader: true}
	pkgManager := programRule{judge: (*auditor).pkgManager, net: true}
	base64Decoder := decodes("-d", "--decode", "-D", "-di", "-id")
	decompressor := decodes("-d", "--decompress", "-dc", "-cd")
	programs = map[string]programRule{
		// Shells.
		"sh": shell, "bash": shell, "zsh": shell, "dash": shell, "ksh": shell, "mksh": shell, "ash": shell,
		"yash": shell, "lksh": shell, "pdksh": shell, "rbash": shell,
		// Debian's posh, OpenBSD's ksh (oksh, loksh), the Schily Bourne
		// shell, Oils' bash-compatible osh, BusyBox's hush, brush.
		"posh": shell, "oksh": shell, "loksh": shell, "bosh": shell, "osh": shell, "hush": shell, "brush": shell,
		"fish": foreignShell, "csh": foreignShell, "tcsh": foreignShell, "nu": foreignShell,
		"elvish": foreignShell, "xonsh": foreignShell,
		// Download tools: what they fetch is not what was reviewed.
		"curl": fetcher, "wget": fetcher, "aria2c": fetcher, "xh": fetcher, "xhs": fetcher, "wcurl": fetcher,
		"http": httpie, "https": httpie,
		"install-module": psGallery, "install-script": psGallery, "install-psresource": psGallery,
		"save-module": psGallery, "save-script": psGallery, "save-psresource": psGallery, "update-module": psGallery,
		"update-script": psGallery, "update-psresource": psGallery, "install-package": psGallery,
		"save-package":      psGallery,
		"invoke-webrequest": fetcher, "iwr": fetcher, "irm": fetcher, "invoke-restmethod": fetcher,
		"start-bitstransfer": fetcher,
		"wget2":              fetcher, "curlie": fetcher, "axel": fetcher, "lwp-download": fetcher, "lwp-request": fetcher,
		"lwp-mirror": fetcher,
		// eval, and PowerShell's Invoke-Expression: text run as code.
		"eval": {judge: (*auditor).eval, exec: true},
		"iex":  {judge: (*auditor).psInvoke, exec: true}, "invoke-expression": {judge: (*auditor).psInvoke, exec: true},
		// Remote access and transfer.
		"ssh": sshTool, "scp": sshTool, "sftp": sshTool, "rsync": {judge: (*auditor).rsync, net: true},
		// The working directory changed by PowerShell (a shell's cd is
		// the script's own, shell.go; cmd.exe's, cmdexe.go).
		"set-location": {judge: (*auditor).changesDir}, "sl": {judge: (*auditor).changesDir},
		"push-location": {judge: (*auditor).changesDir}, "pop-location": {judge: (*auditor).changesDir},
		"cd": {judge: (*auditor).changesDir}, "chdir": {judge: (*auditor).changesDir},
		"pushd": {judge: (*auditor).changesDir}, "popd": {judge: (*auditor).changesDir},
		"autossh": sshTool, "mosh": {judge: (*auditor).mosh, net: true}, "gcloud": {judge: (*auditor).gcloud, net: true},
		"telnet": netTool, "tftp": netTool, "smbclient": netTool,
		// ftp reads its commands, !cmd among them, from its standard input.
		"ftp": {judge: func(a *auditor, c invocation) cmdInfo {
			return cmdInfo{name: c.name, fetches: true, stdinScript: true}
		}, net: true, sendsWords: true},
		// Network clients whose output can carry a payload (a DNS TXT
		// record, a finger plan, a page dumped as text) and the clients
		// of cloud storage: they always use the network.
		"finger": netTool, "dig": netTool, "nslookup": netTool, "drill": netTool, "kdig": netTool, "whois": netTool,
		"lynx": netTool, "w3m": netTool, "elinks": netTool, "aws": netTool, "gsutil": netTool,
		"az": netTool, "rclone": netTool, "s3cmd": netTool, "azcopy": netTool, "huggingface-cli": netTool,
		// Network tools that can hand their connection to a program.
		"nc": netExecTool, "ncat": netExecTool, "netcat": netExecTool, "socat": netExecTool,
		// Package runners: the package must be pinned.
		"npx":                   {judge: npmRunnerAs("npx"), net: true},
		"supergateway":          {judge: (*auditor).supergateway, net: true},
		"mcp-server-playwright": {judge: (*auditor).playwrightMCP},
		"smithery":              {judge: (*auditor).smithery, net: true},
		"install-mcp":           {judge: (*auditor).installMCP, net: true},
		"mcp-get":               {judge: (*auditor).mcpGet, net: true},
		"add-mcp":               {judge: (*auditor).addMCP, net: true},
		"composio-mcp":          {judge: (*auditor).composioMCP, net: true},
		"mcpm":                  {judge: (*auditor).mcpm, net: true},
		// Builders of a package's sources (sourcebuild.go).
		"mint": {judge: (*auditor).mint, net: true},
		"dub":  {judge: (*auditor).dub, net: true},
		// WebAssembly runtimes that fetch what they run (wasm.go).
		"wasmer": {judge: (*auditor).wasmer, net: true},
		"spin":   {judge: (*auditor).spin, net: true},
		"mix":    {judge: (*auditor).mix},
		"pnpx":   {judge: npmRunnerAs("pnpx"), net: true},
		"bunx":   {judge: npmRunnerAs("bunx"), net: true},
		"dnx":    {judge: func(a *auditor, c invocation) cmdInfo { a.dnxRunner(c.args(), "dnx"); return cmdInfo{name: c.name} }, net: true},
		"uvx":    {judge: pyRunnerAs("uvx"), net: true},
		"pipx":   {judge: (*auditor).pipx, net: true},
		"deno":   {judge: (*auditor).deno}, "dx": {judge: (*auditor).dx},
		// Package managers: exec/dlx run packages, run/start run scripts.
		"npm": pkgManager, "pnpm": pkgManager, "yarn": pkgManager, "bun": pkgManager,
		// Interpreters: a program written inline is inline code.
		"python": interpreter, "node": interpreter, "perl": interpreter, "ruby": interpreter, "php": interpreter,
		"lua": interpreter, "osascript": interpreter, "rscript": interpreter, "tsx": interpreter, "ts-node": interpreter,
		"julia": interpreter, "groovy": interpreter, "kscript": {},
		"r": wordInterpreter, "kotlin": wordInterpreter, "scala": wordInterpreter, "scala-cli": wordInterpreter,
		"ghc": wordInterpreter, "clojure": wordInterpreter, "clj": wordInterpreter, "nbb": wordInterpreter,
		"janet": wordInterpreter, "qjs": wordInterpreter, "hy": wordInterpreter, "erl": wordInterpreter,
		"jrunscript": wordInterpreter, "gjs": wordInterpreter, "zx": {judge: (*auditor).zx},
		"ecl": wordInterpreter, "clisp": wordInterpreter, "ccl": wordInterpreter, "ccl64": wordInterpreter,
		"gsi": wordInterpreter, "csi": wordInterpreter, "chicken-csi": wordInterpreter, "chibi-scheme": wordInterpreter,
		"mit-scheme": wordInterpreter, "octave": wordInterpreter, "matlab": wordInterpreter, "scilab": wordInterpreter,
		"scilab-cli": wordInterpreter, "maxima": wordInterpreter, "wolframscript": wordInterpreter,
		"pike": wordInterpreter, "gforth": wordInterpreter,
		"swipl": wordInterpreter, "gprolog": wordInterpreter, "yap": wordInterpreter, "scryer-prolog": wordInterpreter,
		"tpl": wordInterpreter, "sicstus": wordInterpreter, "xsb": wordInterpreter,
		"crystal": {judge: (*auditor).crystal},
		// awk: its first word that is not an option is a program.
		"awk": {judge: (*auditor).awk}, "gawk": {judge: (*auditor).awk}, "mawk": {judge: (*auditor).awk},
		"nawk":  {judge: (*auditor).awk},
		"tclsh": interpreter, "jshell": interpreter, "expect": interpreter, "racket": interpreter,
		"guile": interpreter, "sbcl": interpreter, "bb": interpreter, "elixir": interpreter,
		// Programs that run a command, or code of their own language, given
		// in an option.
		"find": {judge: (*auditor).find},
		"vim":  editor, "vi": editor, "nvim": editor, "ex": editor, "view": editor, "gvim": editor,
		"vimdiff": editor, "rvim": editor, "evim": editor, "gview": editor,
		"emacs": evaluator, "emacsclient": evaluator, "gdb": evaluator, "lldb": evaluator,
		// Programs that run a shell's commands for what they read
		// (cmdreaders.go).
		"ed": {judge: (*auditor).edReads}, "dc": {judge: (*auditor).dc},
		"ghci": readsCmds, "irb": readsCmds, "groovysh": readsCmds, "ocaml": readsCmds, "kotlinc": readsCmds,
		"gnuplot": readsCmds, "lftp": {judge: (*auditor).readsCommands, net: true}, "m4": readsCmds, "sqlplus": readsCmds,
		"tar": {judge: (*auditor).tar}, "bsdtar": {judge: (*auditor).tar}, "gtar": {judge: (*auditor).tar},
		// Database clients whose commands can escape to a shell.
		"psql": {judge: (*auditor).dbClient}, "sqlite3": {judge: (*auditor).dbClient},
		"mysql": {judge: (*auditor).dbClient}, "mariadb": {judge: (*auditor).dbClient},
		"duckdb": {judge: (*auditor).dbClient},
		// MongoDB's shells, which run JavaScript.
		"mongosh": {judge: (*auditor).mongosh}, "mongo": {judge: (*auditor).mongosh},
		// Windows programs that fetch or run script: mshta, rundll32
		// javascript:, regsvr32 /i:URL, msiexec of a URL, bitsadmin.
		"mshta":     {judge: (*auditor).mshta},
		"rundll32":  {judge: (*auditor).rundll32},
		"regsvr32":  {judge: (*auditor).regsvr32},
		"msiexec":   {judge: (*auditor).msiexec},
		"bitsadmin": fetcher,
		"hh":        {judge: (*auditor).mshta},
		// …and cmstp /s of an INF, msxsl of a stylesheet, an XAML browser
		// application and ieexec of a .NET program, each given by URL.
		"cmstp": {judge: (*auditor).mshta}, "msxsl": {judge: (*auditor).mshta},
		"presentationhost": {judge: (*auditor).mshta}, "ieexec": {judge: (*auditor).mshta},
		// Windows programs that start a command line: wmic process call
		// create, forfiles /c.
		"wmic":     {judge: (*auditor).wmic},
		"forfiles": {judge: (*auditor).forfiles},
		// Tools with subcommands that fetch (git, whose -c values may also
		// be command lines).
		"git": {judge: (*auditor).git},
		// Other version-control clients (vcs.go); gh always talks to GitHub.
		"hg": {judge: (*auditor).hg}, "svn": {judge: (*auditor).svn}, "gh": {judge: (*auditor).gh, net: true},
		"eget": {judge: (*auditor).eget}, "ubi": {judge: (*auditor).ubi}, "dra": {judge: (*auditor).dra},
		"kubectl-krew": {judge: (*auditor).kubectlKrew}, "krew": {judge: (*auditor).kubectlKrew},
		// Package managers that install what they name.
		"pip": {judge: (*auditor).pip}, "pip3": {judge: (*auditor).pip},
		"cargo": {judge: (*auditor).cargo}, "gem": {judge: (*auditor).gem}, "dotnet": {judge: (*auditor).dotnet},
		// System package managers: installing downloads packages; a
		// package by URL, a repository over http and signature checks
		// turned off are judged (sysinstall.go).
		"apt-get":  systemInstaller("install", "reinstall", "upgrade", "dist-upgrade", "full-upgrade"),
		"apt":      systemInstaller("install", "reinstall", "upgrade", "full-upgrade"),
		"apk":      systemInstaller("add", "upgrade", "fix"),
		"dnf":      systemInstaller("install", "in", "reinstall", "upgrade", "up"),
		"yum":      systemInstaller("install", "reinstall", "upgrade", "update"),
		"microdnf": systemInstaller("install", "reinstall", "upgrade"),
		"zypper":   systemInstaller("install", "in", "update", "up"),
		"pacman":   systemInstaller("--sync"),
		"brew":     systemInstaller("install", "reinstall", "upgrade", "tap"),
		"port":     systemInstaller("install", "upgrade"),
		"choco":    systemInstaller("install", "upgrade"),
		"winget":   systemInstaller("install", "upgrade"),
		"scoop":    systemInstaller("install", "update"),
		"flatpak":  systemInstaller("install", "update", "upgrade"),
		"snap":     systemInstaller("install", "refresh"),
		"rpm":      systemInstaller(), "yum-config-manager": systemInstaller(),
		// The command-line clients of hosted services and of registries:
		// each talks to its service (netclients.go).
		"doctl": hosted, "flyctl": hosted, "heroku": hosted, "vercel": hosted, "netlify": hosted,
		"wrangler": hosted, "supabase": hosted, "firebase": hosted, "glab": hosted, "stripe": hosted,
		"twilio": hosted, "bw": hosted, "vault": hosted, "consul": hosted, "nomad": hosted, "kaggle": hosted,
		"b2": hosted, "skopeo": hosted, "crane": hosted, "cosign": hosted, "regctl": hosted, "pulumi": hosted,
		"hf": hosted, "op": hosted,
		// Database clients given another host (netclients.go).
		"redis-cli": {judge: (*auditor).dbRemote}, "valkey-cli": {judge: (*auditor).dbRemote},
		"sqlcmd": {judge: (*auditor).dbRemote}, "clickhouse-client": {judge: (*auditor).dbRemote},
		"cqlsh": {judge: (*auditor).dbRemote}, "pgcli": {judge: (*auditor).dbRemote}, "mycli": {judge: (*auditor).dbRemote},
		"usql": {judge: (*auditor).dbRemote},
		// Sources pinned by a commit (srcpins.go).
		"opam": {judge: (*auditor).opamPin}, "nix-env": {judge: (*auditor).nixEnv},
		"terraform": {judge: (*auditor).terraformInit}, "tofu": {judge: (*auditor).terraformInit},
		"add-apt-repository": {judge: (*auditor).aptRepository}, "apt-add-repository": {judge: (*auditor).aptRepository},
		"jbang":        {judge: (*auditor).jbang},
		"concurrently": {judge: (*auditor).concurrently}, "nodemon": {judge: (*auditor).nodemon},
		"chokidar": {judge: (*auditor).chokidar},
		// LocalXpose: its words (tunnel http --to …) are its own
		// (tunnel.go judges the tunnel).
		"loclx": {net: true},
		"pm2":   {judge: (*auditor).pm2}, "pm2-runtime": {judge: (*auditor).pm2}, "forever": {judge: (*auditor).forever},
		"parallel": {judge: (*auditor).parallel}, "hyperfine": {judge: (*auditor).hyperfine},
		"syncappvpublishingserver": {judge: (*auditor).syncAppvScript},
		// Windows programs that download for whoever names a URL, or run
		// code they are handed (lolbas.go).
		"mpcmdrun": winDownloader, "certreq": winDownloader, "desktopimgdownldr": winDownloader,
		"datasvcutil": winDownloader, "squirrel": winDownloader, "update": winDownloader,
		"gfxdownloadwrapper": winDownloader, "configsecuritypolicy": winDownloader, "appinstaller": winDownloader,
		"cmdl32":                       winDownloader,
		"syncappvpublishingserver.vbs": {judge: (*auditor).syncAppvScript}, "pubprn.vbs": {judge: (*auditor).pubprn},
		"msdt": {judge: (*auditor).msdt}, "mavinject": {judge: (*auditor).mavinject},
		// Configuration management (confmgmt.go).
		"ansible": {judge: (*auditor).ansible}, "ansible-pull": {judge: (*auditor).ansiblePull, net: true},
		"salt-call": {judge: (*auditor).salt}, "salt": {judge: (*auditor).salt}, "pyinfra": {judge: (*auditor).pyinfra},
		"puppet": {judge: (*auditor).inlineDSL}, "chef-apply": {judge: (*auditor).inlineDSL},
		"pre-commit": {judge: (*auditor).preCommit},
		// The binaries of crates' releases, as cargo binstall installs
		// them.
		"cargo-binstall": {judge: func(a *auditor, c invocation) cmdInfo {
			a.cargoInstall(c.args(), c.name)
			return cmdInfo{name: c.name}
		}},
		"cargo-quickinstall": {judge: func(a *auditor, c invocation) cmdInfo {
			a.cargoInstall(c.args(), c.name)
			return cmdInfo{name: c.name}
		}},
		// Toolchain installers, model and package downloaders: network
		// use, as for the system package managers.
		"rustup":  installsPackages("install", "add", "update"),
		"ghcup":   installsPackages("install", "upgrade"),
		"juliaup": installsPackages("add", "update", "up"),
		"elan":    installsPackages("install", "update"),
		"spack":   installsPackages("install"),
		"vcpkg":   installsPackages("install"),
		"conan":   installsPackages("install"),
		"ollama":  installsPackages("pull", "run"),
		"zig":     installsPackages("fetch"),
		"webi":    {judge: (*auditor).webi},
		"dotnet-script": {judge: func(a *auditor, c invocation) cmdInfo {
			a.dotnetScript(c.args(), c.depth)
			return cmdInfo{name: c.name}
		}},
		// Task runners: recipes run through a shell; make --eval and sed's e
		// take commands from the wiring.
		"make": {judge: (*auditor).makeProgram}, "gmake": {judge: (*auditor).makeProgram},
		"bmake": {judge: (*auditor).makeProgram}, "mingw32-make": {judge: (*auditor).makeProgram},
		"just": {judge: (*auditor).taskRunner}, "task": {judge: (*auditor).taskRunner},
		"go-task": {judge: (*auditor).taskRunner}, "rake": {judge: (*auditor).taskRunner},
		"mise": {judge: (*auditor).mise},
		"sed":  {judge: (*auditor).sed}, "gsed": {judge: (*auditor).sed},
		"go": {judge: (*auditor).goTool},
		// Schedulers and service managers: registering a program is
		// persistence.
		"crontab": {judge: (*auditor).crontab},
		"at":      {judge: (*auditor).atJob, exec: true}, "batch": {judge: (*auditor).atJob, exec: true},
		"zip": {judge: (*auditor).zipTest}, "tcpdump": {judge: (*auditor).tcpdumpRotate},
		"systemctl": registers("enable", "link", "preset", "reenable"),
		"launchctl": registers("load", "bootstrap", "submit", "enable"),
		"schtasks":  {judge: (*auditor).schtasks},
		"sc":        {judge: (*auditor).scService},
		"reg":       {judge: (*auditor).regAdd},
		// Decoders: their output is encoded text made runnable.
		"base64": base64Decoder, "base32": base64Decoder, "basenc": base64Decoder, "gbase64": base64Decoder,
		"openssl":  {judge: (*auditor).openssl},
		"xxd":      decodes("-r", "-rp", "-pr", "-r -p"),
		"uudecode": decodes(), "gunzip": decodes(), "zcat": decodes(), "gzcat": decodes(), "unxz": decodes(),
		"xzcat": decodes(), "bunzip2": decodes(), "bzcat": decodes(), "zstdcat": decodes(),
		"gzip": decompressor, "xz": decompressor, "bzip2": decompressor, "zstd": decompressor,
		"certutil": {judge: (*auditor).certutil},
		// Readers: a startup file they name is read, not written.
		"source": reader, ".": reader, "cat": reader, "head": reader, "tail": reader, "less": reader, "more": reader,
		"grep": reader, "test": reader, "[": reader, "ls": reader, "stat": reader, "wc": reader, "diff": reader,
		"file": reader, "readlink": reader, "realpath": reader, "echo": reader, "printf": reader,
		"dirname": reader, "basename": reader,
		// Utilities and shell builtins that run nothing they are given:
		// known, so that their words are not read as a command the way an
		// unknown program's are (unknown.go). Those that write keep the
		// checks of a write.
		"mkdir": {}, "rm": {}, "rmdir": {}, "cp": {}, "mv": {}, "ln": {},
		"touch": {}, "chmod": {}, "chown": {}, "chgrp": {}, "install": {}, "mktemp": {}, "tee": {}, "sleep": {},
		"kill": {}, "killall": {}, "pkill": {}, "wait": {}, "sort": {}, "uniq": {}, "cut": {}, "tr": {}, "jq": {},
		"yq": {}, "cmp": {}, "seq": {}, "yes": {}, "sha256sum": {}, "md5sum": {}, "date": {}, "whoami": {},
		"uname": {}, "hostname": {}, "id": {}, "pwd": {}, "ps": {}, "df": {}, "du": {}, "clear": {}, "stty": {},
		"tput": {}, "logger": {}, "true": {}, "false": {}, "exit": {}, "return": {}, "shift": {}, "break": {},
		"continue": {}, "umask": {}, "ulimit": {}, "read": {}, "local": {}, "declare": {}, "typeset": {},
		"readonly": {}, "export": {}, "unset": {}, "set": {}, "let": {}, "hash": {}, "getopts": {}, "shopt": {},
		"setopt": {}, "disown": {}, "jobs": {}, "fg": {}, "bg": {},
	}
}

// programFor returns the rule of the program name, and whether the audit
// knows name at all: a program of the table (by its name or its family) or
// a wrapper, whose rule is the zero rule.
func programFor(name string) (programRule, bool) {
	if r, ok := programs[name]; ok {
		return r, true
	}
	if r, ok := programs[family(name)]; ok {
		return r, true
	}
	_, ok := wrappers[name]
	return programRule{}, ok || ecosystemTool(name)
}

// isPOSIXShell reports whether name is a shell whose scripts are parsed.
func isPOSIXShell(name string) bool { return programs[family(name)].shell == posixShell }

// escalates reports privilege escalation, then peels as p does.
func escalates(p peeler) peeler {
	return func(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
		a.add(CodePrivilegeEscalation, c.argv[0].path, "runs its command with elevated privileges through "+quoted(c.name))
		return p(a, c)
	}
}

// skipOptions peels a wrapper that takes options (those in withValue take a
// value) and then the command.
func skipOptions(withValue ...string) peeler {
	values := set(withValue...)
	return func(_ *auditor, c invocation) ([]arg, cmdInfo, bool) {
		return skipFlags(c.args(), values), cmdInfo{}, false
	}
}

// done makes a peeler of a judge that handles the command line it wraps.
func done(judge func(a *auditor, c invocation) cmdInfo) peeler {
	return func(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
		return nil, judge(a, c), true
	}
}

// installsPackages is a system package manager whose listed subcommands
// (pacman's -S… too) download and install packages: it uses the network.
func installsPackages(subs ...string) programRule {
	s := set(subs...)
	return programRule{judge: func(a *auditor, c invocation) cmdInfo {
		for _, w := range c.args() {
			if s[w.text] || c.name == "pacman" && strings.HasPrefix(w.text, "-S") {
				a.inferred.Network = true
				break
			}
		}
		return cmdInfo{name: c.name}
	}}
}

// registers is a service manager whose listed subcommands register a program
// to run at login or boot.
func registers(subs ...string) programRule {
	s := set(subs...)
	return programRule{judge: func(a *auditor, c invocation) cmdInfo {
		for _, w := range c.args() {
			if s[lower(w.text)] {
				a.add(CodePersistence, c.argv[0].path, "registers a program to run at login or boot with "+quoted(c.name))
				break
			}
		}
		return cmdInfo{name: c.name}
	}}
}

// opensslDecode judges openssl's decoding (openssl base64 -d, enc -a …).
var opensslDecode = decodes("-d", "-base64", "-a", "base64", "-A").judge

// openssl judges openssl: s_client and s_time connect to a server, whose
// answer is what comes out; anything else may decode.
func (a *auditor) openssl(c invocation) cmdInfo {
	if args := c.args(); len(args) > 0 && (args[0].text == "s_client" || args[0].text == "s_time") {
		a.inferred.Network = true
		return cmdInfo{name: c.name, fetches: true}
	}
	return opensslDecode(a, c)
}

// decodes is a program that decodes encoded text to its output when given
// one of flags (always, without flags).
func decodes(flags ...string) programRule {
	s := set(flags...)
	return programRule{judge: func(_ *auditor, c invocation) cmdInfo {
		info := cmdInfo{name: c.name, decodes: len(flags) == 0}
		for _, w := range c.args() {
			info.decodes = info.decodes || s[w.text]
		}
		return info
	}}
}

// runsAfter peels `tool <sub> [options] [--] command…`; the options in
// withValue take a value, and short options may come in clusters (conda
// run -vn env cmd), as the tools' option parsers read them. Without sub
// the tool is judged as a program.
func runsAfter(sub string, withValue ...string) peeler {
	values := set(withValue...)
	return func(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
		args := c.args()
		if len(args) == 0 || args[0].text != sub {
			return nil, a.program(c), true
		}
		return skipGetopt(args[1:], values), cmdInfo{}, false
	}
}

// runsAfterDashes peels `tool <sub> [tools…] -- command…` (mise exec).
func runsAfterDashes(subs ...string) peeler {
	s := set(subs...)
	return func(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
		args := c.args()
		if len(args) > 0 && s[args[0].text] {
			for i, w := range args {
				if w.text == "--" {
					return args[i+1:], cmdInfo{}, false
				}
			}
		}
		return nil, a.program(c), true
	}
}

// afterDashes peels `tool [options] -- command…` (distrobox-enter -n box
// -- cmd); without "--" the tool is judged as a program.
func afterDashes(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	for i, w := range c.args() {
		if w.text == "--" {
			return c.args()[i+1:], cmdInfo{}, false
		}
	}
	return nil, a.program(c), true
}

// peelDirenv peels `direnv exec DIR command…`.
func peelDirenv(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) < 2 || args[0].text != "exec" {
		return nil, a.program(c), true
	}
	return args[2:], cmdInfo{}, false
}

// secretsRunner peels `doppler run` and `infisical run`: the command after
// their options, or the shell script of --command.
func secretsRunner(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	if len(args) == 0 || args[0].text != "run" {
		return nil, a.program(c), true
	}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		t := rest[i].text
		switch {
		case t == "--":
			return rest[i+1:], cmdInfo{}, false
		case t == "--command" || strings.HasPrefix(t, "--command="):
			if w, ok := optValue(rest, &i, strings.TrimPrefix(t, "--command="), t != "--command"); ok {
				a.inlineShell(c.name+" run --command", w, c.depth, true, c.env)
				return nil, cmdInfo{name: c.name, runsArg: !w.lit}, true
			}
			return nil, cmdInfo{name: c.name}, true
		case !strings.HasPrefix(t, "-"):
			return rest[i:], cmdInfo{}, false
		case !strings.Contains(t, "="):
			i++ // --project x, --config x, --env x …
		}
	}
	return nil, cmdInfo{name: c.name}, true
}

// peelNsenter peels nsenter; entering the namespaces of process 1 (-t 1,
// --target=1), the machine's init, from a container reaches the host,
// and needs root outside one.
func peelNsenter(a *auditor, c invocation) ([]arg, cmdInfo, bool) {
	args := c.args()
	for i, w := range args {
		t := w.text
		if t == "-t1" || t == "--target=1" || (t == "-t" || t == "--target") && i+1 < len(args) && args[i+1].text == "1" {
			a.add(CodePrivilegeEscalation, c.argv[0].path, "enters the namespaces of process 1, the machine's own, with "+quoted(c.name))
			break
		}
	}
	return skipGetopt(args, nsenterValues), cmdInfo{}, false
}

// nsenterValues are nsenter's options that take a value as the next word.
var nsenterValues = set("-t", "--target", "-S", "--setuid", "-G", "--setgid", "--wd")
