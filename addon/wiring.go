package addon

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
)

// WiringVersion names the field list and encoding of Wiring.SHA256. Any
// change to either changes it, and with it every digest: a verification
// granted under one version then covers no wiring under the next, and
// maintainers verify again.
const WiringVersion = "registryd.wiring/v1"

// WiringEntry is one field of a wiring. Field is the field's name from the
// list above; Key is the map key of a per-key field (an env or header name,
// an artifact target) and "" otherwise; Value is a scalar as written, or,
// for a list, a set or an artifact, its JSON text (arrays in order, sets
// sorted, objects with sorted keys, no HTML escaping).
type WiringEntry struct {
	Field string
	Key   string
	Value string
}

// Path returns the entry's field path for people to read: Field, then "."
// and Key for a per-key field (`mcp.env.NODE_OPTIONS`).
func (e WiringEntry) Path() string {
	if e.Key == "" {
		return e.Field
	}
	return e.Field + "." + e.Key
}

// Wiring is a manifest's wiring: its entries sorted by Field, then Key,
// each (Field, Key) at most once.
type Wiring []WiringEntry

// Wiring returns m's wiring. The result is a new slice the caller owns.
func (m *Manifest) Wiring() Wiring {
	w := make(Wiring, 0, 24+len(m.MCP.Env)+len(m.MCP.Headers)+len(m.Artifacts))
	add := func(field, key, value string) { w = append(w, WiringEntry{Field: field, Key: key, Value: value}) }

	// Entries are added in their order (field names below are sorted, and
	// each map's keys are), so that nothing needs sorting afterwards.
	add("addon.integration", "", m.Addon.Integration)
	for _, target := range mapKeys(m.Artifacts) {
		a := m.Artifacts[target]
		add("artifacts", target, string(jsonObject(nil, "filename", a.Filename, "sha256", a.SHA256, "url", a.URL)))
	}
	if c := m.Capabilities; c != nil {
		exec := cmp.Or(c.Exec, ExecNone)
		allow := []string{}
		if exec == ExecAllow {
			allow = set(c.ExecAllow)
		}
		add("capabilities.env", "", jsonStrings(set(c.Env)))
		add("capabilities.exec", "", string(exec))
		add("capabilities.exec_allow", "", jsonStrings(allow))
		add("capabilities.filesystem", "", string(cmp.Or(c.Filesystem, FilesystemReadOnly)))
		add("capabilities.network", "", string(cmp.Or(c.Network, NetworkNone)))
	}
	deps := slices.Clone(m.Dependencies)
	slices.SortFunc(deps, func(a, b Dependency) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Version, b.Version))
	})
	depsJSON := []byte{'['}
	for i, d := range slices.Compact(deps) {
		if i > 0 {
			depsJSON = append(depsJSON, ',')
		}
		depsJSON = jsonObject(depsJSON, "name", d.Name, "version", d.Version)
	}
	add("dependencies", "", string(append(depsJSON, ']')))
	if in := m.Install; in.Declared() {
		add("install.bin", "", in.Bin)
		add("install.manager", "", in.Manager)
		add("install.package", "", in.Package)
		add("install.verify", "", jsonStrings(in.Verify))
		add("install.version", "", in.Version)
	}
	add("mcp.args", "", jsonStrings(m.MCP.Args))
	add("mcp.command", "", m.MCP.Command)
	for _, k := range mapKeys(m.MCP.Env) {
		add("mcp.env", k, m.MCP.Env[k])
	}
	for _, k := range mapKeys(m.MCP.Headers) {
		add("mcp.headers", k, m.MCP.Headers[k])
	}
	add("mcp.integration", "", m.MCP.Integration)
	add("mcp.sha256", "", m.MCP.SHA256)
	transport := ""
	if m.MCP.Declared {
		transport = string(cmp.Or(m.MCP.Transport, TransportStdio))
	}
	add("mcp.transport", "", transport)
	add("mcp.url", "", m.MCP.URL)
	return w
}

// mapKeys returns the keys of m, sorted.
func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func compareEntries(a, b WiringEntry) int {
	return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Key, b.Key))
}

// SHA256 returns the wiring's digest: the lower-case hex SHA-256 of
// WiringVersion followed by every entry in order, each as its Field, Key
// and Value, and each of those as its length in bytes (an unsigned LEB128
// varint) followed by its bytes. The encoding is unambiguous, so two
// wirings have the same digest only if they have the same entries.
func (w Wiring) SHA256() string {
	n := len(WiringVersion) + 1
	for _, e := range w {
		n += len(e.Field) + len(e.Key) + len(e.Value) + 3*binary.MaxVarintLen64
	}
	buf := make([]byte, 0, n)
	buf = appendField(buf, WiringVersion)
	for _, e := range w {
		buf = appendField(buf, e.Field)
		buf = appendField(buf, e.Key)
		buf = appendField(buf, e.Value)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:])
}

