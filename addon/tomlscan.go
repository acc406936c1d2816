package addon

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tomlPositions is what a light pass over TOML source learns before the
// real decoder runs: the line of every key, table header and array element
// (BurntSushi/toml does not export key positions), and whether brackets nest
// deeper than MaxDepth or an array is longer than any list may be.
//
// Paths use the raw keys as written, joined like field paths
// (`mcp.env.KEY`, `mcp.args[2]`, `dependencies[0].name`). The pass is
// tolerant: on anything it does not understand it stops and leaves the
// verdict to the decoder.
type tomlPositions struct {
	lines     *lineIndex
	deepLine  int // line where nesting first exceeds MaxDepth, or 0
	deepPath  string
	wideLine  int // line of the first array longer than MaxArgs, or 0
	widePath  string
	arrayIdx  map[string]int // array-of-tables path -> index of its last element
	src       []byte
	pos, line int
	// multiLine: the document holds a multi-line string, whose value
	// may hold line breaks.
	multiLine bool
	// segs backs the key segments keyPath returns, which every caller has
	// finished with before the next call.
	segs [4][]byte
	// path is the path being read. Each path recorded is copied to the end
	// of arena, and recs says where and on which line; lines is filled at
	// the end from one string made of arena, so that recording a path
	// costs no allocation of its own.
	path  []byte
	arena []byte
	recs  []pathRec
}

// pathRec is one recorded path, first seen on line: arena up to end, from
// the end of the record before.
type pathRec struct{ end, line int32 }

// scanBuffers is the memory a scan records into, kept between scans by
// ParseTOML (parseScratch) so that a scan of an ordinary manifest
// allocates only what it returns.
type scanBuffers struct {
	recs  []pathRec
	arena []byte
	path  []byte
}

// scanTOMLInto scans src, recording into buf, which it leaves with the
// memory it grew; the path it returns is buf's path, for the walker's
// lookups.
func scanTOMLInto(src []byte, buf *scanBuffers) tomlPositions {
	hint := positionsHint(src)
	s := tomlPositions{src: src, line: 1, recs: slices.Grow(buf.recs[:0], hint), arena: slices.Grow(buf.arena[:0], 12*hint),
		path: slices.Grow(buf.path[:0], 64)}
	s.run()
	s.lines = newLineIndex(string(s.arena), s.recs)
	buf.recs, buf.arena = s.recs[:0], s.arena[:0]
	s.recs, s.arena = nil, nil
	s.path = s.path[:0] // the walker's scratch from here on
	return s
}

// positionsHint estimates how many positions src records: about one per
// key, table header and array element, which in TOML as written take
// more than 16 bytes each on average, bounded so that a large document
// cannot make the scanner reserve much memory before it has read
// anything. The scan's buffers are kept between scans (parseScratch), so
// the hint sizes only their first use; it reads only the length, as
// counting lines and commas would cost a pass over the document.
func positionsHint(src []byte) int {
	return min(len(src)/16+2, 128)
}

// set records the current path at line; the first line recorded for a path
// is the one kept.
func (s *tomlPositions) set(line int) {
	if len(s.path) == 0 || len(s.arena) > 8*len(s.src)+4096 {
		// Long paths repeated over many keys could make the record far
		// larger than the document: past this bound the walker finds the
		// lines of the rest from their parents.
		return
	}
	s.arena = append(s.arena, s.path...)
	s.recs = append(s.recs, pathRec{int32(len(s.arena)), int32(line)})
}

// push adds a key to the current path and returns the length to go back
// to.
func (s *tomlPositions) push(k []byte) int {
	n := len(s.path)
	if n > 0 {
		s.path = append(s.path, '.')
	}
	s.path = append(s.path, k...)
	return n
}

// pushIndex adds an index to the current path.
func (s *tomlPositions) pushIndex(i int) int {
	n := len(s.path)
	s.path = append(s.path, '[')
	s.path = strconv.AppendInt(s.path, int64(i), 10)
	s.path = append(s.path, ']')
	return n
}

func (s *tomlPositions) peek() byte {
	if s.pos < len(s.src) {
		return s.src[s.pos]
	}
	return 0
}

