// Package assess is registryd's audit: pure, deterministic functions that turn
// a decoded manifest into findings. No I/O, no clock, no environment.
//
// The rules judge a parsed view of the wiring, not its strings: wrappers
// (env, sudo, busybox, cmd /c, powershell, wsl, uv run, docker run …) are
// peeled before a command is judged, every POSIX shell script the wiring runs
// is parsed with mvdan.cc/sh/v3/syntax and its tree walked, URLs are parsed
// with net/url, and package specs are read the way their package runner reads
// them.
package assess

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/envpolicy"
	"github.com/registryd/registryd/registry"
)

// Ruleset is the version of the rules. Any change to what the rules find, to
// a level, a code, a message or a path changes it, and so does any change to
// what a report carries (its schema); every stored report is then
// re-assessed and rendered again. 2026.11.2: reports carry the wiring
// digest, and their tier is bound to it. 2026.12.1: cmd.exe, PowerShell,
// wsl and ssh lines, Deno, command strings, command-line env values and
// artifacts are read; doc_placeholder and command_line. 2026.12.2: ssh's
// options after the destination, git's -c command-line values, Deno's
// options before its subcommand, programs' own pagers and editors
// (GH_PAGER, KUBE_EDITOR …) and RSYNC_RSH as command-line env values;
// tsx, ts-node, Julia, Groovy, PHP's -B/-R/-E and awk programs are inline
// code. 2026.12.3: the interpreter a package runner starts (npx tsx -e,
// uvx python -c), and npx -p's command after --. 2026.12.4: a container
// given the host's memory or a raw disk device is container_host_access.
// 2026.12.5: a container given the user's credential folders (~/.aws,
// ~/.ssh, ~/.kube …) or home directory is credential_mount. 2026.12.6:
// Nix (nix run/shell/develop, nix-shell --run), environment and version
// managers (devbox, flox, volta, fnm, nvm, pyenv …, bundle exec, rustup
// run, corepack), sandboxes, tracers and locks (bwrap, firejail, unshare,
// strace, watch, script -c, flock …) and kubectl exec/run are peeled.
// 2026.12.7: commands, scripts and code given in a program's options
// (find -exec, vim -c, emacs --eval, gdb -ex, tar --to-command, nc -e,
// socat EXEC:/SYSTEM:, node --import data:…, perl -M with code, expect -c
// …) and the Windows programs that fetch or run script (mshta, rundll32
// javascript:, regsvr32 /i:, msiexec of a URL, certutil -urlcache,
// bitsadmin) are judged; ssh-agent and dbus-run-session are peeled.
// 2026.12.8: a program named by a placeholder (${SHELL} -c …) is
// unparsable_shell: what runs cannot be judged. 2026.12.9: package
// registries and indexes over plain http and certificate checks turned off
// (by a tool's option or a variable) are insecure_url. 2026.12.10: docker
// compose run/exec, git clone --config and ext:: URLs, tmux and screen.
// 2026.12.11: wmic process call create, forfiles /c and hh of a URL.
// 2026.12.12: the words older wrappers take before their command (taskset's
// mask, chrt's priority, stdbuf's modes, time -f, gosu's user, runas's
// program …) are no longer taken for the program. 2026.12.13: database
// clients' shell escapes (psql -c '\! …', sqlite3 .shell, mysql system).
// 2026.12.14: packages installed when the server starts (pip install,
// python -m pip, uv pip/tool install, pipx install, npm/pnpm/yarn/bun
// install and add, cargo install, gem install and exec, dotnet tool
// install, exec and dnx) must be pinned, and cargo, gem and dotnet use the
// network; jbang's URLs, aliases and Maven coordinates are judged.
// 2026.12.15: task runners (make, just, task, rake, mise run) run recipes
// through a shell (exec); make --eval rules are inline code whose recipes,
// $(shell …) calls and != assignments are judged as scripts; make -f -
// runs rules read from its input; GNU sed's e command is an inline script
// and its e flag runs text as a command. 2026.12.16: the older wrappers
// (sudo, doas, timeout, tini, dumb-init, and poetry run, conda run and the
// other project runners) read short options in clusters as getopt does
// (sudo -Eu root cmd, timeout -vk 5 10 cmd); conhost, pcalua -a and
// scriptrunner -appvscript are peeled; system package managers that
// install (apt-get, apk, dnf, pacman -S, brew, winget …) use the network;
// cargo +TOOLCHAIN install is read. 2026.12.17: bash's /dev/tcp and
// /dev/udp redirections use the network, and a shell connected to one is
// pipe_to_shell; pnpm exec, yarn exec and yarn node are peeled, pnpm exec
// -c and bun exec are inline scripts; dotnet-script of a URL is judged.
// 2026.12.18: envpolicy forbids the startup hooks, option variables and
// module paths of more runtimes (DOTNET_STARTUP_HOOKS, the .NET profiler
// variables, LUA_INIT, ERL_AFLAGS, PHPRC, GCONV_PATH, OPENSSL_CONF, R's
// profiles, JAVA_OPTS, MAVEN_OPTS …). 2026.12.19: a script's variables
// are read as the shell reads them (X=curl; $X …, ${X:-curl}, a value
// split into words), and ANSI-C quoting ($'\x63url') is decoded; make's
// and sed's command lines are judged as one script each. 2026.12.20: the
// command a package runner starts apart from its package (npx -p pkg CMD,
// uvx --from pkg CMD) is judged as a command line of its own.
// 2026.12.21: a script that reads a variable past the bounds on values
// (maxVarBytes, maxExpandedBytes) is unparsable_shell, so that padding a
// value cannot hide the program it names. 2026.12.22: the Node launchers
// (cross-env, dotenv, env-cmd, unbuffer) are peeled and their assignments
// judged; cross-env-shell, env-cmd --use-shell, concurrently and nodemon
// --exec run command lines through a shell; npx of a launcher is the
// launcher. 2026.12.23: python -m uv, poetry, pdm, hatch, pipenv, dotenv
// and conda are judged as those tools. 2026.12.24: a PowerShell script's
// variables set to a literal are read ($c = 'iwr'; & $c …). 2026.12.25:
// GNU parallel, watchexec and entr -s run command lines through a shell;
// entr and watchexec --shell=none are peeled. 2026.12.26: deno install
// -g, add and compile are judged like deno run, and so are an import map
// read from a URL and --preload modules; cmd.exe's if, for … do and a for
// /f set in quotes run the commands they hold; LESSEDIT, SVN_SSH,
// HGEDITOR, HGMERGE, CVSEDITOR, FZF_DEFAULT_COMMAND and PROMPT_COMMAND
// hold command lines; a WSL distribution's launcher (ubuntu.exe run …,
// debian -c …) runs its words as a shell line, as wsl does; R, kotlin,
// scala, ghc, clojure, erl, janet, qjs, nbb and hy -e/-eval programs are
// inline code; npx of deno, bun, npm, pnpm or yarn is that program;
// gsudo and PsExec (-s, -h, \\host) are peeled and reported, and the
// command of schtasks /create /tr is judged. 2026.12.27: git's
// --upload-pack, --receive-pack, --exec and clone -u, and the -c keys
// sendemail.sendmailCmd, browser.<tool>.cmd, gpg.ssh.defaultKeyCommand,
// remote.<name>.uploadpack/receivepack and a credential helper given by its
// path, are command lines; git push uses the network. dotenvx run,
// aws-vault exec, with-contenv, rlwrap, flatpak-spawn, host-spawn,
// toolbox run, distrobox enter, nsenter and proot are peeled; sops
// exec-env and exec-file run their command through a shell. A command
// string with an operator (; | && …) or an assignment first is a command
// line, not a program path with blanks. 2026.12.28: uv run of a script
// URL is judged as a Deno module URL is (network, https, pinned); a
// script's brace expansions are read as bash expands them ({curl,-s,URL});
// a command without blanks that chains or pipes (srv|sh) is a command line.
// 2026.12.29: a PowerShell bracket that holds or adds plain strings and
// literal variables is that text (& ('i'+'wr') runs iwr). 2026.12.30: a
// cmd.exe line's set variables are read by delayed expansion (/v:on,
// !x!) and by call's second reading of %x%. 2026.12.31: "$(which curl)"
// and $(command -v curl) name curl; source /dev/stdin reads what is piped
// or fed to it as a script. 2026.12.32: xargs that hands its input to a
// shell's or an interpreter's -c/-e as the program is a pipe target.
// 2026.12.33: cmd.exe's for /f %i in ('command') do %i runs each line the
// command prints: a pipe into a shell. 2026.12.34: a shell script reads the
// variables it starts with: the [mcp] env block for the server's own shell
// ($RUN, eval "$RUN"), what a script exports or sets before a command for
// the shells it starts, and eval's text runs with the script's variables.
// 2026.12.35: cmd.exe's %NAME% and PowerShell's $env:NAME read [mcp.env]
// (names ignore case), call reads an expanded variable's words again, and
// bun run -e is bun -e. 2026.12.36: a PowerShell bracket that joins
// strings (-join) or formats them (-f) is the text it makes, and env's
// NAME=value words (and -i, -u) reach the shell it starts. 2026.12.37: the
// words after a shell's -c script are its positional parameters ($0, $1,
// "$@"), through shift and set --. 2026.12.38: each variable handed to a
// shell a script starts counts against the audit's node budget.
// 2026.12.39: the project runners (uv run, poetry run, conda run, mise exec
// …) hand the env block on to the command they run, unless told to load a
// file of variables (--env-file). 2026.12.40: a package, a requirements or
// constraints file, a gem source or a git repository fetched over plain
// http or git:// is insecure_url, and a requirements file named by a URL
// that does not name a commit is unpinned. 2026.12.41: what a download tool
// (curl, wget, aria2c, xh, Invoke-WebRequest …) fetches over plain http is
// insecure_url. 2026.12.42: the program a tool runs for a password
// (SSH_ASKPASS, SUDO_ASKPASS, *_PASSWORD_COMMAND, *_PASSCOMMAND) is a
// command line, judged like GIT_SSH_COMMAND's. 2026.12.43: git clone of a
// repository is unpinned unless it names a full commit (--revision) or the
// wiring then checks one out. 2026.12.44: Mercurial, Subversion and gh
// checkouts are judged like git clone (network, unpinned, insecure_url), and
// the command lines they run here (hg --ssh and hooks, svn's editor, diff
// and tunnel commands) like any script. 2026.12.45: docker and podman build
// use the network, and a build context fetched by its URL is unpinned
// unless it names a full commit. 2026.12.46: the words of a program the
// audit does not know that name one it knows are read as the command it
// runs (in command position, or anywhere when they run code). 2026.12.47:
// the code shell builtins keep to run later (trap, alias, readarray -C,
// complete -C, bind -x) is judged as a script. 2026.12.48: the command
// lines git's subcommands run (rebase --exec, submodule foreach, bisect
// run, filter-branch, difftool --extcmd) and write (git config) are judged,
// a command written into every repository's configuration is persistence,
// and rsync --rsync-path is judged as the other host's command.
// 2026.12.49: wget2, curlie, axel and the LWP commands are download tools;
// DNS, finger and whois lookups, text browsers, openssl s_client, tftp,
// smbclient and the cloud storage clients use the network. 2026.12.50: a
// checkout of a fixed commit pins only the clone in its own directory.
// 2026.12.51: the installers and package runners of other ecosystems
// (conda, pixi, pip-run, coursier, rye, poetry/pdm add, volta, nix
// profile, luarocks, cpanm, opam, composer) use the network and must pin.
// 2026.12.52: groovy, kscript, scala-cli and scala run a script named by
// its URL, judged like uv run's. 2026.12.53: Go's proxy, insecure and
// checksum variables and yarn's http allowlist are insecure_url.
// 2026.12.54: at and batch schedule code (persistence) from what they read;
// zip -TT and tcpdump -z run commands. 2026.12.55: python -m pip_run is
// judged as pip-run. 2026.12.56: an unknown program's first operand after
// options that may have taken values (`mcp-proxy --port 8080 uvx p`) is in
// command position. 2026.12.57: a module an interpreter loads before its
// script (node --import, --loader) named by an http(s) URL is judged as a
// Deno module URL is. 2026.12.58: the tools mise exec installs (a
// package of a registry must pin), the script of its -c and the options
// before exec; pkgx's packages and command; the command after a run verb
// and a version of an unknown program (`n exec 20 npx p`). 2026.12.59: a
// program or a script run from a network share (a UNC path) is unpinned
// and uses the network. 2026.12.60: a package runner's --package before
// the package manager's subcommand (pnpm --package=p dlx c) names the
// package; start-stop-daemon runs its --startas or --exec program.
// 2026.12.61: the options uv, go, pipx, gem and dotnet take before their
// subcommand are skipped to find it (uv --directory d tool run p).
// 2026.12.62: the same for podman's, nerdctl's and kubectl's options.
// 2026.12.63: autossh, mosh and gcloud compute ssh are remote shells,
// judged as ssh is. 2026.12.64: MSBuild projects, scriptlets, setup
// information files and XSL stylesheets on a network share are code.
// 2026.12.65: PowerShell's short option names that take a value (-w,
// -wd, -ep, -o …) are read with it. 2026.12.66: env -S splits its string
// with GNU env's quotes and escapes; ip netns exec and ip vrf exec are
// peeled. 2026.12.67: eval, source and . behind builtin or command run as
// themselves. 2026.12.68: the package of an [install] block that names a
// git or URL source, an npm GitHub shorthand or a third-party Homebrew tap
// is unpinned (its version does not pin it). 2026.12.69: a literal
// credential given to a program option or a variable named for one
// (--api-key V, env API_KEY=V, docker run -e), or of a well-known token
// format anywhere in the wiring, is literal_secret. 2026.12.70: run0,
// systemd-run without --user and machinectl shell as root escalate;
// flatpak run --command is peeled; flatpak and snap install use the
// network. 2026.12.71: the settings package tools keep for the user
// (npm/pnpm/yarn config set, pip config set, go env -w, gem sources --add,
// conda config, dotnet nuget add source, git url.….insteadOf and
// http.sslVerify) are read: persistence, and insecure_url for plain-http
// sources and checks turned off. 2026.12.72: credential_exfil, the
// user's credential files (or the server's environment) posted,
// uploaded, copied to another host or piped into a network client; $HOME
// in a script is the user's home. 2026.12.73: defense_evasion, the
// machine's protections turned off (Microsoft Defender and AMSI, User
// Account Control, firewalls, SELinux, the audit daemon, Gatekeeper);
// PowerShell's $true and $false are read as written. 2026.12.74:
// inbound_access, a way into this machine from outside (tunnels that
// publish a local port, ssh -R, tmate, code tunnel, python -m
// http.server on every interface). 2026.12.75: credentials reach a
// network client through its command line (a command or process
// substitution, a variable set from one), the environment listed by env,
// set, export -p, declare -x or PowerShell's env: drive and piped into a
// client, Invoke-WebRequest/Invoke-RestMethod given a file (-InFile) or a
// pipe, and cloud storage and hosting clients (gh gist create, aws s3 cp,
// gsutil, gcloud storage, rclone, s3cmd, azcopy, az storage) given a
// credential file to upload: credential_exfil. Tunnels run through a
// package runner (npx ngrok, npx localtunnel, uvx pyngrok …) and ssh -o
// RemoteForward are inbound_access. PowerShell reads $HOME,
// $env:USERPROFILE and $env:HOME as the user's home, also inside "…" and
// before a path ($HOME/.aws). 2026.12.76: a copy or archive of a
// credential file (cp, install, Copy-Item, tar -f, zip, 7z a) or a
// reader's output redirected into a file holds the credentials, and a
// client later given that file sends them; security dump-keychain, gpg
// --export-secret-keys, kubectl config view --raw and secret-tool search
// --all write credentials out; browsers' profiles, the macOS keychains,
// Windows' saved credentials and GNOME's keyrings are credential
// folders. 2026.12.77: data_destruction, the user's home, a file
// system's root, a system folder or the user's credentials deleted or
// overwritten, a disk wiped, formatted or repartitioned, the machine's
// shadow copies, backups and recovery deleted or turned off. 2026.12.78:
// cryptominer, a cryptocurrency miner run (its program or a container
// image of one) or a mining pool's stratum address anywhere.
// 2026.12.79: the shell's history or the system's logs cleared or turned
// off and address randomisation turned off are defense_evasion; an
// account created, given a password or an administrators' group, the
// sudo rules or account files written, a program made setuid or given
// capabilities and a kernel module loaded are privilege_escalation.
// 2026.12.80: credentials read from a cloud machine's metadata service,
// the clipboard, a browser's databases through sqlite3, a process's
// environment (/proc/PID/environ) and the machine's password hashes
// (/etc/shadow, reg save of the SAM, SECURITY and SYSTEM hives) are
// followed to the client that sends them; nsenter into process 1's
// namespaces is privilege_escalation. 2026.12.81: a tool's configuration
// written (the MCP settings of AI coding tools, the settings of package
// managers, git, ssh and the editor, git's hooks, the editor's tasks) by
// a redirection, tee, a copy or a move, Set-Content, and a server
// registered or an extension installed with the tools' own commands, are
// persistence. 2026.12.82: credential_dump, the credentials the machine
// keeps read out (LSASS dumped, the SAM or SECURITY hive saved, NTDS.dit
// copied, /etc/shadow read, mimikatz and the like); a cmd.exe string whose
// first word names a known program is read as a command line, not as the
// path of one executable with spaces in it. 2026.12.83: the XDG
// variables ($XDG_CONFIG_HOME …) in a script and $env:APPDATA,
// $env:LOCALAPPDATA in PowerShell name the folders they usually do in the
// user's home; cmd.exe's redirections are judged as every write is.
// 2026.12.84: download tools told not to check certificates (curl -k,
// wget --no-check-certificate, aria2c, xh --verify=no,
// -SkipCertificateCheck), .NET's certificate callbacks replaced in
// PowerShell, ssh told to accept any host key, GIT_SSL_NO_VERIFY and
// PERL_LWP_SSL_VERIFY_HOSTNAME=0 are insecure_url; npm's `--option
// true|false` is read as one option (--strict-ssl false), uv's
// --trusted-host takes its host, and pipx's --pip-args are read as pip's
// options. xhs (xh for https) is a download tool. 2026.12.85: a
// PowerShell script that opens a socket of its own (TCPClient …) and runs
// text through Invoke-Expression is pipe_to_shell, and its sockets and
// network cmdlets use the network; macOS's quarantine mark removed (xattr),
// System Integrity Protection turned off (csrutil) and iptables' policy
// set to ACCEPT are defense_evasion; `HISTFILE=` with no value turns the
// history off; systemd-run with a timer is a scheduled job (persistence).
// 2026.12.86: envpolicy forbids ELECTRON_RUN_AS_NODE,
// NODE_REPL_EXTERNAL_MODULE and the configuration files of pip, uv, conda
// and Yarn (PIP_CONFIG_FILE, UV_CONFIG_FILE, CONDARC, YARN_RC_FILENAME).
// 2026.12.87: a token a tool prints for its own service (gh auth token,
// gcloud auth print-access-token, az account get-access-token, heroku
// auth:token, fly auth token) piped or substituted into a client that
// sends it to another host, or down a raw connection, is credential_exfil,
// and so are the AWS secret key printed by aws configure and git
// credential fill's answer, sent anywhere. 2026.12.88: the MCP settings
// of AI coding tools, shells' and REPLs' histories and a project's .env
// file are followed as credentials are; grep, rg, jq and the other
// programs that print what matches in a file write out what they read;
// the variable of a for loop over a credential folder's files, and find's
// {} under one, stand for those files. 2026.12.89: a container's port
// published on every interface or on another address than loopback
// (docker run -p 8000:8000, -P) is inbound_access. 2026.12.90: servers
// that hand this machine to whoever connects are inbound_access: web
// terminals (ttyd, gotty, wetty, shellinaboxd, websocketd), SSH and VNC
// servers, Jupyter and code-server bound beyond loopback, and file
// servers of the working directory on every interface (php -S,
// http-server, busybox httpd, python -m uploadserver and SimpleHTTPServer).
// 2026.12.91: an interpreter whose program or script file is the output
// of a download (python <(curl …), node -e "$(curl …)") is pipe_to_shell,
// as a shell's was, and so is a file a download tool wrote (curl -o, -O,
// wget, aria2c, Invoke-WebRequest -OutFile) run as a program, as a shell's
// or an interpreter's script, sourced, or installed (dpkg -i, rpm,
// msiexec, installer, open, Start-Process). 2026.12.92: the files certutil
// -urlcache and bitsadmin /transfer write, and PowerShell's -File script,
// are followed as 2026.12.91 follows downloads; wmic's /format: taken
// from a URL or a share is fetch_exec. 2026.12.93: lookalike_name, a
// program or package name, or a label of the endpoint's host name, that
// mixes Latin letters with letters of another script. 2026.12.94: a
// program put in a folder on the search path (by a copy, a move, a link, a
// redirection or a download), the hosts file or the resolver's settings
// written, and the DNS servers set, are persistence. 2026.12.95: a package
// manager's options before its subcommand (bun --bun x, npm --loglevel
// silent exec, pnpm --store-dir D dlx) are read with their values, and so
// are all of npm's, pnpm's and bun's options that take one. 2026.12.96:
// deleting the folders of a user's home that hold the user's own files
// (Documents, Desktop, Downloads, media), every program's settings and
// data (~/.config, ~/Library, AppData, ~/.local) or a cloud storage
// client's synced copy is data_destruction. 2026.12.97: the paths of
// credential files listed (find over a credential folder, ls or echo of a
// pattern in one) and handed by xargs to its command, and what a reader
// find -exec runs writes out, are followed by the credential flow; find's
// -name pattern says which files it finds (public keys are none).
// 2026.12.98: a pipeline stage that is a compound command (a block, a
// subshell, if, while, case, time, coproc) reads the pipe through its
// commands, and so do the commands of an output process substitution (>
// >(sh), tee >(sh)); read over a listing of credential files, and a for
// loop over one a command substitution makes, give their variable those
// files' paths. 2026.12.99: a download written by a redirection (curl URL >
// a.sh), or by a writer it is piped into (tee, dd of=, Out-File,
// Set-Content), and the files Start-BitsTransfer and WebClient.DownloadFile
// write, are followed as downloaded files run; WebClient's download
// methods are fetch_exec. 2026.12.100: container_host_access also
// reports other runtimes' sockets and named pipes, runtimes' and the
// kubelet's state folders, DAC_READ_SEARCH and SYS_RAWIO, and device rules
// that allow every device or the host's disks. 2026.12.101: a downloaded
// archive unpacked (tar, unzip, 7z, Expand-Archive) and then a file in its
// folder run is pipe_to_shell. 2026.12.102: downloaded files and unpacked
// folders are compared with what runs in the directory each was named in,
// as cd, pushd and popd leave it.
// 2026.12.103: go's build options that take a value are known, so
// that the package after one is judged; the command lines of go's
// -toolexec and -exec (also in GOFLAGS), Cargo's rustc wrappers and target
// runners, and npm's --node-options are judged as what they run.
// 2026.12.104: a user name alone in an ssh URL is not a credential; the
// index and registry options after an installing subcommand's packages
// (npm install pkg --registry URL, pip install pkg -i URL), and NuGet's,
// Cargo's, conda's, pixi's, coursier's, luarocks', cpanm's and the Python
// project tools' sources, are judged for plain http. 2026.12.105: docker
// and podman driving an engine on another host over TCP without a verified
// certificate, and kubectl with certificate checks off or an API server
// over plain http, are insecure_url. 2026.12.106: a debugger listening
// beyond loopback (the Node.js, Bun and Deno inspectors, debugpy and
// ptvsd, the JVM's jdwp agent, dlv's headless server, rdbg --open,
// gdbserver) is inbound_access. 2026.12.107: BUN_OPTIONS is forbidden;
// SSLKEYLOGFILE and the download mirrors of toolchains and of the
// binaries npm packages fetch (UV_PYTHON_INSTALL_MIRROR, NVM_NODEJS_ORG_MIRROR,
// RUSTUP_DIST_SERVER, ELECTRON_MIRROR …) over plain http are insecure_url.
// 2026.12.108: the MCP bridges (mcpo, mcp-proxy, supergateway, the MCP
// Inspector) are peeled: the server command they start is judged, the
// remote server they connect to is a remote_endpoint, and offering the
// server over HTTP beyond loopback is inbound_access. 2026.12.109: what
// pm2 start, pm2-runtime and forever start is judged; pm2 startup is
// persistence. 2026.12.110: the Python mcp-proxy without an operand
// connects to its SSE_URL, a remote_endpoint. 2026.12.111: a PowerShell
// line that a Windows program starts (wmic process call create, forfiles
// /c, runas) is split into its words as the C runtime splits it; the
// rundll32 entry points that start a program are peeled; sc create and sc
// config binPath= are persistence, their command line judged; cmstp,
// msxsl, PresentationHost and ieexec of a URL are fetch_exec; devbox
// run's command is evaluated by a shell; an unknown program's whole
// command line in one word after -e, -x, --execute, --exec or -- is read.
// 2026.12.112: cargo --config settings are read with the TOML library
// (build.rustc-wrapper, rustc, rustdoc, a target's runner and linker
// judged as programs Cargo runs; a registry's index or a source's
// registry over http is insecure_url); CC, CXX and CPP are command lines;
// npm's --reg (any prefix of --registry) is --registry. 2026.12.113: the
// Smithery CLI's run is unpinned (its registry decides what runs) and its
// install persistence; xh's output file (-o) is followed, and its URL
// without a scheme is http://. 2026.12.114: RUSTC, RUSTDOC (and their
// CARGO_BUILD_ forms) and CARGO_TARGET_<TRIPLE>_LINKER name programs Cargo
// runs; TAR_OPTIONS is read as tar's options (--to-command,
// --checkpoint-action=exec=); Bundler's BUNDLE_MIRROR__ over http is
// insecure_url. 2026.12.115: env's short options are read in clusters
// (env -iS 'cmd', env -iu NAME cmd). 2026.12.116: Docker's MCP gateway
// (docker mcp gateway run) is read: its interceptors are judged (exec as a
// sh -c script, docker as docker run, http as a remote endpoint), an image
// among --servers or --oci-ref must be pinned, a catalog or MCP registry
// entry read from a URL is unpinned; docker mcp client connect and server
// enable are persistence; finch is read as docker is. 2026.12.117: a
// container's --env-file that names a credential file is credential_mount.
// 2026.12.118: npm pack, pip download and pip wheel of a package without
// an exact version are unpinned. 2026.12.119: docker run --use-api-socket
// is container_host_access and credential_mount. 2026.12.120: ToolHive's
// thv run is read: a package it builds into an image (npx://, uvx://,
// go://) or an image it runs must be pinned, its -e, -v, --env-file and
// --network are docker run's, --env-file-dir of a credential folder is
// credential_mount, --host beyond loopback is inbound_access, a URL is a
// remote endpoint; thv client register and setup are persistence.
// 2026.12.121: Apptainer and Singularity are read: an image they pull
// (docker://, oras://, library://, shub://) must be pinned, --no-https is
// insecure_url, --bind, --mount, --env, --env-file, --add-caps and
// --security are docker run's, and exec's command is judged. 2026.12.122:
// docker run --privileged=false is not reported; a mount of /proc/N/root
// or /proc/N/cwd, /proc/sys, /proc/sysrq-trigger, /proc/kcore, /boot,
// /etc/passwd, /etc/shadow, /etc/group, /etc/gshadow, /etc/sudoers(.d),
// /etc/pam.d or /etc/ssh and --security-opt label=disable are
// container_host_access, as are kubectl run --privileged, kubectl debug
// of a node and kubectl debug --profile=sysadmin; kubectl's --stdin and
// --attach take no value, and kubectl debug's image and command are judged.
// 2026.12.123: a credential folder given to a container's --env-file
// (~/.ssh) is no finding (docker refuses a folder there); pip download -r
// URL and pip wheel -r URL download what the file lists. 2026.12.124: a
// pod spec given as JSON to kubectl run --overrides or thv run
// --k8s-pod-patch is read: the node's namespaces, a privileged container,
// a capability that reaches the node and a hostPath volume are judged as
// docker run's --pid host, --privileged, --cap-add and -v are.
// 2026.12.125: a Compose file given to docker compose -f as oci://REF must
// be pinned as an image, and one given as a git URL must name a commit.
// 2026.12.126: the program of apptainer's --fusemount is judged.
// 2026.12.127: kubectl apply|create|replace -f URL and -k of a remote
// kustomization (also kustomize build) must name a commit; helm
// install|upgrade|template|pull of a repository's chart must give an exact
// --version; helm's --post-renderer is judged as a command. 2026.12.128:
// FastMCP's CLI is read (also run by uvx or uv run --with): fastmcp run
// URL is a remote endpoint, its --with packages and --with-requirements
// URL must be pinned, --transport http with --host beyond loopback is
// inbound_access, fastmcp install is persistence and fastmcp dev without
// --inspector-version unpinned. 2026.12.129: npm init|create INITIALIZER,
// yarn create, pnpm create and bun create run the initializer's package
// (create-foo) at once, and must pin it as npm exec does. 2026.12.130: the
// MCP Python SDK's CLI (the program word mcp) is read as FastMCP's: mcp
// dev (the latest Inspector) and its --with packages are unpinned, mcp
// install is persistence. 2026.12.131: wrappers with an operand of their
// own before the command (envchain, gopass env, daemontools' setuidgid,
// envuidgid, envdir, setlock, softlimit, s6's counterparts) and capsh
// (bash with the words after --) are peeled, so what they run is judged.
// 2026.12.132: an interpreter's path with a blank in a folder named after
// the interpreter (/Users/me/Python Projects/.venv/bin/python) is one
// program, not a command line. 2026.12.133: install-mcp (--client) and
// mcp-get install write a server into AI clients' configurations:
// persistence. 2026.12.134: add-mcp, Composio's mcp setup and mcpm
// client edit --add-server are persistence too; mcpm share and mcpm run
// --http --host beyond loopback are inbound_access; Composio's mcp start
// --url is a remote endpoint; install-mcp's --project, --oauth and --env
// are read. 2026.12.135: a path with a blank inside a folder's name
// (/Users/me/Git Repos/srv/bin/server) is one program when the command
// line it would read as runs nothing the audit reports; mcpm run --host
// without its value serves nothing. 2026.12.136: Mint (mint run and
// install of a git repository at a branch or tag), dub run of a registry
// package without an exact version and devenv --from of a moving flake
// are unpinned; devenv shell's command is judged. 2026.12.137: wasmer run
// of a registry package without an exact version or of a URL and spin up
// of an OCI application without a digest or version tag are unpinned,
// spin up --insecure insecure_url, spin up --listen beyond loopback
// inbound_access, mix run -e inline_code, and a flake URL with
// credentials (nix, devenv --from) literal_secret. 2026.12.138: helm
// plugin install of a moving git repository or OCI reference is unpinned;
// Docker's MCP gateway over HTTP with --port and DOCKER_MCP_IN_CONTAINER=1
// (no token check) is inbound_access. 2026.12.139: the Clojure CLI's
// -Sdeps is read: a library at RELEASE, LATEST or a snapshot is unpinned,
// a Maven repository over http insecure_url, -Ttools install-latest
// unpinned. 2026.12.140: one item of a password store (op read, pass,
// security find-generic-password -w …) sent down a raw connection is
// credential_exfil. 2026.12.141: echo and printf print the token or store
// item their words hold, so one echoed into a raw connection is
// credential_exfil. 2026.12.142: cabal install, stack install, nimble
// install and raco pkg install use the network and are held to exact
// versions. 2026.12.143: a file or folder copied from another machine or a
// cloud store (aws s3 cp, scp, rsync, gh release download, oras pull …)
// and then run is pipe_to_shell. 2026.12.144: GIT_CONFIG_PARAMETERS and
// GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n> are judged as git -c is; a
// credential helper that sends its input off the machine is
// credential_exfil. 2026.12.145: the MCP Inspector before 0.14.1, with
// DANGEROUSLY_OMIT_AUTH or with its proxy token written into the wiring is
// inbound_access; package runners hand their environment to their
// command. 2026.12.146: a Chromium-based browser's DevTools port beyond
// loopback or open to every origin is inbound_access; a macOS
// application's program with a blank in its file name is one program.
// 2026.12.147: a token in a URL's path, query or leading labels leaves for
// the URL's literal host; HTTPie's http and https are download tools.
// 2026.12.148: eget, ubi, dra and gh release download without a tag are
// unpinned and what they write is a download; kubectl cp and oc cp copy
// from another machine.
// 2026.12.149: a token in the credentials of a URL a program connects to
// (or in the path of a URL git fetches) leaves for the URL's host.
// 2026.12.150: mix archive.install and escript.install, kubectl krew
// install and upgrade use the network and are unpinned without an exact
// version, a full commit or a digest.
// 2026.12.151: Playwright's MCP server serving HTTP beyond loopback is
// inbound_access.
// 2026.12.152: a file the wiring wrote a token into carries the token to
// what uploads, feeds, copies or reads it out.
// 2026.12.153: downloaded text held in a variable or behind a descriptor
// opened on a connection, then run, is pipe_to_shell.
// 2026.12.154: the files tee writes hold the credentials or the token the
// stages before it wrote out.
// 2026.12.155: curl -H @FILE and -H @- send the file or the input.
// 2026.12.156: a function whose body downloads, arrays, mapfile and
// readarray, read from a process substitution and printf -v hold
// downloaded text as a variable does.
// 2026.12.157: a download moved, copied, installed or linked elsewhere
// is still a download; a shell whose input is one runs it.
// 2026.12.158: a function's call writes out what its body writes out;
// read, mapfile and readarray from a credential or token file hold it; ln
// links a credential file, and cp, mv and ln carry a token's file.
// 2026.12.159: cmd.exe's move, copy and ren and PowerShell's Move-Item,
// Copy-Item and Rename-Item rename a download as mv and cp do.
// 2026.12.160: a download in a folder on the search path (a usual one, or
// one the script puts on PATH) runs when the script names it without a
// folder; a copy into a folder written without a trailing separator keeps
// the download's name there.
// 2026.12.161: after cd or pushd into a known directory, a relative path
// names a file there, for credentials read or sent, files written and
// files staged; a subshell's cd ends with it.
// 2026.12.162: cmd.exe's cd, chdir and pushd and PowerShell's
// Set-Location and Push-Location change that directory too.
// 2026.12.163: what cat, head, sed, dd and the like print of a
// downloaded file, bash's $(< FILE), read from it and xargs -a FILE are
// the download's text.
// 2026.12.164: java, dotnet, go run, deno run, pwsh, awk -f, sed -f and
// make run the downloaded files they load as code.
// 2026.12.165: package tools installing a downloaded file or folder, or
// run in an unpacked folder, run the download's code.
// 2026.12.166: a variable that makes programs load a file as code
// (LD_PRELOAD, BASH_ENV, NODE_OPTIONS --require …) loads a download.
// 2026.12.167: ssh's remote command's output, gh api and gh gist view
// print text from elsewhere, as a download tool does.
// 2026.12.168: Windows' runners of files (rundll32, regsvr32, mshta,
// wscript, cscript, msbuild, installutil …, Import-Module, Invoke-Item)
// run the downloaded files they load.
// 2026.12.169: an interpreter's preloads (node -r, --import, ruby -r,
// perl -I -M, python -m, bun and deno --preload) load a download.
// 2026.12.170: a descriptor opened on a download, bash --rcfile and
// --init-file, vim -S and -u and gdb -x run it.
// 2026.12.171: a token in the path of a URL a package tool fetches (pip,
// npm, deno, kubectl, helm …) is sent to its host, as with git.
// 2026.12.172: a coprocess's downloaded or decoded output run through a
// shell or held by read.
// 2026.12.173: database shells (psql, mysql, mariadb, sqlite3, duckdb,
// mongosh) run a downloaded file of commands or a download piped in; their
// shell escapes in every spelling; mongosh --eval is inline code.
// 2026.12.174: the command lines an inline program hands to a shell
// (os.system, execSync, system, qx, os.execute, awk's system …) and the
// argument lists it runs (subprocess.run([…]), spawn) are judged.
// 2026.12.175: docker load, import, build and compose -f of a download
// run it; docker import of a URL is unpinned.
// 2026.12.176: git hooks from a downloaded folder (core.hooksPath,
// --template, init.templateDir) run it.
// 2026.12.177: PowerShell's $env:Path puts folders on the search path;
// $env:NAME += 'text' sets NAME.
// 2026.12.178: the SQL psql sends may have the server run programs: COPY …
// PROGRAM 'CMD' (in every string constant, in PL/pgSQL bodies and their
// EXECUTE strings) and bodies in untrusted languages (plpython3u, plsh …).
// 2026.12.179: command lines in inline programs of R, AppleScript, Elixir,
// Erlang, Scheme, Lisp, Java's languages, Groovy, Clojure, Julia, Tcl and
// Expect, and of mongosh; osascript -l takes a value.
// 2026.12.180: programs that run the commands they read (ed, ex, dc, ftp,
// gdb, lldb, script, ssh to this machine, sh -c 'sh') fed a download, and
// their command files (vim -s, emacs -l, lldb -s, tmux -f, screen -c, ssh
// -F, sftp -b, dc FILE) written by one; dc -e is inline code.
// 2026.12.181: programs' startup files (~/.vimrc, ~/.gdbinit, ~/.psqlrc,
// ~/.Rprofile, a .pth file in site-packages, PowerShell's profile …) are
// persistence locations.
// 2026.12.182: inline programs that download code and run it
// (exec(urlopen(…).read()), fetch(…).then(eval), source(URL), awk's
// getline from curl printed into sh …); deno eval's program is read.
// 2026.12.183: more programs that read their program or commands on their
// input (REPLs given options alone, pwsh -Command -, gnuplot, lftp, m4,
// sqlplus) and their command files; gnuplot -e, lftp -c, ghci -e inline.
// 2026.12.184: PATH=$PWD/DIR (${PWD}, $(pwd), `pwd`) puts the working
// directory's DIR on the search path; so do the folders written out in a
// PowerShell expandable string given to $env:Path.
// 2026.12.185: programs' startup commands, rc files and load paths chosen
// through the environment (VIMINIT, PSQLRC, IPYTHONDIR, ERL_LIBS …) are
// forbidden environment.
// 2026.12.186: proto run and exec, n run, use and exec pass their words
// on; jrunscript -e, gjs -c, zx -e and crystal eval are inline code (with
// the commands they run), and read a program piped in; zx of a URL is
// fetched code.
// 2026.12.187: git archive --remote of a branch or tag is unpinned.
// 2026.12.188: options that name a command (man -P, strace -o '|cmd',
// tcpdump -z, scp and sftp -S, sftp -D) are judged as what runs; rake -e,
// python -m pdb -c statements and dotnet script eval are inline code.
// 2026.12.189: the JVM option variables of more launch scripts (ANT_OPTS,
// KAFKA_OPTS …), PERL5DB, MAKEFILES, WGETRC and CURL_HOME are forbidden
// environment.
// 2026.12.190: PowerShell's Install-Module, Install-Script,
// Install-PSResource, Install-Package (and Save-, Update-) are unpinned
// without an exact version; InvokeScript, NewScriptBlock and Assembly.Load
// of a download run it; Add-Type with source code is inline code.
// 2026.12.191: in a script, $SHELL, $BASH and /proc/self/exe are shells;
// exec N< <(curl …) opens a descriptor on a download.
// 2026.12.192: more registries' installers are unpinned without an exact
// version: pipenv install, easy_install, uv add, bundle add, dotnet add
// package, nuget, cpan, cpm, haxelib, dart pub global activate, go get,
// krew, mise install and use.
// 2026.12.193: perl's -i, -0, -d, -C, -D, -x and -F, ruby's -W, -x and -F
// and julia's -O take only an attached value; racket's -i and -m none.
// 2026.12.194: node's and V8's, python's, Elixir's and babashka's own
// options that take the next word as their value are read so.
// 2026.12.195: fish -C and nu -e run a command line; fish's, nu's, elvish's
// and xonsh's options that take a value are read so.
// 2026.12.196: setarch (and linux32 …), perf record and stat, hatch run
// after its options, and hyperfine's command lines.
// 2026.12.197: more container run options take a value (docker's
// --pids-limit …, podman's --uidmap, --creds …), so the right image is
// judged; podman's --env-host takes none.
// 2026.12.198: more command-line variables (RSYNC_CONNECT_PROG, CVS_RSH,
// KUBECTL_EXTERNAL_DIFF, GH_BROWSER, P4EDITOR …), LESS's +!CMD and MANOPT's
// pager; DOCKER_CLI_PLUGIN_EXTRA_DIRS, RIPGREP_CONFIG_PATH, LESSKEYIN and
// LESSKEY are forbidden.
// 2026.12.199: IPython, Jython, MicroPython and Sage -c; ECL, CLISP,
// Clozure CL, Gambit, CHICKEN, chibi-scheme and MIT Scheme; Octave, MATLAB,
// Scilab, Maxima, wolframscript, Pike and gforth; sbcl's and guile's value
// options; stack exec and cabal exec.
// 2026.12.200: Windows Terminal's command line, SyncAppvPublishingServer's
// PowerShell, AppVLP's program.
// 2026.12.201: configuration management: ansible's ad-hoc modules,
// ansible-pull, salt's cmd.run and cmd.script, pyinfra's exec and
// server.shell, puppet apply -e, chef-apply -e, pre-commit try-repo.
// 2026.12.202: Windows programs that download for whoever names a URL
// (MpCmdRun -DownloadFile, certreq -config URL, GfxDownloadWrapper,
// desktopimgdownldr, ConfigSecurityPolicy, DataSvcUtil, the Squirrel
// installers, ms-appinstaller:, cmdl32), the Windows Script Host peeled to
// its script, pubprn.vbs's script: URL, msdt's /param $(…), mavinject.
// 2026.12.203: Prolog goals (swipl -g/-t, gprolog --entry-goal …, yap,
// scryer-prolog, tpl, sicstus, xsb) and their shell/1 calls, swipl pack
// install; a program after a script's name (matlab -batch NAME -r CODE).
// 2026.12.204: env, sudo and docker -e given NAME="$V" in a script set
// NAME (forbidden_env; env's words after it are read);
// HEX_UNSAFE_HTTPS, HEX_MIRROR and PUB_HOSTED_URL.
// 2026.12.205: Chromium's and Electron's launcher switches
// (--gpu-launcher, --renderer-cmd-prefix …), chokidar-cli -c, limactl
// shell and lima.
// 2026.12.206: more tunnels (frpc, chisel, rathole, PageKite, inlets,
// playit, Telebit, LocalXpose) and telnetd.
// 2026.12.207: plugin managers (asdf, mise, vfox), cargo-binstall and
// cargo-quickinstall, llm install, jupyter labextension install, Webi,
// toolchain installers and other downloaders' network use.
// 2026.12.208: a script file that is the standard input (bash /dev/stdin,
// python3 /dev/fd/0, awk -f /dev/stdin, sed -f -).
// 2026.12.209: the package managers of the system given a package by URL
// (rpm -i, dnf, yum, zypper install, pacman -U, brew, scoop, flatpak
// install) are unpinned, over http or ftp insecure_url; signature and
// checksum checks turned off (apt --allow-unauthenticated, apk
// --allow-untrusted, dnf --nogpgcheck, rpm --nosignature, snap
// --dangerous …), repository definitions and helm repo add over http are
// insecure_url; brew --no-quarantine is defense_evasion.
// 2026.12.210: a script's env or sudo word that sets a variable not known
// by its name ("$K"=x) no longer ends their reading: the command after it
// is judged.
// 2026.12.211: opam pin of a git or archive URL without a commit (or
// --dev-repo), nix-env -f of an archive URL, terraform init -from-module,
// ansible-galaxy roles and collections, vagrant plugin install and brew
// --HEAD without an exact version or commit are unpinned; nix-env -i,
// terraform init and opam pin use the network.
// 2026.12.212: getent shadow, /etc/shadow copied, dscl's ShadowHashData,
// macOS's user records, Windows' SAM and SECURITY hive files, LaZagne and
// mimipenguin are credential_dump.
// 2026.12.213: the commands of the JVM's -XX:OnOutOfMemoryError and
// -XX:OnError (also in JAVA_TOOL_OPTIONS and its kin) are judged; php -d
// auto_prepend_file or auto_append_file of a URL is a script run by its
// URL.
// 2026.12.214: Emacs Lisp's calls that run commands (shell-command,
// call-process, start-process, make-process …) in emacs --eval and
// emacsclient -e are judged for what they run; sudo-rs and please are
// privilege_escalation.
// 2026.12.215: posh, oksh, loksh, bosh, osh, hush and brush are POSIX
// shells; versioned shell names (bash5, ksh93, zsh-5.9) and Python's ABI
// suffixes (python3.13t, python3.7m) fold onto their family; a command of
// /proc/self/exe started by the client is defense_evasion.
// 2026.12.216: a browser given a web page (chromium --headless --dump-dom
// URL, firefox --screenshot URL) uses the network.
// 2026.12.217: more registry keys that run code (Image File Execution
// Options, Winlogon, cmd.exe's AutoRun, COM servers, a verb's command,
// LSA, services, UserInitMprLogonScript) and netsh add helper are
// persistence; netsh portproxy is inbound_access; bcdedit testsigning,
// fltmc unload, auditpol /clear and fsutil usn deletejournal are
// defense_evasion.
// 2026.12.218: more startup locations are persistence: macOS's
// LoginHook, periodic scripts, emond rules; update-motd.d, Xsession.d,
// udev rules, NetworkManager's dispatcher, apt.conf.d, pam.d,
// modules-load.d, ld.so.conf.d, Upstart jobs, ~/.ssh/rc, fish's conf.d,
// ~/.bash_aliases, KDE's autostart scripts, environment.d, Jupyter's
// configuration, Docker's CLI plugins, D-Bus services.
// 2026.12.219: wcurl, curl's download wrapper, is a download tool that
// writes the URL's file name by default.
// 2026.12.220: host sockets mounted into a container (systemd's,
// libvirt's, D-Bus, the user's runtime folder and display) and the host's
// cgroups mounted writable are container_host_access; the user's
// ssh-agent or gpg-agent socket is credential_mount.
// 2026.12.221: more credential formats are literal_secret: Notion's
// secret_, Figma, Atlassian, Grafana, Slack app, Shopify, Pulumi, Sentry,
// Databricks, Tailscale and age tokens; a PEM private key, Slack and
// Discord webhook URLs, an Azure connection string's key, a Telegram bot
// token.
// 2026.12.222: the clients of hosted services (doctl, flyctl, heroku,
// vercel, wrangler, supabase, stripe, vault …), terraform plan and apply,
// docker push and login, and database clients given another host use the
// network.
const Ruleset = "2026.12.222"

