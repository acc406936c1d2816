package main

import (
	"crypto/rand"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/registryd/registryd/transparency"
)

// someKey returns a verifier key of no registry.
func someKey(t *testing.T) string {
	t.Helper()
	_, vkey, err := transparency.GenerateKey(rand.Reader, "registry.example")
	if err != nil {
		t.Fatal(err)
	}
	return vkey
}

func TestCheckUsage(t *testing.T) {
	someKey := someKey(t)
	state := t.TempDir()
	base := []string{"check", "--registry", "http://127.0.0.1:1", "--key", someKey, "--state", state}
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"no target", base, "check takes one FILE or NAME[@VERSION]"},
		{"two targets", append(base, "a", "b"), "check takes one FILE"},
		{"no registry", []string{"check", "--key", someKey, "demo"}, "check needs --registry URL"},
		{"no key", []string{"check", "--registry", "http://127.0.0.1:1", "demo"}, "check needs --key"},
		{"unknown policy", append(base, "--policy", "lenient\x1b[2J", "demo"), "--policy: unknown policy"},
		{"unknown format", append(base, "--format", "yaml", "demo"), "--format: want text or json"},
		{"a negative max age", append(base, "--max-age", "-1h", "demo"), "--max-age: want a positive duration"},
		{"a bad key", []string{"check", "--registry", "http://127.0.0.1:1", "--key", "not-a-key", "--state", state, "demo"}, "keys[0]: invalid key"},
		{"a bad URL", []string{"check", "--registry", "ftp://x", "--key", someKey, "--state", state, "demo"}, "registry: want an http or https URL"},
		{"a bad name", append(base, "de\x1bmo@1"), "de?mo@1 is neither a file nor NAME[@VERSION]"},
		{"a bad version", append(base, "demo@v1.0.0"), "is neither a file nor NAME[@VERSION]: the version"},
		{"an unknown flag", append(base, "--insecure", "demo"), "flag provided but not defined: -insecure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.says) {
				t.Errorf("exit %d, stderr:\n%s\nwant 2 and %q", code, stderr, tt.says)
			}
			if stdout != "" {
				t.Errorf("a usage error printed on standard output:\n%s", stdout)
			}
			if strings.ContainsRune(stderr, 0x1b) {
				t.Errorf("stderr echoes an escape character: %q", stderr)
			}
		})
	}
}

func TestCheckHelp(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "check", "--help")
	if code != 0 || stderr != "" {
		t.Fatalf("check --help: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"Usage: registryd check --registry URL --key VERIFIER_KEY", "block_risky", "verified_only",
		"-max-age", "-state", "user's config directory", "Exit status:", "1  denied by the policy", "2  could not verify"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check --help does not say %q", want)
		}
	}
	if _, list, _ := runCLI(t, "", "help"); !strings.Contains(list, "check ") {
		t.Errorf("registryd help does not list check:\n%s", list)
	}
}

// TestCheckUnreachable: a registry nobody answers for is exit 2, in both
// formats, and nothing is saved.
func TestCheckUnreachable(t *testing.T) {
	someKey := someKey(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	state := t.TempDir()
	manifest := filepath.Join(t.TempDir(), "lean-ctx-addon.toml")
	if err := os.WriteFile(manifest, []byte("[addon]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		for _, target := range []string{"demo", manifest, "-"} {
			code, stdout, stderr := runCLI(t, "[addon]\n", "check", "--registry", "http://"+addr, "--key", someKey, "--state", state, "--format", format, target)
			if code != 2 || !strings.Contains(stderr, "the registry could not be reached") {
				t.Errorf("%s %s: exit %d, stderr %q; want 2, unreachable", format, target, code, stderr)
			}
			if format == "json" && !strings.Contains(stdout, `"outcome":"unverified"`) {
				t.Errorf("json: %s", stdout)
			}
			if format == "text" && stdout != "" {
				t.Errorf("text: printed %q on standard output", stdout)
			}
		}
	}
	if entries, _ := os.ReadDir(state); len(entries) != 0 {
		t.Errorf("the state directory holds %d files after failures", len(entries))
	}
}