// skip passes blanks; with newlines it also passes line breaks and comments.
//
// This loop and the two others over single bytes (a bare key's, a one-line
// string's) read the source and the offset from locals and store the
// offset once at the end: written on s's fields, each byte cost a load and
// a store more.
func (s *tomlPositions) skip(newlines bool) {
	src, i := s.src, s.pos
loop:
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\n' && newlines:
			s.line++
			i++
		default:
			break loop
		}
	}
	s.pos = i
}

func (s *tomlPositions) run() {
	var tableBuf [128]byte // the current table's path; most fit
	table := tableBuf[:0]
	tableDepth := 0
	for {
		s.skip(true)
		if s.pos >= len(s.src) {
			return
		}
		line := s.line
		if s.peek() == '[' {
			array := hasPrefix(s.src[s.pos:], "[[")
			if array {
				s.pos += 2
			} else {
				s.pos++
			}
			segs, ok := s.keyPath()
			if !ok {
				return
			}
			s.skip(false)
			closing := "]"
			if array {
				closing = "]]"
			}
			if !hasPrefix(s.src[s.pos:], closing) {
				return
			}
			s.pos += len(closing)
			s.headerPath(segs, array, line)
			table = append(table[:0], s.path...)
			tableDepth = len(segs)
			if array {
				tableDepth++
			}
			if tableDepth > MaxDepth && s.deepLine == 0 {
				s.deepLine, s.deepPath = line, string(table)
			}
			continue
		}
		segs, ok := s.keyPath()
		if !ok {
			return
		}
		s.path = append(s.path[:0], table...)
		for _, k := range segs {
			s.push(k)
			s.set(line)
		}
		s.skip(false)
		if s.peek() != '=' {
			return
		}
		s.pos++
		if !s.value(tableDepth + len(segs)) {
			return
		}
	}
}

// headerPath resolves a table header to its path (left in s.path),
// inserting the current index of every enclosing array of tables, and
// records its line.
func (s *tomlPositions) headerPath(segs [][]byte, array bool, line int) {
	s.path = s.path[:0]
	for i, k := range segs {
		s.push(k)
		last := i == len(segs)-1
		if last && array {
			p := string(s.path)
			idx, seen := s.arrayIdx[p]
			if seen {
				idx++
			}
			if s.arrayIdx == nil {
				s.arrayIdx = map[string]int{}
			}
			s.arrayIdx[p] = idx
			s.set(line)
			s.pushIndex(idx)
			s.set(line)
			return
		}
		if s.arrayIdx != nil {
			if idx, ok := s.arrayIdx[string(s.path)]; ok {
				s.pushIndex(idx)
			}
		}
		s.set(line)
	}
}

// keyPath reads a dotted key (bare or quoted segments).
func (s *tomlPositions) keyPath() ([][]byte, bool) {
	segs := s.segs[:0]
	for {
		s.skip(false)
		k, ok := s.key()
		if !ok {
			return nil, false
		}
		segs = append(segs, k)
		s.skip(false)
		if s.peek() != '.' {
			return segs, true
		}
		s.pos++
	}
}

func (s *tomlPositions) key() ([]byte, bool) {
	switch s.peek() {
	case '"':
		start := s.pos
		s.pos++
		for s.pos < len(s.src) && s.src[s.pos] != '"' && s.src[s.pos] != '\n' {
			if s.src[s.pos] == '\\' {
				s.pos++
			}
			s.pos++
		}
		if s.peek() != '"' {
			return nil, false
		}
		s.pos++
		raw := s.src[start:s.pos]
		// Without a backslash, in valid UTF-8, the key is the bytes
		// between the quotes (what strconv.Unquote returns, without
		// making a string of them).
		if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
			if k, err := strconv.Unquote(string(raw)); err == nil {
				return []byte(k), true
			}
		}
		return raw[1 : len(raw)-1], true
	case '\'':
		end := bytes.IndexAny(s.src[s.pos+1:], "'\n")
		if end < 0 || s.src[s.pos+1+end] != '\'' {
			return nil, false
		}
		k := s.src[s.pos+1 : s.pos+1+end]
		s.pos += end + 2
		return k, true
	}
	src, start, i := s.src, s.pos, s.pos
	for i < len(src) && bareKeyByte[src[i]] {
		i++
	}
	s.pos = i
	return src[start:i], i > start
}

