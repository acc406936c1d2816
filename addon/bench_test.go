package addon

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// typical is a manifest of the size and shape registry entries have.
const typical = `[addon]
name = "headroom"
display_name = "Headroom"
version = "0.27.0"
description = "Context compression for tool output, wired as an MCP server."
author = "headroom"
homepage = "https://github.com/example/headroom"
license = "Apache-2.0"
categories = ["compression"]
integration = "compression"
keywords = ["compression", "tokens", "mcp"]
min_lean_ctx = "3.8.0"

[mcp]
transport = "stdio"
command = "headroom"
args = ["mcp", "serve", "--port", "0"]

[mcp.env]
HEADROOM_MODE = "strict"
HEADROOM_CACHE = "/tmp/headroom"

[capabilities]
network = "none"
filesystem = "read_write"
env = ["HOME"]
exec = "none"

[install]
manager = "uv"
package = "headroom-ai[mcp]"
version = "0.27.0"
bin = "headroom"
`

// BenchmarkParseTOML measures the whole parse of a typical manifest:
// position scan, decode, walk and validation. Compare it with
// BenchmarkTOMLDecodeOnly, the decoder alone on the same bytes.
func BenchmarkParseTOML(b *testing.B) {
	in := []byte(typical)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseTOML(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTOMLDecodeOnly is the baseline: BurntSushi/toml decoding the
// typical manifest into generic values, nothing else.
func BenchmarkTOMLDecodeOnly(b *testing.B) {
	in := typical
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var v map[string]any
		if _, err := toml.Decode(in, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRegistryFile parses the 21-entry upstream registry file.
func BenchmarkParseRegistryFile(b *testing.B) {
	in, err := os.ReadFile("testdata/leanctx-addon-registry.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRegistryFile(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefuseDeepNesting measures how fast a maximal-size document of
// nothing but opening brackets is refused.
func BenchmarkRefuseDeepNesting(b *testing.B) {
	for _, c := range []struct {
		name  string
		parse func([]byte) (*Manifest, error)
		in    []byte
	}{
		{"toml", ParseTOML, []byte("x = " + strings.Repeat("[", MaxManifestBytes-4))},
		{"json", ParseJSON, []byte(strings.Repeat("[", MaxManifestBytes))},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.parse(c.in); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}

// BenchmarkRefuseWideArray measures refusing a maximal-size TOML document
// that is one enormous flat array.
func BenchmarkRefuseWideArray(b *testing.B) {
	in := []byte("[addon]\nname = \"x\"\n[mcp]\nargs = [" + strings.Repeat("\"\",", (MaxManifestBytes-40)/3) + "]\n")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseTOML(in); err == nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkParseSlowest parses the slowest inputs FuzzParseManifest found
// (testdata/fuzz/FuzzParseManifest/slowest-*, regression seeds too), beside
// the typical manifest: the strict parse of anything within the size limits
// stays within a small multiple of the decoder's own time.
func BenchmarkParseSlowest(b *testing.B) {
	b.Run("typical", func(b *testing.B) {
		in := []byte(typical)
		for b.Loop() {
			if _, err := ParseTOML(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParseManifest", "slowest-*"))
	for _, f := range files {
		data, asJSON := fuzzManifestInput(b, f)
		b.Run(filepath.Base(f), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			parse := ParseTOML
			if asJSON {
				parse = ParseJSON
			}
			for b.Loop() {
				_, _ = parse(data) // refused or not, the time is what counts
			}
		})
	}
}

// fuzzManifestInput reads a FuzzParseManifest corpus file: the document
// and whether it is JSON.
func fuzzManifestInput(b *testing.B, path string) ([]byte, bool) {
	b.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	if len(lines) < 3 {
		b.Fatalf("%s: not a corpus file", path)
	}
	v := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(lines[1]), "[]byte("), ")")
	s, err := strconv.Unquote(v)
	if err != nil {
		b.Fatalf("%s: %v", path, err)
	}
	return []byte(s), strings.Contains(lines[2], "true")
}
