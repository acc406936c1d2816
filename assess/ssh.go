package assess

import (
	"slices"
	"strings"
)

// sshValueFlags are the single-letter options of ssh that take a value.
const sshValueFlags = "BbcDEeFIiJLlmOoPpQRSWw"

// sshTool judges ssh, scp and sftp: the commands their -o options run
// locally (ProxyCommand, LocalCommand, KnownHostsCommand) are judged like
// any script; ssh's remote command is read as the remote shell reads it and
// judged too, but it runs on the other host, so it is not counted as what
// the wiring uses here. ssh as the server itself is a remote endpoint.
func (a *auditor) sshTool(c invocation) cmdInfo {
	// autossh is ssh kept alive: its -M takes the monitoring port.
	shell, valueFlags := c.name == "ssh" || c.name == "autossh", sshValueFlags
	if c.name == "autossh" {
		valueFlags += "M"
	}
	if shell && c.ctx == ctxTop {
		a.add(CodeRemoteEndpoint, c.argv[0].path, "runs the server on a remote host over ssh: your context leaves this machine")
	}
	info := cmdInfo{name: c.name, fetches: c.name == "sftp"}
	args := c.args()
	subsystem := false
	noInput := false // -n, -N, -f, -W: nothing reads ssh's standard input there
	// options reads options from args[i:] as ssh's getopt does: it returns
	// the index of the first word that is not one, and whether -- ended
	// them.
	options := func(i int) (int, bool) {
		for ; i < len(args); i++ {
			t := args[i].text
			if t == "--" {
				return i + 1, true
			}
			if len(t) < 2 || t[0] != '-' {
				return i, false
			}
			for j := 1; j < len(t); j++ {
				if t[j] == 's' {
					subsystem = true
				}
				noInput = noInput || strings.IndexByte("nNfW", t[j]) >= 0
				if strings.IndexByte(valueFlags, t[j]) < 0 {
					continue
				}
				v := arg{text: t[j+1:], path: args[i].path, lit: args[i].lit}
				if v.text == "" && i+1 < len(args) {
					i++
					v = args[i]
				}
				if t[j] == 'o' {
					a.sshOption(v, c.depth)
					if shell && remoteForward(v.text) {
						a.add(CodeInboundAccess, v.path, "forwards a port of the remote host into this machine (RemoteForward) with "+
							quoted(c.name)+": whoever reaches that port there reaches this machine")
					}
				}
				if t[j] == 'R' && shell {
					a.add(CodeInboundAccess, v.path, "forwards a port of the remote host into this machine (-R) with "+
						quoted(c.name)+": whoever reaches that port there reaches this machine")
				}
				break
			}
		}
		return i, false
	}
	host, ended := options(0)
	if !shell || host >= len(args) {
		return info
	}
	// OpenSSH reads options again after the destination unless -- ended
	// them before it: `ssh host -o ProxyCommand=… cmd` runs that
	// ProxyCommand here, and `ssh host -- cmd` runs cmd there.
	command := host + 1
	if !ended {
		command, _ = options(command)
	}
	if subsystem {
		return info
	}
	// Into ssh to this machine, the input is a script a shell here runs:
	// the login shell's, without a remote command, or that of a command
	// that reads one (ssh localhost bash -s).
	local := !noInput && sshLoopback(args[host].text)
	if command >= len(args) {
		info.stdinScript = local
		return info
	}
	ran := a.remoteLine(args[command:], c.depth)
	info.stdinScript = local && ran.stdinScript
	// What the remote command writes comes from the other host:
	// eval "$(ssh HOST cat x)" runs it as eval "$(curl …)" would.
	info.fetches = true
	return info
}

// remoteLine judges a command line that another host's shell runs (ssh's
// remote command): read as that shell reads it and judged like any, but
// not counted as what the wiring uses here.
func (a *auditor) remoteLine(args []arg, depth int) cmdInfo {
	saved := a.inferred
	info := a.shellLine(args, depth, false, false)
	a.inferred = saved
	return info
}

// remoteScript is remoteLine for a script given as one word (gcloud
// compute ssh --command, mosh --server).
func (a *auditor) remoteScript(w arg, depth int) {
	if !w.lit {
		return
	}
	saved := a.inferred
	sc := &scan{a: a, path: w.path, depth: depth + 1}
	sc.script(w.text)
	a.inferred = saved
}

// moshValues are mosh's options that take a value as the next word.
var moshValues = set("-p", "--port", "--predict", "--family", "--bind-server", "--experimental-remote-ip", "--client",
	"--server", "--ssh")

// mosh judges mosh, a remote shell that logs in over ssh: the server runs
// on the other host (a remote endpoint); --ssh is the command line that
// logs in, run here (split into words, without a shell); --server and
// the command after the host run there.
func (a *auditor) mosh(c invocation) cmdInfo {
	if c.ctx == ctxTop {
		a.add(CodeRemoteEndpoint, c.argv[0].path, "runs the server on a remote host over mosh: your context leaves this machine")
	}
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			if i+2 < len(args) {
				a.remoteLine(args[i+2:], c.depth) // -- HOST COMMAND…
			}
			return cmdInfo{name: c.name}
		}
		if len(t) < 2 || t[0] != '-' {
			rest := args[i+1:]
			if len(rest) > 0 && rest[0].text == "--" {
				rest = rest[1:]
			}
			a.remoteLine(rest, c.depth)
			return cmdInfo{name: c.name}
		}
		flag, val, joined := strings.Cut(t, "=")
		if !moshValues[flag] {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok {
			break
		}
		switch flag {
		case "--ssh":
			if w.lit { // split into words and run here, as ssh's ProxyCommand is
				sc := &scan{a: a, path: w.path, depth: c.depth + 1}
				sc.script(w.text)
			}
		case "--server":
			a.remoteScript(w, c.depth)
		}
	}
	return cmdInfo{name: c.name, fetches: true}
}

