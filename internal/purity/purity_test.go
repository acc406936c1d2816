package purity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const module = "github.com/registryd/registryd"

// purePackages are the packages whose output must depend only on their
// input: the manifest model, the env policy, the audit, the report, the
// rule for text that is safe to show, the formats an install client
// verifies (log leaves, checkpoints, signed envelopes), and the mapping
// between server.json and the manifest.
var purePackages = []string{"./addon/...", "./envpolicy/...", "./assess/...", "./report/...", "./safetext/...", "./transparency/...", "./serverjson/..."}

// leafPackages may depend on nothing outside the standard library but the
// modules listed with them: every other package builds on them, so they
// stay small enough to read and to trust.
var leafPackages = map[string][]string{
	"./safetext": {"golang.org/x/text/"},
	// canonjson writes the canonical JSON strings of the report and the
	// DSSE envelope: the standard library alone.
	"./internal/canonjson": nil,
	// transparency is imported by every install client: the libraries
	// for signed notes, checkpoints, Merkle proofs, DSSE and canonical
	// JSON, and what they pull in.
	"./transparency": {"golang.org/x/mod/sumdb/note", "github.com/transparency-dev/", "github.com/secure-systems-lab/go-securesystemslib/dsse",
		"golang.org/x/crypto/", "github.com/gowebpki/jcs", module + "/safetext", module + "/internal/canonjson", "golang.org/x/text/"},
}

// The rules come in three strengths, because "no os anywhere" cannot hold:
// fmt itself imports os (for Printf to stdout), and BurntSushi/toml imports
// os for its DecodeFile helper. What matters is that nothing in the
// dependency graph can reach the network, a database or another process, and
// that our own pure packages touch no filesystem, clock, randomness or
// syscall themselves.
var (
	// forbiddenEverywhere may not be imported by any package in the
	// dependency graph, standard library included.
	forbiddenEverywhere = []string{"net", "net/*", "os/exec", "os/signal", "database/sql", "database/sql/*", "plugin"}

	// allowedNet are the net/... packages that only parse text (a URL, an
	// IP address) and import neither net nor anything that dials; the audit
	// needs them to judge a wiring's URL.
	allowedNet = []string{"net/url", "net/netip"}

	// exemptions lets a named dependency import what forbiddenEverywhere
	// refuses, because only some of its functions perform I/O and the
	// test can prove that registryd never reaches those.
	exemptions = map[string]exemption{
		// validator imports net and net/mail to parse IPs, CIDRs, MACs and
		// e-mail addresses, and os for its file checks. A handful of its
		// baked-in tags resolve names (DNS) or stat paths; those tags must
		// never appear in registryd's validate tags or Var calls.
		"github.com/go-playground/validator/v10": {
			imports: []string{"net", "net/mail"},
			ioTags: []string{"file", "filepath", "image", "dir", "dirpath", "uds_exists",
				"tcp_addr", "tcp4_addr", "tcp6_addr", "udp_addr", "udp4_addr", "udp6_addr",
				"ip_addr", "ip4_addr", "ip6_addr", "unix_addr"},
		},
		// net/mail and net/textproto import net for their connection types;
		// they are reached only through validator's e-mail parsing.
		"net/mail":      {imports: []string{"net", "net/textproto"}},
		"net/textproto": {imports: []string{"net"}},
		// go-securesystemslib/dsse imports x/crypto/ssh for one function,
		// SHA256KeyID, which it calls only for a verifier that has no key
		// ID (transparency's verifiers always have one); ssh imports net
		// for its client and server connections, which nothing reaches.
		"golang.org/x/crypto/ssh": {imports: []string{"net"}},
		// crypto/x509 (reached through ssh's certificates) imports net for
		// the IP address type of a certificate's names; it parses, it
		// does not dial.
		"crypto/x509": {imports: []string{"net"}},
	}

	// forbiddenInModule may not be imported by the pure packages nor by any
	// other package of this module that they depend on (registry, for
	// example).
	forbiddenInModule = []string{"os", "os/*", "syscall", "io/ioutil", "path/filepath", "crypto/rand", "math/rand", "math/rand/*", "unsafe"}

	// Importing time is allowed: time.Time is a value type (registry's
	// entities carry timestamps, and the manifest decoder must recognise a
	// TOML datetime to refuse it). What purity forbids is reading the clock
	// or the machine's time zone, so instead of the import the test looks for
	// these calls in every registryd package the pure packages depend on.
	clockCalls = []string{"Now", "Since", "Until", "Sleep", "Tick", "After", "AfterFunc", "NewTimer", "NewTicker", "Local", "LoadLocation"}
)

