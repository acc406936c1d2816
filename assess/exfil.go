package assess

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
			info.secrets = serverEnvironment
		}
	},
	// The shell's set alone lists its variables (export -p and declare -x
	// are declarations: declListing).
	"set": func(_ *auditor, c invocation, info *cmdInfo) {
		if len(c.args()) == 0 {
			info.secrets = serverEnvironment
		}
	},
	// PowerShell's env: drive, listed.
	"get-childitem": listsEnvDrive, "gci": listsEnvDrive, "dir": listsEnvDrive, "ls": listsFiles,
	"echo": listsFiles, "printf": listsFiles,
	"get-item": listsEnvDrive, "gi": listsEnvDrive,
	// Clients that upload the files they are given.
	"invoke-webrequest": (*auditor).psUploads, "iwr": (*auditor).psUploads,
	"invoke-restmethod": (*auditor).psUploads, "irm": (*auditor).psUploads,
	"gh": uploadsOrPrints(printsToken), "aws": uploadsOrPrints(printedSecret), "gsutil": (*auditor).uploads,
	"gcloud": uploadsOrPrints(printsToken), "rclone": (*auditor).uploads, "s3cmd": (*auditor).uploads,
	"azcopy": (*auditor).uploads, "az": uploadsOrPrints(printsToken),
	// Tools that print a token or a secret (tokens.go).
	"heroku": printsToken, "fly": printsToken, "flyctl": printsToken, "git": printedSecret,
	// Copies and archives: what they write holds what they read.
	"cp": (*auditor).copiesLocally, "copy-item": (*auditor).copiesLocally, "cpi": (*auditor).copiesLocally,
	"copy": (*auditor).copiesLocally, "install": (*auditor).copiesLocally, "mv": (*auditor).copiesLocally,
	"move-item": (*auditor).copiesLocally, "mi": (*auditor).copiesLocally, "move": (*auditor).copiesLocally,
	"ln":  (*auditor).copiesLocally,
	"tar": (*auditor).archives, "zip": (*auditor).archives, "7z": (*auditor).archives, "7za": (*auditor).archives,
	// Credential stores read out whole, and the items of password stores
	// printed one at a time (tokens.go).
	"security": func(a *auditor, c invocation, info *cmdInfo) {
		storeDump("the user's macOS keychain", "dump-keychain")(a, c, info)
		printsItem(a, c, info)
	},
	"secret-tool": func(a *auditor, c invocation, info *cmdInfo) {
		if args := c.args(); len(args) > 0 && args[0].text == "search" && slices.ContainsFunc(args, isWord("--all")) {
			info.secrets = "the user's keyring"
		}
		printsItem(a, c, info)
	},
	"op": printsItem, "pass": printsItem, "gopass": printsItem, "bw": printsItem, "lpass": printsItem,
	"keyring": printsItem,
	// Files gpg decrypts, and the keys it exports.
	"gpg": (*auditor).gpgOut, "gpg2": (*auditor).gpgOut,
	// The clipboard, where passwords and tokens pass.
	"pbpaste": clipboard, "wl-paste": clipboard, "get-clipboard": clipboard, "gcb": clipboard,
	"xclip": func(_ *auditor, c invocation, info *cmdInfo) {
		if slices.ContainsFunc(c.args(), func(w arg) bool { return w.text == "-o" || w.text == "-out" }) {
			clipboard(nil, c, info)
		}
	},
	"xsel": func(_ *auditor, c invocation, info *cmdInfo) {
		if slices.ContainsFunc(c.args(), func(w arg) bool { return w.text == "-o" || w.text == "--output" }) {
			clipboard(nil, c, info)
		}
	},
	// reg save of the hives that hold the machine's password hashes.
	"reg": (*auditor).regSave,
	// getent shadow and dscl's ShadowHashData print the password hashes
	// (dump.go).
	"getent": (*auditor).getentShadow, "dscl": (*auditor).dsclShadow,
	"kubectl": func(_ *auditor, c invocation, info *cmdInfo) {
		args := c.args()
		if i := slices.IndexFunc(args, isWord("config")); i >= 0 && i+1 < len(args) && args[i+1].text == "view" &&
			slices.ContainsFunc(args, func(w arg) bool { return w.text == "--raw" || w.text == "--flatten" }) {
			info.secrets = "the user's Kubernetes credentials"
		}
	},
}

