package corpus

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"kubernetes-readonly", "kubernetes-readonly"},
		{"GitHub MCP Server", "github-mcp-server"},
		{"  --Weird__Name!!  ", "weird-name"},
		{"Сontext7", "ontext7"}, // a Cyrillic С is not a slug letter
		{"日本語", "addon"},
		{"", "addon"},
		{"---", "addon"},
		{"a\x1b[31mb", "a-31mb"},
		{strings.Repeat("ab", 50), strings.Repeat("ab", 32)},
		{strings.Repeat("a", 63) + " b", strings.Repeat("a", 63)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Slug(tt.in); got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestKeyIgnoresValuesAndOrder(t *testing.T) {
	a := Record{Name: "a", Command: "npx", Args: []string{"x"}, Env: map[string]string{"A": "1", "B": "2"}}
	b := Record{Name: "b", Command: "npx", Args: []string{"x"}, Env: map[string]string{"B": "<yours>", "A": "x"}}
	if a.Key() != b.Key() {
		t.Errorf("keys differ for the same wiring:\n%s\n%s", a.Key(), b.Key())
	}
	tests := []struct {
		name string
		c    Record
	}{
		{"other args", Record{Command: "npx", Args: []string{"y"}, Env: a.Env}},
		{"args order", Record{Command: "npx", Args: []string{"x", ""}, Env: a.Env}},
		{"other env key", Record{Command: "npx", Args: []string{"x"}, Env: map[string]string{"A": "1"}}},
		{"header key", Record{Command: "npx", Args: []string{"x"}, Env: a.Env, Headers: map[string]string{"X": ""}}},
		{"url", Record{Command: "npx", Args: []string{"x"}, Env: a.Env, URL: "https://x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.c.Key() == a.Key() {
				t.Errorf("key of a different wiring equals %s", a.Key())
			}
		})
	}
}

func TestManifest(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		want map[string]any
	}{
		{
			name: "stdio",
			rec:  Record{Name: "My Server", Transport: "stdio", Command: "npx", Args: []string{"-y", "pkg@1.0.0"}, Env: map[string]string{"TOKEN": "x", "odd key.x": "\"q\""}},
			want: map[string]any{
				"addon": map[string]any{"name": "my-server"},
				"mcp": map[string]any{
					"transport": "stdio", "command": "npx", "args": []any{"-y", "pkg@1.0.0"},
					"env": map[string]any{"TOKEN": "x", "odd key.x": "\"q\""},
				},
			},
		},
		{
			name: "http",
			rec:  Record{Name: "", Transport: "http", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
			want: map[string]any{
				"addon": map[string]any{"name": "addon"},
				"mcp": map[string]any{
					"transport": "http", "url": "https://example.com/mcp",
					"headers": map[string]any{"Authorization": "Bearer x"},
				},
			},
		},
		{
			name: "control characters survive escaped",
			rec:  Record{Name: "x", Transport: "stdio", Command: "sh", Args: []string{"-c", "echo \x1b[2J\u202e"}},
			want: map[string]any{
				"addon": map[string]any{"name": "x"},
				"mcp":   map[string]any{"transport": "stdio", "command": "sh", "args": []any{"-c", "echo \x1b[2J\u202e"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.rec.Manifest()
			if err != nil {
				t.Fatalf("Manifest: %v", err)
			}
			var got map[string]any
			if _, err := toml.Decode(string(b), &got); err != nil {
				t.Fatalf("decode %s: %v", b, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("manifest (-want +got):\n%s\n%s", diff, b)
			}
		})
	}
}

func TestManifestWithoutWiring(t *testing.T) {
	_, err := Record{Name: "x", Transport: "stdio"}.Manifest()
	if !errors.Is(err, ErrNoWiring) {
		t.Errorf("err = %v, want ErrNoWiring", err)
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Record
		wantErr string
	}{
		{
			name: "records and blank lines",
			in:   "{\"name\":\"a\",\"command\":\"x\",\"extra\":1}\n\n{\"name\":\"b\",\"url\":\"u\"}\n",
			want: []Record{{Name: "a", Command: "x"}, {Name: "b", URL: "u"}},
		},
		{name: "empty", in: "", want: nil},
		{name: "garbage line", in: "{\"name\":\"a\"}\n\x1b[2J not json\n", wantErr: "corpus line 2: not a wiring record"},
		{name: "wrong type", in: "{\"args\":\"notalist\"}\n", wantErr: "corpus line 1: not a wiring record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLocate(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == "REGISTRYD_CORPUS_DIR" {
			return dir
		}
		return ""
	}
	if _, err := Locate(getenv, "/nonexistent/repo"); err == nil && !fileExists("/work/shared/corpus/"+FileName) {
		t.Errorf("Locate found a corpus in an empty directory")
	}
	if err := writeFile(dir+"/"+FileName, "{}\n"); err != nil {
		t.Fatal(err)
	}
	got, err := Locate(getenv, "/nonexistent/repo")
	if err != nil || got != dir {
		t.Errorf("Locate = %q, %v; want %q", got, err, dir)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