// gcloudValues are gcloud compute ssh's options that take a value as the
// next word.
var gcloudValues = set("--command", "--zone", "--project", "--ssh-key-file", "--ssh-flag", "--container",
	"--account", "--configuration", "--worker", "--internal-ip", "--tunnel-through-iap", "--ssh-key-expire-after",
	"--strict-host-key-checking", "--troubleshoot", "--verbosity", "--impersonate-service-account")

// gcloud judges gcloud compute ssh (and compute tpus tpu-vm ssh, cloud-shell
// ssh): the server runs on a cloud machine (a remote endpoint), and the
// script of --command, or the words after --, run there.
func (a *auditor) gcloud(c invocation) cmdInfo {
	args := skipFlags(c.args(), gcloudValues)
	i := slices.IndexFunc(args, func(w arg) bool { return w.text == "ssh" })
	if i < 0 || i > 3 || !(args[0].text == "compute" || args[0].text == "cloud-shell") {
		return cmdInfo{name: c.name, fetches: true} // a network client, as gsutil
	}
	if c.ctx == ctxTop {
		a.add(CodeRemoteEndpoint, c.argv[0].path, "runs the server on a cloud machine over ssh: your context leaves this machine")
	}
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		t := rest[j].text
		if t == "--" {
			a.remoteLine(rest[j+1:], c.depth)
			break
		}
		flag, val, joined := strings.Cut(t, "=")
		if flag == "--command" {
			if w, ok := optValue(rest, &j, val, joined); ok {
				a.remoteScript(w, c.depth)
			}
		}
	}
	return cmdInfo{name: c.name, fetches: true}
}

// sshOption judges one -o option: the commands ssh runs locally, and host
// keys accepted unchecked.
func (a *auditor) sshOption(v arg, depth int) {
	if !v.lit {
		return
	}
	key, val, ok := strings.Cut(v.text, "=")
	if !ok {
		key, val, _ = strings.Cut(strings.TrimSpace(v.text), " ")
	}
	switch strings.ToLower(strings.TrimSpace(key)) {
	case "proxycommand", "localcommand", "knownhostscommand":
		val = strings.TrimSpace(val)
		if val == "" || strings.EqualFold(val, "none") {
			return
		}
		sc := &scan{a: a, path: v.path, depth: depth + 1}
		sc.script(val)
	case "stricthostkeychecking":
		if falseWord(strings.TrimSpace(val)) {
			a.add(CodeInsecureURL, v.path, "`ssh` is told to accept any host key (StrictHostKeyChecking="+safeText(strings.TrimSpace(val), 10)+
				"), so anyone on the way can pose as the host and read and change what is sent")
		}
	}
}

// rsync judges rsync: -e (--rsh) is the command line of its remote shell,
// which runs here.
func (a *auditor) rsync(c invocation) cmdInfo {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		var v arg
		switch {
		case t == "-e" || t == "--rsh":
			if i+1 >= len(args) {
				return cmdInfo{name: c.name}
			}
			i++
			v = args[i]
		case strings.HasPrefix(t, "--rsh="):
			v = arg{text: t[len("--rsh="):], path: args[i].path, lit: args[i].lit}
		case strings.HasPrefix(t, "-e") && !strings.HasPrefix(t, "--"):
			v = arg{text: t[2:], path: args[i].path, lit: args[i].lit}
		case t == "--rsync-path" || strings.HasPrefix(t, "--rsync-path="):
			// The program rsync starts on the other host, through its
			// shell: judged like ssh's remote command, not counted as
			// what runs here.
			name, val, joined := strings.Cut(t, "=")
			if w, ok := optValue(args, &i, val, joined && name == "--rsync-path"); ok && w.lit {
				saved := a.inferred
				sc := &scan{a: a, path: w.path, depth: c.depth + 1}
				sc.script(w.text)
				a.inferred = saved
			}
			continue
		default:
			continue
		}
		if v.lit {
			if words, ok := shellPlainWords(v.text); ok {
				argv := make([]arg, len(words))
				for j, w := range words {
					argv[j] = arg{text: w, path: v.path, lit: true}
				}
				a.command(argv, c.depth+1, ctxNested)
			} else {
				sc := &scan{a: a, path: v.path, depth: c.depth + 1}
				sc.script(v.text)
			}
		}
	}
	return cmdInfo{name: c.name, fetches: true}
}

// remoteForward reports whether an -o option of ssh is RemoteForward
// (ssh -R written as an option: RemoteForward=…, or its name and value
// apart), with a forwarding to set up.
func remoteForward(o string) bool {
	key, val, ok := strings.Cut(o, "=")
	if !ok {
		key, val, _ = strings.Cut(strings.TrimSpace(o), " ")
	}
	val = strings.TrimSpace(val)
	return strings.EqualFold(strings.TrimSpace(key), "remoteforward") && val != "" && !strings.EqualFold(val, "none")
}

// sshLoopback reports whether an ssh destination ([user@]host, or
// ssh://[user@]host[:port]) is this machine.
func sshLoopback(dest string) bool {
	dest = strings.TrimPrefix(dest, "ssh://")
	if at := strings.LastIndexByte(dest, '@'); at >= 0 {
		dest = dest[at+1:]
	}
	if strings.HasPrefix(dest, "[") {
		dest, _, _ = strings.Cut(dest[1:], "]")
	} else if h, port, ok := strings.Cut(dest, ":"); ok && !strings.Contains(port, ":") {
		dest = h
	}
	return loopbackHost(dest)
}
