package addon

// lineIndex maps field paths to their 1-based lines in the source (0
// where the line is not known). A manifest records a dozen paths or so
// and reads each a few times: up to maxListed entries are kept in a list
// searched in order, which costs less than building a hash map for so
// few reads; past that, in a map, so that a large document still looks a
// path up in constant time. The zero value is empty and ready to use.
//
// The list may hold a path more than once (the scanner records a table's
// path again at each header that extends it); the first entry is the one
// that counts, as the first line recorded for a path is the one a map
// built from the same records keeps.
type lineIndex struct {
	list []lineEntry
	m    map[string]int
}

type lineEntry struct {
	path string
	line int
}

// maxListed is the longest list before a lineIndex moves to a map.
const maxListed = 24

// get returns the line of path and whether path is recorded. get, size
// and all take a nil *lineIndex as empty.
func (x *lineIndex) get(path string) (int, bool) {
	if x == nil {
		return 0, false
	}
	if x.m != nil {
		l, ok := x.m[path]
		return l, ok
	}
	for i := range x.list {
		if x.list[i].path == path {
			return x.list[i].line, true
		}
	}
	return 0, false
}

// set records path at line, replacing the line recorded before.
func (x *lineIndex) set(path string, line int) {
	if x.m == nil {
		for i := range x.list {
			if x.list[i].path == path {
				x.list[i].line = line
				return
			}
		}
		if len(x.list) < maxListed {
			x.list = append(x.list, lineEntry{path, line})
			return
		}
		x.toMap()
	}
	x.m[path] = line
}

// toMap moves the list into a map.
func (x *lineIndex) toMap() {
	x.m = make(map[string]int, 2*len(x.list))
	// Last entry first, so that the first entry for a path stays.
	for i := len(x.list) - 1; i >= 0; i-- {
		x.m[x.list[i].path] = x.list[i].line
	}
	x.list = nil
}

// del removes path.
func (x *lineIndex) del(path string) {
	if x.m != nil {
		delete(x.m, path)
		return
	}
	out := x.list[:0]
	for _, e := range x.list {
		if e.path != path {
			out = append(out, e)
		}
	}
	clear(x.list[len(out):])
	x.list = out
}

// size is the number of entries (in a list, repeated paths included).
func (x *lineIndex) size() int {
	if x == nil {
		return 0
	}
	if x.m != nil {
		return len(x.m)
	}
	return len(x.list)
}

// all calls yield with every path and its line, each path once, in no
// particular order, until yield returns false.
func (x *lineIndex) all(yield func(path string, line int) bool) {
	if x == nil {
		return
	}
	if x.m != nil {
		for p, l := range x.m {
			if !yield(p, l) {
				return
			}
		}
		return
	}
	for i, e := range x.list {
		if x.firstAt(i) && !yield(e.path, e.line) {
			return
		}
	}
}

// firstAt reports whether list[i] is the first entry for its path.
func (x *lineIndex) firstAt(i int) bool {
	for j := range i {
		if x.list[j].path == x.list[i].path {
			return false
		}
	}
	return true
}
