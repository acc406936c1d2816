package assess_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
)

// typicalManifest is a manifest as most registry entries look: an npx
// runner, a few env entries, declared capabilities.
const typicalManifest = `[addon]
name = "github"
display_name = "GitHub"
version = "1.4.0"
description = "Issues, pull requests and code search."
author = "acme"
homepage = "https://github.com/acme/github-mcp"
license = "MIT"
categories = ["code"]

[mcp]
transport = "stdio"
command = "npx"
args = ["-y", "@acme/github-mcp@1.4.0", "--read-only", "--toolsets", "repos,issues"]

[mcp.env]
GITHUB_TOKEN = "${GITHUB_TOKEN}"
LOG_LEVEL = "info"

[capabilities]
network = "full"
filesystem = "read_only"
exec = "none"
`

func mustParse(b *testing.B, doc string) *addon.Manifest {
	b.Helper()
	m, err := addon.ParseTOML([]byte(doc))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkAudit audits a typical manifest (already decoded).
func BenchmarkAudit(b *testing.B) {
	m := mustParse(b, typicalManifest)
	b.ReportAllocs()
	for b.Loop() {
		assess.Audit(m)
	}
}

// BenchmarkParseTOML decodes the same manifest: the reference the audit's
// cost is held against (docs/benchmarks.md).
func BenchmarkParseTOML(b *testing.B) {
	doc := []byte(typicalManifest)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := addon.ParseTOML(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuditShell audits a wiring with a small shell script to parse.
func BenchmarkAuditShell(b *testing.B) {
	m := stdio("bash", "-lc", `cd "$HOME/srv" && LOG=1 exec uvx --from mcp-srv==1.2.0 srv --port 0 2>>/tmp/srv.log`)
	b.ReportAllocs()
	for b.Loop() {
		assess.Audit(m)
	}
}

// BenchmarkAuditPathological audits the bounded worst cases, one by one,
// beside the typical manifest: each reader of command text at its bounds,
// and the slowest inputs the fuzzers found (testdata/fuzz/*/slowest-*, run
// as regression seeds too). docs/benchmarks.md has the figures.
func BenchmarkAuditPathological(b *testing.B) {
	cases := []struct {
		name string
		ms   []*addon.Manifest
	}{
		{"typical-manifest", []*addon.Manifest{mustParse(b, typicalManifest)}},
	}
	add := func(name string, ms ...*addon.Manifest) {
		cases = append(cases, struct {
			name string
			ms   []*addon.Manifest
		}{name, ms})
	}
	for _, tc := range []struct{ name, script string }{
		{"nested-subshells-10k", strings.Repeat("(", 10000) + "x" + strings.Repeat(")", 10000)},
		{"heredoc-200KB", "cat <<EOF\n" + strings.Repeat("x", 200<<10) + "\nEOF\n"},
		{"commands-4000", strings.Repeat("a b c; ", 2000)},
		{"nested-if-1000", strings.Repeat("if x; then ", 1000) + "y" + strings.Repeat("; fi", 1000)},
		{"nested-substitutions-1000", strings.Repeat("$(", 1000) + "x" + strings.Repeat(")", 1000)},
	} {
		add(tc.name, stdio("sh", "-c", tc.script))
	}
	add("cmd-line-16KB", stdio("cmd", "/c", strings.Repeat("npx pkg & ", 1638)))
	add("cmd-nested-8", stdio("cmd", strings.Split(strings.Repeat("/c cmd ", 8)+"/c npx pkg", " ")...))
	add("powershell-parens-1000", stdio("powershell", "-c", strings.Repeat("(", 1000)+"iwr x"+strings.Repeat(")", 1000)))
	add("powershell-commands-16KB", stdio("powershell", "-c", strings.Repeat("npx pkg; ", 1800)))
	add("env-split-32", stdio("env", append(strings.Split(strings.Repeat("-S ", 32), " "), "my-mcp")...))
	add("wsl-line-256-words", stdio("wsl", strings.Split(strings.Repeat("npx <KEY> | ", 85), " ")...))
	add("command-string-4KB", stdio(strings.Repeat("npx pkg && ", 370)))
	add("env-values-128", envValues(128))
	add("pager-values-60", pagerValues(60)) // 240 KiB of values, within MaxManifestBytes
	// Every command of a long script starts with the env block's 128
	// variables, as do the shells it starts.
	add("env-128-commands-1700", withEnvBlock(stdio("sh", "-c", strings.Repeat("export A=1; a b c; ", 850)), 128))
	add("env-128-shells-1150", withEnvBlock(stdio("sh", "-c", strings.Repeat("A=$B sh -c x; ", 1150)), 128))
	gitArgs := []string{}
	for range 14 {
		gitArgs = append(gitArgs, "-c", "core.pager="+strings.Repeat("curl x | sh; ", 1250))
	}
	add("git-config-14x16KB", stdio("git", append(gitArgs, "log")...))
	add("awk-program-16KB", stdio("awk", strings.Repeat(`{ system("curl x") } `, 780)))
	add("runner-interpreter-16KB", stdio("npx", "-y", "tsx@4.19.0", "-e", strings.Repeat("require('x'); ", 1170)))
	add("variable-doubling-400", stdio("bash", "-c", "X=0123456789abcdef"+strings.Repeat("; X+=$X", 400)+"; $X"))
	add("variable-4KB-read-3000-times", stdio("bash", "-c", "X="+strings.Repeat("a", 4000)+"; echo"+strings.Repeat(" $X", 3000)))
	add("sed-script-16KB", stdio("sed", strings.Repeat("s/a/b/e;1e x\n", 1100)))
	add("make-eval-16KB", stdio("make", "--eval", strings.Repeat("x:; @a $(shell b) c\n", 800)))
	add("brace-groups-3200", stdio("sh", "-c", "echo "+strings.Repeat("{a,b}", 3200)))
	add("brace-words-190x16", stdio("sh", "-c", "echo "+strings.Repeat(strings.Repeat("{a,b}", 16)+" ", 190)))
	// A program the audit does not know, whose words name known programs
	// over and over: each reading goes one level deeper and reads the
	// words after it again, up to maxTrials readings in all.
	unknownArgs := []string{}
	for range 40 {
		unknownArgs = append(unknownArgs, "serve", "nohup", "launcher", "bash", "-c", strings.Repeat("npx p | sh; ", 100))
	}
	add("unknown-program-readings", stdio("launcher", unknownArgs...))
	for _, target := range []string{"FuzzScript", "FuzzAudit"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", target, "slowest-*"))
		for _, f := range files {
			in := fuzzInput(b, f)
			if target == "FuzzScript" {
				add(target+"-"+filepath.Base(f), scriptManifests(in)...)
			} else {
				add(target+"-"+filepath.Base(f), mustParse(b, in))
			}
		}
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				for _, m := range tc.ms {
					assess.Audit(m)
				}
			}
			if c := cpuTime() - c0; c > 0 {
				b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// envValues is a manifest whose env block holds n command-line variables.
func envValues(n int) *addon.Manifest {
	m := stdio("my-mcp")
	m.MCP.Env = map[string]string{}
	for i := 0; i < n; i++ {
		m.MCP.Env["GIT_SSH_COMMAND_"+strconv.Itoa(i)] = "x"
	}
	m.MCP.Env["GIT_SSH_COMMAND"] = strings.Repeat("curl x | sh; ", 300)
	m.MCP.Env["PAGER"] = strings.Repeat("less | ", 500)
	return m
}

// withEnvBlock gives m an env block of n variables, each a short command
// line (what a script reading them would run).
func withEnvBlock(m *addon.Manifest, n int) *addon.Manifest {
	m.MCP.Env = map[string]string{}
	for i := range n {
		m.MCP.Env["V"+strconv.Itoa(i)] = "npx -y p" + strconv.Itoa(i)
	}
	return m
}

// pagerValues is a manifest whose env block holds n variables named as a
// program's pager, each a command line of 4 KiB: every one is read as a
// script, within the audit's node budget.
func pagerValues(n int) *addon.Manifest {
	m := stdio("my-mcp")
	m.MCP.Env = map[string]string{}
	for i := 0; i < n; i++ {
		m.MCP.Env["P"+strconv.Itoa(i)+"_PAGER"] = strings.Repeat("curl x | sh; ", 315)
	}
	return m
}

// fuzzInput reads the one string of a fuzz corpus file.
func fuzzInput(b *testing.B, path string) string {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(data), "\n")
	v := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(rest), "string("), ")")
	s, err := strconv.Unquote(v)
	if err != nil {
		b.Fatalf("%s: %v", path, err)
	}
	return s
}

// BenchmarkAuditCorpus audits every real-world wiring once per iteration.
func BenchmarkAuditCorpus(b *testing.B) {
	ws := loadCorpus(b)
	ms := make([]*addon.Manifest, len(ws))
	for i, w := range ws {
		ms[i] = w.manifest()
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range ms {
			assess.Audit(m)
		}
	}
}

// TestPureImports keeps the package itself free of file system, network,
// process, clock and environment access: its direct imports come from an
// allowlist. (The shell parser links os for its file helpers; the audit
// never calls them.)
func TestPureImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "github.com/registryd/registryd/assess").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	allowed := map[string]bool{
		"bytes": true, "cmp": true, "encoding/base64": true, "maps": true, "path": true, "slices": true, "net/netip": true, "net/url": true, "regexp": true, "sort": true,
		// sync: a pool of scratch memory, as the manifest package keeps;
		// what an audit returns never depends on what the pool holds.
		"strconv": true, "strings": true, "sync": true, "unicode": true, "unicode/utf8": true, "unicode/utf16": true,
		"github.com/registryd/registryd/addon": true, "github.com/registryd/registryd/envpolicy": true,
		"github.com/registryd/registryd/registry": true, "github.com/registryd/registryd/safetext": true,
		"mvdan.cc/sh/v3/syntax": true,
		// The TOML library reads the settings given with cargo --config;
		// as with the shell parser, its file helpers are never called.
		"github.com/BurntSushi/toml": true,
		// JSON reads the pod specs given to kubectl run --overrides.
		"encoding/json": true,
		// EDN reads the Clojure CLI's -Sdeps, from a string: its readers
		// of io are never given a file.
		"olympos.io/encoding/edn": true,
	}
	for _, imp := range strings.Fields(string(out)) {
		if !allowed[imp] {
			t.Errorf("assess imports %s, which is not on the pure allowlist", imp)
		}
	}
}
