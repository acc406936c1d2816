package assess

import (
	"strconv"
	"strings"
)

// Options of docker/podman run and exec that take a value (podman's
// --env-host is a switch).
var containerValueFlags = set(
	"-e", "--env", "--env-file", "-v", "--volume", "--mount", "--network", "--net", "-p", "--publish",
	"--name", "-w", "--workdir", "-u", "--user", "--entrypoint", "-l", "--label", "--label-file",
	"--cap-add", "--cap-drop", "--pid", "--ipc", "--uts", "--userns", "--cgroupns", "--platform", "--pull",
	"-m", "--memory", "--memory-swap", "--cpus", "--cpu-shares", "-c", "--add-host", "--device", "--dns",
	"-h", "--hostname", "--restart", "--runtime", "--security-opt", "--tmpfs", "--ulimit", "--log-driver",
	"--log-opt", "--gpus", "--shm-size", "--health-cmd", "--health-interval", "--stop-signal",
	"--stop-timeout", "--cidfile", "-a", "--attach", "--group-add", "--expose", "--link", "--network-alias",
	"--ip", "--ip6", "--mac-address", "--storage-opt", "--sysctl", "--volumes-from", "--detach-keys",
	"--device-cgroup-rule", "--cgroup-parent", "--isolation", "--init-path", "--annotation", "--arch", "--os",
	"--secret", "--hooks-dir", "--pod", "--hostuser", "--variant", "--cpuset-cpus",
	// docker's resource, DNS and health options
	"--blkio-weight", "--blkio-weight-device", "--cpu-period", "--cpu-quota", "--cpu-rt-period", "--cpu-rt-runtime",
	"--cpuset-mems", "--device-read-bps", "--device-write-bps", "--device-read-iops", "--device-write-iops",
	"--kernel-memory", "--memory-reservation", "--memory-swappiness", "--oom-score-adj", "--pids-limit",
	"--volume-driver", "--domainname", "--dns-search", "--dns-option", "--link-local-ip", "--health-retries",
	"--health-timeout", "--health-start-period", "--health-start-interval",
	// podman's
	"--uidmap", "--gidmap", "--subuidname", "--subgidname", "--timezone", "--tz", "--sdnotify", "--systemd",
	"--chrootdirs", "--cgroup-conf", "--cgroups", "--passwd-entry", "--group-entry", "--preserve-fds", "--requires",
	"--seccomp-policy", "--umask", "--unsetenv", "--decryption-key", "--retry", "--retry-delay", "--authfile",
	"--cert-dir", "--creds", "--image-volume", "--pidfile", "--conmon-pidfile", "--pod-id-file", "--rdt-class",
	"--personality", "--env-merge", "--health-on-failure", "--health-log-destination", "--health-max-log-count",
	"--health-max-log-size", "--health-startup-cmd", "--health-startup-interval", "--health-startup-retries",
	"--health-startup-success", "--health-startup-timeout", "--shm-size-systemd",
	// nerdctl's, also after run
	"--namespace", "--snapshotter")

// containerGlobalFlags are the options before docker's subcommand that
// take a value.
var containerGlobalFlags = set("-H", "--host", "--context", "-c", "--config", "--log-level", "-l", "--url", "--connection",
	"--tlscacert", "--tlscert", "--tlskey",
	// podman's
	"--root", "--runroot", "--storage-driver", "--storage-opt", "--cgroup-manager", "--events-backend", "--runtime",
	"--runtime-flag", "--tmpdir", "--identity", "--module", "--conmon", "--hooks-dir", "--volumepath", "--imagestore",
	"--network-config-dir", "--network-cmd-path", "--ssh", "--db-backend",
	// nerdctl's
	"-n", "--namespace", "-a", "--address", "--host-address", "--snapshotter", "--storage-driver", "--data-root",
	"--cni-path", "--cni-netconfpath", "--host-gateway-ip", "--bridge-ip")

