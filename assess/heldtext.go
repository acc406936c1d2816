package assess

import (
	"cmp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Downloaded text held before it runs. A script can keep what a download
// tool or a network connection gave it in a variable (X=$(curl …), read L
// < /dev/tcp/HOST/PORT, curl … | while read L; …) or behind a file
// descriptor it opened on a connection (exec 3<>/dev/tcp/HOST/PORT), and
// run it later: eval "$X", sh -c "$X", sh <&3, source /dev/fd/3. Each is
// the download-and-run it spells out in one step (eval "$(curl …)",
// sh < /dev/tcp/…), so each is reported as that is.

// Bits of scan.heldVars: what a variable's value was made from.
const (
	heldFetched uint8 = 1 << iota // downloaded, or read from a connection
	heldDecoded                   // decoded from an encoding
)

// holdText records what the value of variable name was made from (bits
// of heldVars), or forgets it for 0; with appended, what it held stays.
func (s *scan) holdText(name string, bits uint8, appended bool) {
	if !appended {
		delete(s.heldVars, name)
	}
	if bits == 0 {
		return
	}
	if s.heldVars == nil {
		s.heldVars = map[string]uint8{}
	}
	s.heldVars[name] |= bits
}

// heldIn reports whether the variable the parameter expansion pe reads
// holds downloaded or decoded text.
func (s *scan) heldIn(pe *syntax.ParamExp) (fetched, decoded bool) {
	if pe == nil || pe.Param == nil || len(s.heldVars) == 0 {
		return false, false
	}
	bits := s.heldVars[pe.Param.Value]
	return bits&heldFetched != 0, bits&heldDecoded != 0
}

// heldBits says what the substitutions and held variables of the words ws
// make of their text: downloaded (heldFetched), decoded (heldDecoded).
func (s *scan) heldBits(ws ...*syntax.Word) uint8 {
	var bits uint8
	for _, w := range ws {
		if w == nil {
			continue
		}
		f, d := s.substs(w)
		if f {
			bits |= heldFetched
		}
		if d {
			bits |= heldDecoded
		}
	}
	return bits
}

// assignHeld records what an assignment's value holds: the output of a
// download or a decoder (X=$(curl …)), or another variable that holds it.
func (s *scan) assignHeld(name string, v *syntax.Word, appended bool) {
	s.holdText(name, s.heldBits(v), appended)
}

// netFD returns the network path the script opened file descriptor fd on
// (exec 3<>/dev/tcp/HOST/PORT), as netDevice names it, or "".
func (s *scan) netFD(fd string) string {
	return s.netFDs[fd]
}

// opensNetFD records the descriptors an exec without a command opens on a
// network path (exec 3<>/dev/tcp/HOST/PORT, exec 5</dev/udp/…), and
// forgets those it opens on anything else or closes (exec 3<&-).
func (s *scan) opensNetFD(st *syntax.Stmt) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) != 1 {
		return
	}
	if t, ok := wordText(c.Args[0]); !ok || t != "exec" {
		return
	}
	for _, r := range st.Redirs {
		if r.N == nil || r.N.Value == "0" || r.N.Value == "1" || r.N.Value == "2" {
			continue
		}
		fd := r.N.Value
		delete(s.netFDs, fd)
		s.fdOnDownload(r)
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut:
			if dev := netDevice(r.Word); dev != "" {
				if s.netFDs == nil {
					s.netFDs = map[string]string{}
				}
				s.netFDs[fd] = dev
			}
		case syntax.DplIn, syntax.DplOut:
			if t, ok := wordText(r.Word); ok && s.netFD(t) != "" {
				if s.netFDs == nil {
					s.netFDs = map[string]string{}
				}
				s.netFDs[fd] = s.netFD(t) // exec 4<&3
			}
		}
	}
}

// netInput returns the network path a statement's standard input comes
// from: a redirection from one (< /dev/tcp/HOST/PORT), or, with viaFD,
// from a descriptor the script opened on one (<&3, 0<&3, < /dev/fd/3);
// "" for none.
func (s *scan) netInput(st *syntax.Stmt) (dev string, viaFD bool) {
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut:
			if dev := netDevice(r.Word); dev != "" {
				return dev, false
			}
			if t, ok := wordText(r.Word); ok {
				if fd, ok := strings.CutPrefix(t, "/dev/fd/"); ok && s.netFD(fd) != "" {
					return s.netFD(fd), true
				}
			}
		case syntax.DplIn:
			if t, ok := wordText(r.Word); ok && s.netFD(t) != "" {
				return s.netFD(t), true
			}
		}
	}
	return "", false
}

