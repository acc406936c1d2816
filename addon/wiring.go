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
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, x)
	}
	return string(append(b, ']'))
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
