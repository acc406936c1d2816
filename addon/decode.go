package addon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
)

// ParseTOML decodes and validates a `lean-ctx-addon.toml` manifest.
//
// Decoding is strict: an unknown key at any level, a value of the wrong type
// and an enum value outside its set are errors. Every refusal is a
// *registry.ValidationError (errors.Is(err, registry.ErrInvalid)) listing
// each refused field with its path and line; an input over
// MaxManifestBytes also matches registry.ErrTooLarge. Messages never echo a
// value or an unsafe key. ParseTOML is safe for concurrent use.
func ParseTOML(b []byte) (*Manifest, error) {
	if len(b) > MaxManifestBytes {
		return nil, tooLarge("manifest", MaxManifestBytes)
	}
	b = bytes.TrimPrefix(b, byteOrderMark)
	sc := scratchPool.Get().(*parseScratch)
	defer sc.release()
	// The scan and the document check read b itself, and the decoder
	// copies it as it reads: no copy of the manifest is made here.
	pos := scanTOMLInto(b, &sc.scan)
	plain := plainText(b, true)
	if !plain {
		if fe := rawProblem(b, pos.lines); fe != nil {
			return nil, &registry.ValidationError{Fields: []registry.FieldError{*fe}}
		}
	}
	if pos.deepLine > 0 {
		return nil, &registry.ValidationError{Fields: []registry.FieldError{{
			Line: pos.deepLine, Message: "tables and arrays nest deeper than " + strconv.Itoa(MaxDepth) + " levels"}}}
	}
	if pos.wideLine > 0 {
		return nil, &registry.ValidationError{Fields: []registry.FieldError{{
			Path: printablePath(pos.widePath), Line: pos.wideLine, Message: "has more than " + strconv.Itoa(MaxArgs) + " elements"}}}
	}
	// Into an empty interface the decoder hands over the tables it built;
	// into a map it would copy the top level and record its keys again.
	// The interface and the reader are the scratch's, so that handing
	// the decoder pointers to them allocates neither. toml.Decode is this
	// call on a strings.Reader.
	sc.in.Reset(b)
	if _, err := toml.NewDecoder(&sc.in).Decode(&sc.root); err != nil {
		return nil, tomlError(string(b), err)
	}
	root := sc.root
	w := &sc.w
	*w = walker{lines: pos.lines, fieldBuf: sc.fields[:0]}
	// With no tab, no escape and no multi-line string in a document of
	// printable ASCII, no value or key can hold another character.
	w.plain = plain && !pos.multiLine && oneLineStrings(b)
	// Without a prefix the paths the scanner recorded are the model's
	// field paths, with their lines: the manifest keeps that map rather
	// than building a second one, and the walker adds what the scanner
	// did not reach.
	w.shareLines = true
	w.scratch = pos.path
	m := w.manifest(at{}, root)
	return w.finish(m)
}

// parseScratch is the memory one ParseTOML works in beyond what it
// returns: the scanner's records and the walker with its lists of tables'
// fields and its path buffer. A pool keeps it between calls, so that
// parsing an ordinary manifest does not allocate it again.
type parseScratch struct {
	scan   scanBuffers
	w      walker
	fields []field
	root   any          // what the decoder decodes into
	in     bytes.Reader // what it reads from
}

var scratchPool = sync.Pool{New: func() any { return new(parseScratch) }}

// maxKeptScratch bounds, in elements, each buffer a parseScratch keeps:
// past it (a large document) the buffer is left to the collector rather
// than held by the pool.
const maxKeptScratch = 4096

// release hands sc back to the pool, without what could keep a
// manifest's strings alive.
func (sc *parseScratch) release() {
	keep := func(n int) bool { return n <= maxKeptScratch }
	if w := &sc.w; keep(cap(w.scratch)) {
		sc.scan.path = w.scratch[:0]
	} else {
		sc.scan.path = nil
	}
	if fields := sc.w.fieldBuf; keep(cap(fields)) {
		// The walker only appends to its list, and the lists it hands
		// out are capped at their length: past fields' length nothing
		// was written, and clearing up to it leaves the whole list zero
		// (clearing its capacity cost a write barrier per field beyond
		// it while the collector marks).
		clear(fields)
		sc.fields = fields[:0]
	} else {
		sc.fields = nil
	}
	if !keep(cap(sc.scan.recs)) {
		sc.scan.recs = nil
	}
	if !keep(cap(sc.scan.arena)) {
		sc.scan.arena = nil
	}
	sc.w = walker{}
	sc.root = nil
	sc.in.Reset(nil)
	scratchPool.Put(sc)
}

