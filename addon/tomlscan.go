package addon

import (
	"strconv"
	"strings"
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
	lines     map[string]int
	deepLine  int // line where nesting first exceeds MaxDepth, or 0
	deepPath  string
	wideLine  int // line of the first array longer than MaxArgs, or 0
	widePath  string
	arrayIdx  map[string]int // array-of-tables path -> index of its last element
	src       string
	pos, line int
	// segs backs the key segments keyPath returns, which every caller has
	// finished with before the next call.
	segs [4]string
}

func scanTOML(src string) *tomlPositions {
	s := &tomlPositions{lines: make(map[string]int, positionsHint(src)), src: src, line: 1}
	s.run()
	return s
}

// positionsHint estimates how many positions src records (about one per key
// and per array element), bounded so that a large document cannot make the
// scanner reserve much memory before it has read anything.
func positionsHint(src string) int {
	n := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '=', ',', '[':
			n++
		}
	}
	return min(n, 128)
}

func (s *tomlPositions) set(path string, line int) {
	if _, ok := s.lines[path]; !ok && path != "" {
		s.lines[path] = line
	}
}

func (s *tomlPositions) peek() byte {
	if s.pos < len(s.src) {
		return s.src[s.pos]
	}
	return 0
}

// skip passes blanks; with newlines it also passes line breaks and comments.
func (s *tomlPositions) skip(newlines bool) {
	for s.pos < len(s.src) {
		switch c := s.src[s.pos]; {
		case c == ' ' || c == '\t' || c == '\r':
			s.pos++
		case c == '#':
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
		case c == '\n' && newlines:
			s.line++
			s.pos++
		default:
			return
		}
	}
}

func (s *tomlPositions) run() {
	table := ""
	tableDepth := 0
	for {
		s.skip(true)
		if s.pos >= len(s.src) {
			return
		}
		line := s.line
		if s.peek() == '[' {
			array := strings.HasPrefix(s.src[s.pos:], "[[")
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
			if !strings.HasPrefix(s.src[s.pos:], closing) {
				return
			}
			s.pos += len(closing)
			table = s.headerPath(segs, array, line)
			tableDepth = len(segs)
			if array {
				tableDepth++
			}
			if tableDepth > MaxDepth && s.deepLine == 0 {
				s.deepLine, s.deepPath = line, table
			}
			continue
		}
		segs, ok := s.keyPath()
		if !ok {
			return
		}
		path := table
		for _, k := range segs {
			path = join(path, k)
			s.set(path, line)
		}
		s.skip(false)
		if s.peek() != '=' {
			return
		}
		s.pos++
		if !s.value(path, tableDepth+len(segs)) {
			return
		}
	}
}

// headerPath resolves a table header to its path, inserting the current
// index of every enclosing array of tables, and records its line.
func (s *tomlPositions) headerPath(segs []string, array bool, line int) string {
	path := ""
	for i, k := range segs {
		path = join(path, k)
		last := i == len(segs)-1
		if last && array {
			idx, seen := s.arrayIdx[path]
			if seen {
				idx++
			}
			if s.arrayIdx == nil {
				s.arrayIdx = map[string]int{}
			}
			s.arrayIdx[path] = idx
			s.set(path, line)
			path += "[" + strconv.Itoa(idx) + "]"
			s.set(path, line)
			return path
		}
		if idx, ok := s.arrayIdx[path]; ok {
			path += "[" + strconv.Itoa(idx) + "]"
		}
		s.set(path, line)
	}
	return path
}

// keyPath reads a dotted key (bare or quoted segments).
func (s *tomlPositions) keyPath() ([]string, bool) {
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

func (s *tomlPositions) key() (string, bool) {
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
			return "", false
		}
		s.pos++
		raw := s.src[start:s.pos]
		if k, err := strconv.Unquote(raw); err == nil {
			return k, true
		}
		return raw[1 : len(raw)-1], true
	case '\'':
		end := strings.IndexAny(s.src[s.pos+1:], "'\n")
		if end < 0 || s.src[s.pos+1+end] != '\'' {
			return "", false
		}
		k := s.src[s.pos+1 : s.pos+1+end]
		s.pos += end + 2
		return k, true
	}
	start := s.pos
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		if c == '_' || c == '-' || isAlnum(c) {
			s.pos++
			continue
		}
		break
	}
	return s.src[start:s.pos], s.pos > start
}

// value passes one value, recording the lines of array elements and
// inline-table keys under path. depth is the nesting of path.
func (s *tomlPositions) value(path string, depth int) bool {
	if depth > MaxDepth {
		if s.deepLine == 0 {
			s.deepLine, s.deepPath = s.line, path
		}
		return false
	}
	s.skip(false)
	switch c := s.peek(); c {
	case '"', '\'':
		return s.str(c)
	case '[':
		s.pos++
		for i := 0; ; i++ {
			s.skip(true)
			if s.peek() == ']' {
				s.pos++
				return true
			}
			if i == MaxArgs {
				// No list may be this long; stop before the decoder
				// builds it.
				s.wideLine, s.widePath = s.line, path
				return false
			}
			el := indexPath(path, i)
			s.set(el, s.line)
			if !s.value(el, depth+1) {
				return false
			}
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
			p := path
			for _, k := range segs {
				p = join(p, k)
				s.set(p, line)
			}
			s.skip(false)
			if s.peek() != '=' {
				return false
			}
			s.pos++
			if !s.value(p, depth+len(segs)) {
				return false
			}
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
	if strings.HasPrefix(s.src[s.pos:], triple) {
		s.pos += 3
		for s.pos < len(s.src) {
			if strings.HasPrefix(s.src[s.pos:], triple) {
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
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case q:
			s.pos++
			return true
		case '\n':
			return false
		case '\\':
			if q == '"' {
				s.pos++
			}
		}
		s.pos++
	}
	return false
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