// bareKeyByte marks the bytes of a bare key: ASCII letters, digits, '_'
// and '-'.
var bareKeyByte = func() (t [256]bool) {
	for c := 0; c < len(t); c++ {
		t[c] = c == '_' || c == '-' || isAlnum(byte(c))
	}
	return t
}()

// value passes one value, recording the lines of array elements and
// inline-table keys under the current path. depth is the nesting of the
// path.
func (s *tomlPositions) value(depth int) bool {
	if depth > MaxDepth {
		if s.deepLine == 0 {
			s.deepLine, s.deepPath = s.line, string(s.path)
		}
		return false
	}
	s.skip(false)
	switch c := s.peek(); c {
	case '"', '\'':
		return s.str(c)
	case '[':
		s.pos++
		// An element on the line the array opens on has the array's
		// line: it is not recorded (Manifest.HasPath and Line know the
		// elements of the model's lists).
		open := s.line
		for i := 0; ; i++ {
			s.skip(true)
			if s.peek() == ']' {
				s.pos++
				return true
			}
			if i == MaxArgs {
				// No list may be this long; stop before the decoder
				// builds it.
				s.wideLine, s.widePath = s.line, string(s.path)
				return false
			}
			n := s.pushIndex(i)
			if s.line != open {
				s.set(s.line)
			}
			if !s.value(depth + 1) {
				return false
			}
			s.path = s.path[:n]
			s.skip(true)
			switch s.peek() {
			case ',':
				s.pos++
			case ']':
				s.pos++
				return true
			default:
				return false
			}
		}
	case '{':
		s.pos++
		for {
			s.skip(true)
			if s.peek() == '}' {
				s.pos++
				return true
			}
			line := s.line
			segs, ok := s.keyPath()
			if !ok {
				return false
			}
			n := len(s.path)
			for _, k := range segs {
				s.push(k)
				s.set(line)
			}
			s.skip(false)
			if s.peek() != '=' {
				return false
			}
			s.pos++
			if !s.value(depth + len(segs)) {
				return false
			}
			s.path = s.path[:n]
			s.skip(true)
			switch s.peek() {
			case ',':
				s.pos++
			case '}':
				s.pos++
				return true
			default:
				return false
			}
		}
	}
	// A scalar: number, boolean or date-time, up to a delimiter.
	start := s.pos
	for s.pos < len(s.src) && strings.IndexByte(",]}\n#", s.src[s.pos]) < 0 {
		s.pos++
	}
	return s.pos > start
}

// str passes a basic or literal string, single- or multi-line.
func (s *tomlPositions) str(q byte) bool {
	triple := `"""`
	if q == '\'' {
		triple = "'''"
	}
	if hasPrefix(s.src[s.pos:], triple) {
		s.multiLine = true
		s.pos += 3
		for s.pos < len(s.src) {
			if hasPrefix(s.src[s.pos:], triple) {
				s.pos += 3
				// Up to two more quotes may close a multi-line string.
				for i := 0; i < 2 && s.peek() == q; i++ {
					s.pos++
				}
				return true
			}
			switch s.src[s.pos] {
			case '\n':
				s.line++
			case '\\':
				if q == '"' {
					s.pos++
					if s.peek() == '\n' {
						s.line++
					}
				}
			}
			s.pos++
		}
		return false
	}
	s.pos++
	stops := &basicStringStops
	if q == '\'' {
		stops = &literalStringStops
	}
	src, i := s.src, s.pos
	for i < len(src) {
		// Pass to the next character that matters.
		for i < len(src) && !stops[src[i]] {
			i++
		}
		if i == len(src) {
			break
		}
		switch src[i] {
		case q:
			s.pos = i + 1
			return true
		case '\n':
			s.pos = i
			return false
		case '\\':
			i++ // only in a basic string: the escaped character
		}
		i++
	}
	s.pos = i
	return false
}

// basicStringStops and literalStringStops are the bytes that end or
// escape something in a one-line basic and literal string: its quote, a
// line break, and in a basic string the backslash.
var basicStringStops, literalStringStops = func() (basic, literal [256]bool) {
	basic['"'], basic['\n'], basic['\\'] = true, true, true
	literal['\''], literal['\n'] = true, true
	return basic, literal
}()

// hasPrefix reports whether b begins with p.
func hasPrefix(b []byte, p string) bool {
	return len(b) >= len(p) && string(b[:len(p)]) == p
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// indexPath returns path[i].
func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}