// ParseJSON decodes and validates one manifest in its JSON form: one entry
// of a registry file, `{"addon":{…},"mcp":{…},"capabilities":{…},…}`, with
// the same keys, types and rules as the TOML form. Errors are as for
// ParseTOML; JSON null is refused wherever a value is expected, and so are
// duplicate keys. ParseJSON is safe for concurrent use.
func ParseJSON(b []byte) (*Manifest, error) {
	if len(b) > MaxManifestBytes {
		return nil, tooLarge("manifest", MaxManifestBytes)
	}
	b = bytes.TrimPrefix(b, byteOrderMark)
	if fe := rawProblem(b, nil); fe != nil {
		return nil, &registry.ValidationError{Fields: []registry.FieldError{*fe}}
	}
	v, lines, fe := decodeJSON(b, MaxDepth, MaxArgs)
	if fe != nil {
		return nil, &registry.ValidationError{Fields: []registry.FieldError{*fe}}
	}
	w := newWalker(lines, "")
	m := w.manifest(at{}, v)
	return w.finish(m)
}

// ParseRegistryFile decodes and validates a whole registry file,
// `{"$schema": "…", "registry_version": 1, "addons": [ … ]}`, and returns
// its manifests in file order. Every entry must be valid: errors of all
// entries are reported together, their paths prefixed with the entry
// (`addons[3].mcp.args[0]`), and no manifest is returned when any entry is
// refused. The whole file is bounded by MaxRegistryFileBytes and
// MaxRegistryEntries; each manifest's lines are lines of the file.
func ParseRegistryFile(b []byte) ([]*Manifest, error) {
	if len(b) > MaxRegistryFileBytes {
		return nil, tooLarge("registry file", MaxRegistryFileBytes)
	}
	b = bytes.TrimPrefix(b, byteOrderMark)
	if fe := rawProblem(b, nil); fe != nil {
		return nil, &registry.ValidationError{Fields: []registry.FieldError{*fe}}
	}
	v, lines, fe := decodeJSON(b, MaxDepth+2, MaxRegistryEntries)
	if fe != nil {
		return nil, &registry.ValidationError{Fields: []registry.FieldError{*fe}}
	}
	top := newWalker(lines, "")
	root, ok := top.table(at{}, v)
	if !ok {
		return nil, top.result()
	}
	var entries []any
	for _, k := range sortedKeys(root) {
		a := at{}.key(k, plainKey(k) || k == "$schema")
		switch k {
		case "$schema":
			top.str(a, root[k])
		case "registry_version":
			if n, ok := top.integer(a, root[k]); ok && n != 1 {
				top.fail(a, "must be 1 (the only registry format registryd reads)")
			}
		case "addons":
			list, ok := root[k].([]any)
			if !ok {
				top.fail(a, "must be an array, not "+kindOf(root[k]))
				continue
			}
			if len(list) > MaxRegistryEntries {
				top.fail(a, "has more than "+strconv.Itoa(MaxRegistryEntries)+" entries")
				continue
			}
			entries = list
		default:
			top.unknown(at{}, k)
		}
	}
	if _, ok := root["addons"]; !ok {
		top.fail(at{}.key("addons", true), "is required")
	}
	out := make([]*Manifest, 0, len(entries))
	for i, e := range entries {
		prefix := "addons[" + strconv.Itoa(i) + "]"
		w := newWalker(lines, prefix)
		w.errs = top.errs
		m := w.manifest(at{raw: prefix}, e)
		w.validate(m)
		top.errs = w.errs
		out = append(out, m)
	}
	if len(top.errs) > 0 {
		return nil, top.result()
	}
	return out, nil
}

// Validate checks a manifest against every rule ParseTOML applies after
// decoding: the slug, the install pin, capability names, enum values,
// forbidden characters and size bounds. It is for manifests built in code;
// a manifest returned by a Parse function already satisfies it. It returns
// nil or a *registry.ValidationError.
func Validate(m *Manifest) error {
	if m == nil {
		return &registry.ValidationError{Fields: []registry.FieldError{{Message: "no manifest"}}}
	}
	r := &report{m: m, bad: map[string]bool{}}
	r.validate(m)
	return r.result()
}

