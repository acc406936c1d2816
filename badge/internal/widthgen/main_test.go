package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// committed is the generated table in the repository.
var committed = filepath.Join("..", "..", "widths_gen.go")

func fontOrSkip(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(DefaultFont)
	if err != nil {
		t.Skipf("DejaVu Sans is not at %s (apt-get install -y fonts-dejavu-core): %v", DefaultFont, err)
	}
	return data
}

// TestTableIsFresh regenerates the width table in memory and compares it
// with the committed file, so that an edit of the generator or of the font
// cannot go unnoticed.
func TestTableIsFresh(t *testing.T) {
	data := fontOrSkip(t)
	got, err := generate(data)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n"))
		t.Errorf("%s is stale; run go generate ./badge (-committed +generated):\n%s", committed, diff)
	}
}

func TestRunWritesFile(t *testing.T) {
	fontOrSkip(t)
	out := filepath.Join(t.TempDir(), "widths_gen.go")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-font", DefaultFont, "-o", out}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v (stderr: %s)", err, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte("// Code generated ")) || !bytes.Contains(got, []byte("DO NOT EDIT.")) {
		t.Errorf("output does not start with a generated-code header:\n%.200s", got)
	}
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing font", []string{"-font", filepath.Join(t.TempDir(), "none.ttf")}, "read font"},
		{"not a font", []string{"-font", writeFile(t, "junk.ttf", []byte("this is not a font"))}, "parse font"},
		{"empty font", []string{"-font", writeFile(t, "empty.ttf", nil)}, "parse font"},
		{"unknown flag", []string{"-size", "12"}, "flag provided but not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(tc.args, &stdout, &stderr)
			if err == nil {
				t.Fatalf("run(%q) succeeded, want an error", tc.args)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run(%q) error = %q, want it to mention %q", tc.args, err, tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("run(%q) wrote %d bytes of output despite the error", tc.args, stdout.Len())
			}
		})
	}
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