// Inferred is what the wiring was found to use, whatever the manifest
// declares.
type Inferred struct {
	// Network: the wiring performs network I/O (an HTTP transport, an
	// [install] block, a package runner or manager, a container pull, a
	// download command, ssh, a browser given a web page, a hosted
	// service's client, a database client given another host …).
	Network bool
	// Exec: the wiring spawns subprocesses beyond the server it launches (a
	// shell script, a download primitive, a package script …).
	Exec bool
}

// Result is the outcome of one audit.
type Result struct {
	// Findings in total order: level descending, then code, path, message.
	// Never nil.
	Findings []registry.Finding
	Inferred Inferred
}

// Coherent reports whether the declared capabilities cover what the wiring
// was inferred to use: no cap_net_underdeclared or cap_exec_underdeclared
// finding.
func (r Result) Coherent() bool {
	for _, f := range r.Findings {
		if f.Code == CodeCapNetUnderdeclared || f.Code == CodeCapExecUnderdeclared {
			return false
		}
	}
	return true
}

// Verdict is Verdict(r.Findings, nil): every finding counted.
func (r Result) Verdict() registry.Verdict { return Verdict(r.Findings, nil) }

// Audit runs every rule over m. It is safe for concurrent use and returns the
// same result for the same manifest every time. A nil manifest has no
// findings.
func Audit(m *addon.Manifest) Result {
	if m == nil {
		return Result{Findings: []registry.Finding{}}
	}
	// The auditor is the pool's: only the findings outlive the audit, and
	// most manifests have one or two.
	a := auditorPool.Get().(*auditor)
	*a = auditor{m: m, budget: maxNodes, findings: make([]registry.Finding, 0, 2)}
	a.wiring()
	a.findings = append(a.findings, a.clonesLeft()...)
	a.coherence()
	r := Result{Findings: a.sorted(), Inferred: a.inferred}
	*a = auditor{} // nothing of this manifest stays in the pool
	auditorPool.Put(a)
	return r
}

