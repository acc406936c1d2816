package assess

import (
	"path"
	"strconv"
	"strings"

	"github.com/registryd/registryd/registry"
)

// A checkout of a fixed commit pins the clone in the directory it is made
// in, not every clone of the wiring: `git clone EVIL a; git clone GOOD b;
// git -C b checkout SHA` still runs a's latest code. So each pending clone
// remembers its directory, and the audit follows the directory the
// wiring's scripts are in (cd, pushd) as far as their words are known.

// pendingClone is a clone whose findings wait for a checkout of a fixed
// commit in its directory.
type pendingClone struct {
	dir      string
	findings []registry.Finding
}

// unknownDir returns a directory name that no other equals: where a
// directory is not known, no checkout can be shown to be in it.
func (a *auditor) unknownDir() string {
	a.unknownDirs++
	return "\x00" + strconv.Itoa(a.unknownDirs)
}

// within returns the directory d names from the directory the wiring is in
// (a.cwd; "" is the one it starts in). Paths are compared as written,
// cleaned, with either separator.
func (a *auditor) within(d arg) string {
	if !d.lit {
		return a.unknownDir()
	}
	p := strings.ReplaceAll(d.text, `\`, "/")
	switch {
	case strings.HasPrefix(a.cwd, "\x00") && !absDir(p):
		return a.cwd + "/" + path.Clean(p)
	case p == "":
		p = "."
	}
	if absDir(p) || a.cwd == "" {
		return path.Clean(p)
	}
	return path.Clean(a.cwd + "/" + p)
}

// atCwd returns the path p names from the directory the script changed
// into, when that directory is known and p is relative (cd ~/.aws && cat
// credentials reads ~/.aws/credentials); otherwise p as written. A path
// through a variable or a URL is left as written.
func (a *auditor) atCwd(p string) string {
	if a.cwd == "" || a.cwd[0] == 0 {
		return p
	}
	c := cleanPath(p)
	if c == "" || c == "-" || absDir(c) || c[0] == '$' || c[0] == '%' || strings.Contains(c, "://") {
		return p
	}
	return path.Clean(a.cwd + "/" + c)
}

// absDir reports whether p names a directory from the root, the home
// directory or a drive.
func absDir(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || len(p) > 1 && p[1] == ':'
}

// chdir follows cd, pushd and popd: the directory named, the home
// directory without one, and one not known for `cd -`, popd and a word
// that is not literal.
func (a *auditor) chdir(name string, args []arg) {
	ops := operands(args, nil, true, nil) // -L, -P, -e, -@
	switch {
	case name == "popd" || len(ops) > 0 && (ops[0].text == "-" || strings.HasPrefix(ops[0].text, "+")):
		a.cwd = a.unknownDir()
	case len(ops) == 0:
		a.cwd = "~"
	default:
		a.cwd = a.within(ops[0])
	}
}

// cloneDir returns the directory a clone of repo is made in: dir when given,
// otherwise the repository's last path element without .git, as git, hg,
// svn and gh name it.
func (a *auditor) cloneDir(repo arg, dir *arg) string {
	if dir != nil {
		return a.within(*dir)
	}
	r := strings.TrimRight(strings.ReplaceAll(repo.text, `\`, "/"), "/")
	r = strings.TrimSuffix(strings.TrimSuffix(r, "/.git"), ".git")
	if i := strings.LastIndexAny(r, "/:"); i >= 0 {
		r = r[i+1:]
	}
	if r == "" {
		return a.unknownDir()
	}
	return a.within(arg{text: r, lit: true})
}

// checkedOut withdraws the findings of the clones made in dir: a fixed
// commit, changeset or revision was checked out there.
func (a *auditor) checkedOut(dir string) {
	kept := a.clones[:0]
	for _, c := range a.clones {
		if c.dir != dir {
			kept = append(kept, c)
		}
	}
	a.clones = kept
}

// clonesLeft returns the findings of the clones no checkout pinned.
func (a *auditor) clonesLeft() []registry.Finding {
	var out []registry.Finding
	for _, c := range a.clones {
		out = append(out, c.findings...)
	}
	return out
}

// changesDir follows the commands of cmd.exe and PowerShell that change
// the working directory, as chdir does a shell's: cmd's cd and chdir
// (/d changes the drive too), PowerShell's Set-Location (cd, chdir, sl)
// and Push-Location (pushd) with their folder as a word or after -Path or
// -LiteralPath, and Pop-Location (popd). Without a folder, or with one
// that is not literal, the directory is not known.
func (a *auditor) changesDir(c invocation) cmdInfo {
	var ops []arg
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := lower(args[i].text)
		switch {
		case t == "/d":
		case strings.HasPrefix(t, "-") && t != "-":
			name, val, colon := strings.Cut(t, ":")
			if len(name) > 1 && (strings.HasPrefix("-path", name) || len(name) > 2 && strings.HasPrefix("-literalpath", name)) {
				if w, ok := optValue(args, &i, val, colon); ok {
					ops = append(ops, w)
				}
			} else if len(name) > 2 && strings.HasPrefix("-stackname", name) && !colon {
				i++
			}
		default:
			ops = append(ops, args[i])
		}
	}
	switch {
	case c.name == "pop-location" || c.name == "popd" || len(ops) == 0 || !ops[0].lit:
		a.cwd = a.unknownDir()
	default:
		a.chdir("cd", ops[:1])
	}
	return cmdInfo{name: c.name}
}