// byteOrderMark may open a document (some editors write it); it marks the
// encoding and is not content, so it is dropped. Anywhere else U+FEFF is a
// zero-width character and refused.
var byteOrderMark = []byte("\ufeff")

func tooLarge(what string, limit int) error {
	return &registry.ValidationError{TooLarge: true, Fields: []registry.FieldError{{
		Message: fmt.Sprintf("%s is larger than %d bytes", what, limit)}}}
}

// rawProblem refuses a document whose bytes are not valid UTF-8 or that
// carries, anywhere (comments included), a character that safetext refuses,
// other than the tab and line breaks that separate lines. lines, when known,
// names the key on the offending line.
func rawProblem(src []byte, lines *lineIndex) *registry.FieldError {
	if plainText(src, true) {
		return nil
	}
	err := safetext.Check(string(src), safetext.Lines|safetext.CR)
	if err == nil {
		return nil
	}
	var e *safetext.Error
	errors.As(err, &e)
	line := 1 + bytes.Count(src[:e.Offset], []byte{'\n'})
	var paths map[string]int
	if lines != nil {
		paths = lines.toMap()
	}
	return &registry.FieldError{Path: pathAtLine(paths, line), Line: line, Message: "document " + e.Error()}
}

// pathAtLine returns the longest printable path recorded at line, or "".
func pathAtLine(lines map[string]int, line int) string {
	best := ""
	for p, l := range lines {
		if l != line || len(p) < len(best) || (len(p) == len(best) && p > best) {
			continue
		}
		if printablePath(p) != "" {
			best = p
		}
	}
	return best
}

// printablePath returns p when it consists only of characters that field
// paths of safe keys use, else "".
func printablePath(p string) string {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(isAlnum(c) || strings.IndexByte("_-.[]", c) >= 0) {
			return ""
		}
	}
	return p
}

// at is a position in the document being walked: disp is the field path
// that may be printed, raw the path as written (for line lookup). Once a key
// that is not safe to print is passed, disp stops growing (hidden).
//
// key and index do not join strings: they add a pending step (a key or an
// index) to the parent's paths, up to two, and resolve joins them when a
// path is needed as a string (an error, a field the scanner did not record,
// a third step). Most fields are visited once and never printed, so most
// paths are never made.
type at struct {
	disp, raw string
	hidden    bool // the resolved paths are already hidden
	steps     [2]step
	n         int // pending steps
	shown     int // how many of the pending steps extend disp (the rest are hidden)
}

// step is one pending step of a path: a key, or an index when index >= 0.
type step struct {
	key   string
	index int
}

func (a at) isHidden() bool { return a.hidden || a.shown < a.n }

func (a at) key(k string, safe bool) at {
	return a.push(step{key: k, index: -1}, safe)
}

func (a at) index(i int) at {
	return a.push(step{index: i}, true)
}

func (a at) push(st step, safe bool) at {
	if a.n == len(a.steps) {
		a = a.resolve()
	}
	if safe && !a.isHidden() {
		a.shown++
	}
	a.steps[a.n] = st
	a.n++
	return a
}

func (st step) appendTo(b []byte, empty bool) []byte {
	if st.index >= 0 {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(st.index), 10)
		return append(b, ']')
	}
	if !empty {
		b = append(b, '.')
	}
	return append(b, st.key...)
}

func (st step) join(p string) string {
	if st.index >= 0 {
		return indexPath(p, st.index)
	}
	return join(p, st.key)
}

// resolve joins the pending steps. disp and raw share one string when they
// are equal, as they are for every printable path outside a registry file.
func (a at) resolve() at {
	if a.n == 0 {
		return a
	}
	r := a.raw
	for _, st := range a.steps[:a.n] {
		r = st.join(r)
	}
	out := at{raw: r, hidden: a.isHidden()}
	switch {
	case a.disp == a.raw && a.shown == a.n:
		out.disp = r
	default:
		out.disp = a.disp
		for _, st := range a.steps[:a.shown] {
			out.disp = st.join(out.disp)
		}
	}
	return out
}

