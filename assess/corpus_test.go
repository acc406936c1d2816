package assess_test

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
)

// wiring is one record of testdata/mcp-wirings.jsonl (real-world MCP
// server wirings).
type wiring struct {
	Name      string            `json:"name"`
	Transport string            `json:"transport"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers"`
}

func (w wiring) manifest() *addon.Manifest {
	m := &addon.Manifest{Addon: addon.Meta{Name: "corpus"}}
	m.MCP = addon.MCP{Declared: true, Transport: addon.TransportStdio, Command: w.Command, Args: w.Args, Env: w.Env}
	if w.Transport == "http" {
		m.MCP = addon.MCP{Declared: true, Transport: addon.TransportHTTP, URL: w.URL, Headers: w.Headers}
	}
	return m
}

func loadCorpus(t testing.TB) []wiring {
	t.Helper()
	f, err := os.Open("testdata/mcp-wirings.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []wiring
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var w wiring
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			t.Fatalf("corpus line %d: %v", len(out)+1, err)
		}
		out = append(out, w)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// pathSyntax is the shape of every finding path: dotted field names with
// optional indexes.
var pathSyntax = regexp.MustCompile(`^(mcp|capabilities|install|addon)(\.[A-Za-z0-9_.-]+|\[\d+\])*$`)

// checkResult asserts the invariants every audit holds: codes from the rule
// table at their level, a well-formed path, order and no duplicates.
func checkResult(t testing.TB, r assess.Result) {
	t.Helper()
	for i, f := range r.Findings {
		rule, ok := assess.RuleFor(f.Code)
		if !ok {
			t.Errorf("finding code %q is not in Rules()", f.Code)
			continue
		}
		if f.Level != rule.Level {
			t.Errorf("finding %s at level %s, rule says %s", f.Code, f.Level, rule.Level)
		}
		if !pathSyntax.MatchString(f.Path) {
			t.Errorf("finding %s has malformed path %q", f.Code, f.Path)
		}
		if f.Message == "" {
			t.Errorf("finding %s has no message", f.Code)
		}
		if i > 0 {
			p := r.Findings[i-1]
			if p == f {
				t.Errorf("duplicate finding %v", f)
			}
			if p.Level < f.Level || p.Level == f.Level && (p.Code > f.Code || p.Code == f.Code && (p.Path > f.Path || p.Path == f.Path && p.Message > f.Message)) {
				t.Errorf("findings out of order: %v before %v", p, f)
			}
		}
	}
}

// TestCorpus audits every real-world wiring twice: no panic, identical
// results, invariants held. With -v it logs how often each rule fires.
func TestCorpus(t *testing.T) {
	ws := loadCorpus(t)
	if len(ws) < 3000 {
		t.Fatalf("corpus has %d wirings, want the full set", len(ws))
	}
	fired := map[string]int{}
	verdicts := map[registry.Verdict]int{}
	for i, w := range ws {
		m := w.manifest()
		r1, r2 := assess.Audit(m), assess.Audit(m)
		if diff := cmp.Diff(r1, r2); diff != "" {
			t.Fatalf("wiring %d (%s): second audit differs:\n%s", i, w.Name, diff)
		}
		checkResult(t, r1)
		seen := map[string]bool{}
		for _, f := range r1.Findings {
			if !seen[f.Code] {
				fired[f.Code]++
				seen[f.Code] = true
			}
		}
		verdicts[r1.Verdict()]++
	}
	codes := make([]string, 0, len(fired))
	for c := range fired {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var b strings.Builder
	for _, c := range codes {
		b.WriteString("\n  " + c + ": " + itoa(fired[c]))
	}
	t.Logf("%d wirings; verdicts %v; wirings per code:%s", len(ws), verdicts, b.String())
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestRegistryFile audits every entry of the lean-ctx registry: they load,
// and none fails registryd's bar (they passed upstream's).
func TestRegistryFile(t *testing.T) {
	b, err := os.ReadFile("testdata/leanctx-addon-registry.json")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := addon.ParseRegistryFile(b)
	if err != nil {
		t.Fatalf("ParseRegistryFile: %v", err)
	}
	if len(ms) != 21 {
		t.Fatalf("got %d entries, want 21", len(ms))
	}
	for _, m := range ms {
		t.Run(m.Addon.Name, func(t *testing.T) {
			r := assess.Audit(m)
			checkResult(t, r)
			for _, f := range r.Findings {
				if !m.HasPath(f.Path) {
					t.Errorf("finding %s: path %q is not in the manifest", f.Code, f.Path)
				}
			}
			if v := r.Verdict(); v == registry.VerdictFail {
				t.Errorf("verdict %s: %v", v, r.Findings)
			}
		})
	}
}