// exemption is what one dependency may import despite the rules, and the
// validator tags that would make it perform I/O.
type exemption struct {
	imports []string
	ioTags  []string
}

// pkg is the part of `go list -json` output the test reads.
type pkg struct {
	ImportPath string
	Dir        string
	Standard   bool
	GoFiles    []string
	Imports    []string
}

func TestPurePackagesStayPure(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; cannot list dependencies")
	}
	roots := listPackages(t, purePackages...)
	deps := listPackages(t, append([]string{"-deps"}, purePackages...)...)
	if len(roots) == 0 || len(deps) == 0 {
		t.Fatalf("go list found no packages (roots %d, deps %d)", len(roots), len(deps))
	}
	rootSet := map[string]bool{}
	for _, p := range roots {
		rootSet[p.ImportPath] = true
	}
	got := violations(deps, rootSet)
	got = append(got, sourceViolations(t, deps)...)
	for _, v := range got {
		t.Error(v)
	}
}

// TestLeafPackagesStayLeaves: a leaf package's whole dependency graph is
// the standard library plus the modules it is allowed.
func TestLeafPackagesStayLeaves(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; cannot list dependencies")
	}
	for leaf, allowed := range leafPackages {
		deps := listPackages(t, "-deps", leaf)
		if len(deps) == 0 {
			t.Fatalf("go list found no packages for %s", leaf)
		}
		for _, v := range leafViolations(deps, module+"/"+strings.TrimPrefix(leaf, "./"), allowed) {
			t.Errorf("%s: %s", leaf, v)
		}
	}
}

// leafViolations returns the packages of deps that are neither standard,
// the leaf itself, nor under an allowed prefix.
func leafViolations(deps []pkg, leaf string, allowed []string) []string {
	var out []string
	for _, p := range deps {
		if p.Standard || p.ImportPath == leaf || slices.ContainsFunc(allowed, func(a string) bool { return strings.HasPrefix(p.ImportPath, a) }) {
			continue
		}
		out = append(out, "depends on "+p.ImportPath)
	}
	return out
}

func TestLeafViolationsDetects(t *testing.T) {
	deps := []pkg{{ImportPath: "strings", Standard: true}, {ImportPath: "golang.org/x/text/unicode/rangetable"},
		{ImportPath: module + "/registry"}, {ImportPath: "example.com/dep"}, {ImportPath: module + "/safetext"}}
	want := []string{"depends on " + module + "/registry", "depends on example.com/dep"}
	if diff := cmp.Diff(want, leafViolations(deps, module+"/safetext", []string{"golang.org/x/text/"})); diff != "" {
		t.Errorf("leafViolations (-want +got):\n%s", diff)
	}
}

// violations returns one message per forbidden import in pkgs. pure names
// the pure packages themselves.
func violations(pkgs []pkg, pure map[string]bool) []string {
	var out []string
	for _, p := range pkgs {
		ours := p.ImportPath == module || strings.HasPrefix(p.ImportPath, module+"/")
		for _, imp := range p.Imports {
			switch {
			case matchAny(imp, forbiddenEverywhere) && !slices.Contains(allowedNet, imp) &&
				!slices.Contains(exemptions[p.ImportPath].imports, imp):
				out = append(out, fmt.Sprintf("%s imports %s: no package reachable from the pure packages may", p.ImportPath, imp))
			case ours && matchAny(imp, forbiddenInModule):
				who := "a registryd package reachable from the pure packages"
				if pure[p.ImportPath] {
					who = "a pure package"
				}
				out = append(out, fmt.Sprintf("%s imports %s: %s may not", p.ImportPath, imp, who))
			}
		}
	}
	return out
}

