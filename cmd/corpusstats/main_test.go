package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunSmallCorpus(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"name":"a","transport":"stdio","command":"npx","args":["pkg@1.0.0"],"env":{"K":"1"}}`,
		`{"name":"a-copy","transport":"stdio","command":"npx","args":["pkg@1.0.0"],"env":{"K":"other value"}}`,
		`{"name":"b","transport":"http","url":"https://example.com/mcp","headers":{"Authorization":"Bearer x"}}`,
		`{"name":"evil","transport":"stdio","command":"node\u001b[2J"}`,
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp-wirings.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run([]string{"-dir", dir}, func(string) string { return "" }, &out, &errb); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	for _, want := range []string{
		"4 records, 3 unique wirings",
		"2 audited, 1 refused by the decoder",
		"| mcp.command: ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("output echoes an escape character")
	}
}

func TestRunMissingCorpus(t *testing.T) {
	var out, errb bytes.Buffer
	err := run([]string{"-dir", t.TempDir()}, func(string) string { return "" }, &out, &errb)
	if err == nil {
		t.Fatalf("run on an empty directory succeeded:\n%s", out.String())
	}
}
