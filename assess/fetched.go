package assess

import (
	"cmp"
	"net/url"
	"path"
	"strings"
)

// Files a download tool wrote, then run: curl -o /tmp/a.sh URL && sh
// /tmp/a.sh, wget URL && chmod +x a && ./a, iwr -OutFile a.msi; msiexec /i
// a.msi. What runs is whatever the URL served then, as with curl | sh.

// fetchedFile is a file a download tool wrote, with the tool; with
// unpacked, path is a folder an archive it downloaded was unpacked into.
type fetchedFile struct {
	path, tool string
	unpacked   bool
	here       bool // the folder unpacked into is the working directory of the time
	copied     bool // copied from another machine or a cloud store (transfers.go), not from a URL
}

// maxFetched bounds the downloaded files an audit keeps.
const maxFetched = 32

// fetchValues are, per download tool, its options whose value is the file
// it writes (outputs) or the folder it writes into (dirs).
var fetchValues = map[string]struct{ outputs, dirs map[string]bool }{
	"curl":   {set("-o", "--output"), set("--output-dir")},
	"curlie": {set("-o", "--output"), set("--output-dir")},
	"wget":   {set("-O", "--output-document"), set("-P", "--directory-prefix")},
	"wget2":  {set("-O", "--output-document"), set("-P", "--directory-prefix")},
	"aria2c": {set("-o", "--out"), set("-d", "--dir")},
	"wcurl":  {set("-o", "-O", "--output"), nil}, // curl's wrapper: the URL's file name by default
	"xh":     {set("-o", "--output"), nil},
	"xhs":    {set("-o", "--output"), nil},
	"http":   {set("-o", "--output"), nil}, // HTTPie, whose command line xh copies
	"https":  {set("-o", "--output"), nil},
}

// fetchedBy records the file the download tool c writes: the value of its
// output option, or, for wget, aria2c and wcurl by default and curl with -O, the
// last segment of the URL's path, in the folder an option names. It
// reports whether c writes what it downloads to its standard output
// instead (curl and Invoke-WebRequest without an output file, wget -O -).
func (a *auditor) fetchedBy(c invocation) (toStdout bool) {
	args := c.args()
	out, dir, remote := "", "", c.name == "wget" || c.name == "wget2" || c.name == "aria2c" || c.name == "wcurl"
	urlName := ""
	if ps := psCmdlet(c.name); ps {
		for i := 0; i+1 < len(args); i++ {
			name, val, colon := strings.Cut(lower(args[i].text), ":")
			if len(name) >= len("-outf") && strings.HasPrefix("-outfile", name) {
				if !colon {
					i++
					val = args[i].text
				}
				out = val
			}
		}
	} else {
		opts := fetchValues[c.name]
		short := fetchShortValues[c.name]
		for i := 0; i < len(args); i++ {
			t := args[i].text
			var flag, val string
			var joined bool
			switch {
			case strings.HasPrefix(t, "--"):
				flag, val, joined = strings.Cut(t, "=")
			case len(t) > 1 && t[0] == '-':
				if flag, val, joined = shortCluster(t, short); flag == "" {
					// Switches only: curl's -O writes the URL's file name.
					remote = remote || (c.name == "curl" || c.name == "curlie") && strings.ContainsRune(t, 'O')
					continue
				}
			default:
				if _, u, ok := wordURL(t); ok && args[i].lit && urlName == "" {
					urlName = path.Base(u.Path)
					if n, err := url.PathUnescape(urlName); err == nil {
						urlName = n
					}
					if urlName == "/" || urlName == "." {
						urlName = ""
					}
				}
				continue
			}
			switch {
			case opts.outputs[flag]:
				if v, ok := optValue(args, &i, val, joined); ok && v.lit {
					out = v.text
				}
			case opts.dirs[flag]:
				if v, ok := optValue(args, &i, val, joined); ok && v.lit {
					dir = v.text
				}
			case flag == "--remote-name" || flag == "--remote-name-all":
				remote = true
			case !joined && (short[flag] || fetchOtherValues[c.name][flag] || fetchLongValues[flag]):
				i++ // a value that is not a file written
			}
		}
	}
	if out == "" && remote {
		out = urlName
	}
	if out == "" || out == "-" {
		return out == "-" || out == "" && !remote && streamsByDefault[c.name]
	}
	if dir != "" && !strings.HasPrefix(out, "/") {
		out = strings.TrimSuffix(dir, "/") + "/" + out
	}
	a.addFetched(out, c.name)
	a.writesTo(out, c.argv[0].path)
	return false
}

