package assess

import "strings"

// Credentials sent off the machine: a network client given a file where
// programs keep the user's credentials to upload or post, a copy of one to
// another host, or a pipeline that feeds such a file (or the server's
// whole environment, with the credentials it was given) into a client that
// sends what it reads. An MCP server reads the credentials it needs where
// they are and sends them only to the service they are for; it has no
// reason to ship the files themselves anywhere.

// flowJudges are the programs whose part in such a flow is read: what
// they read that holds credentials, what they send.
var flowJudges = map[string]func(a *auditor, c invocation, info *cmdInfo){
	"curl": (*auditor).curlSends, "curlie": (*auditor).curlSends,
	"wget": (*auditor).wgetSends, "wget2": (*auditor).wgetSends,
	"scp": (*auditor).copiesOut, "rsync": (*auditor).copiesOut,
	"nc": sendsInput, "ncat": sendsInput, "netcat": sendsInput, "socat": sendsInput, "telnet": sendsInput,
	"ssh": sendsInput,
	"printenv": func(_ *auditor, c invocation, info *cmdInfo) {
		if len(c.args()) == 0 {
			info.secrets = "the server's environment (the credentials it was given)"
		}
	},
}

// secretReaders are the programs that write out, as they are or encoded,
// the files they are given: one given a credential file puts the
// credentials on its output.
var secretReaders = set("cat", "tac", "head", "tail", "less", "more", "base64", "base32", "basenc", "xxd", "od",
	"hexdump", "gzip", "bzip2", "xz", "zstd", "tar", "zip", "7z", "gpg", "openssl", "strings", "type",
	"get-content", "gc")

// credentialFlow records what program c reads that holds credentials, and
// whether it sends what it reads, in info; a client given a credential
// file to send is reported here. side is sideJudges' entry for c's name.
func (a *auditor) credentialFlow(c invocation, side *sideJudge, info *cmdInfo) {
	switch {
	case side == nil:
		return
	case side.flow != nil:
		side.flow(a, c, info)
		return
	case !side.reader:
		return
	}
	for _, w := range c.args() {
		if w.lit && !strings.HasPrefix(w.text, "-") {
			if what := credentialFile(w.text); what != "" {
				info.secrets = what
				return
			}
		}
	}
}

// credentialFile says what credentials a file or folder named by p holds,
// as credentialMount reads paths; "" for any other path.
func credentialFile(p string) string {
	p = strings.TrimSuffix(strings.ReplaceAll(strings.TrimSpace(p), `\`, "/"), "/")
	if p == "" {
		return ""
	}
	if homeDir(p) {
		return "the user's home directory"
	}
	return credentialMount(p)
}

func sendsInput(_ *auditor, _ invocation, info *cmdInfo) { info.sends = true }

// exfil records credentials sent off the machine: msg says what and how.
func (a *auditor) exfil(path, msg string) { a.add(CodeCredentialExfil, path, msg) }

// curlDataOptions are curl's options whose value is data to send, read
// from a file after '@' (or '<' in a form field); curlUploads those whose
// value is a file to upload.
var (
	curlDataOptions = set("-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode", "--json", "-F",
		"--form")
	curlUploads = set("-T", "--upload-file")
	// curlShortValues are curl's one-letter options that take a value:
	// in a cluster (-sd @-, -sSLT FILE) the first of them takes the rest.
	curlShortValues = set("-d", "-F", "-T", "-H", "-o", "-u", "-x", "-e", "-A", "-b", "-c", "-K", "-m", "-r", "-w",
		"-X", "-E", "-C", "-Y", "-y", "-z", "-t", "-U", "-Q", "-P")
)

// curlSends judges what curl sends: a credential file given to a data,
// form or upload option, and whether it sends its standard input (@-, -T
// -).
func (a *auditor) curlSends(c invocation, info *cmdInfo) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		flag, val, joined := strings.Cut(t, "=")
		if !strings.HasPrefix(t, "--") {
			flag, val, joined = t, "", false
			if len(t) > 2 && t[0] == '-' {
				flag, val, joined = shortCluster(t, curlShortValues)
			}
		}
		data, upload := curlDataOptions[flag], curlUploads[flag]
		if !data && !upload {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok || !w.lit {
			continue
		}
		file := w.text
		if data {
			file = curlDataFile(flag, w.text)
		}
		switch {
		case file == "-":
			info.sends = true
		case file != "":
			if what := credentialFile(file); what != "" {
				a.exfil(w.path, "sends "+what+" off the machine with "+quoted(c.name))
			}
		}
	}
}

// curlDataFile returns the file a data or form value of curl reads (after
// '@', or '<' in a form field; --data-urlencode's name@file), or "".
func curlDataFile(flag, v string) string {
	switch {
	case flag == "-F" || flag == "--form":
		_, f, ok := strings.Cut(v, "=")
		if !ok || len(f) < 2 || f[0] != '@' && f[0] != '<' {
			return ""
		}
		f, _, _ = strings.Cut(f[1:], ";") // ;type=…, ;filename=…
		return f
	case strings.HasPrefix(v, "@"):
		return v[1:]
	case flag == "--data-urlencode":
		if i := strings.IndexByte(v, '@'); i > 0 && !strings.Contains(v[:i], "=") {
			return v[i+1:]
		}
	}
	return ""
}

// wgetSends judges wget's --post-file and --body-file.
func (a *auditor) wgetSends(c invocation, _ *cmdInfo) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		flag, val, joined := strings.Cut(args[i].text, "=")
		if flag != "--post-file" && flag != "--body-file" {
			continue
		}
		if w, ok := optValue(args, &i, val, joined); ok && w.lit {
			if what := credentialFile(w.text); what != "" {
				a.exfil(w.path, "sends "+what+" off the machine with "+quoted(c.name))
			}
		}
	}
}

// copyValues are the options of scp and rsync that take a value.
var copyValues = set("-i", "-F", "-P", "-p", "-o", "-c", "-l", "-S", "-J", "-e", "--rsh", "--rsync-path",
	"--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "--filter", "-f", "--port",
	"--password-file", "--log-file", "--chmod", "--chown", "--timeout", "--contimeout", "--bwlimit",
	"--partial-dir", "--temp-dir", "-T", "--backup-dir", "--suffix", "--compare-dest", "--copy-dest",
	"--link-dest", "--max-size", "--min-size", "--block-size", "-B", "--modify-window", "--info", "--debug",
	"--out-format", "--skip-compress", "--iconv", "--address", "--sockopts", "-M", "--remote-option")

// copiesOut judges scp and rsync: a credential file among the sources
// of a copy to another host.
func (a *auditor) copiesOut(c invocation, _ *cmdInfo) {
	ops := operands(c.args(), copyValues, true, nil)
	if len(ops) < 2 || !remoteTarget(ops[len(ops)-1].text) {
		return
	}
	for _, w := range ops[:len(ops)-1] {
		if !w.lit || remoteTarget(w.text) {
			continue
		}
		if what := credentialFile(w.text); what != "" {
			a.exfil(w.path, "copies "+what+" to another host with "+quoted(c.name))
			return
		}
	}
}

// remoteTarget reports whether an operand of scp or rsync names a place
// on another host: HOST:PATH, USER@HOST:PATH, scp://…, rsync://…, but not
// a drive letter (C:/x) or a path with a colon after a slash.
func remoteTarget(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	if i <= 0 || strings.ContainsAny(s[:i], `/\`) {
		return false
	}
	return i > 1 // not C:
}
