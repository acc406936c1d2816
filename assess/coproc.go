package assess

import (
	"mvdan.cc/sh/v3/syntax"
)

// Coprocesses. bash's coproc starts a command with its output on a
// descriptor the script reads through ${NAME[0]} (COPROC without a
// name): coproc curl -s URL; sh <&"${COPROC[0]}" runs the download as
// curl -s URL | sh does, and read L <&"${COPROC[0]}" holds it.

// coproc records the coprocess x starts, by name, with whether what it
// writes is downloaded or decoded text.
func (s *scan) coproc(x *syntax.CoprocClause) {
	name := "COPROC"
	if x.Name != nil {
		t, ok := wordText(x.Name)
		if !ok {
			return // a name not known: nothing reads it by name
		}
		name = t
	}
	delete(s.coprocs, name)
	if x.Stmt == nil {
		return
	}
	f, d := s.stmtsDo([]*syntax.Stmt{x.Stmt})
	var bits uint8
	if f {
		bits |= heldFetched
	}
	if d {
		bits |= heldDecoded
	}
	if bits == 0 {
		return
	}
	if s.coprocs == nil {
		s.coprocs = map[string]uint8{}
	}
	s.coprocs[name] = bits
}

// coprocOut returns what the coprocess whose output descriptor the word w
// names (${NAME[0]}, "${NAME[0]}", $NAME) writes, or 0.
func (s *scan) coprocOut(w *syntax.Word) uint8 {
	if len(s.coprocs) == 0 || w == nil || len(w.Parts) != 1 {
		return 0
	}
	p := w.Parts[0]
	if dq, ok := p.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		p = dq.Parts[0]
	}
	pe, ok := p.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Exp != nil || pe.Slice != nil || pe.Repl != nil || pe.Length {
		return 0
	}
	if pe.Index != nil {
		if t, lit := wordOf(pe.Index); !lit || t != "0" {
			return 0
		}
	}
	return s.coprocs[pe.Param.Value]
}

// wordOf returns the literal text of an array index expression.
func wordOf(x syntax.ArithmExpr) (string, bool) {
	if w, ok := x.(*syntax.Word); ok {
		return wordText(w)
	}
	return "", false
}

// coprocFed judges the command c of statement st whose input the
// redirection r takes from a coprocess: a shell or interpreter runs what
// the coprocess writes, and read, mapfile and readarray hold it.
func (s *scan) coprocFed(st *syntax.Stmt, c *syntax.CallExpr, r *syntax.Redirect) {
	bits := s.coprocOut(r.Word)
	if bits == 0 {
		return
	}
	if info := s.call(c); info.stdinScript {
		s.execsText(bits&heldFetched != 0, bits&heldDecoded != 0, "runs through "+quoted(info.name)+" what a coprocess writes")
	}
	stdinCalls(&syntax.Stmt{Cmd: st.Cmd}, 0, func(c *syntax.CallExpr) {
		if name := s.readsInto(c); name != "" {
			s.holdText(name, bits, false)
		}
	})
}
