package addon

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wiringBase is a manifest that sets every wiring field.
const wiringBase = `# every wiring field
[addon]
name = "wired"
version = "1.0.0"
description = "Reads notes."
integration = "memory"
keywords = ["notes"]

[mcp]
transport = "stdio"
command = "/usr/local/bin/notes"
args = ["--read-only", "--root", "/notes"]
sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
integration = "memory"

[mcp.env]
LOG_LEVEL = "debug"
NOTES_HOME = "/notes"

[mcp.headers]
X-Trace = "1"

[capabilities]
network = "none"
filesystem = "read_only"
env = ["HOME", "USER"]
exec = ["git", "rg"]

[install]
manager = "uv"
package = "notes-mcp"
version = "1.0.0"
bin = "notes"
verify = ["notes", "--version"]

[artifacts.x86_64-unknown-linux-gnu]
filename = "notes"
url = "https://example.com/notes"
sha256 = "aaaa"

[[dependencies]]
name = "git-addon"
version = "2.0.0"
`

// wiredHead is the smallest [addon] table the tests add sections to.
const wiredHead = "[addon]\nname = \"ok\"\nversion = \"1.0.0\"\n"

func mustTOML(t testing.TB, s string) *Manifest {
	t.Helper()
	m, err := ParseTOML([]byte(s))
	if err != nil {
		t.Fatalf("ParseTOML: %v\n%s", err, s)
	}
	return m
}

func mustJSON(t testing.TB, s string) *Manifest {
	t.Helper()
	m, err := ParseJSON([]byte(s))
	if err != nil {
		t.Fatalf("ParseJSON: %v\n%s", err, s)
	}
	return m
}

// TestWiringDigestPinned pins the digest of one manifest, so that a change
// to the field list or the encoding cannot slip through without a new
// WiringVersion (which every verification granted before it then loses).
func TestWiringDigestPinned(t *testing.T) {
	const want = "7efaf3c1be127a1402e6512c76647a4283562d740a516d7c1538b973cf7518b6"
	if got := mustTOML(t, wiringBase).Wiring().SHA256(); got != want {
		t.Errorf("digest of wiringBase = %s, want %s; if the wiring's fields or encoding changed on purpose, change WiringVersion too", got, want)
	}
	if WiringVersion != "registryd.wiring/v1" {
		t.Errorf("WiringVersion = %q: update the pinned digest with it", WiringVersion)
	}
}

