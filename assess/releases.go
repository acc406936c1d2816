package assess

import (
	"path"
	"strings"
)

// Release installers: eget, ubi and dra download the executable a project
// publishes with its releases on GitHub (ubi: or another forge) and write
// it where the command line says. Without a tag they take the newest
// release, which its owner can replace at any time, so the program is
// unpinned as a package without an exact version is; they always use the
// network; and the file they write is recorded as a download
// (fetched.go), so running it later in the wiring is reported as running
// any downloaded file is.

var (
	egetValues = set("-t", "--tag", "--to", "-s", "--system", "-f", "--file", "-a", "--asset", "--verify-sha256")
	ubiValues  = set("-p", "--project", "-t", "--tag", "-u", "--url", "-i", "--in", "-e", "--exe", "--rename-exe",
		"--rename-exe-to", "-m", "--matching", "--matching-regex", "--forge", "--api-base-url")
	draValues = set("-s", "--select", "-t", "--tag", "-o", "--output", "-I", "--install-file", "--os", "--arch")
)

// releaseOpts holds the options of one release installer's command line
// that matter to the audit, by what they mean.
type releaseOpts struct {
	tag, to, in, exe, file string
	verified               bool // a SHA-256 the download must match
	install                bool // dra --install: the executable, not the asset
}

// readReleaseOpts reads c's options (values names those that take one)
// and returns its operands; meaning maps each option to the field it
// sets.
func readReleaseOpts(c invocation, values map[string]bool, meaning map[string]*string, o *releaseOpts) []arg {
	return operands(c.args(), values, true, func(flag string, w arg, val string) {
		if !w.lit {
			return
		}
		if flag == "--verify-sha256" {
			o.verified = sha256Hex.MatchString(val)
			return
		}
		if p := meaning[flag]; p != nil {
			*p = val
		}
	})
}

// eget judges `eget [options] TARGET`: TARGET is a GitHub project
// (owner/repo or its github.com address), whose newest release is taken
// unless --tag names one, or the address of a file to download. The
// executable it extracts goes to --to (a file or a folder) or the working
// directory, under the name it has in the archive: the project's name as
// a rule, or the file --file names.
func (a *auditor) eget(c invocation) cmdInfo {
	var o releaseOpts
	ops := readReleaseOpts(c, egetValues, map[string]*string{"-t": &o.tag, "--tag": &o.tag, "--to": &o.to,
		"-f": &o.file, "--file": &o.file}, &o)
	if len(ops) == 0 || !ops[0].lit {
		return cmdInfo{name: c.name}
	}
	target := ops[0]
	repo, isRepo := releaseProject(target.text)
	if !isRepo && !strings.Contains(target.text, "://") {
		return cmdInfo{name: c.name} // a local archive: extracted, nothing fetched
	}
	a.inferred.Network = true
	if isRepo && o.tag == "" && !o.verified {
		a.latestRelease(target, "eget", "installs", repo, "--tag")
	}
	name := path.Base(repo)
	if !isRepo {
		name = urlFileName(target.text)
	}
	if o.file != "" && !strings.ContainsAny(o.file, "*?[") {
		name = path.Base(o.file)
	}
	if o.to != "" {
		a.releaseInto(o.to, name, "eget", !folderLike(o.to))
		return cmdInfo{name: c.name}
	}
	a.releaseInto(".", name, "eget", false)
	return cmdInfo{name: c.name}
}

// ubi judges `ubi --project owner/repo | --url URL [options]`: without
// --tag (or a --url) it installs the newest release. The executable is
// written into --in (by default ./bin) as --rename-exe, --exe or the
// project's name.
func (a *auditor) ubi(c invocation) cmdInfo {
	var o releaseOpts
	var project, url arg
	readReleaseOpts(c, ubiValues, map[string]*string{"-t": &o.tag, "--tag": &o.tag, "-i": &o.in, "--in": &o.in,
		"-e": &o.exe, "--exe": &o.exe, "--rename-exe": &o.file, "--rename-exe-to": &o.file}, &o)
	operands(c.args(), ubiValues, true, func(flag string, w arg, val string) {
		w.text = val
		switch flag {
		case "-p", "--project":
			project = w
		case "-u", "--url":
			url = w
		}
	})
	if project.text == "" && url.text == "" {
		return cmdInfo{name: c.name}
	}
	a.inferred.Network = true
	if !project.lit && !url.lit {
		return cmdInfo{name: c.name}
	}
	repo, _ := releaseProject(project.text)
	name := path.Base(repo)
	if url.text != "" {
		name = urlFileName(url.text)
	} else if o.tag == "" {
		a.latestRelease(project, "ubi", "installs", project.text, "--tag")
	}
	if o.exe != "" {
		name = o.exe
	}
	if o.file != "" {
		name = o.file
	}
	in := o.in
	if in == "" {
		in = "bin"
	}
	a.releaseInto(in, name, "ubi", false)
	return cmdInfo{name: c.name}
}