// stagedFile is a file the wiring wrote credentials into.
type stagedFile struct{ path, what string }

// stage records that the wiring wrote what into the file or folder p.
func (a *auditor) stage(p, what string) {
	if p = cleanPath(a.atCwd(p)); p != "" && p != "-" && len(a.staged) < maxStaged {
		a.staged = append(a.staged, stagedFile{p, what})
	}
}

// tokenFile is a file the wiring wrote a token into.
type tokenFile struct {
	path string
	tok  *tokenSource
}

// stageToken records that the wiring wrote the token tok into the file p
// (gh auth token > /tmp/t): what reads or sends the file later carries
// the token, which may still go to its own service.
func (a *auditor) stageToken(p string, tok *tokenSource) {
	if p = cleanPath(a.atCwd(p)); p != "" && p != "-" && len(a.tokenFiles) < maxStaged {
		a.tokenFiles = append(a.tokenFiles, tokenFile{p, tok})
	}
}

// teeHolds records that the files tee writes (cat ~/.ssh/id_rsa | tee
// /tmp/k) hold the credentials or the token the stages before it wrote
// out (prev), as a redirection of their output would (redirects).
func (s *scan) teeHolds(c *syntax.CallExpr, prev cmdInfo) {
	if prev.secrets == "" && prev.token == nil {
		return
	}
	for _, w := range c.Args[1:] {
		if procOut(w) != nil {
			continue
		}
		t, ok := s.wordValue(w)
		if !ok || t == "" || t[0] == '-' {
			continue
		}
		if prev.secrets != "" {
			s.a.stage(t, prev.secrets)
		} else {
			s.a.stageToken(t, prev.token)
		}
	}
}

// unstageToken forgets a token the wiring wrote into the file p, which
// it has now written over.
func (a *auditor) unstageToken(p string) {
	p = cleanPath(a.atCwd(p))
	a.tokenFiles = slices.DeleteFunc(a.tokenFiles, func(f tokenFile) bool { return f.path == p })
}

// tokenAt returns the token the wiring wrote into the file p, or nil; a
// relative path is read from the directory the script changed into, then
// as written.
func (a *auditor) tokenAt(p string) *tokenSource {
	if len(a.tokenFiles) == 0 {
		return nil
	}
	r, p := cleanPath(a.atCwd(p)), cleanPath(p)
	for i := len(a.tokenFiles) - 1; i >= 0; i-- {
		if t := a.tokenFiles[i].path; t == r || t == p {
			return a.tokenFiles[i].tok
		}
	}
	return nil
}

// tokenFileSent judges a client that sends the file p to the hosts given
// (or, for a client that is not HTTP, down its connection): a token the
// wiring wrote there leaves unless it goes to its own service.
func (a *auditor) tokenFileSent(client, p string, hosts []string, w arg) {
	tok := a.tokenAt(p)
	if tok == nil {
		return
	}
	if where := tokenLeaves(tok, client, hosts); where != "" {
		a.exfil(w.path, "sends "+tok.what+", which the wiring wrote to "+safeText(cleanPath(p), 60)+", "+where+" with "+quoted(client))
	}
}

// maxStaged bounds the staged files an audit keeps.
const maxStaged = 32