// auditorPool holds the auditors Audit works with, so that an audit does
// not allocate one: every byte allocated per manifest costs the server
// its share of the collector's and the caches' work (docs/benchmarks.md).
var auditorPool = sync.Pool{New: func() any { return new(auditor) }}

// Installable reports whether m's [mcp] block can be started: a stdio
// command, or an http(s) URL with a host. Unlike lean-ctx, the URL scheme is
// matched case-insensitively (HTTPS:// is https).
func Installable(m *addon.Manifest) bool {
	if m == nil {
		return false
	}
	if m.MCP.Transport == addon.TransportHTTP {
		u, ok := parseEndpoint(m.MCP.URL)
		return ok && (u.Scheme == "http" || u.Scheme == "https")
	}
	return strings.TrimSpace(m.MCP.Command) != ""
}

// BinaryPinned reports whether a stdio server pins its binary by sha256. An
// HTTP server has no local binary and counts as pinned.
func BinaryPinned(m *addon.Manifest) bool {
	if m == nil {
		return false
	}
	if m.MCP.Transport == addon.TransportHTTP {
		return true
	}
	return strings.TrimSpace(m.MCP.SHA256) != ""
}

// Analysis bounds: pathological input finishes fast with an
// unparsable_shell finding instead of exhausting time or stack. Every
// recursion of the audit (wrappers, scripts, command lines of cmd.exe,
// PowerShell, wsl and ssh, values of command-line variables) passes
// through one of them; docs/limits.md lists them.
const (
	maxScriptBytes = 16 << 10 // one script or command line (addon.MaxArgBytes)
	maxNodes       = 10000    // syntax nodes, cmd.exe commands, PowerShell tokens and variables handed to a shell over the whole audit
	maxNesting     = 64       // nesting within one script
	maxDepth       = 8        // scripts within scripts, wrappers within wrappers
	maxPeel        = 32       // wrappers peeled off one command line
)

