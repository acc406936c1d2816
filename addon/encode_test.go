package addon_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/registryd/registryd/addon"
)

// manifestOpts compares manifests by their fields, not the line maps the
// decoder keeps.
var manifestOpts = cmp.Options{cmpopts.IgnoreUnexported(addon.Manifest{}), cmpopts.EquateEmpty()}

// TestEncodeRegistryFileRoundTrip: lean-ctx's own registry file, decoded
// and written again, is the same JSON value, and decodes to the same
// manifests.
func TestEncodeRegistryFileRoundTrip(t *testing.T) {
	orig, err := os.ReadFile("testdata/leanctx-addon-registry.json")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := addon.ParseRegistryFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	out := addon.EncodeRegistryFile(ms)
	var want, got any
	if err := json.Unmarshal(orig, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("EncodeRegistryFile wrote invalid JSON: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registry file after a round trip (-orig +encoded):\n%s", diff)
	}
	again, err := addon.ParseRegistryFile(out)
	if err != nil {
		t.Fatalf("ParseRegistryFile(encoded): %v", err)
	}
	if diff := cmp.Diff(ms, again, manifestOpts); diff != "" {
		t.Errorf("manifests after a round trip (-orig +encoded):\n%s", diff)
	}
}

// TestEncodeJSON: every table of a manifest survives EncodeJSON and
// ParseJSON, and so does the absence of the optional ones.
func TestEncodeJSON(t *testing.T) {
	tests := map[string]string{
		"everything": `[addon]
name = "full"
display_name = "Full"
version = "1.2.3"
description = "All the tables."
author = "someone"
homepage = "https://example.org/full"
license = "MIT"
categories = ["a", "b"]
integration = "memory"
keywords = ["k"]
min_lean_ctx = "3.8.0"
verified = true

[mcp]
transport = "stdio"
command = "full-server"
args = ["--x", "<&>"]
sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
integration = "mem"

[mcp.env]
TOKEN = "${TOKEN}"

[capabilities]
network = "full"
exec = ["git", "node"]
env = ["HOME"]

[install]
manager = "npm"
package = "full-server"
version = "1.2.3"
bin = "full-server"
verify = ["full-server", "--version"]

[pricing]
model = "usage"
usage_price_per_1k_cents = 5
currency = "eur"

[artifacts.x86_64-unknown-linux-gnu]
filename = "full"
url = "https://example.org/full.tar.gz"
sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

[[dependencies]]
name = "other"
version = "1.0.0"

[[dependencies]]
name = "third"
`,
		"http": `[addon]
name = "remote"
version = "0.1.0"

[mcp]
transport = "http"
url = "https://mcp.example.org/mcp"

[mcp.headers]
Authorization = "Bearer ${TOKEN}"
`,
		"no mcp table": `[addon]
name = "bare"
`,
		"capabilities left to their defaults": `[addon]
name = "strict"

[mcp]
command = "strict-server"

[capabilities]
`,
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			m, err := addon.ParseTOML([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			b := addon.EncodeJSON(m)
			got, err := addon.ParseJSON(b)
			if err != nil {
				t.Fatalf("ParseJSON(EncodeJSON(m)): %v\n%s", err, b)
			}
			if diff := cmp.Diff(m, got, manifestOpts); diff != "" {
				t.Errorf("after EncodeJSON and ParseJSON (-toml +json):\n%s", diff)
			}
			if m.Wiring().SHA256() != got.Wiring().SHA256() {
				t.Errorf("the wiring digest changed through EncodeJSON")
			}
			if again := addon.EncodeJSON(got); string(again) != string(b) {
				t.Errorf("EncodeJSON is not stable:\n%s\n%s", b, again)
			}
		})
	}
}
