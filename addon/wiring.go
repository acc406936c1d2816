package addon

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
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

	add("addon.integration", "", m.Addon.Integration)
	add("mcp.integration", "", m.MCP.Integration)
	transport := ""
	if m.MCP.Declared {
		transport = string(cmp.Or(m.MCP.Transport, TransportStdio))
	}
	add("mcp.transport", "", transport)
	add("mcp.command", "", m.MCP.Command)
	add("mcp.args", "", jsonText(nonNil(m.MCP.Args)))
	add("mcp.sha256", "", m.MCP.SHA256)
	add("mcp.url", "", m.MCP.URL)
	for k, v := range m.MCP.Env {
		add("mcp.env", k, v)
	}
	for k, v := range m.MCP.Headers {
		add("mcp.headers", k, v)
	}
	if c := m.Capabilities; c != nil {
		exec := cmp.Or(c.Exec, ExecNone)
		allow := []string{}
		if exec == ExecAllow {
			allow = set(c.ExecAllow)
		}
		add("capabilities.network", "", string(cmp.Or(c.Network, NetworkNone)))
		add("capabilities.filesystem", "", string(cmp.Or(c.Filesystem, FilesystemReadOnly)))
		add("capabilities.env", "", jsonText(set(c.Env)))
		add("capabilities.exec", "", string(exec))
		add("capabilities.exec_allow", "", jsonText(allow))
	}
	if in := m.Install; in.Declared() {
		add("install.manager", "", in.Manager)
		add("install.package", "", in.Package)
		add("install.version", "", in.Version)
		add("install.bin", "", in.Bin)
		add("install.verify", "", jsonText(nonNil(in.Verify)))
	}
	for target, a := range m.Artifacts {
		add("artifacts", target, jsonText(struct {
			Filename string `json:"filename"`
			SHA256   string `json:"sha256"`
			URL      string `json:"url"`
		}{a.Filename, a.SHA256, a.URL}))
	}
	type dep struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	deps := make([]dep, len(m.Dependencies))
	for i, d := range m.Dependencies {
		deps[i] = dep{d.Name, d.Version}
	}
	slices.SortFunc(deps, func(a, b dep) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Version, b.Version))
	})
	add("dependencies", "", jsonText(slices.Compact(deps)))

	slices.SortFunc(w, compareEntries)
	return w
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

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// jsonText returns v's JSON text without HTML escaping, so that a value
// reads as written (`a < b`, not `a \u003c b`). v holds only strings,
// slices and structs, which always encode.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("addon: encode wiring value: " + err.Error())
	}
	return strings.TrimSuffix(b.String(), "\n")
}