// streamsByDefault are the download tools that write what they download
// to their standard output unless an option names a file.
var streamsByDefault = set("curl", "curlie", "invoke-webrequest", "iwr", "invoke-restmethod", "irm", "xh", "xhs",
	"http", "https")

// addFetched records that the file p holds what the download tool tool
// downloaded, within maxFetched.
func (a *auditor) addFetched(p, tool string) {
	if p = cleanPath(p); p != "" && p != "-" && len(a.fetched) < maxFetched {
		a.fetched = append(a.fetched, fetchedFile{path: a.fetchedPath(p), tool: tool})
	}
}

// fetchedPath is the path p (as cleanPath leaves it) from the directory
// the wiring is in when it names p (a.within): a download written after
// cd /tmp, or run after it, is compared in the directory it was named in.
func (a *auditor) fetchedPath(p string) string {
	if a.cwd == "" {
		return p
	}
	return a.within(arg{text: p, lit: true})
}

// fetchedAt returns the download tool that wrote the file p, or "".
func (a *auditor) fetchedAt(p string) string {
	p = a.fetchedPath(cleanPath(p))
	for _, f := range a.fetched {
		if !f.unpacked && f.path == p {
			return f.tool
		}
	}
	return ""
}

// unpackers judge the programs that unpack an archive: each returns the
// archive it reads ("-" for its standard input) and the folder it unpacks
// into ("" for the working directory).
var unpackers = map[string]func(args []arg) (archive, dir string){
	"tar": tarExtracts, "bsdtar": tarExtracts, "gtar": tarExtracts,
	"unzip": func(args []arg) (string, string) {
		archive, dir := "", ""
		for i := 0; i < len(args); i++ {
			switch t := args[i].text; {
			case t == "-d" && i+1 < len(args):
				i++
				dir = args[i].text
			case strings.HasPrefix(t, "-"):
			case archive == "":
				archive = t
			}
		}
		return archive, dir
	},
	"7z": sevenZip, "7za": sevenZip, "7zz": sevenZip,
	"expand-archive": func(args []arg) (string, string) {
		var archive, dir string
		var pos []string
		for i := 0; i < len(args); i++ {
			name, val, colon := strings.Cut(lower(args[i].text), ":")
			switch {
			case !strings.HasPrefix(name, "-"):
				pos = append(pos, args[i].text)
			case len(name) > 1 && (strings.HasPrefix("-path", name) || len(name) > 2 && strings.HasPrefix("-literalpath", name)):
				if w, ok := optValue(args, &i, val, colon); ok {
					archive = w.text
				}
			case len(name) > 1 && strings.HasPrefix("-destinationpath", name):
				if w, ok := optValue(args, &i, val, colon); ok {
					dir = w.text
				}
			}
		}
		if archive == "" && len(pos) > 0 {
			archive, pos = pos[0], pos[1:]
		}
		if dir == "" && len(pos) > 0 {
			dir = pos[0]
		}
		if dir == "" && archive != "" {
			// A folder named as the archive, in the working directory.
			base := path.Base(strings.ReplaceAll(archive, `\`, "/"))
			dir = strings.TrimSuffix(base, path.Ext(base))
		}
		return archive, dir
	},
}

// tarExtracts reads tar's command line: whether it extracts (x, -x,
// --extract, --get), the archive of f, -f, --file ("-" when it reads its
// standard input, as without one) and the folder of -C or --directory.
func tarExtracts(args []arg) (archive, dir string) {
	extract := false
	takesFile := 0 // the f of a cluster: the archive is the next word
	// The options whose value is the folder or the archive.
	valued := map[string]*string{"-C": &dir, "--directory": &dir, "-f": &archive, "--file": &archive}
	for i := 0; i < len(args); i++ {
		t := args[i].text
		name, val, joined := strings.Cut(t, "=")
		switch to := valued[name]; {
		case t == "--extract" || t == "--get":
			extract = true
		case to != nil && joined && strings.HasPrefix(name, "--"):
			*to = val
		case to != nil && !joined:
			if i+1 < len(args) {
				i++
				*to = args[i].text
			}
		case strings.HasPrefix(t, "--"):
		case i == 0 && !strings.HasPrefix(t, "-"), len(t) > 1 && t[0] == '-':
			// A cluster: old style (xzf) as the first word, or -xzf.
			letters := strings.TrimPrefix(t, "-")
			extract = extract || strings.ContainsRune(letters, 'x')
			if strings.ContainsRune(letters, 'f') {
				takesFile++
			}
			if takesFile > 0 && i+1 < len(args) {
				i++
				archive = args[i].text
				takesFile = 0
			}
		}
	}
	if !extract {
		return "", ""
	}
	return cmp.Or(archive, "-"), dir
}

// sevenZip reads 7-Zip's command line: x or e extracts the archive that
// follows, into the folder of -o.
func sevenZip(args []arg) (archive, dir string) {
	if len(args) == 0 || (args[0].text != "x" && args[0].text != "e") {
		return "", ""
	}
	for _, w := range args[1:] {
		switch t := w.text; {
		case strings.HasPrefix(t, "-o"):
			dir = t[2:]
		case strings.HasPrefix(t, "-"):
		case archive == "":
			archive = t
		}
	}
	return archive, dir
}

// unpacksFetched records the folder c unpacks an archive into when the
// archive is a download: a file a download tool wrote, or its standard
// input fed by one (curl URL | tar xz).
func (a *auditor) unpacksFetched(c invocation) {
	judge := unpackers[c.name]
	if judge == nil || len(a.fetched) >= maxFetched {
		return
	}
	archive, dir := judge(c.args())
	tool := ""
	switch {
	case archive == "":
		return
	case archive == "-":
		tool = a.fedBy
	default:
		tool = a.fetchedAt(archive)
	}
	if tool != "" {
		dir = cmp.Or(cleanPath(dir), ".")
		a.fetched = append(a.fetched, fetchedFile{path: a.fetchedPath(dir), tool: tool, unpacked: true, here: dir == "."})
	}
}

// bitsTransfer records the file Start-BitsTransfer writes: its
// -Destination (or any prefix of it), or the word after the URL.
func (a *auditor) bitsTransfer(c invocation) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		name, val, colon := strings.Cut(lower(args[i].text), ":")
		if len(name) >= len("-d") && strings.HasPrefix("-destination", name) {
			if w, ok := optValue(args, &i, val, colon); ok && w.lit {
				a.addFetched(w.text, c.name)
			}
			return
		}
	}
	a.fetchedAfterURL(c)
}

// fetchWriters are the programs that write what they read on their
// standard input to the files they name: fed a download (curl URL | tee
// a.sh), each of those files holds it.
var fetchWriters = map[string]func(a *auditor, c invocation){
	"tee": func(a *auditor, c invocation) {
		for _, w := range operands(c.args(), nil, false, nil) {
			if w.lit {
				a.addFetched(w.text, a.fedBy)
			}
		}
	},
	"dd": func(a *auditor, c invocation) {
		for _, w := range c.args() {
			if v, ok := strings.CutPrefix(w.text, "of="); ok && w.lit {
				a.addFetched(v, a.fedBy)
			}
		}
	},
	"out-file": psWritesFile, "set-content": psWritesFile, "sc": psWritesFile, "add-content": psWritesFile,
	"ac": psWritesFile, "tee-object": psWritesFile,
}

// psWritesFile records the file PowerShell's Out-File, Set-Content,
// Add-Content or Tee-Object writes: its -FilePath, -Path or -LiteralPath
// (or a prefix of them), or its first positional word.
func psWritesFile(a *auditor, c invocation) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := lower(args[i].text)
		if !strings.HasPrefix(t, "-") {
			if args[i].lit {
				a.addFetched(args[i].text, a.fedBy)
			}
			return
		}
		name, val, colon := strings.Cut(t, ":")
		if len(name) > 1 && (strings.HasPrefix("-filepath", name) || strings.HasPrefix("-path", name) ||
			len(name) > 2 && strings.HasPrefix("-literalpath", name)) {
			if w, ok := optValue(args, &i, val, colon); ok && w.lit {
				a.addFetched(w.text, a.fedBy)
			}
			return
		}
		if !colon && i+1 < len(args) && psValueParams[name] {
			i++
		}
	}
}

// psValueParams are the parameters of PowerShell's file writers that take
// a value (not a file), by the lower-case names written in full.
var psValueParams = set("-encoding", "-value", "-width", "-stream", "-filter", "-include", "-exclude",
	"-variable", "-inputobject")

// writesFetched records the files c writes what it reads, when what it
// reads is a download (fedBy), and the folder it unpacks a downloaded
// archive into.
func (a *auditor) writesFetched(c invocation) {
	a.remoteCopies(c)
	if len(a.fetched) > 0 {
		a.relocatesFetched(c)
	}
	if len(a.fetched) > 0 || a.fedBy != "" {
		a.unpacksFetched(c)
	}
	if a.fedBy == "" {
		return
	}
	if f := fetchWriters[c.name]; f != nil {
		f(a, c)
	}
}

// fetchShortValues are, per download tool, its one-letter options that
// take a value; fetchLongValues the long options of any of them that do.
var (
	fetchShortValues = map[string]map[string]bool{
		"curl": curlShortValues, "curlie": curlShortValues,
		"wget": set("-O", "-P", "-o", "-a", "-i", "-B", "-t", "-T", "-w", "-Q", "-e", "-U", "-l", "-A", "-R", "-D",
			"-I", "-X"),
		"wget2":  set("-O", "-P", "-o", "-a", "-i", "-B", "-t", "-T", "-w", "-Q", "-e", "-U", "-l", "-A", "-R", "-D", "-I", "-X"),
		"aria2c": set("-o", "-d", "-i", "-l", "-s", "-x", "-j", "-k", "-t", "-m", "-U"),
		"wcurl":  set("-o", "-O"),
		"xh":     xhShortValues, "xhs": xhShortValues, "http": xhShortValues, "https": xhShortValues,
	}
	xhShortValues   = set("-o", "-a", "-A", "-p", "-P", "-s")
	fetchLongValues = set("--user-agent", "--user", "--config", "--cookie", "--cookie-jar", "--max-time",
		"--connect-timeout", "--retry", "--limit-rate", "--cacert", "--cert", "--key", "--request", "--write-out",
		"--range", "--tries", "--timeout", "--wait", "--input-file", "--append-output", "--output-file")
)

// psCmdlet reports whether name is PowerShell's Invoke-WebRequest or
// Invoke-RestMethod.
func psCmdlet(name string) bool {
	switch name {
	case "invoke-webrequest", "iwr", "invoke-restmethod", "irm":
		return true
	}
	return false
}

// unpackedInto reports whether the path p, as fetchedPath leaves it, is a
// file in the folder dir an archive was unpacked into. Into the working
// directory (here), only a path through a folder of it counts
// (./b-main/run.sh): an archive unpacks into a folder of its own as a
// rule, and a file of the project beside it (./run.sh, srv.js) is not told
// apart.
func unpackedInto(p, dir string, here bool) bool {
	rest := p
	if dir != "." {
		var in bool
		if rest, in = strings.CutPrefix(p, dir+"/"); !in {
			return false
		}
	}
	if !here {
		return true
	}
	return strings.Contains(rest, "/") && !absDir(rest) && !strings.HasPrefix(rest, "$") &&
		!strings.HasPrefix(rest, "../") && !strings.HasPrefix(rest, "%")
}

// installers are the programs that run the package file they are given
// (its install scripts, or an installer that runs as root).
var installers = set("dpkg", "rpm", "msiexec", "installer", "apt", "apt-get", "open", "start-process", "saps",
	"start", "add-appxpackage", "source", ".")

// runsFetched reports c when what it runs is a file a download tool of
// the wiring wrote: the program itself (./a, /tmp/a), the script a shell
// or an interpreter runs, the package an installer installs, or a file
// another runner loads as code (runfiles.go).
func (a *auditor) runsFetched(c invocation) {
	if len(a.fetched) == 0 {
		return
	}
	a.runsDownloaded(append([]arg{c.argv[0]}, ranFiles(c)...))
}

// ranFiles returns the words of c that name a file it runs: the script
// of a shell or an interpreter, PowerShell's -File, the packages an
// installer installs, or what runnerFiles finds.
func ranFiles(c invocation) []arg {
	var candidates []arg
	args := c.args()
	switch fam := family(c.name); {
	case isPOSIXShell(c.name):
		if _, file, _ := shellArgs(args); file != nil {
			candidates = append(candidates, *file)
		}
		// bash --rcfile FILE -i, bash --init-file FILE: read first
		candidates = append(candidates, optionFiles(args, "--rcfile", "--init-file")...)
	case c.name == "powershell" || c.name == "pwsh":
		// -File (-f, or any prefix of -File PowerShell takes) names the
		// script it runs.
		for i := 0; i+1 < len(args); i++ {
			if t := lower(args[i].text); len(t) > 1 && strings.HasPrefix("-file", t) {
				candidates = append(candidates, args[i+1])
				break
			}
		}
	case installers[c.name]:
		for _, w := range args {
			if !strings.HasPrefix(w.text, "-") {
				candidates = append(candidates, w)
			}
		}
	case inlineCodeFlags[fam] != "" || fam == "python":
		if _, file, _ := inlineProgram(fam, args); file != nil {
			candidates = append(candidates, *file)
		}
		candidates = append(candidates, preloadFiles(fam, args)...) // node -r /tmp/a.js srv.js
	default:
		candidates = runnerFiles(c)
	}
	return candidates
}

// runsDownloaded reports the first of candidates that names a file a
// download tool of the wiring wrote (or a file of a folder it unpacked an
// archive into); the first is the program, which a name without a folder
// finds on the search path.
func (a *auditor) runsDownloaded(candidates []arg) {
	for i, w := range candidates {
		if !w.lit {
			continue
		}
		// A program named without a folder is looked up on the search
		// path (cmd.exe looks in the working directory first): it is
		// compared as written, never as a file of the directory.
		bare := i == 0 && !strings.ContainsAny(w.text, `/\`)
		p := cleanPath(w.text)
		if !bare {
			p = a.fetchedPath(p)
		}
		for _, f := range a.fetched {
			if f.unpacked && !bare && unpackedInto(p, f.path, f.here) {
				if f.copied {
					a.add(CodePipeToShell, w.path, "runs "+safeText(cleanPath(w.text), 60)+", which "+quoted(f.tool)+
						" copied from another machine or a cloud store: whatever that held when the server started")
					return
				}
				a.add(CodePipeToShell, w.path, "runs "+safeText(cleanPath(w.text), 60)+", unpacked from an archive "+quoted(f.tool)+
					" downloaded, which is whatever the URL served when the server started")
				return
			}
			if !f.unpacked && p == f.path {
				if f.copied {
					a.add(CodePipeToShell, w.path, "runs the file "+quoted(f.tool)+" copied from another machine or a cloud store ("+
						safeText(cleanPath(w.text), 60)+"), which is whatever that held when the server started")
					return
				}
				a.add(CodePipeToShell, w.path, "runs the file "+quoted(f.tool)+" downloaded ("+safeText(cleanPath(w.text), 60)+
					"), which is whatever the URL served when the server started")
				return
			}
		}
		if bare && a.runsByName(p, w.path) {
			return
		}
	}
}
