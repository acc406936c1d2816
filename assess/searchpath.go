package assess

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Downloads run by name. A program named without a folder is looked up on
// the search path, so a download written into a folder on it (curl -o
// /usr/local/bin/tool URL; tool), or into a folder the script puts on it
// (export PATH=/tmp/b:$PATH, PATH=/tmp/b:$PATH tool), runs when the script
// names it, as ./tool would run it; and so does whatever an archive
// unpacked into such a folder holds.

// maxSearchDirs bounds the folders an audit keeps of those a script puts
// on the search path.
const maxSearchDirs = 16

// searchPathSet records the folders an assignment to PATH puts on the
// search path, as far as its value is known: "/tmp/b:$PATH" adds /tmp/b,
// whatever the PATH it had.
func (s *scan) searchPathSet(x *syntax.Assign) {
	if x.Name == nil || x.Name.Value != "PATH" || x.Value == nil || x.Naked || x.Index != nil || x.Array != nil {
		return
	}
	var b strings.Builder
	writeWord(&b, x.Value, func(p syntax.WordPart) bool {
		if pe, ok := p.(*syntax.ParamExp); ok {
			if v, known := s.param(pe); known {
				b.WriteString(v)
				return true
			}
		}
		if workingDir(p) {
			b.WriteByte('.') // $PWD/bin, $(pwd)/bin: a folder of the working directory
			return true
		}
		b.WriteByte(0) // not known: no folder that holds it counts
		return true
	})
	s.a.addSearchDirs(b.String(), ":")
}

// workingDir reports whether a part of a word is the working directory:
// $PWD or ${PWD} as they are, $(pwd) or `pwd` (with -L or -P).
func workingDir(p syntax.WordPart) bool {
	switch x := p.(type) {
	case *syntax.ParamExp:
		return x.Param != nil && x.Param.Value == "PWD" && !x.Excl && !x.Length && !x.Width &&
			x.Index == nil && x.Slice == nil && x.Repl == nil && x.Exp == nil && x.Names == 0
	case *syntax.CmdSubst:
		if len(x.Stmts) != 1 || len(x.Stmts[0].Redirs) > 0 {
			return false
		}
		c, ok := x.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 || len(c.Args) > 2 {
			return false
		}
		if name, ok := wordText(c.Args[0]); !ok || name != "pwd" {
			return false
		}
		if len(c.Args) == 2 {
			opt, ok := wordText(c.Args[1])
			return ok && (opt == "-L" || opt == "-P")
		}
		return true
	}
	return false
}

// addSearchDirs records the folders of the search path value (folders
// separated by sep: ':', or ';' on Windows) on the search path, but for a
// folder holding a 0 byte, which stands for a part whose value is not
// known, and cmd.exe's %PATH%, the search path it had.
func (a *auditor) addSearchDirs(value, sep string) {
	for d := range strings.SplitSeq(value, sep) {
		if d == "" || strings.IndexByte(d, 0) >= 0 || strings.EqualFold(d, "%path%") || len(a.searchDirs) >= maxSearchDirs {
			continue
		}
		if p := a.fetchedPath(cleanPath(d)); !a.onSearchPath(p) {
			a.searchDirs = append(a.searchDirs, p)
		}
	}
}

// onSearchPath reports whether the folder dir (as fetchedPath leaves it)
// is on the search path: one of a usual shell's, or one the script put
// there.
func (a *auditor) onSearchPath(dir string) bool {
	if searchPathDirs[strings.ToLower(dir)] {
		return true
	}
	for _, d := range a.searchDirs {
		if d == dir || windowsDir(dir) && strings.EqualFold(d, dir) {
			return true
		}
	}
	return false
}

// runsByName reports the program name, run without a folder, when the
// search path finds it among the wiring's downloads: a downloaded (or
// copied) file of that name in a folder on the search path, or anything in
// such a folder an archive was unpacked into. It reports whether it found
// one.
func (a *auditor) runsByName(name, at string) bool {
	for _, f := range a.fetched {
		dir, base := f.path, ""
		if !f.unpacked {
			dir, base = path.Split(f.path)
			dir = strings.TrimSuffix(dir, "/")
			if !programFile(base, name, dir) {
				continue
			}
		}
		if dir == "" || !a.onSearchPath(dir) {
			continue
		}
		where := "downloaded, which is whatever the URL served when the server started"
		if f.copied {
			where = "copied from another machine or a cloud store, which is whatever that held when the server started"
		}
		shown, folder := safeText(name, 40), safeText(dir, 60)
		if f.unpacked {
			a.add(CodePipeToShell, at, "runs "+quoted(shown)+" by name from "+folder+", a folder on the search path that an archive "+
				quoted(f.tool)+" "+strings.TrimSuffix(where, ", which is whatever the URL served when the server started")+
				" was unpacked into: what runs is whatever that archive held")
			return true
		}
		a.add(CodePipeToShell, at, "runs "+quoted(shown)+" by name, which the search path finds in "+folder+": the file "+
			quoted(f.tool)+" "+where)
		return true
	}
	return false
}

// windowsRunnable are the extensions Windows tries, in its usual PATHEXT,
// on a program named without one.
var windowsRunnable = []string{".exe", ".com", ".bat", ".cmd", ".ps1"}

// programFile reports whether the file base, in the folder dir, is what
// running name finds there: the same name, or on Windows (a folder with a
// drive or a variable such as %USERPROFILE%) the name with a runnable
// extension, in any case.
func programFile(base, name, dir string) bool {
	if base == name {
		return true
	}
	if !windowsDir(dir) {
		return false
	}
	if strings.EqualFold(base, name) {
		return true
	}
	if strings.IndexByte(name, '.') >= 0 || len(base) <= len(name) || !strings.EqualFold(base[:len(name)], name) {
		return false
	}
	for _, ext := range windowsRunnable {
		if strings.EqualFold(base[len(name):], ext) {
			return true
		}
	}
	return false
}

// windowsDir reports whether the folder dir is a Windows one: from a
// drive (C:/t) or a variable (%USERPROFILE%/bin), where names are
// compared in any case.
func windowsDir(dir string) bool {
	return len(dir) > 1 && dir[1] == ':' || strings.HasPrefix(dir, "%")
}
