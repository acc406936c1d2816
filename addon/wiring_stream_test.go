package addon

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// checkStreamed fails unless m's streamed digest is the digest of its
// wiring's entries.
func checkStreamed(t testing.TB, what string, m *Manifest) {
	t.Helper()
	if got, want := m.WiringSHA256(), m.Wiring().SHA256(); got != want {
		t.Errorf("%s: WiringSHA256() = %s, Wiring().SHA256() = %s", what, got, want)
	}
}

// TestWiringSHA256Streamed: the digest written straight from the manifest
// is byte for byte the digest of the entries, for every field and for
// wirings past the streamed writer's stack buffers (more than 16 keys, a
// value over 1 KiB, several dependencies).
func TestWiringSHA256Streamed(t *testing.T) {
	checkStreamed(t, "wiringBase", mustTOML(t, wiringBase))
	checkStreamed(t, "empty manifest", &Manifest{})
	checkStreamed(t, "wiredHead", mustTOML(t, wiredHead))

	var big strings.Builder
	big.WriteString(wiredHead + "[mcp]\ncommand = \"" + strings.Repeat("c", 1500) + "\"\n")
	big.WriteString("args = [" + strings.Repeat(`"a\"b\\c", `, 40) + "\"x\"]\n[mcp.env]\n")
	for i := range 40 {
		fmt.Fprintf(&big, "K%02d = %q\n", 39-i, strings.Repeat("v", i))
	}
	big.WriteString("[capabilities]\nenv = [")
	for i := range 30 {
		fmt.Fprintf(&big, "\"E%d\", \"E%d\", ", 29-i, i)
	}
	big.WriteString("\"Z\"]\nexec = [\"b\", \"a\", \"b\"]\n")
	for i := range 9 {
		fmt.Fprintf(&big, "[[dependencies]]\nname = \"d%d\"\nversion = \"1.0.%d\"\n", i%3, i%2)
	}
	for i := range 20 {
		fmt.Fprintf(&big, "[artifacts.t%02d]\nfilename = \"f\\\"%d\"\nurl = \"https://example.com/%d\"\nsha256 = \"%064d\"\n", 19-i, i, i, i)
	}
	checkStreamed(t, "large manifest", mustTOML(t, big.String()))

	for _, v := range loadVectors(t) {
		if m, err := ParseTOML([]byte(v.TOML)); err == nil {
			checkStreamed(t, "vector "+v.ID, m)
		}
	}
	b, err := os.ReadFile("testdata/leanctx-addon-registry.json")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseRegistryFile(b)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		checkStreamed(t, fmt.Sprintf("registry entry %d", i), m)
	}
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 2))
		g := newGenWiring(r)
		checkStreamed(t, fmt.Sprintf("generated TOML, seed %d", seed), mustTOML(t, g.toml(r)))
		checkStreamed(t, fmt.Sprintf("generated JSON, seed %d", seed), mustJSON(t, g.json(r)))
	}
}

// FuzzWiringSHA256Streamed requires the streamed digest of every accepted
// manifest to be the digest of its wiring's entries.
func FuzzWiringSHA256Streamed(f *testing.F) {
	f.Add([]byte(wiringBase), false)
	for _, v := range loadVectors(f) {
		f.Add([]byte(v.TOML), false)
	}
	if b, err := os.ReadFile("testdata/leanctx-addon-registry.json"); err == nil {
		var file struct {
			Addons []json.RawMessage `json:"addons"`
		}
		if err := json.Unmarshal(b, &file); err != nil {
			f.Fatal(err)
		}
		for _, a := range file.Addons {
			f.Add([]byte(a), true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		parse := ParseTOML
		if asJSON {
			parse = ParseJSON
		}
		if m, err := parse(data); err == nil {
			checkStreamed(t, "fuzzed manifest", m)
		}
	})
}
