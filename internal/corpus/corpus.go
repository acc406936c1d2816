// Package corpus turns the real-world MCP wirings in
// shared/corpus/mcp-wirings.jsonl into addon manifests, so that the audit can
// be run, measured and benchmarked on what people actually write.
package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// FileName is the corpus file inside the corpus directory.
const FileName = "mcp-wirings.jsonl"

// Record is one wiring of the corpus. Fields the corpus carries beyond these
// (provenance details that vary by source) are ignored.
type Record struct {
	Source    string            `json:"source"`
	Kind      string            `json:"kind"`
	Name      string            `json:"name"`
	Transport string            `json:"transport"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers"`
}

// Locate returns the corpus directory: the value of REGISTRYD_CORPUS_DIR when
// set, else ../shared/corpus relative to the repository root, else
// /work/shared/corpus. It returns an error saying where it looked when none of
// them holds FileName.
func Locate(getenv func(string) string, repoRoot string) (string, error) {
	var tried []string
	if d := getenv("REGISTRYD_CORPUS_DIR"); d != "" {
		tried = append(tried, d)
	}
	tried = append(tried, filepath.Join(repoRoot, "..", "shared", "corpus"), "/work/shared/corpus")
	for _, d := range tried {
		if st, err := os.Stat(filepath.Join(d, FileName)); err == nil && st.Mode().IsRegular() {
			return d, nil
		}
	}
	return "", fmt.Errorf("corpus %s not found in %s (set REGISTRYD_CORPUS_DIR)", FileName, strings.Join(tried, ", "))
}

// Load reads JSON Lines records from r. Blank lines are skipped; any other
// line that is not a record is an error naming its line number.
func Load(r io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	var recs []Record
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("corpus line %d: not a wiring record", n)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read corpus: %w", err)
	}
	return recs, nil
}

// LoadFile reads the corpus file at path.
func LoadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f)
}

// Slug turns a record name into an addon name: lower-case ASCII letters and
// digits kept, every other run of characters one dash, no leading or
// trailing dash, at most 64 bytes. It returns "addon" when nothing is left.
func Slug(name string) string {
	const maxSlug = 64
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			sep := dash && b.Len() > 0
			if n := b.Len() + 1; n > maxSlug || sep && n+1 > maxSlug {
				break
			}
			if sep {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "addon"
	}
	return s
}

// Key identifies a wiring for deduplication: the command, the arguments,
// the environment variable names, the URL and the header names. Values of
// env and headers are left out because the corpus is full of placeholders
// for the same wiring.
func (r Record) Key() string {
	k := struct {
		Command string
		Args    []string
		Env     []string
		URL     string
		Headers []string
	}{r.Command, r.Args, sortedKeys(r.Env), r.URL, sortedKeys(r.Headers)}
	b, _ := json.Marshal(k) // strings and slices only: cannot fail
	return string(b)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

type manifestTOML struct {
	Addon addonTOML `toml:"addon"`
	MCP   mcpTOML   `toml:"mcp"`
}

type addonTOML struct {
	Name string `toml:"name"`
}

type mcpTOML struct {
	Transport string            `toml:"transport,omitempty"`
	Command   string            `toml:"command,omitempty"`
	Args      []string          `toml:"args,omitempty"`
	URL       string            `toml:"url,omitempty"`
	Env       map[string]string `toml:"env,omitempty"`
	Headers   map[string]string `toml:"headers,omitempty"`
}

// ErrNoWiring is returned by Manifest for a record with neither a command
// nor a URL.
var ErrNoWiring = errors.New("record has neither a command nor a url")

// Manifest renders r as a lean-ctx addon manifest in TOML: `[addon] name` is
// Slug(r.Name) and `[mcp]` carries the transport, command, args, env, url and
// headers that are not empty. Strings are written as TOML escapes them, so a
// control character in the record stays in the manifest (escaped) for the
// decoder to judge.
func (r Record) Manifest() ([]byte, error) {
	if r.Command == "" && r.URL == "" {
		return nil, ErrNoWiring
	}
	m := manifestTOML{
		Addon: addonTOML{Name: Slug(r.Name)},
		MCP: mcpTOML{
			Transport: r.Transport,
			Command:   r.Command,
			Args:      r.Args,
			URL:       r.URL,
			Env:       r.Env,
			Headers:   r.Headers,
		},
	}
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("encode manifest for %q: %w", m.Addon.Name, err)
	}
	return buf.Bytes(), nil
}