func matchAny(imp string, patterns []string) bool {
	for _, pat := range patterns {
		if prefix, ok := strings.CutSuffix(pat, "/*"); ok {
			if strings.HasPrefix(imp, prefix+"/") {
				return true
			}
		} else if imp == pat {
			return true
		}
	}
	return false
}

// sourceViolations parses the non-test Go files of this module's packages
// in pkgs and reports every call of a clock function of package time and
// every validator tag that performs I/O.
func sourceViolations(t *testing.T, pkgs []pkg) []string {
	t.Helper()
	var out []string
	for _, p := range pkgs {
		if p.ImportPath != module && !strings.HasPrefix(p.ImportPath, module+"/") {
			continue
		}
		for _, f := range p.GoFiles {
			name := filepath.Join(p.Dir, f)
			out = append(out, clockCallsIn(t, name)...)
			out = append(out, ioTagsIn(t, name)...)
		}
	}
	return out
}

func clockCallsIn(t *testing.T, filename string) []string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filename, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", filename, err)
	}
	timeName := ""
	for _, imp := range file.Imports {
		if imp.Path.Value == `"time"` {
			timeName = "time"
			if imp.Name != nil {
				timeName = imp.Name.Name
			}
		}
	}
	if timeName == "" {
		return nil
	}
	var out []string
	ast.Inspect(file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == timeName && slices.Contains(clockCalls, sel.Sel.Name) {
			out = append(out, fmt.Sprintf("%s: time.%s reads the clock; pure code takes time as an input", fset.Position(sel.Pos()), sel.Sel.Name))
		}
		return true
	})
	return out
}

// ioTagsIn reports every validator tag in filename, in a `validate:"…"`
// struct tag or a literal passed to a Var method, that makes validator
// touch the filesystem or the network.
func ioTagsIn(t *testing.T, filename string) []string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filename, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", filename, err)
	}
	var bad []string
	for _, ex := range exemptions {
		bad = append(bad, ex.ioTags...)
	}
	var out []string
	check := func(pos token.Pos, tags string) {
		for _, alt := range strings.FieldsFunc(tags, func(r rune) bool { return r == ',' || r == '|' }) {
			name, _, _ := strings.Cut(strings.TrimSpace(alt), "=")
			if slices.Contains(bad, name) {
				out = append(out, fmt.Sprintf("%s: validator tag %q performs I/O", fset.Position(pos), name))
			}
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if n.Tag != nil {
				if raw, err := strconv.Unquote(n.Tag.Value); err == nil {
					check(n.Tag.Pos(), reflect.StructTag(raw).Get("validate"))
				}
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(sel.Sel.Name, "Var") {
				return true
			}
			for _, arg := range n.Args {
				if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						check(lit.Pos(), s)
					}
				}
			}
		}
		return true
	})
	return out
}

