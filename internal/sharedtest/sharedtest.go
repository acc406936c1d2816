// Package sharedtest finds the shared test inputs that live beside the
// repository (the conformance vectors, the real-world corpus, GitHub's webhook
// payloads): $REGISTRYD_SHARED_DIR, else ../shared next to the module root,
// else /work/shared.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the directory shared/<sub>, failing t when it cannot be found
// anywhere.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	var candidates []string
	if d := os.Getenv("REGISTRYD_SHARED_DIR"); d != "" {
		candidates = append(candidates, d)
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				candidates = append(candidates, filepath.Join(d, "..", "shared"))
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	candidates = append(candidates, "/work/shared")
	for _, c := range candidates {
		dir := filepath.Join(c, sub)
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
	}
	t.Fatalf("shared/%s not found in any of %q; set REGISTRYD_SHARED_DIR to the shared directory", sub, candidates)
	return ""
}

// File reads shared/<sub>/<name>, failing t when it cannot.
func File(t testing.TB, sub, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(t, sub), name))
	if err != nil {
		t.Fatalf("read shared fixture: %v", err)
	}
	return b
}