// auditor collects the findings and inferences of one audit.
type auditor struct {
	m        *addon.Manifest
	findings []registry.Finding
	inferred Inferred
	budget   int  // syntax nodes left to visit
	overrun  bool // the budget ran out (reported once)
	// piped and persisted count the pipe_to_shell and persistence
	// findings, which psScript compares before and after its walk.
	piped, persisted int
	// shellEnv holds the variables the next command line judged inherits
	// with known values: the [mcp] env block for the server's own command
	// line, what a script exports for the commands it runs. command takes
	// it (env.go).
	shellEnv map[string]string
	// clones holds the git, hg, svn and gh clones met so far, with their
	// findings (unpinned, and insecure_url over plain http), which a
	// later checkout of a full commit in the clone's directory withdraws:
	// they are added when the audit ends (clonedir.go).
	clones []pendingClone
	// cwd is the directory the wiring's scripts are in, as cd and pushd
	// name it ("" where they start); unknownDirs numbers the directories
	// that are not known.
	cwd         string
	unknownDirs int
	// trials counts the readings of an unknown program's words as a
	// command (unknown.go), bounded by maxTrials.
	trials int
	// staged holds the files the wiring wrote credentials into, with what
	// they hold (exfil.go), in the order written.
	staged []stagedFile
	// tokenFiles holds the files the wiring wrote a token into, with
	// the token's service (gh auth token > /tmp/t).
	tokenFiles []tokenFile
	// fetched holds the files download tools of the wiring wrote
	// (fetched.go).
	fetched []fetchedFile
	// searchDirs holds the folders the wiring's scripts put on the
	// search path (searchpath.go).
	searchDirs []string
	// listedIn stands for the paths of credential files that the command
	// being judged reads on its standard input, from the stage before it
	// in a pipeline (find ~/.ssh | xargs …), as cmdInfo.lists says, or "".
	listedIn string
	// fedBy is the download tool whose download the command being judged
	// reads on its standard input, from an earlier stage of its pipeline
	// (curl URL | tee a.sh), or "" (fetched.go).
	fedBy string
}