// WiringSHA256 returns m.Wiring().SHA256() without building the wiring:
// the bytes that digest hashes are written from m's fields into one buffer
// (on the stack for a manifest of ordinary size), list and artifact values
// straight as their JSON text. It allocates only the returned string.
// TestWiringSHA256Streamed holds the two to the same digest.
func (m *Manifest) WiringSHA256() string {
	sum := m.WiringSum()
	var out [sha256.Size * 2]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// WiringSum returns the SHA-256 that WiringSHA256 writes in hex, for a
// caller that places the hex digits itself. It allocates nothing for a
// manifest of ordinary size.
func (m *Manifest) WiringSum() [sha256.Size]byte {
	var stack [1024]byte
	return sha256.Sum256(m.appendWiring(stack[:0]))
}

// appendWiring appends to dst what Wiring.SHA256 hashes for m's wiring,
// entry by entry in the order of Manifest.Wiring, whose comments explain
// the values.
func (m *Manifest) appendWiring(dst []byte) []byte {
	var keys [16]string // sorted map keys and sets, when they fit
	b := appendField(dst, WiringVersion)
	b = appendEntry(b, "addon.integration", "", m.Addon.Integration)
	for _, target := range sortedKeysInto(keys[:0], m.Artifacts) {
		a := m.Artifacts[target]
		b = appendField(b, "artifacts")
		b = appendField(b, target)
		var mark int
		b, mark = beginValue(b)
		b = jsonObject(b, "filename", a.Filename, "sha256", a.SHA256, "url", a.URL)
		b = endValue(b, mark)
	}
	if c := m.Capabilities; c != nil {
		exec := cmp.Or(c.Exec, ExecNone)
		b = appendStringsEntry(b, "capabilities.env", setInto(keys[:0], c.Env))
		b = appendEntry(b, "capabilities.exec", "", string(exec))
		var allow []string
		if exec == ExecAllow {
			allow = setInto(keys[:0], c.ExecAllow)
		}
		b = appendStringsEntry(b, "capabilities.exec_allow", allow)
		b = appendEntry(b, "capabilities.filesystem", "", string(cmp.Or(c.Filesystem, FilesystemReadOnly)))
		b = appendEntry(b, "capabilities.network", "", string(cmp.Or(c.Network, NetworkNone)))
	}
	var depStack [4]Dependency
	deps := append(depStack[:0], m.Dependencies...)
	slices.SortFunc(deps, func(a, b Dependency) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Version, b.Version))
	})
	b = appendField(b, "dependencies")
	b = appendField(b, "")
	b, mark := beginValue(b)
	b = append(b, '[')
	for i, d := range slices.Compact(deps) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonObject(b, "name", d.Name, "version", d.Version)
	}
	b = append(b, ']')
	b = endValue(b, mark)
	if in := m.Install; in.Declared() {
		b = appendEntry(b, "install.bin", "", in.Bin)
		b = appendEntry(b, "install.manager", "", in.Manager)
		b = appendEntry(b, "install.package", "", in.Package)
		b = appendStringsEntry(b, "install.verify", in.Verify)
		b = appendEntry(b, "install.version", "", in.Version)
	}
	b = appendStringsEntry(b, "mcp.args", m.MCP.Args)
	b = appendEntry(b, "mcp.command", "", m.MCP.Command)
	for _, k := range sortedKeysInto(keys[:0], m.MCP.Env) {
		b = appendEntry(b, "mcp.env", k, m.MCP.Env[k])
	}
	for _, k := range sortedKeysInto(keys[:0], m.MCP.Headers) {
		b = appendEntry(b, "mcp.headers", k, m.MCP.Headers[k])
	}
	b = appendEntry(b, "mcp.integration", "", m.MCP.Integration)
	b = appendEntry(b, "mcp.sha256", "", m.MCP.SHA256)
	transport := ""
	if m.MCP.Declared {
		transport = string(cmp.Or(m.MCP.Transport, TransportStdio))
	}
	b = appendEntry(b, "mcp.transport", "", transport)
	return appendEntry(b, "mcp.url", "", m.MCP.URL)
}

