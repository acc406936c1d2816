package addon

import "slices"

// lineIndex maps field paths to their 1-based lines in the source: what
// Manifest.Line and HasPath answer from, and what the walker looks parents'
// lines up in.
//
// A TOML manifest's index starts as the scanner's records: the paths it
// recorded, back to back in one string, each with its line, in the order
// the scanner met them (the first record of a path is its line). An
// ordinary manifest records a few dozen paths at most, and looking one up
// by comparing it with each record costs less than building a map of them
// would, which every parse paid although most lookups are for a handful of
// paths. A document with more records than maxScannedLines gets a map, so
// that lookups stay constant-time however large the document. Paths added
// later (by the walker, for fields the scanner did not record, or from a
// JSON document's decoder) go into the map.
type lineIndex struct {
	all  string    // the recorded paths, back to back
	recs []pathRec // where each ends in all, and its line; dropped: line -1
	m    map[string]int
}

// maxScannedLines is the number of records up to which a lineIndex keeps
// them as they are rather than in a map.
const maxScannedLines = 64

// newLineIndex returns the index of the scanner's records: paths back to
// back in all, recs saying where each ends and its line. It keeps a copy
// of recs, not recs.
func newLineIndex(all string, recs []pathRec) *lineIndex {
	if len(recs) > maxScannedLines {
		x := &lineIndex{all: all, recs: recs}
		x.m = x.toMap()
		x.all, x.recs = "", nil
		return x
	}
	if len(recs) <= smallLineIndex {
		// The index and its records in one allocation.
		b := &struct {
			x lineIndex
			r [smallLineIndex]pathRec
		}{x: lineIndex{all: all}}
		b.x.recs = append(b.r[:0:len(recs)], recs...)
		return &b.x
	}
	return &lineIndex{all: all, recs: slices.Clone(recs)}
}

// smallLineIndex is the number of records up to which newLineIndex keeps
// them in the index's own allocation: about what an ordinary manifest
// records.
const smallLineIndex = 8

// toMap returns every recorded path with its first line, as a new map.
func (x *lineIndex) toMap() map[string]int {
	out := make(map[string]int, len(x.recs)+len(x.m))
	// Last record first, so that the first line recorded for a path is
	// the one that stays.
	for i := len(x.recs) - 1; i >= 0; i-- {
		if k := x.recAt(i); k != "" && x.recs[i].line >= 0 {
			out[k] = int(x.recs[i].line)
		}
	}
	for k, l := range x.m {
		out[k] = l
	}
	return out
}

// recAt is the path of record i.
func (x *lineIndex) recAt(i int) string {
	start := int32(0)
	if i > 0 {
		start = x.recs[i-1].end
	}
	return x.all[start:x.recs[i].end]
}

// get returns the line of path and whether path is in the index.
func (x *lineIndex) get(path string) (int, bool) {
	if x == nil {
		return 0, false
	}
	if l, ok := x.m[path]; ok {
		return l, true
	}
	if path == "" {
		return 0, false
	}
	start := int32(0)
	for _, r := range x.recs {
		if int(r.end-start) == len(path) && x.all[start:r.end] == path {
			if r.line < 0 {
				return 0, false // dropped
			}
			return int(r.line), true
		}
		start = r.end
	}
	return 0, false
}

// getBytes is get for a path in a byte slice, which it does not copy.
func (x *lineIndex) getBytes(path []byte) (int, bool) {
	if x == nil {
		return 0, false
	}
	if l, ok := x.m[string(path)]; ok {
		return l, true
	}
	if len(path) == 0 {
		return 0, false
	}
	start := int32(0)
	for _, r := range x.recs {
		if int(r.end-start) == len(path) && x.all[start:r.end] == string(path) {
			if r.line < 0 {
				return 0, false // dropped
			}
			return int(r.line), true
		}
		start = r.end
	}
	return 0, false
}

// line returns the line of path, or 0.
func (x *lineIndex) line(path string) int {
	l, _ := x.get(path)
	return l
}

// set records path at line.
func (x *lineIndex) set(path string, line int) {
	if x.m == nil {
		x.m = make(map[string]int)
	}
	x.m[path] = line
}

// drop takes path out of the index.
func (x *lineIndex) drop(path string) {
	delete(x.m, path)
	start := int32(0)
	for i, r := range x.recs {
		if int(r.end-start) == len(path) && x.all[start:r.end] == path {
			x.recs[i].line = -1
		}
		start = r.end
	}
}

// size is about how many paths the index holds.
func (x *lineIndex) size() int {
	if x == nil {
		return 0
	}
	return len(x.recs) + len(x.m)
}