// add records a finding at the level of code's rule. Every code passed is
// in the rule table (the tests check each finding against it); an unknown
// one would be recorded at danger rather than lost.
func (a *auditor) add(code, path, msg string) {
	level := registry.LevelDanger
	if r, ok := ruleIndex[code]; ok {
		level = r.Level
	}
	a.findings = append(a.findings, registry.Finding{Level: level, Code: code, Message: msg, Path: path})
	switch code {
	case CodePipeToShell:
		a.piped++
	case CodePersistence:
		a.persisted++
	}
}

// count returns how many findings of code were recorded so far; it knows
// the codes that psScript asks about.
func (a *auditor) count(code string) int {
	switch code {
	case CodePipeToShell:
		return a.piped
	case CodePersistence:
		return a.persisted
	}
	panic("assess: count of " + code + " is not kept")
}

// sorted returns the findings deduplicated, in total order.
func (a *auditor) sorted() []registry.Finding {
	f := a.findings
	if len(f) == 0 {
		return []registry.Finding{}
	}
	slices.SortFunc(f, func(x, y registry.Finding) int {
		switch {
		case x.Level != y.Level:
			return cmp.Compare(y.Level, x.Level)
		case x.Code != y.Code:
			return strings.Compare(x.Code, y.Code)
		case x.Path != y.Path:
			return strings.Compare(x.Path, y.Path)
		}
		return strings.Compare(x.Message, y.Message)
	})
	return slices.Compact(f) // the auditor is done with its findings
}