// cleanPath is p as the path rules compare it: no blanks around it, '/'
// for every separator, no trailing '/', no leading "./".
func cleanPath(p string) string {
	p = strings.TrimSuffix(strings.ReplaceAll(strings.TrimSpace(p), `\`, "/"), "/")
	return strings.TrimPrefix(p, "./")
}

// credentialAt says what credentials the file or folder p holds: a place
// where programs keep them (credentialFile), a file the wiring wrote them
// into, or one inside a folder it wrote them into; "" for none. A relative
// path is read from the directory the script changed into, then as
// written.
func (a *auditor) credentialAt(p string) string {
	if r := a.atCwd(p); r != p {
		if what := a.credentialIn(r); what != "" {
			return what
		}
	}
	return a.credentialIn(p)
}

// credentialIn is credentialAt for the path p as written.
func (a *auditor) credentialIn(p string) string {
	if what := credentialFile(p); what != "" || len(a.staged) == 0 {
		return what
	}
	p = cleanPath(p)
	for _, f := range a.staged {
		if p == f.path || strings.HasPrefix(p, f.path+"/") {
			return f.what
		}
	}
	return ""
}

func isWord(t string) func(arg) bool { return func(w arg) bool { return w.text == t } }

// storeDump judges a tool of a credential store whose subcommand sub
// writes the whole store out.
func storeDump(what, sub string) func(*auditor, invocation, *cmdInfo) {
	return func(_ *auditor, c invocation, info *cmdInfo) {
		if args := c.args(); len(args) > 0 && args[0].text == sub {
			info.secrets = what
		}
	}
}

// readsOut records in info what credentials a program that writes out
// the files it is given (secretReaders) writes out, from the first
// credential file among its operands.
func (a *auditor) readsOut(c invocation, info *cmdInfo) {
	for _, w := range c.args() {
		if w.lit && !strings.HasPrefix(w.text, "-") {
			if what := a.credentialAt(w.text); what != "" {
				if what == passwordHashes {
					a.dumps(c, "reads "+what)
				}
				info.secrets = what
				return
			}
			if tok := a.tokenAt(w.text); tok != nil && info.token == nil {
				info.token = tok // cat /tmp/t, where the wiring wrote a token
			}
		}
	}
}

// gpgOut judges gpg: given a file it writes it out (decrypted or not), and
// --export-secret-keys writes out the user's private keys.
func (a *auditor) gpgOut(c invocation, info *cmdInfo) {
	for _, w := range c.args() {
		if strings.HasPrefix(w.text, "--export-secret-") {
			info.secrets = "the user's GnuPG private keys"
			return
		}
	}
	a.readsOut(c, info)
}

// copyOperands returns the files a copying, moving or linking program
// reads and the file or folder it writes: cp, mv, install and ln (-t DIR
// or the last operand), cmd.exe's copy and move, and PowerShell's
// Copy-Item and Move-Item (-Path, -LiteralPath, -Destination, or the
// last positional word); folder reports a destination named as a folder
// (-t DIR).
func copyOperands(c invocation) (sources []arg, dest string, folder bool) {
	args := c.args()
	if c.name == "copy-item" || c.name == "cpi" || c.name == "move-item" || c.name == "mi" {
		for i := 0; i < len(args); i++ {
			name, val, colon := strings.Cut(lower(args[i].text), ":")
			switch {
			case strings.HasPrefix(name, "-d") && strings.HasPrefix("-destination", name):
				if w, ok := optValue(args, &i, val, colon); ok && w.lit {
					dest = w.text
				}
			case strings.HasPrefix(name, "-p") && strings.HasPrefix("-path", name),
				strings.HasPrefix(name, "-l") && strings.HasPrefix("-literalpath", name):
				if w, ok := optValue(args, &i, val, colon); ok {
					sources = append(sources, w)
				}
			case !strings.HasPrefix(name, "-"):
				sources = append(sources, args[i])
			}
		}
		if dest == "" && len(sources) > 1 {
			dest, sources = sources[len(sources)-1].text, sources[:len(sources)-1]
		}
		return sources, dest, false
	}
	if c.name == "copy" || c.name == "move" {
		// cmd.exe's switches: /Y, /-Y, /B, /V …
		args = slices.DeleteFunc(slices.Clone(args), func(w arg) bool {
			return len(w.text) >= 2 && len(w.text) <= 3 && w.text[0] == '/' && !strings.Contains(w.text[1:], "/")
		})
	}
	ops := operands(args, set("-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner",
		"-g", "--group"), true, func(flag string, w arg, _ string) {
		if flag == "-t" || flag == "--target-directory" {
			dest, folder = w.text, true
		}
	})
	if dest == "" && len(ops) > 1 {
		dest, ops = ops[len(ops)-1].text, ops[:len(ops)-1]
	}
	return ops, dest, folder
}

// copiesLocally judges cp, mv, install, ln and PowerShell's Copy-Item and
// Move-Item (cmd's copy and move): a credential file copied or moved to
// another file puts the credentials there, and the file written is judged
// as any the wiring writes (writesTo).
func (a *auditor) copiesLocally(c invocation, _ *cmdInfo) {
	sources, dest, _ := copyOperands(c)
	if dest == "" {
		return
	}
	if c.name != "ln" {
		// ln's links are judged where it is (tamper.go, persistence).
		a.writesTo(dest, c.argv[0].path)
	}
	for _, w := range sources {
		if !w.lit {
			continue
		}
		if what := a.credentialAt(w.text); what != "" {
			if what == passwordHashes && c.name != "ln" {
				a.dumps(c, "copies "+what)
			}
			a.stage(dest, what)
			return
		}
		if tok := a.tokenAt(w.text); tok != nil {
			// cp /tmp/t /tmp/u after gh auth token > /tmp/t
			a.stageToken(dest, tok)
			a.stageToken(strings.TrimRight(dest, `/\`)+"/"+path.Base(cleanPath(w.text)), tok)
			return
		}
	}
}

// archives judges tar, zip and 7z: the archive they create holds the
// credential files among what they are given, and one written to the
// standard output (tar cf -, zip -) puts them there. Any credential file
// among the operands counts as written out, as for the other programs
// that write out the files they are given.
func (a *auditor) archives(c invocation, info *cmdInfo) {
	a.readsOut(c, info)
	if info.secrets == "" {
		return
	}
	if out := archiveFile(c); out != "" && out != "-" {
		a.stage(out, info.secrets)
		if c.name == "zip" && !strings.Contains(out[strings.LastIndexByte(out, '/')+1:], ".") {
			a.stage(out+".zip", info.secrets) // zip adds the suffix
		}
	}
}

// archiveFile returns the archive that tar (with -f), zip or 7z a
// creates, or "" when it is not told.
func archiveFile(c invocation) string {
	args := c.args()
	switch c.name {
	case "tar":
		for i, w := range args {
			t := w.text
			switch {
			case t == "--file" && i+1 < len(args):
				return args[i+1].text
			case strings.HasPrefix(t, "--file="):
				return t[len("--file="):]
			case strings.HasPrefix(t, "--"):
			case strings.HasPrefix(t, "-") || i == 0:
				// A cluster (-czf OUT, czf OUT, -cfOUT): f takes the rest
				// of the cluster, or the next word.
				cl := strings.TrimPrefix(t, "-")
				if j := strings.IndexByte(cl, 'f'); j >= 0 {
					if rest := cl[j+1:]; rest != "" {
						return rest
					}
					if i+1 < len(args) {
						return args[i+1].text
					}
				}
			}
		}
	case "zip":
		if ops := operands(args, set("-b", "-n", "-t", "-tt", "-x", "-i", "-P", "-O", "-Z"), true, nil); len(ops) > 0 {
			return ops[0].text
		}
	default: // 7z a OUT …
		if ops := operands(args, nil, false, nil); len(ops) > 1 && ops[0].text == "a" {
			return ops[1].text
		}
	}
	return ""
}

// serverEnvironment is what a listing of the environment writes out.
const serverEnvironment = "the server's environment (the credentials it was given)"

// declListing reports whether x lists the shell's variables with their
// values: export, declare or typeset with nothing to declare, alone or
// with options (export -p, declare -x), but not the functions (-f, -F).
func declListing(x *syntax.DeclClause) bool {
	if x.Variant == nil {
		return false
	}
	switch x.Variant.Value {
	case "export", "declare", "typeset":
	default:
		return false
	}
	for _, as := range x.Args {
		if !as.Naked || as.Name != nil || as.Value == nil {
			return false
		}
		t, ok := wordText(as.Value)
		if !ok || len(t) < 2 || t[0] != '-' && t[0] != '+' || strings.ContainsAny(t, "fF") {
			return false
		}
	}
	return true
}

// listsEnvDrive judges PowerShell's Get-ChildItem and Get-Item (and their
// aliases) given the env: drive, which lists the environment.
func listsEnvDrive(_ *auditor, c invocation, info *cmdInfo) {
	for _, w := range c.args() {
		switch strings.TrimRight(lower(w.text), `\/*`) {
		case "env:", "-path:env:", "-literalpath:env:":
			info.secrets = serverEnvironment
			return
		}
	}
}

// listsFiles judges ls, echo and printf (and PowerShell's ls, as
// listsEnvDrive): given a pattern that matches the files of a credential
// folder (ls ~/.ssh/*, echo ~/.aws/*), they write out those files' paths.
func listsFiles(a *auditor, c invocation, info *cmdInfo) {
	listsEnvDrive(a, c, info)
	for _, w := range c.args() {
		if !w.lit || strings.HasPrefix(w.text, "-") {
			continue
		}
		p := cleanPath(w.text)
		slash := strings.LastIndexByte(p, '/')
		if slash <= 0 || !strings.ContainsAny(p[slash+1:], "*?[") || strings.ContainsAny(p[:slash], "*?[") {
			continue
		}
		dir := p[:slash]
		if file := dir + "/" + globName(p[slash+1:]); a.credentialAt(dir) != "" && a.credentialAt(file) != "" {
			info.lists = file
			return
		}
	}
}

// uploadsOrPrints is the flow judge of a cloud tool that uploads files
// and prints a token or a secret (prints).
func uploadsOrPrints(prints func(*auditor, invocation, *cmdInfo)) func(*auditor, invocation, *cmdInfo) {
	return func(a *auditor, c invocation, info *cmdInfo) {
		a.uploads(c, info)
		prints(a, c, info)
	}
}

// secretReaders are the programs that write out, as they are or encoded,
// the files they are given, or the lines or fields of them that match
// (grep, rg, jq, Select-String): one given a credential file puts the
// credentials on its output.
var secretReaders = set("sqlite3", "cat", "tac", "head", "tail", "less", "more", "base64", "base32", "basenc", "xxd", "od",
	"grep", "egrep", "fgrep", "rg", "ag", "ack", "jq", "yq", "select-string", "sls", "findstr",
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
	a.readsOut(c, info)
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
	if what := systemSecret(p); what != "" {
		return what
	}
	if what := secretBearing(p); what != "" {
		return what
	}
	return credentialMount(p)
}

// secretBearing says what secrets a file holds that programs do not keep
// for signing in but that hold them all the same: the MCP settings of an
// AI coding tool (the keys of every server it lists), a shell's or a
// REPL's history (secrets typed on a command line stay there), and a
// project's .env file. Reading one is ordinary; sending one off the
// machine is not. "" for any other path.
func secretBearing(p string) string {
	if tool, does := configFile(p); tool != "" && does == startsServers {
		return "the MCP settings of " + tool + " (with the keys of the servers they list)"
	}
	lp := strings.ToLower(cleanPath(p))
	base := lp[strings.LastIndexByte(lp, '/')+1:]
	switch {
	case histories[base] || base == "fish_history" || base == "consolehost_history.txt":
		return "the user's shell history (where secrets typed on a command line stay)"
	case base == ".env" || strings.HasPrefix(base, ".env.") && !envTemplates[base[len(".env."):]]:
		return "the project's secrets (" + safeText(base, 40) + ")"
	}
	return ""
}

// histories are the history files of shells and REPLs; envTemplates the
// suffixes of .env files that hold examples, not secrets.
var (
	histories = set(".bash_history", ".zsh_history", ".sh_history", ".history", ".ksh_history", ".python_history",
		".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history", ".irb_history", ".rediscli_history")
	envTemplates = set("example", "sample", "template", "dist", "defaults", "schema")
)

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
	metadataRead(args, info)
	info.to = urlHosts(c.name, args)
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
		header := flag == "-H" || flag == "--header" || flag == "--proxy-header"
		if !data && !upload && !header {
			continue
		}
		w, ok := optValue(args, &i, val, joined)
		if !ok || !w.lit {
			continue
		}
		file := w.text
		switch {
		case data:
			file = curlDataFile(flag, w.text)
		case header:
			// -H @FILE: the headers are the lines of FILE (@- the input).
			file = ""
			if f, ok := strings.CutPrefix(w.text, "@"); ok {
				file = f
			}
		}
		switch {
		case file == "-":
			info.sends = true
		case file != "":
			if what := a.credentialAt(file); what != "" {
				a.exfil(w.path, "sends "+what+" off the machine with "+quoted(c.name))
			} else {
				a.tokenFileSent(c.name, file, info.to, w)
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
func (a *auditor) wgetSends(c invocation, info *cmdInfo) {
	args := c.args()
	metadataRead(args, info)
	for i := 0; i < len(args); i++ {
		flag, val, joined := strings.Cut(args[i].text, "=")
		if flag != "--post-file" && flag != "--body-file" {
			continue
		}
		if w, ok := optValue(args, &i, val, joined); ok && w.lit {
			if what := a.credentialAt(w.text); what != "" {
				a.exfil(w.path, "sends "+what+" off the machine with "+quoted(c.name))
			} else {
				a.tokenFileSent(c.name, w.text, urlHosts(c.name, args), w)
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
		if what := a.credentialAt(w.text); what != "" {
			a.exfil(w.path, "copies "+what+" to another host with "+quoted(c.name))
			return
		}
		if tok := a.tokenAt(w.text); tok != nil {
			a.exfil(w.path, "copies "+tok.what+", which the wiring wrote to "+safeText(cleanPath(w.text), 60)+", to another host with "+quoted(c.name))
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

// psUploads judges Invoke-WebRequest and Invoke-RestMethod: what is piped
// into them is the body they send, and -InFile sends
// the file it names as the request's body (PowerShell takes any
// unambiguous prefix of a parameter's name, and its value after a colon
// or as the next word).
func (a *auditor) psUploads(c invocation, info *cmdInfo) {
	info.sends = true // what is piped into it is the body it sends
	args := c.args()
	metadataRead(args, info)
	info.to = urlHosts(c.name, args)
	for i := 0; i < len(args); i++ {
		name, val, colon := strings.Cut(lower(args[i].text), ":")
		if len(name) < len("-inf") || !strings.HasPrefix("-infile", name) {
			continue
		}
		w, ok := optValue(args, &i, val, colon)
		if !ok || !w.lit {
			continue
		}
		if what := a.credentialAt(strings.Trim(w.text, `"'`)); what != "" {
			a.exfil(w.path, "sends "+what+" off the machine with "+quoted(c.name))
		}
	}
}

// uploadCommands are the subcommands of cloud storage and hosting clients
// that copy local files to another host, with where they put them: "last"
// when the last operand is the destination (a remote one, as remoteTarget
// reads it, makes the others uploads), "all" when every operand is
// uploaded, or the options whose value is a file to upload.
var uploadCommands = map[string]map[string]string{
	"gh":     {"gist create": "all", "gist edit": "-a --add", "release upload": "after-first", "release create": "after-first"},
	"aws":    {"s3 cp": "last", "s3 mv": "last", "s3 sync": "last", "s3api put-object": "--body"},
	"gsutil": {"cp": "last", "mv": "last", "rsync": "last"},
	"gcloud": {"storage cp": "last", "storage mv": "last", "storage rsync": "last"},
	"rclone": {"copy": "last", "copyto": "last", "move": "last", "moveto": "last", "sync": "last"},
	"s3cmd":  {"put": "last", "sync": "last"},
	"azcopy": {"copy": "last", "cp": "last", "sync": "last"},
	"az":     {"storage blob upload": "-f --file", "storage blob upload-batch": "-s --source", "storage file upload": "--source"},
}

// uploads judges a cloud storage or hosting client (gh, aws, gsutil,
// gcloud, rclone, s3cmd, azcopy, az) given a credential file to upload.
func (a *auditor) uploads(c invocation, _ *cmdInfo) {
	subs := uploadCommands[c.name]
	args := c.args()
	// The subcommand: its words, before the first option, one or two or
	// three of them (gh gist create, aws s3 cp, az storage blob upload).
	var how string
	var rest []arg
	for n := 1; n <= 3 && n <= len(args); n++ {
		words := make([]string, n)
		for i, w := range args[:n] {
			words[i] = w.text
		}
		if h, ok := subs[strings.Join(words, " ")]; ok {
			how, rest = h, args[n:]
			break
		}
	}
	if how == "" {
		return
	}
	sent := func(w arg) bool {
		if !w.lit || remoteTarget(w.text) {
			return false
		}
		if what := a.credentialAt(w.text); what != "" {
			a.exfil(w.path, "uploads "+what+" to another host with "+quoted(c.name))
			return true
		}
		return false
	}
	if strings.HasPrefix(how, "-") {
		flags := set(strings.Fields(how)...)
		for i := 0; i < len(rest); i++ {
			flag, val, joined := strings.Cut(rest[i].text, "=")
			if !flags[flag] {
				continue
			}
			if w, ok := optValue(rest, &i, val, joined); ok && sent(w) {
				return
			}
		}
		return
	}
	ops := operands(rest, nil, false, nil)
	switch how {
	case "last":
		if len(ops) < 2 || !remoteTarget(ops[len(ops)-1].text) {
			return
		}
		ops = ops[:len(ops)-1]
	case "after-first":
		if len(ops) == 0 {
			return
		}
		ops = ops[1:]
	}
	for _, w := range ops {
		if sent(w) {
			return
		}
	}
}

// wordsSent judges the words of a network client that sends the words of
// its command line (programRule.sendsWords): a word that holds the output
// of a command that writes out credentials, or a variable the script set
// from one, sends them off the machine.
func (s *scan) wordsSent(name string, words []*syntax.Word) {
	for _, w := range words {
		if what := s.heldSecrets(w); what != "" {
			s.a.exfil(s.path, "sends "+what+" off the machine in the command line of "+quoted(name))
			return
		}
	}
}

// heldSecrets says what credentials w holds: the output of a command or
// process substitution in it that writes them out, or the value of a
// variable the script set from one; "" for none.
func (s *scan) heldSecrets(w *syntax.Word) string {
	return held(s, w, s.secretVars, func(info cmdInfo) string { return info.secrets }, serverEnvironment)
}

// held says what w holds of what commands write out (of reads that from
// what a command does): what a command or process substitution in it
// writes out, or what a variable it names holds (vars). What a command
// writes out goes on through the rest of a pipeline, encoded or not, so
// any stage counts; a listing of the shell's variables writes out
// listing.
func held[T comparable](s *scan, w *syntax.Word, vars map[string]T, of func(cmdInfo) T, listing T) T {
	var what, none T
	if w == nil {
		return none // X+= with nothing after it
	}
	stmts := func(stmts []*syntax.Stmt) {
		for _, st := range stmts {
			syntax.Walk(st, func(n syntax.Node) bool {
				if what != none || s.a.budget <= 0 {
					return false
				}
				s.a.budget--
				switch x := n.(type) {
				case *syntax.CallExpr:
					what = of(s.call(x))
				case *syntax.DeclClause:
					if declListing(x) {
						what = listing
					}
				}
				return true
			})
		}
	}
	syntax.Walk(w, func(n syntax.Node) bool {
		if what != none {
			return false
		}
		switch x := n.(type) {
		case *syntax.CmdSubst:
			stmts(x.Stmts)
			return false
		case *syntax.ProcSubst:
			stmts(x.Stmts)
			return false
		case *syntax.ParamExp:
			if x.Param != nil {
				what = vars[x.Param.Value]
			}
		}
		return true
	})
	return what
}

// heldBy records that the script set variable name from a value that
// holds credentials (K=$(cat ~/.aws/credentials)), when v does.
func (s *scan) heldBy(name string, v *syntax.Word) {
	what := s.heldSecrets(v)
	if what == "" {
		return
	}
	if s.secretVars == nil {
		s.secretVars = map[string]string{}
	}
	s.secretVars[name] = what
}

// clipboard records that c writes out the user's clipboard.
func clipboard(_ *auditor, _ invocation, info *cmdInfo) {
	info.secrets = "the user's clipboard (where passwords and tokens pass)"
}

// metadataHosts are the addresses of the metadata services of cloud
// machines (AWS, Azure, Google Cloud, Alibaba Cloud, Oracle Cloud, AWS
// ECS tasks), which hand out the machine's credentials to whoever asks
// from it.
var metadataHosts = set("169.254.169.254", "metadata.google.internal", "169.254.170.2", "100.100.100.200",
	"[fd00:ec2::254]", "instance-data", "instance-data.ec2.internal", "metadata.azure.internal")

// metadataRead records in info that a download tool reads a cloud
// machine's metadata service: what it writes out is the machine's
// credentials (its role's keys, its service account's token).
func metadataRead(args []arg, info *cmdInfo) {
	for _, w := range args {
		t := strings.ToLower(w.text)
		if i := strings.Index(t, "://"); i >= 0 {
			t = t[i+3:]
		} else if strings.HasPrefix(t, "-") {
			continue
		}
		host := t[:strings.IndexAny(t+"/", "/?#")]
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			host = host[at+1:]
		}
		if !strings.HasPrefix(host, "[") {
			host, _, _ = strings.Cut(host, ":")
		} else if end := strings.IndexByte(host, ']'); end > 0 {
			host = host[:end+1]
		}
		if metadataHosts[host] {
			info.secrets = "the cloud machine's credentials (its metadata service)"
			return
		}
	}
}

// hiveSecrets are the registry hives that hold the machine's password
// hashes and the keys to them.
var hiveSecrets = set("hklm/sam", "hkey_local_machine/sam", "hklm/security", "hkey_local_machine/security",
	"hklm/system", "hkey_local_machine/system")

// regSave judges reg save (and export) of the SAM, SECURITY and SYSTEM
// hives: the file it writes holds the machine's password hashes and the
// key to them.
func (a *auditor) regSave(c invocation, _ *cmdInfo) {
	args := c.args()
	if len(args) < 3 || !(strings.EqualFold(args[0].text, "save") || strings.EqualFold(args[0].text, "export")) {
		return
	}
	hive := strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(args[1].text, `\`), `\`, "/"))
	if !hiveSecrets[hive] {
		return
	}
	if args[2].lit {
		a.stage(args[2].text, "the machine's password hashes (its registry's SAM, SECURITY and SYSTEM)")
	}
	if !strings.HasSuffix(hive, "/system") {
		a.dumps(c, "saves the registry hive that holds the machine's password hashes and secrets")
	}
}

// systemSecret says what secrets a file of the system holds: the password
// hashes (/etc/shadow, /etc/gshadow, BSD's /etc/master.passwd), or a
// process's environment, with the credentials it was given
// (/proc/PID/environ, /proc/self/environ); "" for any other path.
func systemSecret(p string) string {
	switch p {
	case "/etc/shadow", "/etc/gshadow", "/etc/master.passwd", "/etc/security/opasswd":
		return passwordHashes
	}
	if lp := strings.ToLower(p); strings.HasSuffix(lp, "/system32/config/sam") || strings.HasSuffix(lp, "/system32/config/security") ||
		strings.HasPrefix(lp, "/var/db/dslocal/nodes/default/users/") && strings.HasSuffix(lp, ".plist") {
		// Windows' SAM and SECURITY hives as files (copied from a shadow
		// copy: \\?\GLOBALROOT\Device\HarddiskVolumeShadowCopy1\…), and the
		// records where macOS keeps each user's password hash.
		return passwordHashes
	}
	if rest, ok := strings.CutPrefix(p, "/proc/"); ok && strings.HasSuffix(rest, "/environ") &&
		strings.Count(rest, "/") == 1 {
		return "a process's environment (the credentials it was given)"
	}
	return ""
}

// passwordHashes is what /etc/shadow and its like hold.
const passwordHashes = "the machine's password hashes"