// engineConnection judges how docker or podman reaches its engine: over
// TCP to another host (docker's -H or --host, podman's --url, or the
// DOCKER_HOST or CONTAINER_HOST the line inherits) without TLS whose
// certificate is verified (docker's --tlsverify or DOCKER_TLS_VERIFY;
// podman's tcp:// has no TLS at all), anyone on the way can read what the
// client sends and receives, replace the images it runs and run
// containers in its name: insecure_url. A socket, an ssh:// connection
// and this machine's own addresses are not reported.
func (a *auditor) engineConnection(c invocation, name string) {
	if name != "docker" && name != "podman" {
		return
	}
	var host arg
	verify := name == "docker" && c.env["DOCKER_TLS_VERIFY"] != ""
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" || len(t) < 2 || t[0] != '-' {
			break
		}
		flag, val, joined := strings.Cut(t, "=")
		switch {
		case flag == "-H" || flag == "--host" || name == "podman" && flag == "--url":
			if w, ok := optValue(args, &i, val, joined); ok {
				host = w
			}
		case flag == "--tlsverify":
			// A value that is not a boolean is an error: nothing runs.
			b, err := strconv.ParseBool(val)
			verify = name == "docker" && (!joined || b || err != nil)
		case !joined && containerGlobalFlags[t]:
			i++
		}
	}
	if host.text == "" {
		variable := "DOCKER_HOST"
		if name == "podman" {
			variable = "CONTAINER_HOST"
		}
		v := c.env[variable]
		if v == "" {
			return
		}
		host = arg{text: v, path: c.argv[0].path, lit: true}
		if c.ctx == ctxTop && a.m.MCP.Env[variable] == v {
			host.path = envPath(variable) // the server's own variable
		}
	}
	u, ok := parseAnyURL(strings.TrimSpace(host.text))
	if verify || !host.lit || !ok || u.Hostname() == "" || loopbackHost(u.Hostname()) ||
		!strings.EqualFold(u.Scheme, "tcp") && !strings.EqualFold(u.Scheme, "http") {
		return
	}
	a.add(CodeInsecureURL, host.path, quoted(name)+" drives the container engine on "+safeText(u.Host, 80)+
		" over TCP without a verified certificate, so anyone on the way can read and replace what it sends and receives, and run containers in its name")
}

// container judges `docker|podman|nerdctl run|exec …`: the image must be
// pinned, environment set with -e goes through envpolicy, host-access flags
// are reported, and the command after the image is judged too.
func (a *auditor) container(c invocation) cmdInfo {
	argv, depth := c.argv, c.depth
	name := progName(argv[0].text)
	info := cmdInfo{name: name}
	a.engineConnection(c, name)
	a.runsFetched(c) // docker load -i /tmp/i.tar after curl -o /tmp/i.tar (imagefiles.go)
	rest := skipFlags(argv[1:], containerGlobalFlags)
	if len(rest) > 0 && rest[0].text == "container" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return info
	}
	if rest[0].text == "compose" {
		return a.compose(name, rest[1:], depth)
	}
	if (rest[0].text == "image" || rest[0].text == "buildx" || rest[0].text == "builder") && len(rest) > 1 {
		rest = rest[1:] // docker image pull|build, docker buildx build
	}
	sub := rest[0].text
	if sub == "mcp" && name == "docker" {
		return a.dockerMCP(c, rest[1:])
	}
	if sub != "run" && sub != "exec" && sub != "create" {
		switch sub {
		case "pull", "push", "login", "search":
			a.inferred.Network = true
		case "build":
			a.inferred.Network = true // the base images are pulled
			a.buildContext(name, rest[1:])
		case "import":
			a.containerImport(name, rest[1:]) // imagefiles.go
		}
		info.stdinScript = containerReadsStdin(sub, rest[1:]) // curl … | docker load
		return info
	}
	args := rest[1:]
	pull := sub != "exec"
	var entrypoint *arg
	i := 0
	for i < len(args) {
		w := args[i]
		t := w.text
		if t == "--" {
			i++
			break
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			break
		}
		var flag, val string
		var hasVal bool
		if strings.HasPrefix(t, "--") {
			flag, val, hasVal = strings.Cut(t, "=")
		} else {
			// One short flag or a cluster (-it, -ePATH=x, -ie X): the first
			// letter that takes a value takes the rest of the word, or the
			// next word.
			flag = t
			for j := 1; j < len(t); j++ {
				f := "-" + t[j:j+1]
				if containerValueFlags[f] {
					flag = f
					if j+1 < len(t) {
						val, hasVal = t[j+1:], true
					}
					break
				}
			}
		}
		if containerValueFlags[flag] {
			v := arg{text: val, path: w.path, lit: w.lit}
			if !hasVal {
				i++
				if i >= len(args) {
					break
				}
				v = args[i]
			}
			a.containerOption(flag, v, &pull, depth)
			if flag == "--entrypoint" {
				ep := v
				entrypoint = &ep
			}
		} else if flag == "--use-api-socket" && switchOn(val, hasVal) {
			// Docker mounts its API socket into the container, with the
			// registry logins the CLI holds.
			a.add(CodeContainerHostAccess, w.path, "mounts the Docker API socket into the container (--use-api-socket), which controls the host")
			a.add(CodeCredentialMount, w.path, "hands the Docker CLI's registry logins to the container (--use-api-socket), where whatever runs can read and use them")
		} else if flag == "--privileged" && switchOn(val, hasVal) {
			a.add(CodeContainerHostAccess, w.path, "runs a privileged container, which controls the host")
		} else if flag == "--publish-all" || flag == t && !strings.HasPrefix(t, "--") && strings.ContainsRune(t[1:], 'P') {
			a.add(CodeInboundAccess, w.path, "publishes every port the image exposes on every interface of this machine (-P), so any host that reaches it reaches the server")
		}
		i++
	}
	if pull {
		a.inferred.Network = true // a missing image is pulled from a registry
	}
	if i >= len(args) {
		return info
	}
	target := args[i]
	if sub != "exec" && target.lit {
		if strings.TrimSpace(target.text) == "" {
			a.add(CodeUnpinned, target.path, "the container command names no image")
		} else if ok, why := imagePinned(target.text); !ok {
			a.add(CodeUnpinned, target.path, "the container image "+quoted(target.text)+" "+why+"; pin a digest or a version tag")
		}
		a.minerImage(target)
	}
	cmd := args[i+1:]
	if entrypoint != nil {
		cmd = append([]arg{*entrypoint}, cmd...)
	}
	if len(cmd) > 0 {
		inner := a.command(cmd, depth+1, ctxNested)
		info.stdinScript = inner.stdinScript
	}
	return info
}