// wiring judges the [mcp] block, the env block and the install block.
func (a *auditor) wiring() {
	m := a.m
	if m.Install.Declared() {
		// An install block fetches a package from a registry.
		a.inferred.Network = true
		a.installPackage()
	}
	if len(m.Artifacts) > 0 {
		a.artifacts()
	}
	if m.Install != nil && len(m.Install.Verify) > 0 {
		argv := make([]arg, len(m.Install.Verify))
		for j, w := range m.Install.Verify {
			argv[j] = arg{text: w, path: "install.verify[" + strconv.Itoa(j) + "]", lit: true}
		}
		// Verify runs once at install time: judged for what it does, but
		// not counted as what the server uses.
		saved := a.inferred
		a.command(argv, 0, ctxInstall)
		a.inferred = saved
		a.argSecrets(argv)
	}
	if m.MCP.Transport == addon.TransportHTTP {
		a.endpoint()
		return
	}
	if strings.TrimSpace(m.MCP.Command) == "" {
		// Nothing is launched; a stray env block is still judged.
		a.envBlock()
		return
	}
	// The command line's words live only as long as this audit: their
	// slice comes from a pool rather than a new allocation per manifest.
	buf := argvPool.Get().(*[]arg)
	defer putArgv(buf)
	argv := append((*buf)[:0], arg{text: m.MCP.Command, path: "mcp.command", lit: true})
	for i, s := range m.MCP.Args {
		argv = append(argv, arg{text: s, path: argPath(i), lit: true})
	}
	*buf = argv
	// Capped at its length, so that no append of the walk below writes
	// into the pool's memory past it: putArgv clears only these words.
	argv = argv[:len(argv):len(argv)]
	for _, w := range argv {
		a.blob(w.text, w.path)
	}
	if commandLine(m.MCP.Command) && !a.folderBlank(argv[1:]) {
		argv = a.commandField(argv[1:])
	}
	a.shellEnv = m.MCP.Env // read, never written: see scan.inherit
	a.command(argv, 0, ctxTop)
	a.envBlock()
	// Last, so that a credential found by what a word is (a header, a
	// URL) is reported as that.
	a.argSecrets(argv)
}

