package assess

import "strings"

// Code on a network share: Windows runs a program named by a UNC path
// (\\host\share\srv.exe) and interpreters load a script from one (node
// \\host\share\server.js) as from a local disk, but what runs is fetched
// from another host when the server starts, and is whatever the share
// holds then: nothing pins it, as nothing pins a script run by its URL.

// codeExtensions are the file name extensions of programs and of code an
// interpreter or a loader runs: among them MSBuild's projects (inline
// tasks are code), scriptlets, setup information files (cmstp) and XSL
// stylesheets (script blocks).
var codeExtensions = set(".exe", ".com", ".bat", ".cmd", ".ps1", ".psm1", ".vbs", ".vbe", ".js", ".jse", ".wsf",
	".hta", ".msi", ".dll", ".cpl", ".scr", ".jar", ".mjs", ".cjs", ".ts", ".mts", ".py", ".pyw", ".pyz", ".rb",
	".pl", ".php", ".lua", ".r", ".sh", ".bash", ".proj", ".csproj", ".vbproj", ".fsproj", ".targets", ".props",
	".sln", ".sct", ".wsc", ".inf", ".xsl", ".xslt")

// uncHost returns the host of a UNC path, \\host\share\… or
// \\?\UNC\host\share\… (a WebDAV host may carry @SSL or @port), when it is
// not this machine. The device paths \\?\C:\… and \\.\… are local.
func uncHost(s string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), `\\`)
	if !ok {
		return "", false
	}
	if len(rest) >= 6 && strings.EqualFold(rest[:6], `?\UNC\`) {
		rest = rest[6:]
	}
	host, share, ok := strings.Cut(rest, `\`)
	if h, _, webDAV := strings.Cut(host, "@"); webDAV {
		host = h
	}
	if !ok || host == "" || share == "" || host == "?" || host == "." || loopbackHost(host) {
		return "", false
	}
	return host, true
}

// shareProgram judges a program word named by a UNC path.
func (a *auditor) shareProgram(w arg) {
	if host, ok := uncHost(w.text); ok && w.lit {
		a.shareCode(w, host, "runs the program "+quoted(progName(w.text)))
	}
}

// shareWord judges a word a program receives that names a file of code on
// a network share (node \\host\share\server.js; rundll32's DLL comes
// before a comma).
func (a *auditor) shareWord(who string, w arg) {
	host, ok := uncHost(w.text)
	if !ok || !w.lit {
		return
	}
	file := strings.TrimSpace(w.text)
	file = file[strings.LastIndexByte(file, '\\')+1:]
	if i := strings.IndexByte(file, ','); i >= 0 {
		file = file[:i]
	}
	dot := strings.LastIndexByte(file, '.')
	if dot < 0 || !codeExtensions[lower(file[dot:])] {
		return
	}
	a.shareCode(w, host, quoted(who)+" loads "+quoted(file))
}

// shareCode records code fetched from a share of host at start.
func (a *auditor) shareCode(w arg, host, what string) {
	a.inferred.Network = true
	a.add(CodeUnpinned, w.path, what+" from a network share on "+safeText(host, 80)+
		": what runs is whatever the share holds when the server starts")
}