// switchOn reports whether a boolean option is on: given alone, or set to
// a value that is not false (a value that is no boolean stops the command,
// and is counted as on).
func switchOn(val string, hasVal bool) bool {
	b, err := strconv.ParseBool(val)
	return !hasVal || b || err != nil
}

// publishedOn reads a port publication of docker run (-p
// [IP:][HOST_PORT:]CONTAINER_PORT[/PROTO], the IP of IPv6 in brackets) and
// says where it listens and whether that is beyond this machine: every
// interface when no IP is given (Docker's default, which its own rules
// open past the host's firewall), or a given address that is not
// loopback.
func publishedOn(spec string) (string, bool) {
	spec, _, _ = strings.Cut(strings.TrimSpace(spec), "/")
	ip := ""
	if strings.HasPrefix(spec, "[") {
		end := strings.IndexByte(spec, ']')
		if end < 0 {
			return "", false
		}
		ip = spec[1:end]
	} else if parts := strings.Split(spec, ":"); len(parts) >= 3 {
		ip = strings.Join(parts[:len(parts)-2], ":")
	}
	switch {
	case strings.Contains(ip, "$") || strings.Contains(ip, "{"):
		return "", false // a placeholder the host fills in
	case ip == "" || ip == "0.0.0.0" || ip == "::":
		return "every interface", true
	case loopbackHost(ip):
		return ip, false
	}
	return safeText(ip, 40), true
}