// argvPool holds the slices wiring builds the [mcp] command line in.
var argvPool = sync.Pool{New: func() any { return new([]arg) }}

// maxPooledArgs bounds the slices argvPool keeps: a longer one (a
// manifest with many arguments) is left to the collector.
const maxPooledArgs = 64

// putArgv hands buf back to argvPool, without the manifest's strings.
// Only the words of *buf were written (wiring's walk gets them capped at
// their length), so clearing those leaves the whole slice zero: clearing
// its capacity cost a write barrier per word beyond them while the
// collector marks, which is much of the time.
func putArgv(buf *[]arg) {
	if cap(*buf) > maxPooledArgs {
		return
	}
	clear(*buf)
	*buf = (*buf)[:0]
	argvPool.Put(buf)
}

func argPath(i int) string {
	if i < len(argPaths) {
		return argPaths[i]
	}
	return "mcp.args[" + strconv.Itoa(i) + "]"
}

// argPaths are the paths of the first arguments, made once.
var argPaths = func() (p [32]string) {
	for i := range p {
		p[i] = "mcp.args[" + strconv.Itoa(i) + "]"
	}
	return p
}()

// envPath is the path of the [mcp.env] entry key.
func envPath(key string) string {
	if echoSafeKey(key) {
		return "mcp.env." + key
	}
	return "mcp.env"
}

// capPath is the path of a [capabilities] field when the source had it, the
// table otherwise.
func (a *auditor) capPath(field string) string {
	p := "capabilities." + field
	if a.m.HasPath(p) {
		return p
	}
	return "capabilities"
}

// coherence compares the declared capabilities with what was inferred.
func (a *auditor) coherence() {
	c := a.m.Capabilities
	if c == nil {
		return
	}
	netAllowed := c.Network == addon.NetworkFull
	execAllowed := c.Exec == addon.ExecFull || (c.Exec == addon.ExecAllow && len(c.ExecAllow) > 0)
	switch {
	case a.inferred.Network && !netAllowed:
		a.add(CodeCapNetUnderdeclared, a.capPath("network"),
			"the wiring uses the network, but the capabilities declare network = \"none\"")
	case !a.inferred.Network && netAllowed:
		a.add(CodeCapNetOverdeclared, a.capPath("network"),
			"the capabilities declare network = \"full\", but the wiring shows no network use")
	}
	switch {
	case a.inferred.Exec && !execAllowed:
		a.add(CodeCapExecUnderdeclared, a.capPath("exec"),
			"the wiring spawns subprocesses, but the capabilities grant no exec")
	case !a.inferred.Exec && c.Exec == addon.ExecFull:
		a.add(CodeCapExecOverdeclared, a.capPath("exec"),
			"the capabilities grant exec = \"full\", but the wiring shows no subprocess use")
	}
}

// envBlock judges [mcp.env]: disclosure, forbidden keys, literal secrets and
// the malware heuristics on values.
func (a *auditor) envBlock() {
	env := a.m.MCP.Env
	if len(env) == 0 {
		return
	}
	var buf [16]string // most blocks are small: no allocation for the keys
	keys := buf[:0]
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// The keys are judged first, so that the message is written into one
	// allocation of its length.
	shown, hidden, forbidden, shownBytes := 0, 0, 0, 0
	var bad, safe [16]bool
	for i, k := range keys {
		ok := echoSafeKey(k)
		if ok {
			shown++
			shownBytes += len(k)
		} else {
			hidden++
		}
		f := forbiddenKey(k)
		if f {
			forbidden++
		}
		if i < len(bad) {
			bad[i], safe[i] = f, ok
		}
	}
	const envNoun, hiddenNoun = "environment variable", "unprintable name"
	n := len("passes ") + pluralLen(len(keys), envNoun) + len(" to the server") + 2*shown + shownBytes
	if shown > 0 && hidden > 0 {
		n += len(" and ") + pluralLen(hidden, hiddenNoun)
	}
	var msg strings.Builder
	msg.Grow(n)
	msg.WriteString("passes ")
	writePlural(&msg, len(keys), envNoun)
	msg.WriteString(" to the server")
	sep := ": "
	for i, k := range keys {
		if (i < len(safe) && safe[i]) || (i >= len(safe) && echoSafeKey(k)) {
			msg.WriteString(sep)
			msg.WriteString(k)
			sep = ", "
		}
	}
	if shown > 0 && hidden > 0 {
		msg.WriteString(" and ")
		writePlural(&msg, hidden, hiddenNoun)
	}
	a.add(CodeChildEnv, "mcp.env", msg.String())
	reported := 0
	for i, k := range keys {
		v := env[k]
		p := envPath(k)
		if (i < len(bad) && bad[i]) || (i >= len(bad) && forbiddenKey(k)) {
			// At most envpolicy.MaxReported per block, as upstream; the
			// last one says how many more there are.
			reported++
			switch msg := forbiddenMessage(k); {
			case reported < envpolicy.MaxReported:
				a.add(CodeForbiddenEnv, p, msg)
			case reported == envpolicy.MaxReported:
				if more := forbidden - reported; more > 0 {
					msg += "; " + plural(more, "more forbidden variable") + " of this block not listed"
				}
				a.add(CodeForbiddenEnv, p, msg)
			}
		}
		command := commandEnvName(k)
		if command {
			a.envCommand(arg{text: v, path: p, lit: true}, 0)
		}
		if a.envProgram(k, arg{text: v, path: p, lit: true}, 0) {
			command = true
		}
		if a.jvmOptionsEnv(k, arg{text: v, path: p, lit: true}, 0) {
			command = true // runtimeopts.go
		}
		if n, ok := strings.CutPrefix(k, "GIT_CONFIG_VALUE_"); ok {
			// git reads GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n> as
			// the n-th `-c key=value`.
			if key, ok := env["GIT_CONFIG_KEY_"+n]; ok {
				a.gitConfig(arg{text: strings.TrimSpace(key) + "=" + v, path: p, lit: true}, 0)
				command = true
			}
		}
		a.envTrust(k, arg{text: v, path: p, lit: true})
		if secretName(k) && literalSecret(v) {
			a.add(CodeLiteralSecret, p, "the environment variable "+keyLabel(k)+" holds a literal credential")
		}
		a.tokenWord(v, p)
		// A command-line variable's value was judged as the script it is.
		a.value(v, p, !command)
	}
}

// value applies the content heuristics to a string the wiring hands over as
// data (an env value): a download-and-run or decode-and-run pipeline spelled
// out in it (unless script is false: the value was judged as a script
// already), a persistence path, an encoded blob.
func (a *auditor) value(v, path string, script bool) {
	a.blob(v, path)
	a.stratum(v, path)
	if persistencePath(v) {
		a.add(CodePersistence, path, "names a location that runs code at login, at boot or when a program starts")
	}
	if script && len(v) <= maxScriptBytes && (strings.ContainsAny(v, "|`") || strings.Contains(v, "$(") || strings.Contains(v, "<(")) {
		sc := &scan{a: a, path: path, depth: maxDepth - 1, quiet: true}
		sc.script(v)
	}
}

// envDecl judges one environment name the wiring sets, by whatever route.
func (a *auditor) envDecl(key, path string) {
	if forbiddenKey(key) {
		a.add(CodeForbiddenEnv, path, forbiddenMessage(key))
	}
}

