package assess

import (
	"path"
	"strings"
)

// Downloads under another name. A file a download tool wrote (or a copy
// from another machine) keeps what it holds when mv, cp, install or ln
// gives it another name or place, so running it there is running the
// download (curl -o /tmp/a URL; mv /tmp/a /tmp/b; /tmp/b); and a shell
// whose input is such a file runs it (sh < /tmp/a).

// relocateValues are, per program, its options that take a value; the
// value of -t (--target-directory) is the folder every operand goes into.
var relocateValues = map[string]map[string]bool{
	"mv":      set("-t", "--target-directory", "-S", "--suffix"),
	"cp":      set("-t", "--target-directory", "-S", "--suffix"),
	"install": set("-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"),
	"ln":      set("-t", "--target-directory", "-S", "--suffix"),
}

// fetchedFileAt returns the record of the downloaded (or copied) file p,
// or nil.
func (a *auditor) fetchedFileAt(p string) *fetchedFile {
	p = a.fetchedPath(cleanPath(p))
	for i := range a.fetched {
		if f := &a.fetched[i]; !f.unpacked && f.path == p {
			return f
		}
	}
	return nil
}

// relocatesFetched records the new names mv, cp, install and ln give a
// downloaded file: the destination, or the source's name inside a
// destination folder (-t DIR, a path ending in /, or several sources).
func (a *auditor) relocatesFetched(c invocation) {
	values := relocateValues[c.name]
	if values == nil {
		return
	}
	dir := ""
	ops := operands(c.args(), values, true, func(flag string, w arg, val string) {
		if (flag == "-t" || flag == "--target-directory") && w.lit {
			dir = val
		}
	})
	if len(ops) == 0 || dir == "" && len(ops) < 2 {
		return
	}
	srcs := ops
	if dir == "" {
		srcs, dir = ops[:len(ops)-1], ops[len(ops)-1].text
		if !ops[len(ops)-1].lit {
			return
		}
		if len(srcs) == 1 && !folderLike(dir) {
			if f := a.fetchedFileAt(srcs[0].text); srcs[0].lit && f != nil {
				a.recordFetched(dir, f.tool, false, f.copied)
			}
			return
		}
	}
	for _, src := range srcs {
		if !src.lit {
			continue
		}
		if f := a.fetchedFileAt(src.text); f != nil {
			a.recordFetched(strings.TrimRight(dir, `/\`)+"/"+path.Base(cleanPath(src.text)), f.tool, false, f.copied)
		}
	}
}

// feedsFetched reports a shell or interpreter (name) whose input is the
// file p a download tool wrote, at the manifest field at.
func (a *auditor) feedsFetched(p, name, at string) {
	f := a.fetchedFileAt(p)
	if f == nil {
		return
	}
	where := "downloaded, which is whatever the URL served when the server started"
	if f.copied {
		where = "copied from another machine or a cloud store, which is whatever that held when the server started"
	}
	a.add(CodePipeToShell, at, "feeds "+quoted(name)+" the file "+safeText(cleanPath(p), 60)+" that "+quoted(f.tool)+" "+where)
}