// containerOption judges one valued option of docker run/exec.
func (a *auditor) containerOption(flag string, v arg, pull *bool, depth int) {
	switch flag {
	case "-e", "--env":
		if k, val, ok := assignedWord(v); ok {
			a.envSet(k, val, depth)
		}
	case "--network", "--net", "--pid", "--ipc", "--uts", "--userns", "--cgroupns":
		if strings.ToLower(v.text) == "host" {
			a.add(CodeContainerHostAccess, v.path, "shares the host's "+strings.TrimLeft(flag, "-")+" namespace with the container")
		}
	case "--cap-add":
		if hostCapabilities[strings.TrimPrefix(strings.ToLower(v.text), "cap_")] {
			a.add(CodeContainerHostAccess, v.path, "grants the container a capability that reaches the host")
		}
	case "--device-cgroup-rule":
		// a *:* rwm (every device), b *:* or b 8:* (the host's disks):
		// with mknod the container makes the device node itself.
		if rule := strings.Fields(strings.Trim(v.text, `'"`)); len(rule) >= 2 && (rule[0] == "a" ||
			rule[0] == "b" && (strings.HasPrefix(rule[1], "*:") || strings.HasPrefix(rule[1], "8:") || strings.HasPrefix(rule[1], "259:"))) {
			a.add(CodeContainerHostAccess, v.path, "lets the container use the host's devices ("+safeText(v.text, 40)+
				"), which reach the host's disks or memory")
		}
	case "--security-opt":
		switch opt := strings.ToLower(v.text); {
		case strings.Contains(opt, "unconfined"):
			a.add(CodeContainerHostAccess, v.path, "turns off the container's security profile")
		case opt == "label=disable" || opt == "label:disable":
			a.add(CodeContainerHostAccess, v.path, "turns off the container's SELinux separation from the host (label=disable)")
		}
	case "-v", "--volume", "--mount":
		src := v.text
		if flag == "--mount" {
			src = ""
			for _, kv := range strings.Split(v.text, ",") {
				k, val, _ := strings.Cut(kv, "=")
				if k == "source" || k == "src" {
					src = val
				}
			}
		} else if j := strings.IndexByte(src, ':'); j >= 0 {
			c := src[0] | 0x20
			if j == 1 && 'a' <= c && c <= 'z' { // C:\dir:/target
				if k := strings.IndexByte(src[2:], ':'); k >= 0 {
					src = src[:k+2]
				}
			} else {
				src = src[:j]
			}
		}
		s := strings.TrimRight(strings.ReplaceAll(src, `\`, "/"), "/")
		switch {
		case s == "" && strings.HasPrefix(src, "/"), runtimeSocket(s),
			s == "/etc", s == "/root", s == "/var/run", s == "/run", s == "/proc", s == "/sys", s == "/dev", hostControlDevice(s),
			runtimeState[strings.ToLower(s)], hostSystemPath(s):
			a.add(CodeContainerHostAccess, v.path, "mounts a host location that gives the container control of the host")
		}
		switch {
		case hostControlSocket(s):
			a.add(CodeContainerHostAccess, v.path, "mounts a host socket that gives the container control of the host or of the user's session ("+safeText(s, 80)+")")
		case s == "/sys/fs/cgroup" && flag != "--mount" && strings.Contains(v.text, ":") && !readOnlyVolume(v.text):
			a.add(CodeContainerHostAccess, v.path, "mounts the host's cgroups writable, from which a container can run a program on the host (release_agent)")
		case agentSocket(s):
			a.add(CodeCredentialMount, v.path, "mounts the user's ssh-agent or gpg-agent socket into the container, where whatever runs signs in and signs with the user's keys")
		}
		if persistencePath(src) {
			a.add(CodePersistence, v.path, "mounts a location that runs code at login, at boot or when a program starts into the container")
		}
		if what := credentialMount(s); what != "" {
			a.add(CodeCredentialMount, v.path, "mounts "+what+" into the container, where whatever runs can read and use them")
		}
	case "--env-file":
		// Each line NAME=value of the file becomes a variable of the
		// container: a credential file read this way hands its secrets
		// over as a mount would (the home folder and a credential folder
		// such as ~/.ssh are no file: docker refuses them, and nothing
		// runs).
		s := strings.TrimRight(strings.ReplaceAll(v.text, `\`, "/"), "/")
		if what := credentialMount(s); what != "" && v.lit && !homeDir(s) && !credentialFolder(s) {
			a.add(CodeCredentialMount, v.path, "hands "+what+" to the container as its variables (--env-file), where whatever runs can read and use them")
		}
	case "-p", "--publish":
		if ip, all := publishedOn(v.text); all && v.lit {
			a.add(CodeInboundAccess, v.path, "publishes the container's port on "+ip+" of this machine (-p "+safeText(v.text, 60)+
				"), so any host that reaches it reaches the server")
		}
	case "--device":
		// --device=/dev/sda:/dev/xvdc:rwm: the host's device comes first.
		if host, _, _ := strings.Cut(v.text, ":"); hostControlDevice(host) {
			a.add(CodeContainerHostAccess, v.path, "gives the container the host device "+safeText(host, 80)+", which reaches the host's memory or disks")
		}
	case "--pull":
		if strings.ToLower(v.text) == "never" {
			*pull = false
		}
	}
}

// hostSystemPath reports whether p (separators "/", no trailing "/") is a
// host file or folder below /etc, /boot or /proc that hands over the host:
// the files that say who is root or may become root (/etc/passwd,
// /etc/shadow, /etc/sudoers …), the SSH server's keys and settings, the
// kernel and boot loader, a process's view of the host's root or working
// folder (/proc/1/root, /proc/self/cwd), the kernel's settings and
// memory (/proc/sys, /proc/sysrq-trigger, /proc/kcore). /etc, /proc and
// the other whole folders are judged by the caller; /proc/cpuinfo and the
// like, which tools such as lxcfs mount, are not reported.
func hostSystemPath(p string) bool {
	switch p {
	case "/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh",
		"/etc/pam.d", "/boot", "/proc/sys", "/proc/sysrq-trigger", "/proc/kcore":
		return true
	}
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return false
	}
	pid, what, _ := strings.Cut(rest, "/")
	if pid != "self" && strings.Trim(pid, "0123456789") != "" || pid == "" {
		return false
	}
	what, _, _ = strings.Cut(what, "/")
	return what == "root" || what == "cwd"
}

// hostControlSocket reports whether p is a host socket (or a folder of
// them) whose other end controls the host or the user's session:
// systemd's private socket and folder, libvirt's (whoever talks to it
// starts machines with the host's disks), the system and the user's
// D-Bus (systemd's units, run on the host), the user's runtime folder,
// X11's and Wayland's display (what the user types and sees).
func hostControlSocket(p string) bool {
	l := strings.ToLower(p)
	switch l {
	case "/run/systemd", "/run/systemd/private", "/var/run/systemd", "/run/dbus", "/var/run/dbus",
		"/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket", "/tmp/.x11-unix", "/run/libvirt",
		"/var/run/libvirt":
		return true
	}
	base := l[strings.LastIndexByte(l, '/')+1:]
	if strings.HasPrefix(base, "libvirt-sock") && !strings.HasSuffix(base, "-ro") {
		return true
	}
	runtime, inRuntime := "", false // what follows the user's runtime folder
	if rest, ok := strings.CutPrefix(l, "/run/user/"); ok {
		uid, what, _ := strings.Cut(rest, "/")
		if uid != "" && strings.Trim(uid, "0123456789") == "" || strings.HasPrefix(uid, "$") {
			runtime, inRuntime = what, true
		}
	}
	for _, v := range []string{"$xdg_runtime_dir", "${xdg_runtime_dir}"} {
		if rest, ok := strings.CutPrefix(l, v); ok && (rest == "" || rest[0] == '/') {
			runtime, inRuntime = strings.TrimPrefix(rest, "/"), true
		}
	}
	if inRuntime {
		what, _, _ := strings.Cut(runtime, "/")
		return what == "" || what == "bus" || what == "systemd" || strings.HasPrefix(what, "wayland-")
	}
	return strings.HasPrefix(l, "/tmp/.x11-unix/")
}

// agentSocket reports whether p names the user's ssh-agent or gpg-agent
// socket: $SSH_AUTH_SOCK, Docker Desktop's forwarded agent, gnupg's
// sockets.
func agentSocket(p string) bool {
	l := strings.ToLower(p)
	switch l {
	case "$ssh_auth_sock", "${ssh_auth_sock}", "/run/host-services/ssh-auth.sock":
		return true
	}
	base := l[strings.LastIndexByte(l, '/')+1:]
	return strings.HasPrefix(base, "s.gpg-agent") || base == "gnupg" && strings.HasPrefix(l, "/run/user/") ||
		strings.HasPrefix(l, "/tmp/ssh-") && strings.Contains(base, "agent.")
}

// readOnlyVolume reports whether a -v value (SRC:DST:OPTS) mounts read
// only.
func readOnlyVolume(v string) bool {
	parts := strings.Split(v, ":")
	if len(parts) < 3 {
		return false
	}
	for o := range strings.SplitSeq(parts[len(parts)-1], ",") {
		if o == "ro" || o == "readonly" {
			return true
		}
	}
	return false
}

// hostCapabilities are the capabilities (lower case, without cap_) that
// reach past a container: all of them, administration, tracing other
// processes, loading kernel modules, reading any file of the host by its
// handle (the "shocker" escape) and raw I/O.
var hostCapabilities = set("all", "sys_admin", "sys_ptrace", "sys_module", "dac_read_search", "sys_rawio")

// runtimeSocket reports whether p is the socket or named pipe of a
// container runtime or builder: whoever can talk to it starts containers
// that mount the host's root, which is control of the host.
func runtimeSocket(p string) bool {
	base := strings.ToLower(p[strings.LastIndexByte(p, '/')+1:])
	switch base {
	case "docker.sock", "podman.sock", "containerd.sock", "crio.sock", "cri-dockerd.sock", "dockershim.sock",
		"buildkitd.sock", "docker_engine", "podman-machine-default":
		return true
	}
	return false
}

// runtimeState are the host folders where container runtimes and the
// kubelet keep their state (every container's files, the cluster's
// credentials): mounted into a container, they give it the other
// containers and the node.
var runtimeState = set("/var/lib/docker", "/var/lib/containerd", "/var/lib/containers", "/var/lib/kubelet",
	"/etc/kubernetes", "/var/lib/rancher", "/run/containerd", "/var/run/containerd", "/run/k3s")

// hostControlDevice reports whether a host device handed to a container
// reaches the host's memory (/dev/mem, /dev/kmem, /dev/port) or a raw disk
// (/dev/sda, /dev/nvme0n1, /dev/mapper/…), from which the host can be read
// and rewritten.
func hostControlDevice(p string) bool {
	name, ok := strings.CutPrefix(strings.TrimRight(p, "/"), "/dev/")
	if !ok {
		return false
	}
	switch name {
	case "mem", "kmem", "port":
		return true
	}
	for _, disk := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "dm-", "mapper/", "disk/"} {
		if strings.HasPrefix(name, disk) && len(name) > len(disk) {
			return true
		}
	}
	return false
}

// credentialFolders are the files and folders in a user's home where
// programs keep the user's credentials, by their path below the home, with
// what they hold. Matching ignores case, as Windows and macOS file names do.
var credentialFolders = map[string]string{
	".ssh":             "the user's SSH keys",
	".aws":             "the user's AWS credentials",
	".kube":            "the user's Kubernetes credentials",
	".azure":           "the user's Azure credentials",
	".config/gcloud":   "the user's Google Cloud credentials",
	".docker":          "the user's container registry logins",
	".gnupg":           "the user's GnuPG keys",
	".netrc":           "the user's saved logins (.netrc)",
	"_netrc":           "the user's saved logins (_netrc)",
	".git-credentials": "the user's git credentials",
	".config/gh":       "the user's GitHub CLI token",
	".npmrc":           "the user's npm registry token",
	".pypirc":          "the user's PyPI credentials",
	".pgpass":          "the user's PostgreSQL passwords",
	".vault-token":     "the user's Vault token",
	".terraform.d":     "the user's Terraform credentials",
	".oci":             "the user's Oracle Cloud credentials",
	".password-store":  "the user's password store",
	// Browsers' profiles (saved passwords, cookies, session tokens):
	// Linux's ~/.config/NAME and ~/.mozilla, macOS' Library/Application
	// Support/NAME and Windows' AppData/…/VENDOR/NAME.
	".config/google-chrome":       browserProfile,
	".config/google-chrome-beta":  browserProfile,
	".config/chromium":            browserProfile,
	".config/microsoft-edge":      browserProfile,
	".config/bravesoftware":       browserProfile,
	".config/vivaldi":             browserProfile,
	".mozilla":                    browserProfile,
	"google/chrome":               browserProfile,
	"microsoft/edge":              browserProfile,
	"bravesoftware/brave-browser": browserProfile,
	"mozilla/firefox":             browserProfile,
	"application support/firefox": browserProfile,
	// Operating systems' credential stores.
	"library/keychains":     "the user's macOS keychains",
	"microsoft/credentials": "the user's saved Windows credentials",
	"microsoft/protect":     "the keys that protect the user's saved Windows credentials",
}

// browserProfile is what a browser's profile folder holds.
const browserProfile = "the user's browser profile (saved passwords, cookies, signed-in sessions)"

// credentialPairs are the folder names that credentialFolders names only
// with the folder inside them (.config/gh, google/chrome).
var credentialPairs = set(".config", "google", "microsoft", "bravesoftware", "mozilla", "application support", "library")

// credentialMount says what of the user's credentials a bind mount of the
// host path p (separators already "/", no trailing "/") hands to a
// container: a credential folder or file of credentialFolders wherever it
// lies (~/.aws, ${HOME}/.kube, /Users/me/.ssh/id_ed25519, and the
// /full/path/to/.aws of vendors' READMEs), or the home directory itself.
// It returns "" for any other path. SSH's public files (known_hosts, *.pub)
// are not secrets; a mount of one of them alone is not reported.
func credentialMount(p string) string {
	if homeDir(p) {
		return "the user's home directory, with every credential kept in it,"
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		name := strings.ToLower(seg)
		if credentialPairs[name] {
			if i+1 == len(segs) {
				if name == ".config" {
					return "the user's settings folder, with the logins programs keep in it (gcloud, gh …),"
				}
				continue
			}
			name += "/" + strings.ToLower(segs[i+1])
		}
		what, ok := credentialFolders[name]
		if !ok && name == "keyrings" && i >= 2 && segs[i-1] == "share" && segs[i-2] == ".local" {
			what, ok = "the user's GNOME keyrings", true // not /usr/share/keyrings, the public keys of apt
		}
		if !ok {
			continue
		}
		if name == ".ssh" && i == len(segs)-2 {
			if last := strings.ToLower(segs[i+1]); last == "known_hosts" || strings.HasSuffix(last, ".pub") {
				return ""
			}
		}
		return what
	}
	return ""
}

// credentialFiles are the entries of credentialFolders that are files.
var credentialFiles = set(".netrc", "_netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".vault-token")

// credentialFolder reports whether p (separators "/", no trailing "/")
// ends at a folder where programs keep credentials (~/.ssh,
// ~/.config/gcloud, a browser's profile folder …) rather than at a file
// in one or a credential file (~/.ssh/id_ed25519, ~/.npmrc).
func credentialFolder(p string) bool {
	segs := strings.Split(strings.ToLower(p), "/")
	last := segs[len(segs)-1]
	if _, ok := credentialFolders[last]; ok && !credentialFiles[last] {
		return true
	}
	if n := len(segs); n >= 2 {
		if _, ok := credentialFolders[segs[n-2]+"/"+last]; ok {
			return true
		}
	}
	return last == ".config" || last == "keyrings"
}

// homeDir reports whether p names a user's home directory: ~, $HOME,
// ${HOME}, %USERPROFILE%, $env:USERPROFILE, /home/NAME, /Users/NAME or
// C:/Users/NAME, or the folder of every user's (/home, /Users).
func homeDir(p string) bool {
	switch strings.ToLower(p) {
	case "~", "$home", "${home}", "%userprofile%", "$env:userprofile", "${env:userprofile}":
		return true
	}
	if len(p) >= 2 && p[1] == ':' {
		p = p[2:] // a drive letter
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(segs) > 2 || (len(segs) == 1 && !strings.HasPrefix(p, "/")) {
		return false
	}
	return segs[0] == "home" || strings.EqualFold(segs[0], "users")
}

// composeGlobalFlags are the options of docker compose before its
// subcommand that take a value; composeValueFlags those of run and exec
// that do, other than the ones containerOption judges.
var (
	composeGlobalFlags = set("-f", "--file", "-p", "--project-name", "--project-directory", "--env-file",
		"--profile", "--ansi", "--progress", "--parallel")
	composeValueFlags = set("-w", "--workdir", "-u", "--user", "--name", "-l", "--label", "-p", "--publish",
		"--index", "--cap-drop")
	composeJudged = set("-e", "--env", "-v", "--volume", "--cap-add", "--entrypoint", "--pull")
)

// composeFile judges a Compose file given by -f: oci://REF is an
// application published as an OCI artifact, which must be pinned as an
// image; another URL is a git repository (URL#REF:PATH), which must name a
// commit; a local file is not read.
func (a *auditor) composeFile(name string, w arg) {
	s := strings.TrimSpace(w.text)
	if !w.lit || !strings.Contains(s, "://") && !strings.HasPrefix(s, "git@") {
		return
	}
	a.inferred.Network = true
	if !strings.HasSuffix(name, "compose") {
		name += " compose" // docker compose, podman compose
	}
	if ref, ok := strings.CutPrefix(s, "oci://"); ok {
		if ref == "" {
			return // compose refuses it: nothing runs
		}
		if pinned, why := imagePinned(ref); !pinned {
			a.add(CodeUnpinned, w.path, quoted(name)+" reads its application from the OCI artifact "+quoted(ref)+", which "+why+"; pin a digest or a version tag")
		}
		return
	}
	if _, ok := parseAnyURL(s); !ok && !strings.HasPrefix(s, "git@") {
		return // not a URL compose can fetch: nothing runs
	}
	a.plainFetch(w, name, "reads its Compose file")
	frag := ""
	if i := strings.IndexByte(s, '#'); i >= 0 {
		frag, _, _ = strings.Cut(s[i+1:], ":")
	}
	if !commitSHA.MatchString(frag) {
		a.add(CodeUnpinned, w.path, quoted(name)+" reads its Compose file from a git repository without naming a commit, so what runs can change without notice")
	}
}

// compose judges `docker compose [options] run|exec [options] SERVICE
// [command…]` (and docker-compose, podman-compose): the images of the
// compose file are pulled, options of run are judged as docker run's, and
// the command given for the service is judged. What the compose file
// itself says is not part of the wiring and is not read.
func (a *auditor) compose(name string, args []arg, depth int) cmdInfo {
	info := cmdInfo{name: name}
	rest := optionWords(args, composeGlobalFlags, true, func(flag string, w arg, val string) {
		if flag == "-f" || flag == "--file" {
			a.composeFile(name, arg{text: val, path: w.path, lit: w.lit})
			info.stdinScript = info.stdinScript || val == "-" // curl … | docker compose -f - up
		}
	})
	if len(rest) == 0 {
		return info
	}
	sub := rest[0].text
	switch sub {
	case "up", "create", "start", "pull", "build":
		a.inferred.Network = true
		return info
	case "run", "exec":
	default:
		return info
	}
	if sub == "run" {
		a.inferred.Network = true
	}
	pull := true
	var entrypoint *arg
	opts := rest[1:]
	i := 0
	for ; i < len(opts); i++ {
		t := opts[i].text
		if t == "--" {
			i++
			break
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
		flag, val, joined := strings.Cut(t, "=")
		if !strings.HasPrefix(t, "--") {
			flag, val, joined = t, "", false
			if f, v, j := shortCluster(t, composeJudged); f != "" {
				flag, val, joined = f, v, j
			} else if f, _, j := shortCluster(t, composeValueFlags); f != "" && !j {
				i++
				continue
			}
		}
		switch {
		case composeJudged[flag]:
			v, ok := optValue(opts, &i, val, joined)
			if !ok {
				return info
			}
			a.containerOption(flag, v, &pull, depth)
			if flag == "--entrypoint" {
				ep := v
				entrypoint = &ep
			}
		case composeValueFlags[flag] && !joined:
			i++
		}
	}
	if i >= len(opts) {
		return info
	}
	cmd := opts[i+1:] // after the service
	if entrypoint != nil {
		cmd = append([]arg{*entrypoint}, cmd...)
	}
	if len(cmd) > 0 {
		inner := a.command(cmd, depth+1, ctxNested)
		info.stdinScript = inner.stdinScript
	}
	return info
}

// containerBuildValues are the options of docker, podman and buildx build
// that take a value.
var containerBuildValues = set("-t", "--tag", "-f", "--file", "--build-arg", "--target", "--platform", "--label",
	"--network", "--secret", "--ssh", "--cache-from", "--cache-to", "-o", "--output", "--iidfile", "--progress",
	"--add-host", "--shm-size", "--ulimit", "-m", "--memory", "--memory-swap", "--cpu-shares", "--cpu-period",
	"--cpu-quota", "--cpuset-cpus", "--cpuset-mems", "--isolation", "--build-context", "--metadata-file",
	"--attest", "--annotation", "--allow", "--builder", "--call", "--cgroup-parent", "--pull", "--provenance",
	"--sbom", "--layers", "--jobs", "--format", "--authfile", "--creds", "--cert-dir", "--runtime", "--arch",
	"--os", "--variant", "--volume", "-v", "--env", "--label-file", "--manifest", "--sign-by", "--squash-all")

// buildContext judges what docker build builds from: a context named by a
// URL (a git repository, a tarball) or a --build-context NAME=URL is
// fetched when the server starts, so it is unpinned unless it names a full
// commit (URL#<commit>), and over plain http it can be replaced on the way.
func (a *auditor) buildContext(tool string, args []arg) {
	judge := func(w arg) {
		t := strings.TrimSpace(w.text)
		l := lower(t)
		if !w.lit || !(strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "git://") ||
			strings.HasPrefix(l, "ssh://") || strings.HasPrefix(l, "git@") || strings.HasPrefix(l, "github.com/")) {
			return // a directory here, - (standard input), an image (docker-image://)
		}
		if _, frag, ok := strings.Cut(t, "#"); ok {
			ref, _, _ := strings.Cut(frag, ":")
			if commitSHA.MatchString(ref) {
				return
			}
		}
		a.add(CodeUnpinned, w.path, quoted(tool+" build")+" builds from a context fetched by its URL, which can change without notice (a repository is fixed only at URL#<commit>)")
		a.plainFetch(w, tool, "fetches a build context")
	}
	ops := operands(args, containerBuildValues, true, func(flag string, w arg, val string) {
		if flag == "--build-context" {
			if _, src, ok := strings.Cut(val, "="); ok {
				w.text = src
				judge(w)
			}
		}
	})
	if len(ops) > 0 {
		judge(ops[len(ops)-1])
	}
}