// forbiddenMessage says why key may not be set, and for a selector of the
// user's own configuration or credentials what to do instead.
func forbiddenMessage(key string) string {
	if envpolicy.Selector(key) {
		return "sets the environment variable " + keyLabel(key) + ", which selects the user's own configuration or credentials; " +
			"the host refuses a declared value, so remove it: the server then reads the user's own profile or file from the user's environment"
	}
	return "sets the environment variable " + keyLabel(key) + ", which changes what a trusted program loads or runs"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// writePlural writes plural(n, noun) to b.
func writePlural(b *strings.Builder, n int, noun string) {
	b.WriteString(strconv.Itoa(n))
	b.WriteByte(' ')
	b.WriteString(noun)
	if n != 1 {
		b.WriteByte('s')
	}
}

// pluralLen is len(plural(n, noun)) for n >= 0.
func pluralLen(n int, noun string) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	if n != 1 || d > 1 {
		return d + 1 + len(noun) + 1
	}
	return d + 1 + len(noun)
}

// envSet judges one environment variable the wiring sets, by whatever
// route, with its value.
func (a *auditor) envSet(key string, value arg, depth int) {
	if key == "" {
		return // "$K"=x: a variable not known by its name
	}
	a.envDecl(key, value.path)
	if value.lit {
		a.historyOff(key, value)
	}
	a.envValue(key, value, depth)
}

// envValue judges the value of a variable that holds a command line, a
// package registry or a certificate setting.
func (a *auditor) envValue(key string, value arg, depth int) {
	if value.lit && commandEnvName(key) {
		a.envCommand(value, depth)
	}
	if value.lit {
		a.envProgram(key, value, depth)
		a.envTrust(key, value)
		a.envLoadsDownload(key, value)
		a.jvmOptionsEnv(key, value, depth)
	}
}

// commandEnv are variables whose value a program runs as a command line
// through a shell (git, man, less, sudo, Mercurial, fzf, bash …, when they
// need a pager, an editor, a merge tool, an ssh transport, a browser, a
// file list, a prompt, a connection to an rsync daemon or a diff program
// for kubectl), or splits into one (rsync's and Subversion's
// remote shell and CVS's editor, whose ssh options or words may run
// commands here), and the C compilers a build runs (make's recipes run
// $(CC) through a shell; setuptools, node-gyp and Cargo's build scripts
// split CC into a program and its words).
var commandEnv = set("CC", "CXX", "CPP", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
	"PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER", "LESSOPEN", "LESSCLOSE", "LESSEDIT", "RSYNC_RSH",
	"SVN_SSH", "HGEDITOR", "HGMERGE", "CVSEDITOR", "FZF_DEFAULT_COMMAND", "PROMPT_COMMAND",
	"RSYNC_CONNECT_PROG", "CVS_RSH", "FCEDIT", "KUBECTL_EXTERNAL_DIFF", "GH_BROWSER", "P4EDITOR", "P4DIFF", "P4MERGE")

// commandEnvName reports whether the variable key holds a command line:
// one of commandEnv, a program's own pager or editor, which programs name
// after themselves (GH_PAGER, PSQL_PAGER, SYSTEMD_PAGER, AWS_PAGER,
// KUBE_EDITOR, SUDO_EDITOR …) and run the same way, or the program a tool
// runs to ask for a password or read one (SSH_ASKPASS, SUDO_ASKPASS,
// RESTIC_PASSWORD_COMMAND, RCLONE_PASSWORD_COMMAND, BORG_PASSCOMMAND …),
// which it runs whenever it needs one.
func commandEnvName(key string) bool {
	k := strings.ToUpper(key)
	return commandEnv[k] || strings.HasSuffix(k, "_PAGER") || strings.HasSuffix(k, "_EDITOR") ||
		strings.HasSuffix(k, "_ASKPASS") || strings.HasSuffix(k, "_PASSWORD_COMMAND") || strings.HasSuffix(k, "_PASSCOMMAND")
}

// envProgram judges the programs a build tool's variables name, which it
// runs in place of its compiler or of the program it built: the command
// lines of -toolexec and -exec in GOFLAGS (split as goSplit does), Cargo's
// rustc wrappers (a program) and a target's runner (words split at
// blanks). As for a command-line variable, the tool runs them only when it
// builds or runs, so what they do is not counted as what the server uses.
// It reports whether it judged a command line in the value.
func (a *auditor) envProgram(key string, value arg, depth int) bool {
	k := strings.ToUpper(key)
	var argv []arg
	switch {
	case k == "GOFLAGS":
		saved, judged := a.inferred, false
		for _, f := range goSplit(value.text) {
			name, val, ok := strings.Cut(f, "=")
			if n := strings.TrimLeft(name, "-"); ok && (n == "toolexec" || n == "exec") && (len(name)-len(n) == 1 || len(name)-len(n) == 2) {
				a.goCommandLine(arg{text: val, path: value.path, lit: true}, depth)
				judged = true
			}
		}
		a.inferred = saved
		return judged
	case cargoWrapperEnv[k] || strings.HasPrefix(k, "CARGO_TARGET_") && strings.HasSuffix(k, "_LINKER"):
		if v := strings.TrimSpace(value.text); v != "" {
			argv = []arg{{text: v, path: value.path, lit: true}}
		}
	case k == "LESS" || k == "MORE":
		// less reads its options from LESS before its command line's: +CMD
		// (++CMD) runs less's command CMD at start, and less's !CMD runs
		// CMD through the shell.
		words, ok := shellPlainWords(value.text)
		if !ok {
			words = strings.Fields(value.text)
		}
		judged := false
		for _, f := range words {
			if cmd, ok := strings.CutPrefix(strings.TrimPrefix(strings.TrimPrefix(f, "+"), "+"), "!"); ok && strings.HasPrefix(f, "+") && strings.TrimSpace(cmd) != "" {
				saved := a.inferred
				a.inlineShell("less", arg{text: cmd, path: value.path, lit: true}, depth, true, nil)
				a.inferred = saved
				judged = true
			}
		}
		return judged
	case k == "MANOPT":
		// man reads its options from MANOPT before its command line's:
		// -P and --pager name the pager it runs (optcmds.go).
		words, ok := shellPlainWords(value.text)
		if !ok {
			words = strings.Fields(value.text)
		}
		man := []arg{{text: "man", path: value.path, lit: true}}
		for _, f := range words {
			man = append(man, arg{text: f, path: value.path, lit: true})
		}
		saved := a.inferred
		a.optionCommands(invocation{name: "man", argv: man, depth: depth + 1, ctx: ctxNested}, commandOptions["man"])
		a.inferred = saved
		return len(man) > 1
	case k == "TAR_OPTIONS":
		// GNU tar reads these options before its own command line's:
		// --to-command and --checkpoint-action=exec= run commands.
		tar := []arg{{text: "tar", path: value.path, lit: true}}
		words, ok := shellPlainWords(value.text) // its words split as a shell's, quotes honoured
		if !ok {
			words = strings.Fields(value.text)
		}
		for _, f := range words {
			tar = append(tar, arg{text: f, path: value.path, lit: true})
		}
		saved := a.inferred
		a.tar(invocation{name: "tar", argv: tar, depth: depth + 1, ctx: ctxNested})
		a.inferred = saved
		return len(tar) > 1
	case k == "GIT_CONFIG_PARAMETERS":
		// git passes its -c settings to the git processes it starts in
		// this variable, each quoted as a shell word ('key=value', or
		// 'key'='value' since git 2.31), and reads them as its own -c.
		words, ok := shellPlainWords(value.text)
		if !ok {
			words = strings.Fields(value.text)
		}
		judged := false
		for _, w := range words {
			if strings.Contains(w, "=") {
				a.gitConfig(arg{text: w, path: value.path, lit: true}, depth)
				judged = true
			}
		}
		return judged
	case strings.HasPrefix(k, "CARGO_TARGET_") && strings.HasSuffix(k, "_RUNNER"):
		for _, f := range strings.Fields(value.text) {
			argv = append(argv, arg{text: f, path: value.path, lit: true})
		}
	}
	if len(argv) == 0 {
		return false
	}
	saved := a.inferred
	a.command(argv, depth+1, ctxNested)
	a.inferred = saved
	return true
}

// cargoWrapperEnv are the variables that name the program Cargo runs in
// place of rustc (a wrapper handed rustc's path and arguments, or the
// compiler itself) or of rustdoc; CARGO_TARGET_<TRIPLE>_LINKER names a
// target's linker.
var cargoWrapperEnv = set("RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER",
	"CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", "RUSTC", "CARGO_BUILD_RUSTC", "RUSTDOC", "CARGO_BUILD_RUSTDOC")

// envCommand judges the value of a command-line variable like any script
// the wiring runs, one quoting level down. The program runs it only when it
// needs to, so what it does is not counted as what the server uses. It
// returns what the script does as a whole when it is one simple command.
func (a *auditor) envCommand(value arg, depth int) cmdInfo {
	return a.envCommandReading(value, depth, "")
}

// envCommandReading is envCommand for a command whose standard input
// holds what stdin says (a credential helper's), "" for nothing known.
func (a *auditor) envCommandReading(value arg, depth int, stdin string) cmdInfo {
	text := strings.TrimLeft(strings.TrimSpace(value.text), "|-") // LESSOPEN's "|cmd %s" and "||cmd"
	if strings.TrimSpace(text) == "" {
		return cmdInfo{}
	}
	saved := a.inferred
	sc := &scan{a: a, path: value.path, depth: depth + 1, stdin: stdin}
	info := sc.script(text)
	a.inferred = saved
	return info
}
