package serverjson_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/internal/mcpfixture"
	"github.com/registryd/registryd/internal/sharedtest"
	"github.com/registryd/registryd/serverjson"
)

func seed(t *testing.T) []serverjson.Server {
	t.Helper()
	var out []serverjson.Server
	if err := json.Unmarshal(mcpfixture.File(t, "seed-servers.json"), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAddonName(t *testing.T) {
	names := []string{
		"io.github.domdomegg/airtable-mcp-server",
		"io.github.DomDomEgg/airtable-mcp-server",
		"io.github.domdomegg/airtable.mcp.server",
		"io.github.domdomegg/airtable_mcp_server",
		"com.example/" + strings.Repeat("very-long-name-", 12),
		"a.b/---",
		"x/Y",
	}
	seen := map[string]string{}
	for _, n := range names {
		got := serverjson.AddonName(n)
		if got != serverjson.AddonName(n) {
			t.Errorf("AddonName(%q) is not deterministic", n)
		}
		if err := validSlug(got); err != "" {
			t.Errorf("AddonName(%q) = %q: %s", n, got, err)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("AddonName(%q) = AddonName(%q) = %q", n, other, got)
		}
		seen[got] = n
	}
	if got := serverjson.AddonName(names[0]); !strings.HasPrefix(got, "domdomegg-airtable-mcp-server-") || len(got) != len("domdomegg-airtable-mcp-server-")+10 {
		t.Errorf("AddonName(%q) = %q, want domdomegg-airtable-mcp-server- and ten characters", names[0], got)
	}
}

func validSlug(s string) string {
	if s == "" || len(s) > addon.MaxNameBytes || s[0] == '-' || s[len(s)-1] == '-' {
		return "not 1 to 64 bytes without a dash at either end"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return "a character outside [a-z0-9-]"
		}
	}
	return ""
}

func FuzzAddonName(f *testing.F) {
	f.Add("io.github.domdomegg/airtable-mcp-server")
	f.Add("")
	f.Add("/")
	f.Add("ÄÖ/ü\x00")
	f.Fuzz(func(t *testing.T, s string) {
		if msg := validSlug(serverjson.AddonName(s)); msg != "" {
			t.Errorf("AddonName(%q) = %q: %s", s, serverjson.AddonName(s), msg)
		}
	})
}

func TestValidName(t *testing.T) {
	for s, want := range map[string]bool{
		"io.github.x/y": true, "a/b": true, "/b": false, "abc": false, "a.b/c/d": false, "a b/c": false,
		"a.b/c\x1b": false, "é.b/c": false, "a.b/c_d.e-f": true, "a.b/" + strings.Repeat("x", 200): false,
	} {
		if got := serverjson.ValidName(s); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestToManifestSeed maps the MCP Registry's seed documents: npm, PyPI and
// OCI packages have a manifest form, nuget and mcpb do not.
func TestToManifestSeed(t *testing.T) {
	want := map[string]struct {
		command string
		args    []string
		env     map[string]string
		err     string
	}{
		"io.github.domdomegg/airtable-mcp-server@1.7.2": {command: "npx", args: []string{"-y", "airtable-mcp-server@1.7.2"}, env: map[string]string{"AIRTABLE_API_KEY": "${AIRTABLE_API_KEY}"}},
		"io.github.domdomegg/airtable-mcp-server@1.7.3": {command: "npx", args: []string{"-y", "airtable-mcp-server@1.7.3"}, env: map[string]string{"AIRTABLE_API_KEY": "${AIRTABLE_API_KEY}"}},
		"io.github.domdomegg/time-mcp-nuget@1.0.8":      {err: "packages[0]: registryType: nuget has no manifest form"},
		"io.github.domdomegg/time-mcp-pypi@1.0.6":       {command: "uvx", args: []string{"time-mcp-pypi==1.0.6"}, env: map[string]string{}},
	}
	for _, s := range seed(t) {
		key := s.Name + "@" + s.Version
		w, ok := want[key]
		if !ok {
			t.Fatalf("unexpected seed document %s", key)
		}
		m, err := serverjson.ToManifest(s)
		if w.err != "" {
			var nc *serverjson.NotConvertible
			if !errors.As(err, &nc) || !strings.Contains(nc.Reason, w.err) {
				t.Errorf("%s: got %v, want NotConvertible with %q", key, err, w.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if m.MCP.Command != w.command || !cmp.Equal(m.MCP.Args, w.args) || !cmp.Equal(m.MCP.Env, w.env) {
			t.Errorf("%s: wiring %q %q %v, want %q %q %v", key, m.MCP.Command, m.MCP.Args, m.MCP.Env, w.command, w.args, w.env)
		}
		if m.Addon.Name != serverjson.AddonName(s.Name) || m.Addon.Version != s.Version || m.Addon.Description != s.Description ||
			m.Addon.Author != "io.github.domdomegg" || m.Addon.Homepage != s.Repository.URL {
			t.Errorf("%s: addon %+v", key, m.Addon)
		}
		// What the import submits parses as any manifest.
		if _, err := addon.ParseJSON(addon.EncodeJSON(m)); err != nil {
			t.Errorf("%s: the manifest does not parse: %v", key, err)
		}
	}
}

func TestToManifestCases(t *testing.T) {
	base := func(p ...serverjson.Package) serverjson.Server {
		return serverjson.Server{Name: "com.example/demo", Description: "Demo.", Version: "1.0.0", Packages: p}
	}
	stdio := serverjson.Transport{Type: "stdio"}
	tests := []struct {
		name    string
		s       serverjson.Server
		command string
		args    []string
		url     string
		err     string
	}{
		{"oci with env and a tag from version", base(serverjson.Package{RegistryType: "oci", Identifier: "ghcr.io/x/demo", Version: "1.0.0", Transport: stdio,
			EnvironmentVariables: []serverjson.KeyValueInput{{Name: "TOKEN"}, {Name: "MODE", InputField: serverjson.InputField{Value: "ro"}}}}),
			"docker", []string{"run", "-i", "--rm", "-e", "MODE", "-e", "TOKEN", "ghcr.io/x/demo:1.0.0"}, "", ""},
		{"oci latest", base(serverjson.Package{RegistryType: "oci", Identifier: "ghcr.io/x/demo:latest", Transport: stdio}), "", nil, "", "OCI images need a version tag"},
		{"npm arguments", base(serverjson.Package{RegistryType: "npm", Identifier: "@x/demo", Version: "2.0.0", Transport: stdio,
			PackageArguments: []serverjson.Argument{
				{Type: "positional", InputField: serverjson.InputField{Value: "serve"}},
				{Type: "named", Name: "--port", InputField: serverjson.InputField{Default: "8080"}},
				{Type: "positional", ValueHint: "dir"}, // optional, left out
			}}), "npx", []string{"-y", "@x/demo@2.0.0", "serve", "--port", "8080"}, "", ""},
		{"npm required user argument", base(serverjson.Package{RegistryType: "npm", Identifier: "demo", Version: "2.0.0", Transport: stdio,
			PackageArguments: []serverjson.Argument{{Type: "positional", ValueHint: "dir", InputField: serverjson.InputField{IsRequired: true}}}}),
			"", nil, "", "packageArguments[0]: needs a value the user provides"},
		{"npm template", base(serverjson.Package{RegistryType: "npm", Identifier: "demo", Version: "2.0.0", Transport: stdio,
			PackageArguments: []serverjson.Argument{{Type: "positional", InputField: serverjson.InputField{Value: "{dir}"}}}}),
			"", nil, "", "template variable"},
		{"npm range", base(serverjson.Package{RegistryType: "npm", Identifier: "demo", Version: "^2.0.0", Transport: stdio}), "", nil, "", "exact version"},
		{"first convertible package wins", base(
			serverjson.Package{RegistryType: "mcpb", Identifier: "https://x/y.mcpb", Transport: stdio},
			serverjson.Package{RegistryType: "pypi", Identifier: "demo", Version: "1.0.0", Transport: stdio}),
			"uvx", []string{"demo==1.0.0"}, "", ""},
		{"remote", serverjson.Server{Name: "com.example/demo", Version: "1.0.0", Remotes: []serverjson.Transport{
			{Type: "sse", URL: "https://x.example/sse"},
			{Type: "streamable-http", URL: "https://x.example/mcp", Headers: []serverjson.KeyValueInput{{Name: "X_API_KEY"}}}}},
			"", nil, "https://x.example/mcp", ""},
		{"remote template", serverjson.Server{Name: "com.example/demo", Version: "1.0.0", Remotes: []serverjson.Transport{
			{Type: "streamable-http", URL: "https://{tenant}.example/mcp"}}}, "", nil, "", "URL template"},
		{"nothing", serverjson.Server{Name: "com.example/demo", Version: "1.0.0"}, "", nil, "", "nothing to wire"},
		{"bad name", serverjson.Server{Name: "evil\x1b[2J/x", Version: "1.0.0"}, "", nil, "", "name: is not a server name"},
		{"hostile registry type is not echoed", base(serverjson.Package{RegistryType: "\x1b[31m", Identifier: "x", Transport: stdio}), "", nil, "", "an unknown type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := serverjson.ToManifest(tc.s)
			if tc.err != "" {
				var nc *serverjson.NotConvertible
				if !errors.As(err, &nc) || !strings.Contains(nc.Reason, tc.err) {
					t.Fatalf("got %v, want NotConvertible with %q", err, tc.err)
				}
				if strings.ContainsAny(nc.Reason, "\x1b\x00") {
					t.Errorf("reason echoes a control character: %q", nc.Reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.MCP.Command != tc.command || !cmp.Equal(m.MCP.Args, tc.args) || m.MCP.URL != tc.url {
				t.Errorf("wiring %q %q %q, want %q %q %q", m.MCP.Command, m.MCP.Args, m.MCP.URL, tc.command, tc.args, tc.url)
			}
		})
	}
}

// TestFromManifest: every wiring with a faithful form becomes a server.json
// that validates against the schema, with variables by name only; the
// others are left out, saying why.
func TestFromManifest(t *testing.T) {
	tests := []struct {
		name string
		toml string
		want string // JSON of packages or remotes, or "" for NotConvertible
	}{
		{"npx", `[mcp]
command = "npx"
args = ["-y", "@scope/demo@1.2.3", "--stdio"]
[mcp.env]
API_KEY = "secret-value"
`, `{"packages":[{"registryType":"npm","identifier":"@scope/demo","version":"1.2.3","runtimeHint":"npx","transport":{"type":"stdio"},"packageArguments":[{"type":"positional","value":"--stdio"}],"environmentVariables":[{"name":"API_KEY"}]}]}`},
		{"uvx --from", `[mcp]
command = "uvx"
args = ["--from", "demo==0.6.6", "demo"]
`, `{"packages":[{"registryType":"pypi","identifier":"demo","version":"0.6.6","runtimeHint":"uvx","transport":{"type":"stdio"}}]}`},
		{"docker", `[mcp]
command = "docker"
args = ["run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/x/demo:1.2.3"]
`, `{"packages":[{"registryType":"oci","identifier":"ghcr.io/x/demo:1.2.3","runtimeHint":"docker","transport":{"type":"stdio"},"environmentVariables":[{"name":"TOKEN"}]}]}`},
		{"install npm", `[mcp]
command = "context-mem"
args = ["serve"]
[install]
manager = "npm"
package = "context-mem"
version = "4.0.0"
bin = "context-mem"
`, `{"packages":[{"registryType":"npm","identifier":"context-mem","version":"4.0.0","runtimeHint":"npx","transport":{"type":"stdio"},"packageArguments":[{"type":"positional","value":"serve"}]}]}`},
		{"http", `[mcp]
transport = "http"
url = "https://mcp.example.org/mcp"
[mcp.headers]
Authorization = "Bearer abc"
`, `{"remotes":[{"type":"streamable-http","url":"https://mcp.example.org/mcp","headers":[{"name":"Authorization"}]}]}`},
		{"install with another binary", `[mcp]
command = "sophon"
[install]
manager = "npm"
package = "mcp-sophon"
version = "0.5.4"
bin = "sophon"
`, ""},
		{"uvx another binary", `[mcp]
command = "uvx"
args = ["--from", "serena-agent==1.5.3", "serena"]
`, ""},
		{"npx unpinned", `[mcp]
command = "npx"
args = ["-y", "demo@latest"]
`, ""},
		{"docker with a mount", `[mcp]
command = "docker"
args = ["run", "-i", "--rm", "-v", "/:/host", "ghcr.io/x/demo:1.2.3"]
`, ""},
		{"local binary", `[mcp]
command = "/usr/local/bin/demo"
sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
`, ""},
		{"inline script", `[mcp]
command = "sh"
args = ["-c", "curl https://x | sh"]
`, ""},
		{"nothing to run", `[mcp]
command = ""
`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := addon.ParseTOML([]byte("[addon]\nname = \"demo\"\nversion = \"1.2.3\"\ndisplay_name = \"Demo\"\ndescription = \"" +
				strings.Repeat("Long text. ", 20) + "\"\nhomepage = \"https://example.org/demo\"\n\n" + tc.toml))
			if err != nil {
				t.Fatal(err)
			}
			s, err := serverjson.FromManifest(m, "dev.registryd/demo")
			if tc.want == "" {
				var nc *serverjson.NotConvertible
				if !errors.As(err, &nc) {
					t.Fatalf("got %v, want NotConvertible", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			mcpfixture.Validate(t, b)
			if strings.Contains(string(b), "secret-value") || strings.Contains(string(b), "Bearer abc") {
				t.Errorf("server.json carries a variable's value: %s", b)
			}
			var got, want map[string]any
			json.Unmarshal(b, &got)
			json.Unmarshal([]byte(tc.want), &want)
			for k, v := range want {
				if diff := cmp.Diff(v, got[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
			if s.Name != "dev.registryd/demo" || s.Version != "1.2.3" || s.Title != "Demo" || s.WebsiteURL != "https://example.org/demo" ||
				len([]rune(s.Description)) > 100 || !strings.HasSuffix(s.Description, "…") {
				t.Errorf("metadata: %+v", s)
			}
		})
	}
}

// TestRoundTripSeed: a seed document read into a manifest and written back
// keeps its name, version, description and the package it was wired from.
func TestRoundTripSeed(t *testing.T) {
	for _, s := range seed(t) {
		m, err := serverjson.ToManifest(s)
		if err != nil {
			continue
		}
		back, err := serverjson.FromManifest(m, s.Name)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		b, _ := json.Marshal(back)
		mcpfixture.Validate(t, b)
		p, q := s.Packages[0], back.Packages[0]
		if back.Name != s.Name || back.Version != s.Version || back.Description != s.Description ||
			p.RegistryType != q.RegistryType || p.Identifier != q.Identifier || p.Version != q.Version {
			t.Errorf("%s@%s came back as %s", s.Name, s.Version, b)
		}
		var names, backNames []string
		for _, e := range p.EnvironmentVariables {
			names = append(names, e.Name)
		}
		for _, e := range q.EnvironmentVariables {
			backNames = append(backNames, e.Name)
		}
		if !cmp.Equal(names, backNames) {
			t.Errorf("%s: environment %v came back as %v", s.Name, names, backNames)
		}
	}
}

// TestLeanCtxEntries pins which of lean-ctx's bundled entries have a
// server.json form, as docs/interop.md lists them.
func TestLeanCtxEntries(t *testing.T) {
	ms, err := addon.ParseRegistryFile(sharedtest.File(t, "corpus", "leanctx-addon-registry.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		s, err := serverjson.FromManifest(m, "dev.registryd/"+m.Addon.Name)
		if err == nil {
			b, _ := json.Marshal(s)
			mcpfixture.Validate(t, b)
			got = append(got, m.Addon.Name)
		}
	}
	want := []string{"codebase-intelligence", "cognee", "context-mem", "everything", "mcp-code-context", "memgraph-ingester", "qmd", "repomix", "sequential-thinking"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries with a server.json form (-docs/interop.md +got):\n%s", diff)
	}
}
