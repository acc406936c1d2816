package assess

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Downloads read back as text. A file a download tool wrote holds what
// the URL served, and so does what a command prints of it: $(cat /tmp/a)
// in sh -c "$(cat /tmp/a)" or eval "$(cat /tmp/a)", bash's $(< /tmp/a),
// X=$(head -n 50 /tmp/a), read L < /tmp/a and xargs -a /tmp/a sh -c run
// the download as curl URL | sh would.

// printsFiles are the programs that write out the text of the files they
// are given (or of their input), whole or in part, as it is.
var printsFiles = set("cat", "tac", "head", "tail", "sort", "uniq", "grep", "egrep", "fgrep", "rg", "sed", "nl", "rev",
	"cut", "fold", "expand", "unexpand", "strings", "more", "less", "paste", "column", "dd", "tr")

// downloadAt returns the record of the downloaded (or copied) file p, or
// of the folder an archive holding p was unpacked into, or nil.
func (a *auditor) downloadAt(p string) *fetchedFile {
	if f := a.fetchedFileAt(p); f != nil {
		return f
	}
	p = a.fetchedPath(cleanPath(p))
	for i := range a.fetched {
		if f := &a.fetched[i]; f.unpacked && unpackedInto(p, f.path, f.here) {
			return f
		}
	}
	return nil
}

// printsDownload reports whether the statement st writes out a file a
// download tool wrote: a command of printsFiles given it as an operand
// (dd's if=) or on its input, or bash's $(< FILE), a statement of only
// that redirection.
func (s *scan) printsDownload(st *syntax.Stmt) bool {
	if len(s.a.fetched) == 0 {
		return false
	}
	c, isCall := st.Cmd.(*syntax.CallExpr)
	if st.Cmd != nil && (!isCall || len(c.Args) == 0) {
		return false
	}
	name := ""
	if isCall {
		t, ok := s.wordValue(c.Args[0])
		if name = progName(t); !ok || !printsFiles[name] {
			return false
		}
	}
	for _, r := range st.Redirs {
		if r.Op != syntax.RdrIn || r.N != nil && r.N.Value != "0" {
			continue
		}
		if t, ok := s.wordValue(r.Word); ok && s.a.downloadAt(t) != nil {
			return true
		}
	}
	if !isCall || name == "tr" {
		return false // tr reads only its input
	}
	for _, w := range c.Args[1:] {
		t, ok := s.wordValue(w)
		if name == "dd" {
			t, ok = strings.CutPrefix(t, "if=")
		}
		if ok && t != "" && !strings.HasPrefix(t, "-") && s.a.downloadAt(t) != nil {
			return true
		}
	}
	return false
}

// fdOnDownload records /dev/fd/N as holding a download when exec opens
// descriptor N on a file a download tool wrote (exec 3< /tmp/a) or on a
// download's output (exec 3< <(curl …)), or copies one that holds one
// (exec 4<&3): sh <&3, sh /dev/fd/3 and source /dev/fd/3 then run it.
func (s *scan) fdOnDownload(r *syntax.Redirect) {
	if r.Op == syntax.RdrIn && r.Word != nil && len(r.Word.Parts) == 1 {
		if ps, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok && ps.Op == syntax.CmdIn {
			// exec 3< <(curl …): the descriptor reads the command's
			// output.
			if tool := s.fetchingTool(ps.Stmts); tool != "" {
				s.a.recordFetched("/dev/fd/"+r.N.Value, tool, false, false)
			}
			return
		}
	}
	if len(s.a.fetched) == 0 {
		return
	}
	t, ok := s.wordValue(r.Word)
	if !ok {
		return
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut:
	case syntax.DplIn:
		t = "/dev/fd/" + t
	default:
		return
	}
	if f := s.a.downloadAt(t); f != nil {
		s.a.recordFetched("/dev/fd/"+r.N.Value, f.tool, false, f.copied)
	}
}

// fetchingTool returns the name of the first program among stmts that
// downloads what it writes out, or "".
func (s *scan) fetchingTool(stmts []*syntax.Stmt) string {
	tool := ""
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if tool != "" || s.a.budget <= 0 {
				return false
			}
			s.a.budget--
			c, ok := n.(*syntax.CallExpr)
			if !ok || len(c.Args) == 0 || !s.call(c).fetches {
				return true
			}
			tool = "a download"
			if t, ok := s.wordValue(c.Args[0]); ok {
				tool = progName(t)
			}
			return false
		})
	}
	return tool
}

// downloadFed gives the variables read, mapfile or readarray set from a
// downloaded file the statement reads on its input the download's text
// (read L < /tmp/a; eval "$L"), as from curl URL | while read L.
func (s *scan) downloadFed(st *syntax.Stmt) {
	if len(s.a.fetched) == 0 {
		return
	}
	for _, r := range st.Redirs {
		if r.Op != syntax.RdrIn || r.N != nil && r.N.Value != "0" {
			continue
		}
		if t, ok := s.wordValue(r.Word); !ok || s.a.downloadAt(t) == nil {
			continue
		}
		stdinCalls(&syntax.Stmt{Cmd: st.Cmd}, 0, func(c *syntax.CallExpr) {
			if name := s.readsInto(c); name != "" {
				s.holdText(name, heldFetched, false)
			}
		})
	}
}