// netFed judges a statement whose standard input is a network connection
// (netInput): a shell or interpreter reading it runs what the other end
// sends, and read gives the variables it sets that text, in the statement
// itself (read L < /dev/tcp/…) or in the loop or block it is part of
// (while read L; do …; done <&3).
func (s *scan) netFed(st *syntax.Stmt, dev string, viaFD bool) {
	s.a.inferred.Network = true
	if c, ok := st.Cmd.(*syntax.CallExpr); ok && viaFD {
		// A redirection straight from a network path is judged with
		// the statement's other redirections (redirects).
		if info := s.call(c); info.stdinScript {
			s.a.add(CodePipeToShell, s.path, "connects "+quoted(info.name)+" to a network connection ("+
				dev+", through a file descriptor the script opened), so whoever is at the other end runs commands")
		}
	}
	s.readsFrom(&syntax.Stmt{Cmd: st.Cmd}, heldFetched)
}

// readsFrom gives the variables that read sets among the commands reading
// st's standard input what that input holds (bits).
func (s *scan) readsFrom(st *syntax.Stmt, bits uint8) {
	stdinCalls(st, 0, func(c *syntax.CallExpr) {
		if name := s.readsInto(c); name != "" {
			s.holdText(name, bits, false)
		}
	})
}

// fdScript reports the network path of a script named /dev/fd/N where
// the script opened N on one, or "".
func (s *scan) fdScript(w arg) string {
	if !w.lit {
		return ""
	}
	fd, ok := strings.CutPrefix(w.text, "/dev/fd/")
	if !ok {
		return ""
	}
	return s.netFD(fd)
}

// arrayHeld records what the elements of an array assignment hold
// (L=($(curl …)), L+=("$X")): the array holds downloaded or decoded text
// when an element does.
func (s *scan) arrayHeld(x *syntax.Assign) {
	var bits uint8
	for _, e := range x.Array.Elems {
		bits |= s.heldBits(e.Value)
	}
	s.holdText(x.Name.Value, bits, x.Append)
}

// mapfileValues are the options of mapfile (readarray) that take a value.
var mapfileValues = set("-d", "-n", "-O", "-s", "-u", "-C", "-c")

// arrayRead returns the array mapfile or readarray c fills: its operand,
// or MAPFILE.
func arrayRead(c *syntax.CallExpr) string {
	args := make([]arg, 0, len(c.Args)-1)
	for _, w := range c.Args[1:] {
		t, ok := wordText(w)
		args = append(args, arg{text: t, lit: ok})
	}
	ops := operands(args, mapfileValues, true, nil)
	if len(ops) == 0 {
		return "MAPFILE"
	}
	if !ops[0].lit || !syntax.ValidName(ops[0].text) {
		return ""
	}
	return ops[0].text
}

// substFed gives the variables read, mapfile or readarray set what the
// statement's input holds when that input is a process substitution or a
// here-string made from a download or a decoder (mapfile -t L < <(curl
// …), read X <<< "$(curl …)").
func (s *scan) substFed(st *syntax.Stmt) {
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		if r.Op != syntax.RdrIn && r.Op != syntax.WordHdoc {
			continue
		}
		if r.Op == syntax.RdrIn && (len(r.Word.Parts) != 1 || !isProcIn(r.Word.Parts[0])) {
			continue
		}
		if bits := s.heldBits(r.Word); bits != 0 {
			s.readsFrom(&syntax.Stmt{Cmd: st.Cmd}, bits)
		}
	}
}

// isProcIn reports whether p is a process substitution commands read
// from, <(…).
func isProcIn(p syntax.WordPart) bool {
	ps, ok := p.(*syntax.ProcSubst)
	return ok && ps.Op == syntax.CmdIn
}

// defineFunc records a function the script defines, so that what calling
// it does in a substitution is known (f() { curl …; }; eval "$(f)").
func (s *scan) defineFunc(x *syntax.FuncDecl) {
	if x.Name == nil || x.Body == nil {
		return
	}
	if s.funcs == nil {
		s.funcs = map[string]*syntax.Stmt{}
	}
	if len(s.funcs) < maxFuncs || s.funcs[x.Name.Value] != nil {
		s.funcs[x.Name.Value] = x.Body
		delete(s.funcBits, x.Name.Value)
		delete(s.funcOut, x.Name.Value)
	}
}

// maxFuncs bounds the functions a scan keeps.
const maxFuncs = 64