// sortedKeysInto returns the keys of m, sorted, in dst's array when they
// fit.
func sortedKeysInto[V any](dst []string, m map[string]V) []string {
	if len(m) == 0 {
		return dst // without starting an iteration, which costs more
	}
	for k := range m {
		dst = append(dst, k)
	}
	slices.Sort(dst)
	return dst
}

// setInto is set(xs) in dst's array when it fits; nil when xs is empty.
func setInto(dst, xs []string) []string {
	dst = append(dst, xs...)
	slices.Sort(dst)
	return slices.Compact(dst)
}

func appendEntry(dst []byte, field, key, value string) []byte {
	dst = appendField(dst, field)
	dst = appendField(dst, key)
	return appendField(dst, value)
}

// appendStringsEntry appends the entry of a list field without a key, its
// value the JSON array of xs.
func appendStringsEntry(dst []byte, field string, xs []string) []byte {
	dst = appendField(dst, field)
	dst = appendField(dst, "")
	dst, mark := beginValue(dst)
	dst = appendJSONStrings(dst, xs)
	return endValue(dst, mark)
}

// beginValue reserves room for the length of a value whose bytes are not
// known yet; the caller appends them, then calls endValue with the mark.
func beginValue(dst []byte) ([]byte, int) {
	mark := len(dst)
	return append(dst, make([]byte, binary.MaxVarintLen64)...), mark
}

// endValue writes the length of the value appended since beginValue, as
// appendField would, and moves the value up behind it.
func endValue(dst []byte, mark int) []byte {
	start := mark + binary.MaxVarintLen64
	n := len(dst) - start
	var length [binary.MaxVarintLen64]byte
	l := binary.PutUvarint(length[:], uint64(n))
	copy(dst[mark:], length[:l])
	copy(dst[mark+l:], dst[start:])
	return dst[:mark+l+n]
}

func appendField(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// The kinds of a WiringChange.
const (
	WiringAdded   = "added"
	WiringRemoved = "removed"
	WiringChanged = "changed"
)

// WiringChange is one difference between two wirings: the entry at
// (Field, Key) was added, removed or changed. Old is the value before
// ("" when added), New the value after ("" when removed).
type WiringChange struct {
	Field string
	Key   string
	Kind  string
	Old   string
	New   string
}

// Path returns the changed field's path for people to read, as
// WiringEntry.Path does.
func (c WiringChange) Path() string { return WiringEntry{Field: c.Field, Key: c.Key}.Path() }

// Changes returns what differs from w to next, in the wirings' order
// (Field, then Key); none when their digests are equal. Both must be
// sorted, as Manifest.Wiring returns them.
func (w Wiring) Changes(next Wiring) []WiringChange {
	out := []WiringChange{}
	i, j := 0, 0
	for i < len(w) || j < len(next) {
		var c int
		switch {
		case i == len(w):
			c = 1
		case j == len(next):
			c = -1
		default:
			c = compareEntries(w[i], next[j])
		}
		switch {
		case c < 0:
			out = append(out, WiringChange{Field: w[i].Field, Key: w[i].Key, Kind: WiringRemoved, Old: w[i].Value})
			i++
		case c > 0:
			out = append(out, WiringChange{Field: next[j].Field, Key: next[j].Key, Kind: WiringAdded, New: next[j].Value})
			j++
		default:
			if w[i].Value != next[j].Value {
				out = append(out, WiringChange{Field: w[i].Field, Key: w[i].Key, Kind: WiringChanged, Old: w[i].Value, New: next[j].Value})
			}
			i++
			j++
		}
	}
	return out
}

// set returns xs sorted with repetitions dropped, never nil.
func set(xs []string) []string {
	out := append([]string{}, xs...)
	slices.Sort(out)
	return slices.Compact(out)
}

// jsonStrings returns the JSON array of xs.
func jsonStrings(xs []string) string {
	n := 2
	for _, x := range xs {
		n += len(x) + 3
	}
	return string(appendJSONStrings(make([]byte, 0, n), xs))
}

// appendJSONStrings appends the JSON array of xs to b.
func appendJSONStrings(b []byte, xs []string) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, x)
	}
	return append(b, ']')
}

// jsonObject returns the JSON object of the names and values in kv (name,
// value, name, value …), in that order.
func jsonObject(b []byte, kv ...string) []byte {
	b = append(b, '{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, kv[i])
		b = append(b, ':')
		b = appendJSONString(b, kv[i+1])
	}
	return append(b, '}')
}

// appendJSONString appends s as a JSON string that reads as written: only
// `"`, `\` and the C0 controls (which no accepted manifest holds) are
// escaped, the controls as \u00hh.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		if c == '"' || c == '\\' {
			b = append(b, '\\', c)
		} else {
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
