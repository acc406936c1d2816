package assess

import (
	"strings"
)

// Sources pinned by where they come from rather than by a registry's
// version: what each of these builds or installs is a repository's or a
// URL's current content unless the wiring names a commit.
//
//   - opam pin add NAME TARGET (also opam pin NAME TARGET, opam pin
//     TARGET): a git or archive URL without #<commit>, or --dev-repo (the
//     package's development repository), is built from whatever that
//     source holds when the server starts; an exact version or a local
//     folder pins.
//   - nix-env -f URL (also -if URL, --file=URL) evaluates the Nix
//     expressions an archive URL serves (github.com/o/r/archive/main.tar.gz)
//     and installs from them: unpinned unless the URL names a commit
//     (…/archive/<commit>.tar.gz). nix-env -i and -u use the network.
//   - ansible-galaxy install ROLE (role install, collection install)
//     without an exact version (ROLE,1.2.3, ns.coll:==1.2.3 or
//     ns.coll:1.2.3, a git source at ,<commit>), and vagrant plugin install
//     NAME without --plugin-version, install the index's latest: they are
//     ecoTools (ecosystems.go), with galaxyPinned.
//   - terraform (and tofu) init -from-module=SOURCE copies a module into
//     the working directory and runs it with the next apply: a git or
//     HTTP source without ?ref=<commit>, or a registry module (-from-module
//     cannot name its version), is unpinned. terraform init downloads
//     providers: network use.
//
// Over plain http (git::http://, http://…) each is also insecure_url.

// opamPin judges `opam pin [add] …`.
func (a *auditor) opamPin(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	ops := operands(c.args(), set("--switch", "--root", "-k", "--kind", "-j", "--jobs", "-e", "--edit"), false, nil)
	if len(ops) < 2 || ops[0].text != "pin" {
		return info
	}
	rest := ops[1:]
	switch rest[0].text {
	case "add":
		rest = rest[1:]
	case "list", "remove", "rm", "edit", "scan", "unpin":
		return info
	}
	if len(rest) == 0 {
		return info
	}
	a.inferred.Network = true
	target := rest[len(rest)-1]
	for _, w := range c.args() {
		if w.text == "--dev-repo" {
			a.add(CodeUnpinned, w.path, "`opam pin --dev-repo` builds the package from the head of its development repository, which can change at any time; pin an exact version")
			return info
		}
	}
	a.sourceAtCommit("opam pin", target, "builds the package from")
	return info
}

// nixEnv judges nix-env's installs: -f (--file) given a URL, and -i, -u.
func (a *auditor) nixEnv(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	args := c.args()
	installs := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		var file arg
		hasFile := false
		switch {
		case t == "--install" || t == "--upgrade":
			installs = true
		case t == "--file" || strings.HasPrefix(t, "--file="):
			_, val, joined := strings.Cut(t, "=")
			file, hasFile = optValue(args, &i, val, joined)
		case len(t) > 1 && t[0] == '-' && t[1] != '-':
			// nix-env reads -if URL as -i -f URL: -f takes the next word.
			installs = installs || strings.ContainsAny(t[1:], "iu")
			if strings.HasSuffix(t, "f") {
				file, hasFile = optValue(args, &i, "", false)
			}
		}
		if hasFile && file.lit && strings.Contains(file.text, "://") {
			a.inferred.Network = true
			a.sourceAtCommit("nix-env -f", file, "installs from the Nix expressions of")
		}
	}
	if installs {
		a.inferred.Network = true
	}
	return info
}

// terraformRemote are terraform's subcommands whose providers talk to the
// services they manage.
var terraformRemote = set("plan", "apply", "destroy", "refresh", "import")