// funcDoes reports whether c calls a function of the script whose body
// downloads or decodes; a function already being read (one calling
// itself) is not read again.
func (s *scan) funcDoes(c *syntax.CallExpr) (fetches, decodes bool) {
	if len(s.funcs) == 0 || len(c.Args) == 0 {
		return false, false
	}
	name, ok := wordText(c.Args[0])
	if !ok {
		return false, false
	}
	body := s.funcs[name]
	if body == nil {
		return false, false
	}
	if s.inFunc[name] {
		s.funcCut = true // what this call does is read where it started
		return false, false
	}
	if bits, done := s.funcBits[name]; done {
		return bits&heldFetched != 0, bits&heldDecoded != 0
	}
	if s.inFunc == nil {
		s.inFunc = map[string]bool{}
	}
	s.inFunc[name] = true
	outer := s.funcCut
	s.funcCut = false
	fetches, decodes = s.stmtsDo([]*syntax.Stmt{body})
	delete(s.inFunc, name)
	cut := s.funcCut
	s.funcCut = outer || cut
	var bits uint8
	if fetches {
		bits |= heldFetched
	}
	if decodes {
		bits |= heldDecoded
	}
	if cut {
		// A call back into a function still being read was left out:
		// the result holds for this reading only.
		return fetches, decodes
	}
	if s.funcBits == nil {
		s.funcBits = map[string]uint8{}
	}
	s.funcBits[name] = bits // read once: the body says the same each time
	return fetches, decodes
}

// printfInto records what printf -v NAME FORMAT ARGS… puts in NAME: the
// text of its format and arguments, downloaded or decoded when a
// substitution or a held variable among them is.
func (s *scan) printfInto(args []*syntax.Word) {
	if len(args) < 3 {
		return
	}
	if t, ok := wordText(args[1]); !ok || t != "-v" {
		return
	}
	name, ok := wordText(args[2])
	if !ok || !syntax.ValidName(name) {
		return
	}
	s.holdText(name, s.heldBits(args[3:]...), false)
}

// funcPrints returns what the body of function name writes out: the
// credentials or the token a command of it writes to the function's
// output (a command whose output is redirected elsewhere does not). A
// function being read now (one calling itself) writes out nothing more.
func (s *scan) funcPrints(name string) cmdInfo {
	if out, done := s.funcOut[name]; done {
		return out
	}
	if s.inPrint[name] {
		s.printCut = true
		return cmdInfo{}
	}
	if s.inPrint == nil {
		s.inPrint = map[string]bool{}
	}
	s.inPrint[name] = true
	outer := s.printCut
	s.printCut = false
	var out cmdInfo
	syntax.Walk(s.funcs[name], func(n syntax.Node) bool {
		if out.secrets != "" || s.a.budget <= 0 {
			return false
		}
		s.a.budget--
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.FuncDecl:
			return false
		case *syntax.Stmt:
			if writesElsewhere(x) {
				return false
			}
		case *syntax.CallExpr:
			info := s.call(x)
			if len(x.Args) > 0 {
				// A function defined after this body was read: its
				// call was judged before the function was known.
				if n, ok := wordText(x.Args[0]); ok && s.funcs[n] != nil {
					called := s.funcPrints(n)
					info.secrets = cmp.Or(info.secrets, called.secrets)
					if info.token == nil {
						info.token = called.token
					}
				}
			}
			out.secrets = info.secrets
			if out.token == nil {
				out.token = info.token
			}
		}
		return true
	})
	delete(s.inPrint, name)
	cut := s.printCut
	s.printCut = outer || cut
	out = cmdInfo{secrets: out.secrets, token: out.token}
	if cut {
		return out // a call back into a function being read was left out
	}
	if s.funcOut == nil {
		s.funcOut = map[string]cmdInfo{}
	}
	s.funcOut[name] = out
	return out
}

// writesElsewhere reports whether a statement's standard output goes to
// a file or another descriptor rather than on.
func writesElsewhere(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.DplOut:
			if r.N == nil || r.N.Value == "1" {
				return true
			}
		}
	}
	return false
}

// secretsFed gives the variables read, mapfile or readarray set from a
// file the statement reads on its input the credentials or the token
// the file holds (read -r K < ~/.netrc; mapfile -t L < ~/.aws/credentials).
func (s *scan) secretsFed(st *syntax.Stmt) {
	for _, r := range st.Redirs {
		if r.Op != syntax.RdrIn || r.N != nil && r.N.Value != "0" {
			continue
		}
		t, ok := s.wordValue(r.Word)
		if !ok {
			continue
		}
		what, tok := s.a.credentialAt(t), s.a.tokenAt(t)
		if what == "" && tok == nil {
			continue
		}
		stdinCalls(&syntax.Stmt{Cmd: st.Cmd}, 0, func(c *syntax.CallExpr) {
			name := s.readsInto(c)
			if name == "" {
				return
			}
			if what != "" {
				if s.secretVars == nil {
					s.secretVars = map[string]string{}
				}
				s.secretVars[name] = what
				return
			}
			if s.tokenVars == nil {
				s.tokenVars = map[string]*tokenSource{}
			}
			s.tokenVars[name] = tok
		})
	}
}