// appendDisp appends the printable path of a (not hidden) to b.
func (a at) appendDisp(b []byte) []byte {
	b = append(b, a.disp...)
	for _, st := range a.steps[:a.shown] {
		b = st.appendTo(b, len(b) == 0)
	}
	return b
}

// report collects field errors for one document.
type report struct {
	// plain: every string the document decodes to is printable ASCII on
	// one line, so that no text needs a look at its characters.
	plain  bool
	prefix string // printed before every path (`addons[3]`)
	m      *Manifest
	errs   []registry.FieldError
	bad    map[string]bool // paths already refused, so one cause reports once
}

// add records an error unless path or one of its parents was already
// refused (a table of the wrong type need not also report its fields).
func (r *report) add(path string, line int, msg string) {
	for p := path; ; {
		if r.bad[r.prefix+"|"+p] {
			return
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			if p != "" && r.bad[r.prefix+"|"] {
				return
			}
			break
		}
		p = p[:i]
	}
	if r.bad == nil {
		r.bad = map[string]bool{}
	}
	r.bad[r.prefix+"|"+path] = true
	full := path
	if r.prefix != "" {
		full = join(r.prefix, path)
	}
	r.errs = append(r.errs, registry.FieldError{Path: full, Line: line, Message: msg})
}

// textProblem is the package's textProblem, known to be "" for a plain
// document.
func (r *report) textProblem(s string) string {
	if r.plain {
		return ""
	}
	return textProblem(s)
}

// oneLineStrings reports whether every string a TOML document decodes
// to is printable ASCII on one line, given that plainText (with lines)
// accepts the document and its scan met no multi-line string: then only
// a tab, or an escape (which needs a backslash), could put a character
// into a value that the document does not show.
func oneLineStrings(b []byte) bool {
	return bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b, '\t') < 0
}

// keyLineKey indexes Manifest.keyLines: the line of a map key that may not
// be printed, under the path of its map.
func keyLineKey(mapPath, key string) string { return mapPath + "\x00" + key }

// at records an error at a model path, with the line the decoder saw for it
// or for its nearest parent.
func (r *report) at(path, msg string) {
	r.add(path, lineOf(r.m, path), msg)
}

func lineOf(m *Manifest, path string) int {
	if m == nil {
		return 0
	}
	for p := path; p != ""; {
		if l := m.fields.line(p); l > 0 {
			return l
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0
}

func (r *report) result() error {
	if len(r.errs) == 0 {
		return nil
	}
	errs := r.errs
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Line != errs[j].Line {
			return errs[i].Line < errs[j].Line
		}
		return errs[i].Path < errs[j].Path
	})
	if len(errs) > MaxErrors {
		more := len(errs) - (MaxErrors - 1)
		errs = append(errs[:MaxErrors-1:MaxErrors-1], registry.FieldError{
			Message: fmt.Sprintf("%d more errors not shown", more)})
	}
	return &registry.ValidationError{Fields: errs}
}

// walker turns generic decoded values into a Manifest, refusing unknown
// keys and wrong types.
type walker struct {
	report
	lines *lineIndex // raw path -> line
	// shareLines: the manifest's fields are lines itself (raw and shown
	// paths are the same).
	shareLines bool
	// fieldBuf backs the lists sorted returns. It only grows: a list
	// handed out is never written again, so nested tables may take theirs
	// while an enclosing loop still reads its own.
	fieldBuf []field
	// scratch holds a path being looked up.
	scratch []byte
}

func newWalker(lines map[string]int, prefix string) *walker {
	return &walker{report: report{prefix: prefix}, lines: &lineIndex{m: lines}}
}

// field is a key of a decoded table with its value.
type field struct {
	key string
	val any
}

// sorted returns the keys of t with their values, in key order: the walk
// does not depend on the map's order (nor, where two errors share a path,
// does which one is reported), and a key's value comes with it rather
// than from a second lookup in t.
func (w *walker) sorted(t map[string]any) []field {
	if cap(w.fieldBuf) == 0 {
		// About one key per recorded position; bounded, as the lines of a
		// registry file are those of every entry.
		w.fieldBuf = make([]field, 0, min(max(w.lines.size(), 8), 64))
	}
	start := len(w.fieldBuf)
	for k, v := range t {
		w.fieldBuf = append(w.fieldBuf, field{k, v})
	}
	fs := w.fieldBuf[start:len(w.fieldBuf):len(w.fieldBuf)]
	slices.SortFunc(fs, func(a, b field) int { return strings.Compare(a.key, b.key) })
	return fs
}