func TestWiringEntries(t *testing.T) {
	got := mustTOML(t, wiringBase).Wiring()
	want := Wiring{
		{"addon.integration", "", "memory"},
		{"artifacts", "x86_64-unknown-linux-gnu", `{"filename":"notes","sha256":"aaaa","url":"https://example.com/notes"}`},
		{"capabilities.env", "", `["HOME","USER"]`},
		{"capabilities.exec", "", "allow"},
		{"capabilities.exec_allow", "", `["git","rg"]`},
		{"capabilities.filesystem", "", "read_only"},
		{"capabilities.network", "", "none"},
		{"dependencies", "", `[{"name":"git-addon","version":"2.0.0"}]`},
		{"install.bin", "", "notes"},
		{"install.manager", "", "uv"},
		{"install.package", "", "notes-mcp"},
		{"install.verify", "", `["notes","--version"]`},
		{"install.version", "", "1.0.0"},
		{"mcp.args", "", `["--read-only","--root","/notes"]`},
		{"mcp.command", "", "/usr/local/bin/notes"},
		{"mcp.env", "LOG_LEVEL", "debug"},
		{"mcp.env", "NOTES_HOME", "/notes"},
		{"mcp.headers", "X-Trace", "1"},
		{"mcp.integration", "", "memory"},
		{"mcp.sha256", "", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		{"mcp.transport", "", "stdio"},
		{"mcp.url", "", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Wiring() (-want +got):\n%s", diff)
	}
}

// TestWiringSameAcrossSyntax: the same wiring written differently has one
// digest.
func TestWiringSameAcrossSyntax(t *testing.T) {
	base := mustTOML(t, wiringBase).Wiring().SHA256()
	for _, c := range []struct {
		name string
		m    func(t *testing.T) *Manifest
	}{
		{"json form", func(t *testing.T) *Manifest {
			return mustJSON(t, `{
  "dependencies": [{"version": "2.0.0", "name": "git-addon"}],
  "artifacts": {"x86_64-unknown-linux-gnu": {"url": "https://example.com/notes", "sha256": "aaaa", "filename": "notes"}},
  "install": {"verify": ["notes", "--version"], "bin": "notes", "version": "1.0.0", "package": "notes-mcp", "manager": "uv"},
  "capabilities": {"exec": ["rg", "git"], "env": ["USER", "HOME"], "filesystem": "read_only", "network": "none"},
  "mcp": {
    "integration": "memory",
    "headers": {"X-Trace": "1"},
    "env": {"NOTES_HOME": "/notes", "LOG_LEVEL": "debug"},
    "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "args": ["--read-only", "--root", "/notes"],
    "command": "/usr/local/bin/notes",
    "transport": "stdio"
  },
  "addon": {"name": "wired", "integration": "memory", "version": "1.0.0"}
}`)
		}},
		{"toml inline tables, literal strings, no comments", func(t *testing.T) *Manifest {
			return mustTOML(t, `addon = { name = 'wired', integration = 'memory' }
dependencies = [ { name = "git-addon", version = "2.0.0" } ]
[install]
verify = [ 'notes', '--version' ]
package = 'notes-mcp'
manager = "uv"
version = "1.0.0"
bin = "notes"
[mcp]
env = { NOTES_HOME = "/notes", LOG_LEVEL = "debug" }
headers = { "X-Trace" = "1" }
integration = "memory"
command = '/usr/local/bin/notes'
args = [
	"--read-only",   # a comment
	"--root", "/notes",
]
sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
[capabilities]
exec = ["rg", "git", "rg"]
env = ["USER", "HOME"]
[artifacts."x86_64-unknown-linux-gnu"]
sha256 = "aaaa"
url = "https://example.com/notes"
filename = "notes"
`)
		}},
		{"description, version, keywords, display name, author, homepage, license, categories, min_lean_ctx, pricing, verified claim", func(t *testing.T) *Manifest {
			s := strings.Replace(wiringBase, `version = "1.0.0"
description = "Reads notes."`, `version = "9.9.9"
description = "Something else entirely."
display_name = "Notes"
author = "someone else"
homepage = "https://example.org"
license = "MIT"
categories = ["notes"]
min_lean_ctx = "3.9.0"
verified = true`, 1)
			s = strings.Replace(s, `keywords = ["notes"]`, `keywords = ["notes", "markdown"]`, 1)
			return mustTOML(t, s+"\n[pricing]\nmodel = \"usage\"\nusage_price_per_1k_cents = 5\n")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.m(t)
			if got := m.Wiring().SHA256(); got != base {
				t.Errorf("digest %s, want the base's %s; changes: %+v", got, base, mustTOML(t, wiringBase).Wiring().Changes(m.Wiring()))
			}
		})
	}
}

// TestWiringDefaults: a value the client reads the same way as its default
// has the default's digest.
func TestWiringDefaults(t *testing.T) {
	for _, c := range []struct{ name, a, b string }{
		{"transport stdio is the default", "[mcp]\ncommand = \"x\"\n", "[mcp]\ntransport = \"stdio\"\ncommand = \"x\"\n"},
		{"omitted capabilities are strictest", "[capabilities]\n",
			"[capabilities]\nnetwork = \"none\"\nfilesystem = \"read_only\"\nenv = []\nexec = \"none\"\n"},
		{"an install block without a package is ignored", "", "[install]\nmanager = \"uv\"\n"},
		{"empty lists are absent lists", "[mcp]\ncommand = \"x\"\n", "[mcp]\ncommand = \"x\"\nargs = []\nenv = {}\nheaders = {}\n"},
		{"no artifacts", "", "[artifacts]\n"},
		{"dependencies are a set", "[[dependencies]]\nname = \"a\"\n[[dependencies]]\nname = \"b\"\n",
			"[[dependencies]]\nname = \"b\"\n[[dependencies]]\nname = \"a\"\n[[dependencies]]\nname = \"a\"\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := mustTOML(t, wiredHead+c.a).Wiring()
			b := mustTOML(t, wiredHead+c.b).Wiring()
			if a.SHA256() != b.SHA256() {
				t.Errorf("digests differ; changes: %+v", a.Changes(b))
			}
		})
	}
}

// TestWiringEveryFieldCounts: changing any one wiring field changes the
// digest, and Changes names exactly that field.
func TestWiringEveryFieldCounts(t *testing.T) {
	base := mustTOML(t, wiringBase)
	for _, c := range []struct {
		name, old, new string
		want           []WiringChange
	}{
		{"addon.integration", "integration = \"memory\"\nkeywords", "integration = \"compression\"\nkeywords",
			[]WiringChange{{Field: "addon.integration", Kind: WiringChanged, Old: "memory", New: "compression"}}},
		{"mcp.integration", "integration = \"memory\"\n\n[mcp.env]", "integration = \"none\"\n\n[mcp.env]",
			[]WiringChange{{Field: "mcp.integration", Kind: WiringChanged, Old: "memory", New: "none"}}},
		{"mcp.transport", `transport = "stdio"`, `transport = "http"`,
			[]WiringChange{{Field: "mcp.transport", Kind: WiringChanged, Old: "stdio", New: "http"}}},
		{"mcp.command", `command = "/usr/local/bin/notes"`, `command = "/bin/sh"`,
			[]WiringChange{{Field: "mcp.command", Kind: WiringChanged, Old: "/usr/local/bin/notes", New: "/bin/sh"}}},
		{"mcp.args order", `args = ["--read-only", "--root", "/notes"]`, `args = ["--root", "/notes", "--read-only"]`,
			[]WiringChange{{Field: "mcp.args", Kind: WiringChanged, Old: `["--read-only","--root","/notes"]`, New: `["--root","/notes","--read-only"]`}}},
		{"mcp.args element", `"/notes"]`, `"/"]`,
			[]WiringChange{{Field: "mcp.args", Kind: WiringChanged, Old: `["--read-only","--root","/notes"]`, New: `["--read-only","--root","/"]`}}},
		{"mcp.sha256", `sha256 = "9f86`, `sha256 = "0f86`,
			[]WiringChange{{Field: "mcp.sha256", Kind: WiringChanged, Old: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", New: "0f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}}},
		{"mcp.url", `transport = "stdio"`, "transport = \"stdio\"\nurl = \"https://evil.example\"",
			[]WiringChange{{Field: "mcp.url", Kind: WiringChanged, New: "https://evil.example"}}},
		{"mcp.env value", `LOG_LEVEL = "debug"`, `LOG_LEVEL = "info"`,
			[]WiringChange{{Field: "mcp.env", Key: "LOG_LEVEL", Kind: WiringChanged, Old: "debug", New: "info"}}},
		{"mcp.env added", `LOG_LEVEL = "debug"`, "LOG_LEVEL = \"debug\"\nNODE_OPTIONS = \"--require /tmp/x.js\"",
			[]WiringChange{{Field: "mcp.env", Key: "NODE_OPTIONS", Kind: WiringAdded, New: "--require /tmp/x.js"}}},
		{"mcp.env removed", "NOTES_HOME = \"/notes\"\n", "",
			[]WiringChange{{Field: "mcp.env", Key: "NOTES_HOME", Kind: WiringRemoved, Old: "/notes"}}},
		{"mcp.headers", `X-Trace = "1"`, `Authorization = "Bearer x"`,
			[]WiringChange{
				{Field: "mcp.headers", Key: "Authorization", Kind: WiringAdded, New: "Bearer x"},
				{Field: "mcp.headers", Key: "X-Trace", Kind: WiringRemoved, Old: "1"},
			}},
		{"capabilities.network", `network = "none"`, `network = "full"`,
			[]WiringChange{{Field: "capabilities.network", Kind: WiringChanged, Old: "none", New: "full"}}},
		{"capabilities.filesystem", `filesystem = "read_only"`, `filesystem = "read_write"`,
			[]WiringChange{{Field: "capabilities.filesystem", Kind: WiringChanged, Old: "read_only", New: "read_write"}}},
		{"capabilities.env", `env = ["HOME", "USER"]`, `env = ["HOME", "USER", "AWS_SECRET_ACCESS_KEY"]`,
			[]WiringChange{{Field: "capabilities.env", Kind: WiringChanged, Old: `["HOME","USER"]`, New: `["AWS_SECRET_ACCESS_KEY","HOME","USER"]`}}},
		{"capabilities.exec full", `exec = ["git", "rg"]`, `exec = "full"`,
			[]WiringChange{
				{Field: "capabilities.exec", Kind: WiringChanged, Old: "allow", New: "full"},
				{Field: "capabilities.exec_allow", Kind: WiringChanged, Old: `["git","rg"]`, New: `[]`},
			}},
		{"capabilities.exec_allow", `exec = ["git", "rg"]`, `exec = ["git", "sh"]`,
			[]WiringChange{{Field: "capabilities.exec_allow", Kind: WiringChanged, Old: `["git","rg"]`, New: `["git","sh"]`}}},
		{"capabilities dropped", "[capabilities]\nnetwork = \"none\"\nfilesystem = \"read_only\"\nenv = [\"HOME\", \"USER\"]\nexec = [\"git\", \"rg\"]\n", "",
			[]WiringChange{
				{Field: "capabilities.env", Kind: WiringRemoved, Old: `["HOME","USER"]`},
				{Field: "capabilities.exec", Kind: WiringRemoved, Old: "allow"},
				{Field: "capabilities.exec_allow", Kind: WiringRemoved, Old: `["git","rg"]`},
				{Field: "capabilities.filesystem", Kind: WiringRemoved, Old: "read_only"},
				{Field: "capabilities.network", Kind: WiringRemoved, Old: "none"},
			}},
		{"install.manager", `manager = "uv"`, `manager = "pip"`,
			[]WiringChange{{Field: "install.manager", Kind: WiringChanged, Old: "uv", New: "pip"}}},
		{"install.package", `package = "notes-mcp"`, `package = "notes-mcq"`,
			[]WiringChange{{Field: "install.package", Kind: WiringChanged, Old: "notes-mcp", New: "notes-mcq"}}},
		{"install.version", "version = \"1.0.0\"\nbin", "version = \"1.0.1\"\nbin",
			[]WiringChange{{Field: "install.version", Kind: WiringChanged, Old: "1.0.0", New: "1.0.1"}}},
		{"install.bin", `bin = "notes"`, `bin = "notes2"`,
			[]WiringChange{{Field: "install.bin", Kind: WiringChanged, Old: "notes", New: "notes2"}}},
		{"install.verify", `verify = ["notes", "--version"]`, `verify = ["notes", "--help"]`,
			[]WiringChange{{Field: "install.verify", Kind: WiringChanged, Old: `["notes","--version"]`, New: `["notes","--help"]`}}},
		{"artifacts url", `url = "https://example.com/notes"`, `url = "https://example.com/other"`,
			[]WiringChange{{Field: "artifacts", Key: "x86_64-unknown-linux-gnu", Kind: WiringChanged,
				Old: `{"filename":"notes","sha256":"aaaa","url":"https://example.com/notes"}`,
				New: `{"filename":"notes","sha256":"aaaa","url":"https://example.com/other"}`}}},
		{"artifacts target", "[artifacts.x86_64-unknown-linux-gnu]", "[artifacts.aarch64-apple-darwin]",
			[]WiringChange{
				{Field: "artifacts", Key: "aarch64-apple-darwin", Kind: WiringAdded, New: `{"filename":"notes","sha256":"aaaa","url":"https://example.com/notes"}`},
				{Field: "artifacts", Key: "x86_64-unknown-linux-gnu", Kind: WiringRemoved, Old: `{"filename":"notes","sha256":"aaaa","url":"https://example.com/notes"}`},
			}},
		{"dependencies", "version = \"2.0.0\"\n", "version = \"2.0.1\"\n",
			[]WiringChange{{Field: "dependencies", Kind: WiringChanged, Old: `[{"name":"git-addon","version":"2.0.0"}]`, New: `[{"name":"git-addon","version":"2.0.1"}]`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(wiringBase, c.old) {
				t.Fatalf("the base has no %q", c.old)
			}
			m := mustTOML(t, strings.Replace(wiringBase, c.old, c.new, 1))
			if m.Wiring().SHA256() == base.Wiring().SHA256() {
				t.Error("the digest did not change")
			}
			if diff := cmp.Diff(c.want, base.Wiring().Changes(m.Wiring())); diff != "" {
				t.Errorf("Changes (-want +got):\n%s", diff)
			}
			if got := m.Wiring().Changes(m.Wiring()); len(got) != 0 {
				t.Errorf("a wiring differs from itself: %+v", got)
			}
		})
	}
}

// TestWiringEncodingUnambiguous: moving bytes between a key and its value,
// or between entries, changes the digest.
func TestWiringEncodingUnambiguous(t *testing.T) {
	pairs := [][2]Wiring{
		{{{"mcp.env", "AB", "C"}}, {{"mcp.env", "A", "BC"}}},
		{{{"mcp.command", "", "ab"}}, {{"mcp.command", "", "a"}, {"mcp.command", "", "b"}}},
		{{}, {{"", "", ""}}},
	}
	for i, p := range pairs {
		if p[0].SHA256() == p[1].SHA256() {
			t.Errorf("pair %d: %+v and %+v have one digest", i, p[0], p[1])
		}
	}
}

// genWiring is a manifest drawn at random, written out as TOML and as JSON
// with its keys in random orders.
type genWiring struct {
	name, version, description string
	keywords                   []string
	integration, mcpIntegr     string
	transport                  string // "" leaves it out
	command, sha, url          string
	args                       []string
	env, headers               map[string]string
	caps                       *genCaps
	install                    *Install
	artifacts                  map[string]Artifact
	deps                       []Dependency
}

type genCaps struct {
	network, filesystem string // "" leaves it out
	env                 []string
	exec                any // nil (left out), "none", "full" or []string
}

// The alphabets of generated text: printable characters a manifest
// accepts, with quotes, backslashes, markup and non-ASCII among them.
var (
	textRunes  = []rune(`abcXYZ019 -_./:="'\<>&$;|*é漢ß🚀`)
	tokenRunes = []rune("abcdefxyz0123456789-")
	nameRunes  = []rune("ABCXYZ_abc019")
	headRunes  = []rune("abcXYZ09-_!#$%&'*+.^`|~")
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func genText(r *rand.Rand, alphabet []rune, minLen, maxLen int) string {
	n := minLen + r.IntN(maxLen-minLen+1)
	var b strings.Builder
	for range n {
		b.WriteRune(pick(r, alphabet))
	}
	return b.String()
}

func genList(r *rand.Rand, alphabet []rune, minLen, maxN int) []string {
	out := make([]string, r.IntN(maxN+1))
	for i := range out {
		out[i] = genText(r, alphabet, minLen, 8)
	}
	return out
}

func genMap(r *rand.Rand, keys []rune) map[string]string {
	out := map[string]string{}
	for range r.IntN(4) {
		k := genText(r, keys, 1, 6)
		if k[0] >= '0' && k[0] <= '9' {
			k = "K" + k
		}
		out[k] = genText(r, textRunes, 0, 8)
	}
	return out
}

func newGenWiring(r *rand.Rand) *genWiring {
	g := &genWiring{
		name:        "gen",
		version:     fmt.Sprintf("%d.%d.%d", r.IntN(3), r.IntN(20), r.IntN(100)),
		description: genText(r, textRunes, 0, 12),
		keywords:    genList(r, textRunes, 0, 3),
		integration: pick(r, []string{"", "memory", "none", "code-graph"}),
		mcpIntegr:   pick(r, []string{"", "memory", "compression"}),
		transport:   pick(r, []string{"", "stdio", "http"}),
		command:     genText(r, textRunes, 0, 10),
		sha:         genText(r, tokenRunes, 0, 8),
		url:         genText(r, textRunes, 0, 10),
		args:        genList(r, textRunes, 0, 4),
		env:         genMap(r, nameRunes),
		headers:     genMap(r, headRunes),
	}
	if r.IntN(3) > 0 {
		c := &genCaps{
			network:    pick(r, []string{"", "none", "full"}),
			filesystem: pick(r, []string{"", "read_only", "read_write"}),
			env:        genList(r, []rune("ABC_"), 1, 3),
		}
		switch r.IntN(4) {
		case 1:
			c.exec = "none"
		case 2:
			c.exec = "full"
		case 3:
			c.exec = genList(r, tokenRunes, 1, 3)
		}
		g.caps = c
	}
	if r.IntN(2) == 0 {
		g.install = &Install{
			Manager: pick(r, []string{"uv", "pip", "npm", "cargo"}),
			Package: genText(r, tokenRunes, 1, 8),
			Version: "1." + genText(r, []rune("0123456789"), 1, 3),
			Bin:     genText(r, tokenRunes, 0, 5),
			Verify:  genList(r, tokenRunes, 0, 3),
		}
	}
	g.artifacts = map[string]Artifact{}
	for range r.IntN(3) {
		g.artifacts[pick(r, []string{"x86_64-unknown-linux-gnu", "aarch64-apple-darwin", "x86_64-pc-windows-msvc"})] = Artifact{
			Filename: genText(r, tokenRunes, 1, 6), URL: genText(r, textRunes, 0, 10), SHA256: genText(r, tokenRunes, 0, 6),
		}
	}
	for range r.IntN(3) {
		g.deps = append(g.deps, Dependency{Name: pick(r, []string{"a", "b", "c-d"}), Version: pick(r, []string{"", "1.0.0", "2.0.0"})})
	}
	return g
}

// member is one key of a table, written as TOML or JSON by a writer.
type member struct {
	key string
	val any // string, []string, map[string]string, []Dependency, map[string]Artifact, a nested []member
}

func (g *genWiring) tables() []member {
	addon := []member{{"name", g.name}, {"version", g.version}, {"description", g.description}, {"keywords", g.keywords}}
	if g.integration != "" {
		addon = append(addon, member{"integration", g.integration})
	}
	mcp := []member{{"command", g.command}, {"args", g.args}, {"sha256", g.sha}, {"url", g.url}, {"env", g.env}, {"headers", g.headers}}
	if g.transport != "" {
		mcp = append(mcp, member{"transport", g.transport})
	}
	if g.mcpIntegr != "" {
		mcp = append(mcp, member{"integration", g.mcpIntegr})
	}
	out := []member{{"addon", addon}, {"mcp", mcp}}
	if c := g.caps; c != nil {
		caps := []member{{"env", c.env}}
		if c.network != "" {
			caps = append(caps, member{"network", c.network})
		}
		if c.filesystem != "" {
			caps = append(caps, member{"filesystem", c.filesystem})
		}
		if c.exec != nil {
			caps = append(caps, member{"exec", c.exec})
		}
		out = append(out, member{"capabilities", caps})
	}
	if in := g.install; in != nil {
		out = append(out, member{"install", []member{{"manager", in.Manager}, {"package", in.Package},
			{"version", in.Version}, {"bin", in.Bin}, {"verify", in.Verify}}})
	}
	if len(g.artifacts) > 0 {
		var arts []member
		for k, a := range g.artifacts {
			arts = append(arts, member{k, []member{{"filename", a.Filename}, {"url", a.URL}, {"sha256", a.SHA256}}})
		}
		out = append(out, member{"artifacts", arts})
	}
	if len(g.deps) > 0 {
		out = append(out, member{"dependencies", g.deps})
	}
	return out
}

// shuffled returns ms in a random order; maps are turned into members
// first.
func shuffled(r *rand.Rand, ms []member) []member {
	out := slices.Clone(ms)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func mapMembers(m map[string]string) []member {
	var out []member
	for k, v := range m {
		out = append(out, member{k, v})
	}
	return out
}

// quote writes s as a JSON string, which is also a TOML basic string; in
// TOML it sometimes uses a literal string instead.
func quote(r *rand.Rand, s string, toml bool) string {
	if toml && r.IntN(2) == 0 && !strings.ContainsAny(s, "'") {
		return "'" + s + "'"
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func space(r *rand.Rand) string { return pick(r, []string{"", " ", "  ", "\t"}) }

// value writes v inline.
func value(r *rand.Rand, v any, toml bool) string {
	sep, kv := ",", ":"
	if toml {
		kv = " ="
	}
	switch x := v.(type) {
	case string:
		return quote(r, x, toml)
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = space(r) + quote(r, s, toml)
		}
		return "[" + strings.Join(parts, sep) + space(r) + "]"
	case map[string]string:
		return value(r, mapMembers(x), toml)
	case []member:
		ms := shuffled(r, x)
		parts := make([]string, len(ms))
		for i, m := range ms {
			parts[i] = space(r) + quote(r, m.key, toml) + kv + space(r) + value(r, m.val, toml)
		}
		return "{" + strings.Join(parts, sep) + space(r) + "}"
	case []Dependency:
		parts := make([]string, len(x))
		for i, d := range x {
			parts[i] = value(r, []member{{"name", d.Name}, {"version", d.Version}}, toml)
		}
		return "[" + strings.Join(parts, sep) + "]"
	}
	panic(fmt.Sprintf("value of type %T", v))
}

func (g *genWiring) json(r *rand.Rand) string { return value(r, g.tables(), false) }

// toml writes each table under its own header, with sub-tables and arrays
// of tables sometimes as headers, sometimes inline, and comments between.
func (g *genWiring) toml(r *rand.Rand) string {
	var b strings.Builder
	for _, t := range shuffled(r, g.tables()) {
		if t.key == "dependencies" {
			for _, d := range t.val.([]Dependency) {
				fmt.Fprintf(&b, "[[dependencies]]\nname = %s\nversion = %s\n", quote(r, d.Name, true), quote(r, d.Version, true))
			}
			continue
		}
		fmt.Fprintf(&b, "%s[%s]%s# %s\n", space(r), t.key, space(r), genText(r, textRunes, 0, 5))
		var subs []member
		for _, m := range shuffled(r, t.val.([]member)) {
			if _, ok := m.val.([]member); ok && r.IntN(2) == 0 {
				subs = append(subs, m)
				continue
			}
			if mp, ok := m.val.(map[string]string); ok && r.IntN(2) == 0 {
				subs = append(subs, member{m.key, mapMembers(mp)})
				continue
			}
			fmt.Fprintf(&b, "%s%s%s=%s%s\n", space(r), quote(r, m.key, true), space(r), space(r), value(r, m.val, true))
		}
		for _, s := range subs {
			fmt.Fprintf(&b, "\n[%s.%s]\n", t.key, quote(r, s.key, false))
			for _, m := range shuffled(r, s.val.([]member)) {
				fmt.Fprintf(&b, "%s = %s\n", quote(r, m.key, true), value(r, m.val, true))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// wiringMutations change one wiring field of g each; every one must change
// the digest.
var wiringMutations = []struct {
	name string
	fn   func(g *genWiring)
}{
	{"addon.integration", func(g *genWiring) { g.integration = map[string]string{"": "memory"}[g.integration] }},
	{"mcp.integration", func(g *genWiring) { g.mcpIntegr = map[string]string{"": "none"}[g.mcpIntegr] }},
	{"mcp.transport", func(g *genWiring) {
		g.transport = map[string]string{"": "http", "stdio": "http", "http": "stdio"}[g.transport]
	}},
	{"mcp.command", func(g *genWiring) { g.command += "x" }},
	{"mcp.args added", func(g *genWiring) { g.args = append(slices.Clone(g.args), "--x") }},
	{"mcp.args reordered", func(g *genWiring) { g.args = append([]string{"--first"}, g.args...) }},
	{"mcp.sha256", func(g *genWiring) { g.sha += "0" }},
	{"mcp.url", func(g *genWiring) { g.url += "/x" }},
	{"mcp.env added", func(g *genWiring) { g.env = with(g.env, "ZZ_NEW", "1") }},
	{"mcp.env value", func(g *genWiring) {
		g.env = with(g.env, "ZZ", "v")
		g.env = with(g.env, "ZZ", g.env["ZZ"]+"x")
	}},
	{"mcp.headers added", func(g *genWiring) { g.headers = with(g.headers, "X-New", "1") }},
	{"capabilities toggled", func(g *genWiring) {
		if g.caps == nil {
			g.caps = &genCaps{}
		} else {
			g.caps = nil
		}
	}},
	{"capabilities.network", func(g *genWiring) {
		g.caps = capsWith(g.caps, func(c *genCaps) { c.network = opposite(c.network, "none", "full") })
	}},
	{"capabilities.filesystem", func(g *genWiring) {
		g.caps = capsWith(g.caps, func(c *genCaps) { c.filesystem = opposite(c.filesystem, "read_only", "read_write") })
	}},
	{"capabilities.env", func(g *genWiring) {
		g.caps = capsWith(g.caps, func(c *genCaps) { c.env = append(slices.Clone(c.env), "NEW_NAME") })
	}},
	{"capabilities.exec", func(g *genWiring) {
		g.caps = capsWith(g.caps, func(c *genCaps) {
			if c.exec == "full" {
				c.exec = "none"
			} else {
				c.exec = "full"
			}
		})
	}},
	{"capabilities.exec_allow", func(g *genWiring) {
		g.caps = capsWith(g.caps, func(c *genCaps) {
			list, _ := c.exec.([]string)
			c.exec = append(slices.Clone(list), "newbin")
		})
	}},
	{"install toggled", func(g *genWiring) {
		if g.install == nil {
			g.install = &Install{Manager: "uv", Package: "p", Version: "1.0"}
		} else {
			g.install = nil
		}
	}},
	{"install.package", func(g *genWiring) { g.install = installWith(g.install, func(in *Install) { in.Package += "x" }) }},
	{"install.version", func(g *genWiring) { g.install = installWith(g.install, func(in *Install) { in.Version += "1" }) }},
	{"install.bin", func(g *genWiring) { g.install = installWith(g.install, func(in *Install) { in.Bin += "x" }) }},
	{"install.verify", func(g *genWiring) {
		g.install = installWith(g.install, func(in *Install) { in.Verify = append(slices.Clone(in.Verify), "-v") })
	}},
	{"install.manager", func(g *genWiring) {
		g.install = installWith(g.install, func(in *Install) { in.Manager = opposite(in.Manager, "uv", "pip") })
	}},
	{"artifacts", func(g *genWiring) {
		arts := map[string]Artifact{}
		for k, v := range g.artifacts {
			v.URL += "x"
			arts[k] = v
		}
		arts["riscv64gc-unknown-linux-gnu"] = Artifact{Filename: "f"}
		g.artifacts = arts
	}},
	{"dependencies", func(g *genWiring) { g.deps = append(slices.Clone(g.deps), Dependency{Name: "zz-new"}) }},
}

// sameWiringMutations change g but not its wiring; none may change the
// digest.
var sameWiringMutations = []struct {
	name string
	fn   func(g *genWiring)
}{
	{"description", func(g *genWiring) { g.description += " and more" }},
	{"version", func(g *genWiring) { g.version = strings.Replace(g.version, ".", "1.", 1) }},
	{"keywords", func(g *genWiring) { g.keywords = append(slices.Clone(g.keywords), "extra") }},
	{"capabilities.env order", func(g *genWiring) {
		if g.caps != nil {
			env := slices.Clone(g.caps.env)
			slices.Reverse(env)
			c := *g.caps
			c.env = append(env, env...)
			g.caps = &c
		}
	}},
	{"dependencies order", func(g *genWiring) {
		deps := slices.Clone(g.deps)
		slices.Reverse(deps)
		g.deps = deps
	}},
}

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{}
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

func opposite(v, a, b string) string {
	if v == b {
		return a
	}
	if v == "" && a != "" {
		return b // "" reads as the strictest value, a
	}
	return b
}

func capsWith(c *genCaps, fn func(*genCaps)) *genCaps {
	out := genCaps{}
	if c != nil {
		out = *c
	}
	fn(&out)
	return &out
}

func installWith(in *Install, fn func(*Install)) *Install {
	out := Install{Manager: "uv", Package: "p", Version: "1.0"}
	if in != nil {
		out = *in
	}
	fn(&out)
	return &out
}

func (g *genWiring) clone() *genWiring {
	c := *g
	return &c
}

// checkGenWiring is the property: the TOML and JSON forms of g, each with
// keys in any order, have one digest; each wiring mutation changes it and
// each other mutation does not. all false checks one mutation of each kind,
// drawn at random, instead of every one.
func checkGenWiring(t *testing.T, r *rand.Rand, g *genWiring, all bool) {
	t.Helper()
	digest := func(g *genWiring) string {
		t.Helper()
		toml, js := g.toml(r), g.json(r)
		a, b := mustTOML(t, toml).Wiring(), mustJSON(t, js).Wiring()
		if !slices.IsSortedFunc(a, func(x, y WiringEntry) int { return compareEntries(x, y) }) ||
			len(slices.CompactFunc(slices.Clone(a), func(x, y WiringEntry) bool { return compareEntries(x, y) == 0 })) != len(a) {
			t.Fatalf("entries are not sorted and unique: %+v", a)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("TOML and JSON forms differ (-toml +json):\n%s\nTOML:\n%s\nJSON:\n%s", diff, toml, js)
		}
		if again := mustTOML(t, g.toml(r)).Wiring().SHA256(); again != a.SHA256() {
			t.Fatalf("two TOML writings of one manifest differ")
		}
		return a.SHA256()
	}
	base := digest(g)
	changing, keeping := wiringMutations, sameWiringMutations
	if !all {
		i, j := r.IntN(len(changing)), r.IntN(len(keeping))
		changing, keeping = changing[i:i+1], keeping[j:j+1]
	}
	for _, mu := range changing {
		c := g.clone()
		mu.fn(c)
		if digest(c) == base {
			t.Errorf("mutation %s left the digest unchanged\nTOML:\n%s", mu.name, c.toml(r))
		}
	}
	for _, mu := range keeping {
		c := g.clone()
		mu.fn(c)
		if digest(c) != base {
			t.Errorf("mutation %s changed the digest", mu.name)
		}
	}
}

func TestWiringProperty(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 1))
		checkGenWiring(t, r, newGenWiring(r), true)
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
}

// FuzzWiringDigest runs the property of TestWiringProperty on manifests
// drawn from the fuzzer's seed bytes.
func FuzzWiringDigest(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(binary.LittleEndian.AppendUint64(nil, seed))
	}
	f.Fuzz(func(t *testing.T, seed []byte) {
		var s [16]byte
		copy(s[:], seed)
		r := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(s[:8]), binary.LittleEndian.Uint64(s[8:])))
		checkGenWiring(t, r, newGenWiring(r), false)
	})
}

// TestWiringJSONValues: a list value is JSON that reads back as the list.
func TestWiringJSONValues(t *testing.T) {
	for _, in := range [][]string{
		nil,
		{""},
		{`a "quoted" \ path`, "tab\there", "\x00\x1f", "a < b & c > d", "é漢🚀", "\u2028"},
	} {
		var got []string
		if err := json.Unmarshal([]byte(jsonStrings(in)), &got); err != nil {
			t.Fatalf("jsonStrings(%q) = %s: %v", in, jsonStrings(in), err)
		}
		if diff := cmp.Diff(nonNilStrings(in), got); diff != "" {
			t.Errorf("round trip of %q (-want +got):\n%s", in, diff)
		}
	}
	obj := string(jsonObject(nil, "url", `https://x/"y"`, "sha256", `\`))
	var got map[string]string
	if err := json.Unmarshal([]byte(obj), &got); err != nil {
		t.Fatalf("jsonObject = %s: %v", obj, err)
	}
	if want := map[string]string{"url": `https://x/"y"`, "sha256": `\`}; !cmp.Equal(want, got) {
		t.Errorf("jsonObject read back as %v, want %v", got, want)
	}
}

func nonNilStrings(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
