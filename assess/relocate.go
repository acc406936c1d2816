package assess

import (
	"path"
	"strings"
)

// Downloads under another name. A file a download tool wrote (or a copy
// from another machine) keeps what it holds when mv, cp, install or ln
// (cmd.exe's copy, move and ren, PowerShell's Copy-Item, Move-Item and
// Rename-Item) gives it another name or place, so running it there is running the
// download (curl -o /tmp/a URL; mv /tmp/a /tmp/b; /tmp/b); and a shell
// whose input is such a file runs it (sh < /tmp/a).

// relocators are the programs that give a file another name or place:
// cp, mv, install and ln, cmd.exe's copy and move, PowerShell's
// Copy-Item and Move-Item (copyOperands reads their words); renamers those
// whose new name stays in the file's folder (cmd.exe's ren, PowerShell's
// Rename-Item).
var (
	relocators = set("cp", "mv", "install", "ln", "copy", "move", "copy-item", "cpi", "move-item", "mi")
	renamers   = set("ren", "rename", "rename-item", "rni")
)

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

// relocatesFetched records the new names a program gives a downloaded
// file: the source's name inside a destination folder (-t DIR, a path
// ending in a separator, or several sources), else both the destination
// and that name inside it; for a renamer, the new name in the file's own
// folder.
func (a *auditor) relocatesFetched(c invocation) {
	if renamers[c.name] {
		a.renamesFetched(c)
		return
	}
	if !relocators[c.name] {
		return
	}
	srcs, dest, folder := copyOperands(c)
	if dest == "" || strings.HasPrefix(dest, "-") {
		return
	}
	into := folder || len(srcs) > 1 || folderLike(dest)
	for _, src := range srcs {
		if !src.lit {
			continue
		}
		f := a.fetchedFileAt(src.text)
		if f == nil {
			continue
		}
		inside := strings.TrimRight(dest, `/\`) + "/" + path.Base(cleanPath(src.text))
		if into {
			a.recordFetched(inside, f.tool, false, f.copied)
			continue
		}
		// A folder written without a separator at its end (cp /tmp/a
		// /usr/local/bin) is not told from a file's new name: the
		// download is recorded under both, as only one can exist.
		a.recordFetched(dest, f.tool, false, f.copied)
		a.recordFetched(inside, f.tool, false, f.copied)
	}
}

// renamesFetched records the new name ren (Rename-Item) gives a
// downloaded file, in the file's own folder: ren a.exe b.exe, Rename-Item
// a.exe -NewName b.exe.
func (a *auditor) renamesFetched(c invocation) {
	var words []arg
	newName := ""
	args := c.args()
	for i := 0; i < len(args); i++ {
		name, val, colon := strings.Cut(lower(args[i].text), ":")
		switch {
		case len(name) > 2 && strings.HasPrefix("-newname", name):
			if w, ok := optValue(args, &i, val, colon); ok && w.lit {
				newName = w.text
			}
		case len(name) > 1 && (strings.HasPrefix("-path", name) || strings.HasPrefix("-literalpath", name)):
			if w, ok := optValue(args, &i, val, colon); ok {
				words = append(words, w)
			}
		case !strings.HasPrefix(name, "-") && !strings.HasPrefix(name, "/"):
			words = append(words, args[i])
		}
	}
	if newName == "" && len(words) == 2 && words[1].lit {
		newName = words[1].text
	}
	if len(words) == 0 || !words[0].lit || newName == "" || strings.ContainsAny(newName, `/\`) {
		return
	}
	f := a.fetchedFileAt(words[0].text)
	if f == nil {
		return
	}
	src := cleanPath(words[0].text)
	to := newName
	if dir := path.Dir(src); dir != "." {
		to = dir + "/" + newName
	}
	a.recordFetched(to, f.tool, false, f.copied)
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