func (w *walker) line(a at) int {
	a = a.resolve()
	for p := a.raw; p != ""; {
		if l := w.lines.line(p); l > 0 {
			return l
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0
}

func (w *walker) fail(a at, msg string) {
	a = a.resolve()
	w.add(a.disp, w.line(a), msg)
}

// seen records that the field at a is present, with its line.
func (w *walker) seen(a at) {
	if a.isHidden() || w.m == nil {
		return
	}
	// Most fields are known with their line already (the scanner's map is
	// the manifest's): look the path up without making its string.
	if cap(w.scratch) == 0 {
		w.scratch = make([]byte, 0, 64)
	}
	w.scratch = a.appendDisp(w.scratch[:0])
	if l, ok := w.m.fields.getBytes(w.scratch); ok && l != 0 {
		return
	}
	a = a.resolve()
	if a.disp == "" {
		return
	}
	// Record the path, and its line unless one is already known.
	if l, ok := w.m.fields.get(a.disp); !ok || l == 0 {
		w.m.fields.set(a.disp, w.line(a))
	}
}

func (w *walker) unknown(parent at, k string) {
	if plainKey(k) {
		w.fail(parent.key(k, true), "unknown key")
		return
	}
	w.fail(parent.key(k, false), "unknown key (its name is not printable)")
}

func (w *walker) finish(m *Manifest) (*Manifest, error) {
	w.validate(m)
	if err := w.result(); err != nil {
		return nil, err
	}
	return m, nil
}

func sortedKeys(t map[string]any) []string {
	ks := make([]string, 0, len(t))
	for k := range t {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, int:
		return "an integer"
	case float64:
		return "a float"
	case json.Number:
		return "a number"
	case time.Time:
		return "a date-time"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "an unsupported value"
}

func (w *walker) table(a at, v any) (map[string]any, bool) {
	t, ok := v.(map[string]any)
	if !ok {
		w.fail(a, "must be a table, not "+kindOf(v))
	}
	return t, ok
}

func (w *walker) str(a at, v any) string {
	s, ok := v.(string)
	if !ok {
		w.fail(a, "must be a string, not "+kindOf(v))
	}
	return s
}

func (w *walker) boolean(a at, v any) bool {
	b, ok := v.(bool)
	if !ok {
		w.fail(a, "must be a boolean, not "+kindOf(v))
	}
	return b
}

// integer accepts a TOML integer or a JSON number without fraction or
// exponent that fits in int64.
func (w *walker) integer(a at, v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case json.Number:
		if !strings.ContainsAny(string(n), ".eE") {
			if i, err := n.Int64(); err == nil {
				return i, true
			}
			w.fail(a, "is out of range")
			return 0, false
		}
	}
	w.fail(a, "must be an integer, not "+kindOf(v))
	return 0, false
}

func (w *walker) strList(a at, v any) []string {
	list, ok := v.([]any)
	if !ok {
		w.fail(a, "must be an array of strings, not "+kindOf(v))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		ea := a.index(i)
		if !w.shareLines { // Manifest.HasPath knows the elements of its lists
			w.seen(ea)
		}
		out = append(out, w.str(ea, e))
	}
	return out
}

func (w *walker) strMap(a at, v any, safe func(string) bool) map[string]string {
	t, ok := w.table(a, v)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(t))
	for _, e := range w.sorted(t) {
		k := e.key
		ka := a.key(k, safe(k))
		w.seen(ka)
		if ka.isHidden() && !a.isHidden() {
			if w.m.keyLines == nil {
				w.m.keyLines = map[string]int{}
			}
			w.m.keyLines[keyLineKey(a.resolve().disp, k)] = w.line(ka)
			if w.shareLines {
				// A key that may not be printed has no field path.
				w.m.fields.drop(ka.resolve().raw)
			}
		}
		out[k] = w.str(ka, e.val)
	}
	return out
}

func (w *walker) manifest(base at, v any) *Manifest {
	n := w.lines.size()
	if n > 256 {
		n = 256
	}
	m := &Manifest{}
	if w.shareLines && w.prefix == "" && w.lines != nil {
		m.fields = w.lines
	} else {
		m.fields = &lineIndex{m: make(map[string]int, n)}
	}
	m.MCP.Transport = TransportStdio
	w.m = m
	root, ok := w.table(base, v)
	if !ok {
		return m
	}
	// Entry-relative paths: the raw path keeps the entry prefix for line
	// lookup, the printed path starts at the manifest.
	child := func(k string) at { return at{disp: k, raw: join(base.raw, k)} }
	for _, e := range w.sorted(root) {
		k, val := e.key, e.val
		a := child(k)
		switch k {
		case "addon":
			w.seen(a)
			w.meta(a, val)
		case "mcp":
			w.seen(a)
			w.mcp(a, val)
		case "capabilities":
			w.seen(a)
			w.capabilities(a, val)
		case "install":
			w.seen(a)
			w.install(a, val)
		case "pricing":
			w.seen(a)
			w.pricing(a, val)
		case "artifacts":
			w.seen(a)
			w.artifacts(a, val)
		case "dependencies":
			w.seen(a)
			w.dependencies(a, val)
		default:
			w.unknown(at{raw: base.raw}, k)
		}
	}
	if _, ok := root["addon"]; !ok {
		w.fail(child("addon"), "is required")
	}
	return m
}

func (w *walker) meta(a at, v any) {
	t, ok := w.table(a, v)
	if !ok {
		return
	}
	md := &w.m.Addon
	for _, e := range w.sorted(t) {
		k, val := e.key, e.val
		f := a.key(k, true)
		switch k {
		case "name":
			md.Name = w.str(f, val)
		case "display_name":
			md.DisplayName = w.str(f, val)
		case "version":
			md.Version = w.str(f, val)
		case "description":
			md.Description = w.str(f, val)
		case "author":
			md.Author = w.str(f, val)
		case "homepage":
			md.Homepage = w.str(f, val)
		case "license":
			md.License = w.str(f, val)
		case "categories":
			md.Categories = w.strList(f, val)
		case "integration":
			md.Integration = w.str(f, val)
		case "keywords":
			md.Keywords = w.strList(f, val)
		case "min_lean_ctx":
			md.MinLeanCtx = w.str(f, val)
		case "verified":
			md.Verified = w.boolean(f, val)
		default:
			w.unknown(a, k)
			continue
		}
		w.seen(f)
	}
}

func (w *walker) mcp(a at, v any) {
	t, ok := w.table(a, v)
	if !ok {
		return
	}
	mc := &w.m.MCP
	mc.Declared = true
	for _, e := range w.sorted(t) {
		k, val := e.key, e.val
		f := a.key(k, true)
		switch k {
		case "transport":
			s := w.str(f, val)
			if _, isStr := val.(string); isStr && s != string(TransportStdio) && s != string(TransportHTTP) {
				w.fail(f, `must be "stdio" or "http"`)
			}
			mc.Transport = Transport(s)
		case "command":
			mc.Command = w.str(f, val)
		case "args":
			mc.Args = w.strList(f, val)
		case "env":
			mc.Env = w.strMap(f, val, envKeySafe)
		case "sha256":
			mc.SHA256 = w.str(f, val)
		case "url":
			mc.URL = w.str(f, val)
		case "headers":
			mc.Headers = w.strMap(f, val, headerKeySafe)
		case "integration":
			mc.Integration = w.str(f, val)
		default:
			w.unknown(a, k)
			continue
		}
		w.seen(f)
	}
}

func (w *walker) capabilities(a at, v any) {
	t, ok := w.table(a, v)
	if !ok {
		return
	}
	// Secure by default: whatever the block leaves out takes its strictest
	// value.
	c := &Capabilities{Network: NetworkNone, Filesystem: FilesystemReadOnly, Env: []string{}, Exec: ExecNone}
	w.m.Capabilities = c
	for _, e := range w.sorted(t) {
		k, val := e.key, e.val
		f := a.key(k, true)
		switch k {
		case "network":
			s := w.str(f, val)
			if _, isStr := val.(string); isStr && s != string(NetworkNone) && s != string(NetworkFull) {
				w.fail(f, `must be "none" or "full"`)
			}
			c.Network = NetworkAccess(s)
		case "filesystem":
			s := w.str(f, val)
			if _, isStr := val.(string); isStr && s != string(FilesystemReadOnly) && s != string(FilesystemReadWrite) {
				w.fail(f, `must be "read_only" or "read_write"`)
			}
			c.Filesystem = FilesystemAccess(s)
		case "env":
			c.Env = w.strList(f, val)
		case "exec":
			switch x := val.(type) {
			case string:
				if x != string(ExecNone) && x != string(ExecFull) {
					w.fail(f, `must be "none", "full" or an array of binaries`)
				}
				c.Exec = ExecMode(x)
			case []any:
				c.Exec = ExecAllow
				c.ExecAllow = w.strList(f, val)
			default:
				w.fail(f, `must be "none", "full" or an array of binaries, not `+kindOf(val))
			}
		default:
			w.unknown(a, k)
			continue
		}
		w.seen(f)
	}
}

func (w *walker) install(a at, v any) {
	t, ok := w.table(a, v)
	if !ok {
		return
	}
	in := &Install{}
	w.m.Install = in
	for _, e := range w.sorted(t) {
		k, val := e.key, e.val
		f := a.key(k, true)
		switch k {
		case "manager":
			in.Manager = w.str(f, val)
		case "package":
			in.Package = w.str(f, val)
		case "version":
			in.Version = w.str(f, val)
		case "bin":
			in.Bin = w.str(f, val)
		case "verify":
			in.Verify = w.strList(f, val)
		default:
			w.unknown(a, k)
			continue
		}
		w.seen(f)
	}
}

func (w *walker) pricing(a at, v any) {
	t, ok := w.table(a, v)
	if !ok {
		return
	}
	p := &Pricing{}
	w.m.Pricing = p
	cents := func(f at, val any) int64 {
		n, ok := w.integer(f, val)
		if ok && (n < 0 || n > math.MaxUint32) {
			w.fail(f, "must be between 0 and 4294967295")
		}
		return n
	}
	for _, e := range w.sorted(t) {
		k, val := e.key, e.val
		f := a.key(k, true)
		switch k {
		case "model":
			s := w.str(f, val)
			if _, isStr := val.(string); isStr && s != PricingOneTime && s != PricingUsage {
				w.fail(f, `must be "one_time" or "usage"`)
			}
			p.Model = s
		case "price_cents":
			p.PriceCents = cents(f, val)
		case "currency":
			p.Currency = w.str(f, val)
		case "usage_price_per_1k_cents":
			p.UsagePricePer1kCents = cents(f, val)
		default:
			w.unknown(a, k)
			continue
		}
		w.seen(f)
	}
}

func (w *walker) artifacts(a at, v any) {
	t, ok := w.table(a, v)
	if !ok {
		return
	}
	w.m.Artifacts = make(map[string]Artifact, len(t))
	for _, e := range w.sorted(t) {
		triple := e.key
		ta := a.key(triple, tripleSafe(triple))
		w.seen(ta)
		fields, ok := w.table(ta, e.val)
		if !ok {
			continue
		}
		var art Artifact
		for _, fe := range w.sorted(fields) {
			k, val := fe.key, fe.val
			f := ta.key(k, true)
			switch k {
			case "filename":
				art.Filename = w.str(f, val)
			case "url":
				art.URL = w.str(f, val)
			case "sha256":
				art.SHA256 = w.str(f, val)
			default:
				w.unknown(ta, k)
				continue
			}
			w.seen(f)
		}
		w.m.Artifacts[triple] = art
	}
}

func (w *walker) dependencies(a at, v any) {
	var list []any
	switch x := v.(type) {
	case []map[string]any: // TOML [[dependencies]]
		for _, e := range x {
			list = append(list, e)
		}
	case []any:
		list = x
	default:
		w.fail(a, "must be an array of tables, not "+kindOf(v))
		return
	}
	w.m.Dependencies = make([]Dependency, 0, len(list))
	for i, e := range list {
		ea := a.index(i)
		w.seen(ea)
		var d Dependency
		if t, ok := w.table(ea, e); ok {
			for _, e := range w.sorted(t) {
				k, val := e.key, e.val
				f := ea.key(k, true)
				switch k {
				case "name":
					d.Name = w.str(f, val)
				case "version":
					d.Version = w.str(f, val)
				default:
					w.unknown(ea, k)
					continue
				}
				w.seen(f)
			}
		}
		w.m.Dependencies = append(w.m.Dependencies, d)
	}
}