// listPackages runs `go list -json` with args from the module root.
func listPackages(t *testing.T, args ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Dir,Standard,GoFiles,Imports"}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestViolationsDetects proves the check can fail: each forbidden import,
// placed where it is forbidden, is reported, and the allowed ones are not.
func TestViolationsDetects(t *testing.T) {
	pure := map[string]bool{module + "/assess": true}
	tests := []struct {
		name string
		pkg  pkg
		want []string
	}{
		{"pure package importing net/http", pkg{ImportPath: module + "/assess", Imports: []string{"net/http"}},
			[]string{module + "/assess imports net/http: no package reachable from the pure packages may"}},
		{"dependency importing os/exec", pkg{ImportPath: "example.com/dep", Imports: []string{"os/exec", "os"}},
			[]string{"example.com/dep imports os/exec: no package reachable from the pure packages may"}},
		{"dependency importing database/sql/driver", pkg{ImportPath: "example.com/dep", Imports: []string{"database/sql/driver"}},
			[]string{"example.com/dep imports database/sql/driver: no package reachable from the pure packages may"}},
		{"standard library importing os is allowed", pkg{ImportPath: "fmt", Standard: true, Imports: []string{"os", "syscall"}}, nil},
		{"module package importing os", pkg{ImportPath: module + "/registry", Imports: []string{"os"}},
			[]string{module + "/registry imports os: a registryd package reachable from the pure packages may not"}},
		{"module package importing time is allowed", pkg{ImportPath: module + "/registry", Imports: []string{"time"}}, nil},
		{"pure package importing time for its types is allowed", pkg{ImportPath: module + "/assess", Imports: []string{"time", "strings"}}, nil},
		{"pure package importing os", pkg{ImportPath: module + "/assess", Imports: []string{"os"}},
			[]string{module + "/assess imports os: a pure package may not"}},
		{"pure package importing math/rand/v2", pkg{ImportPath: module + "/assess", Imports: []string{"math/rand/v2"}},
			[]string{module + "/assess imports math/rand/v2: a pure package may not"}},
		{"validator may import net", pkg{ImportPath: "github.com/go-playground/validator/v10", Imports: []string{"net", "net/mail", "os"}}, nil},
		{"validator may not import net/http", pkg{ImportPath: "github.com/go-playground/validator/v10", Imports: []string{"net/http"}},
			[]string{"github.com/go-playground/validator/v10 imports net/http: no package reachable from the pure packages may"}},
		{"url and netip only parse", pkg{ImportPath: module + "/assess", Imports: []string{"net/url", "net/netip"}}, nil},
		{"textproto can dial", pkg{ImportPath: module + "/assess", Imports: []string{"net/textproto"}},
			[]string{module + "/assess imports net/textproto: no package reachable from the pure packages may"}},
		{"a name that merely starts with net", pkg{ImportPath: module + "/assess", Imports: []string{"network"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := violations([]pkg{tt.pkg}, pure)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIOTagsDetected(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, src string
		want      int
	}{
		{"struct tag", "package p\ntype T struct{ F string `json:\"f\" validate:\"required,file\"` }\n", 1},
		{"alternatives", "package p\ntype T struct{ F string `validate:\"omitempty,ip|tcp_addr\"` }\n", 1},
		{"var call", "package p\nfunc f(v interface{ Var(any, string) error }) { _ = v.Var(\"x\", \"required,dirpath\") }\n", 1},
		{"pure tags", "package p\ntype T struct{ F string `validate:\"required,max=64,oneof=stdio http,ip,cidr,email\"` }\n", 0},
		{"other tag key", "package p\ntype T struct{ F string `json:\"file\"` }\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".go")
			if err := writeFile(name, tt.src); err != nil {
				t.Fatal(err)
			}
			got := ioTagsIn(t, name)
			if len(got) != tt.want {
				t.Errorf("got %d I/O tags %q, want %d", len(got), got, tt.want)
			}
		})
	}
}

func TestClockCallsDetected(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, src string
		want      int
	}{
		{"now", "package p\nimport \"time\"\nvar x = time.Now()\n", 1},
		{"renamed import", "package p\nimport clock \"time\"\nfunc f() { clock.Sleep(1); _ = clock.Since(clock.Time{}) }\n", 2},
		{"type only", "package p\nimport \"time\"\ntype T struct{ At time.Time; D time.Duration }\n", 0},
		{"local zone", "package p\nimport \"time\"\nfunc f(t time.Time) time.Time { return t.In(time.Local) }\n", 1},
		{"no time import", "package p\nvar time struct{ Now int }\nvar x = time.Now\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".go")
			if err := writeFile(name, tt.src); err != nil {
				t.Fatal(err)
			}
			got := clockCallsIn(t, name)
			if len(got) != tt.want {
				t.Errorf("got %d clock calls %q, want %d", len(got), got, tt.want)
			}
		})
	}
}

func writeFile(name, s string) error { return os.WriteFile(name, []byte(s), 0o644) }