// terraformInit judges terraform (or tofu) init: it downloads providers,
// and -from-module=SOURCE copies a module to run; plan, apply and the
// like use the network.
func (a *auditor) terraformInit(c invocation) cmdInfo {
	info := cmdInfo{name: c.name}
	args := c.args()
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].text, "-") {
		i++ // -chdir=DIR and the other global options come before the subcommand
	}
	if i < len(args) && terraformRemote[args[i].text] {
		a.inferred.Network = true // the providers call their services' APIs
	}
	if i >= len(args) || args[i].text != "init" {
		return info
	}
	a.inferred.Network = true
	who := c.name + " init -from-module"
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		flag, val, joined := strings.Cut(strings.TrimPrefix(rest[j].text, "-"), "=")
		if flag != "-from-module" && flag != "from-module" {
			continue
		}
		w, ok := optValue(rest, &j, val, joined)
		if !ok || !w.lit {
			continue
		}
		src := strings.TrimSpace(w.text)
		switch {
		case src == "" || localSpec(src):
		case !strings.Contains(src, "://") && !strings.HasPrefix(src, "git@") && !strings.Contains(src, "::") &&
			strings.Count(src, "/") == 2 && !strings.Contains(src, "."):
			a.add(CodeUnpinned, w.path, quoted(who)+" copies the registry module "+quoted(src)+
				" at its latest version (-from-module cannot name one), so what runs can change without notice; copy the module at a commit of its repository (?ref=<commit>)")
		default:
			a.sourceAtCommit(who, w, "copies the module it runs from")
		}
	}
	return info
}

// sourceAtCommit judges a git or archive source given by URL (a forced
// getter such as git:: stripped): network use, insecure over plain
// http, git:// or svn://, and unpinned unless a commit is named (#<commit>,
// ?ref=<commit>, a path segment or archive name that is one).
func (a *auditor) sourceAtCommit(who string, w arg, does string) {
	s := strings.TrimSpace(w.text)
	if !w.lit || s == "" || localSpec(s) {
		return
	}
	if i := strings.Index(s, "::"); i > 0 && !strings.Contains(s[:i], "/") {
		s = s[i+2:] // git::https://…, hg::…
	}
	s = strings.TrimPrefix(s, "git+")
	if !strings.Contains(s, "://") && !strings.HasPrefix(s, "git@") {
		if exactVersion(s) {
			return
		}
		if !strings.Contains(s, ".") || !strings.Contains(s, "/") {
			return // a version constraint or a name, not a source
		}
	}
	a.inferred.Network = true
	v := w
	v.text = s
	a.plainFetch(v, who, "fetches its source")
	if sourceCommit(s) {
		return
	}
	host := s
	if _, u, ok := wordURL(s); ok {
		host = u.Host
	}
	a.add(CodeUnpinned, w.path, quoted(who)+" "+does+" "+safeText(host, 80)+" as it is when the server starts, which can change without notice; name a commit")
}

// sourceCommit reports whether a source URL names a full commit: after
// '#', as ?ref= or ?rev=, or as a path segment or an archive's name
// (…/archive/<commit>.tar.gz).
func sourceCommit(s string) bool {
	if gitPinned(s) || commitURL(s) {
		return true
	}
	if _, query, ok := strings.Cut(s, "?"); ok {
		for kv := range strings.SplitSeq(query, "&") {
			if k, v, _ := strings.Cut(kv, "="); (k == "ref" || k == "rev") && commitSHA.MatchString(v) {
				return true
			}
		}
		s, _, _ = strings.Cut(s, "?")
	}
	base := s[strings.LastIndexByte(s, '/')+1:]
	for _, ext := range []string{".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".zip"} {
		if strings.HasSuffix(base, ext) {
			return commitSHA.MatchString(strings.TrimSuffix(base, ext))
		}
	}
	return false
}

// galaxyPinned reports whether an ansible-galaxy spec names an exact
// version: a role as NAME,VERSION (or SRC,VERSION,NAME, the version a
// full commit for a git source), a collection as NS.NAME:VERSION or
// NS.NAME:==VERSION; a tarball on this machine is not fetched.
func galaxyPinned(spec string) bool {
	s := strings.TrimSpace(spec)
	if localArchive(s) || strings.HasSuffix(s, ".tar.gz") && !strings.Contains(s, "://") {
		return true
	}
	if _, rest, ok := strings.Cut(s, ","); ok {
		v, _, _ := strings.Cut(rest, ",")
		v = strings.TrimSpace(v)
		if strings.Contains(s, "://") || strings.HasPrefix(s, "git@") || strings.HasPrefix(s, "git+") {
			return commitSHA.MatchString(v)
		}
		return exactVersion(strings.TrimPrefix(v, "v"))
	}
	if strings.Contains(s, "://") {
		return sourceCommit(s)
	}
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		return exactVersion(strings.TrimPrefix(s[i+1:], "=="))
	}
	return false
}
