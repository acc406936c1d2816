package assess

import "strings"

// sshValueFlags are the single-letter options of ssh that take a value.
const sshValueFlags = "BbcDEeFIiJLlmOoPpQRSWw"

// sshTool judges ssh, scp and sftp: the commands their -o options run
// locally (ProxyCommand, LocalCommand, KnownHostsCommand) are judged like
// any script; ssh's remote command is read as the remote shell reads it and
// judged too, but it runs on the other host, so it is not counted as what
// the wiring uses here. ssh as the server itself is a remote endpoint.
func (a *auditor) sshTool(c invocation) cmdInfo {
	if c.name == "ssh" && c.ctx == ctxTop {
		a.add(CodeRemoteEndpoint, c.argv[0].path, "runs the server on a remote host over ssh: your context leaves this machine")
	}
	info := cmdInfo{name: c.name, fetches: c.name == "sftp"}
	args := c.args()
	subsystem := false
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
				if strings.IndexByte(sshValueFlags, t[j]) < 0 {
					continue
				}
				v := arg{text: t[j+1:], path: args[i].path, lit: args[i].lit}
				if v.text == "" && i+1 < len(args) {
					i++
					v = args[i]
				}
				if t[j] == 'o' {
					a.sshOption(v, c.depth)
				}
				break
			}
		}
		return i, false
	}
	host, ended := options(0)
	if c.name != "ssh" || host >= len(args) {
		return info
	}
	// OpenSSH reads options again after the destination unless -- ended
	// them before it: `ssh host -o ProxyCommand=… cmd` runs that
	// ProxyCommand here, and `ssh host -- cmd` runs cmd there.
	command := host + 1
	if !ended {
		command, _ = options(command)
	}
	if subsystem || command >= len(args) {
		return info
	}
	saved := a.inferred
	a.shellLine(args[command:], c.depth, false, false)
	a.inferred = saved
	return info
}

// sshOption judges one -o option: the commands ssh runs locally.
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
	return cmdInfo{name: c.name}
}