// dra judges `dra download [options] owner/repo` (and the older `dra
// owner/repo download`): without --tag it takes the newest release. The
// asset goes to --output or, under its own name, the working directory;
// with --install its executable is installed into --output's folder or the
// working directory.
func (a *auditor) dra(c invocation) cmdInfo {
	var o releaseOpts
	ops := operands(c.args(), draValues, true, func(flag string, w arg, val string) {
		if !w.lit {
			return
		}
		switch flag {
		case "-t", "--tag":
			o.tag = val
		case "-o", "--output":
			o.to = val
		}
	})
	for _, w := range c.args() {
		o.install = o.install || w.text == "-i" || w.text == "--install" || w.text == "-I" ||
			strings.HasPrefix(w.text, "--install-file")
	}
	var target arg
	switch {
	case startsWith(ops, "download") && len(ops) > 1:
		target = ops[1]
	case len(ops) > 1 && ops[1].text == "download":
		target = ops[0]
	default:
		return cmdInfo{name: c.name}
	}
	a.inferred.Network = true
	repo, ok := releaseProject(target.text)
	if !target.lit || !ok {
		return cmdInfo{name: c.name}
	}
	if o.tag == "" {
		a.latestRelease(target, "dra", "downloads", repo, "--tag")
	}
	switch {
	case o.to != "" && !o.install && !folderLike(o.to):
		a.recordFetched(o.to, "dra", false, false)
	case o.to != "":
		a.releaseInto(o.to, path.Base(repo), "dra", false)
	case o.install:
		a.releaseInto(".", path.Base(repo), "dra", false)
	default:
		a.recordFetched(".", "dra", true, false)
	}
	return cmdInfo{name: c.name}
}

// releaseProject returns the owner/repo a release installer's target
// names, written as such or as its https://github.com/ (or gitlab.com)
// address, and whether it names one.
func releaseProject(t string) (string, bool) {
	for _, p := range []string{"https://github.com/", "https://gitlab.com/", "http://github.com/"} {
		if rest, ok := strings.CutPrefix(lower(t), p); ok {
			parts := strings.Split(strings.Trim(t[len(p):len(p)+len(rest)], "/"), "/")
			if len(parts) != 2 {
				return "", false
			}
			return strings.TrimSuffix(parts[0]+"/"+parts[1], ".git"), true
		}
	}
	if strings.Contains(t, "://") || strings.HasPrefix(t, "/") || strings.HasPrefix(t, ".") {
		return "", false
	}
	owner, name, ok := strings.Cut(t, "/")
	if !ok || owner == "" || name == "" || strings.ContainsAny(name, `/\`) {
		return "", false
	}
	return t, true
}

// urlFileName is the last name of a URL's path, or "" for none.
func urlFileName(u string) string {
	u, _, _ = strings.Cut(u, "?")
	u, _, _ = strings.Cut(u, "#")
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	j := strings.IndexByte(rest, '/')
	if j < 0 || strings.HasSuffix(rest, "/") {
		return ""
	}
	return path.Base(rest[j:])
}

// latestRelease reports that tool installs (verb) the newest release of
// repo ("": the repository of the working directory), which the option
// flag would fix.
func (a *auditor) latestRelease(w arg, tool, verb, repo, flag string) {
	of := "the repository of the working directory"
	if repo != "" {
		of = "`" + safeText(repo, 60) + "`"
	}
	a.add(CodeUnpinned, w.path, "`"+tool+"` "+verb+" the newest release of "+of+
		" (no "+flag+"), which its owner can replace at any time, so what runs can change without notice")
}

// releaseInto records what a release installer writes into the folder
// dir: the file name when it is known, and the folder as a whole; with
// file, dir may also be the file itself (eget's --to takes either).
func (a *auditor) releaseInto(dir, name, tool string, file bool) {
	if file {
		a.recordFetched(dir, tool, false, false)
	}
	if name != "" && name != "." && name != "/" {
		a.recordFetched(strings.TrimRight(dir, `/\`)+"/"+name, tool, false, false)
	}
	a.recordFetched(dir, tool, true, false)
}
