package report_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
)

var update = flag.Bool("update", false, "rewrite the golden report files in testdata/golden")

// goldenCase is one manifest of testdata/golden and the registry state it is
// reported under.
type goldenCase struct {
	file         string
	tier         registry.Tier
	removed      bool
	suppressions []report.Suppression
}

var goldenCases = []goldenCase{
	{file: "clean-stdio.toml"},
	{file: "http-headers.toml"},
	{file: "pipe-to-shell.toml"},
	{file: "forbidden-env.toml"},
	{file: "unpinned-npx.toml"},
	{file: "docker.toml"},
	{file: "caps-underdeclared.toml"},
	{file: "verified.toml", tier: registry.TierVerified},
	{file: "claims-verified.toml"}, // claims verified = true; the tier stays community
	{file: "suppressed.toml", suppressions: []report.Suppression{
		{Code: assess.CodeUnpinned, Reason: registry.ReasonAcceptedRisk},
		{Code: assess.CodeChildEnv, Path: "mcp.env", Reason: registry.ReasonNotApplicable},
		{Code: assess.CodeRemoteEndpoint, Path: "mcp.url", Reason: registry.ReasonMitigated}, // no such finding here: ignored
		{Code: "no_such_code", Reason: registry.ReasonFalsePositive},                         // stale: ignored
	}},
	{file: "removed.toml", removed: true},
	{file: "no-mcp.json"},
	{file: "command-string.toml"},
	{file: "windows-cmd.toml"},
	{file: "artifacts.toml"},
}

func parseGolden(data []byte, json bool) (*addon.Manifest, error) {
	if json {
		return addon.ParseJSON(data)
	}
	return addon.ParseTOML(data)
}

// auditBytes is the whole pipeline a registry runs on a submission.
func auditBytes(data []byte, json bool, c goldenCase) ([]byte, error) {
	m, err := parseGolden(data, json)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	tier := c.tier
	if tier == "" {
		tier = registry.TierCommunity
	}
	_, b, err := report.Build(report.Input{
		Manifest:     data,
		Parsed:       m,
		Result:       assess.Audit(m),
		Tier:         tier,
		Removed:      c.removed,
		Suppressions: c.suppressions,
	})
	return b, err
}

func audit(t testing.TB, data []byte, json bool, c goldenCase) []byte {
	t.Helper()
	b, err := auditBytes(data, json, c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.file, func(t *testing.T) {
			src := filepath.Join("testdata", "golden", c.file)
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			got := audit(t, data, strings.HasSuffix(c.file, ".json"), c)
			golden := strings.TrimSuffix(src, filepath.Ext(src)) + ".report.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./report -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("report differs from %s (-want +got):\n%s", golden, cmp.Diff(string(want), string(got)))
			}
			canon, err := jcs.Transform(got)
			if err != nil {
				t.Fatalf("jcs.Transform: %v", err)
			}
			if !bytes.Equal(canon, got) {
				t.Errorf("report is not canonical JSON:\n got %s\nwant %s", got, canon)
			}
			if _, err := report.Decode(got); err != nil {
				t.Errorf("Decode of a built report: %v", err)
			}
		})
	}
}

// TestGoldenInvariants checks what every golden report must say, whatever
// the rules find, so that an -update cannot silently bless a wrong report.
func TestGoldenInvariants(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "golden", c.file))
			if err != nil {
				t.Fatal(err)
			}
			r, err := report.Decode(audit(t, data, strings.HasSuffix(c.file, ".json"), c))
			if err != nil {
				t.Fatal(err)
			}
			wantTier := c.tier
			if wantTier == "" {
				wantTier = registry.TierCommunity
			}
			if r.Tier != wantTier {
				t.Errorf("tier = %q, want %q", r.Tier, wantTier)
			}
			if r.ManifestSHA256 != report.SHA256(data) {
				t.Errorf("manifest_sha256 = %s, want %s", r.ManifestSHA256, report.SHA256(data))
			}
			m, err := parseGolden(data, strings.HasSuffix(c.file, ".json"))
			if err != nil {
				t.Fatal(err)
			}
			if want := m.Wiring().SHA256(); r.WiringSHA256 != want {
				t.Errorf("wiring_sha256 = %s, want the manifest's wiring digest %s", r.WiringSHA256, want)
			}
			if c.removed && r.Verdict != registry.VerdictFail {
				t.Errorf("removed addon has verdict %q, want fail", r.Verdict)
			}
			var counts report.Counts
			risk := registry.LevelNone
			for _, f := range r.Findings {
				if f.Suppressed != nil {
					counts.Suppressed++
					continue
				}
				risk = max(risk, f.Level)
				switch f.Level {
				case registry.LevelInfo:
					counts.Info++
				case registry.LevelWarn:
					counts.Warn++
				case registry.LevelDanger:
					counts.Danger++
				}
			}
			if diff := cmp.Diff(counts, r.Counts); diff != "" {
				t.Errorf("counts disagree with findings (-findings +counts):\n%s", diff)
			}
			if r.Risk != risk {
				t.Errorf("risk = %v, want the highest counted level %v", r.Risk, risk)
			}
		})
	}
}

// TestGoldenExpectations pins what a reader of each case expects the audit
// to conclude, independently of the golden bytes.
func TestGoldenExpectations(t *testing.T) {
	tests := []struct {
		file        string
		wantVerdict registry.Verdict
		wantCodes   []string // codes that must be present (counted or not)
		wantNone    []string // codes that must be absent
	}{
		{"clean-stdio.toml", registry.VerdictPass, nil, []string{assess.CodeUnpinned, assess.CodeShellExec}},
		{"http-headers.toml", registry.VerdictReview, []string{assess.CodeRemoteEndpoint, assess.CodeRequestHeaders}, []string{assess.CodeInsecureURL}},
		{"pipe-to-shell.toml", registry.VerdictFail, []string{assess.CodePipeToShell}, nil},
		{"forbidden-env.toml", registry.VerdictFail, []string{assess.CodeForbiddenEnv}, nil},
		{"unpinned-npx.toml", registry.VerdictReview, []string{assess.CodeUnpinned}, nil},
		{"caps-underdeclared.toml", "", []string{assess.CodeCapNetUnderdeclared}, nil},
		{"claims-verified.toml", registry.VerdictFail, []string{assess.CodeObfuscatedExec}, nil},
		{"suppressed.toml", "", []string{assess.CodeUnpinned}, nil},
		{"removed.toml", registry.VerdictFail, nil, nil},
	}
	byFile := map[string]goldenCase{}
	for _, c := range goldenCases {
		byFile[c.file] = c
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c := byFile[tt.file]
			data, err := os.ReadFile(filepath.Join("testdata", "golden", c.file))
			if err != nil {
				t.Fatal(err)
			}
			r, err := report.Decode(audit(t, data, false, c))
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantVerdict != "" && r.Verdict != tt.wantVerdict {
				t.Errorf("verdict = %q, want %q", r.Verdict, tt.wantVerdict)
			}
			codes := map[string]bool{}
			for _, f := range r.Findings {
				codes[f.Code] = true
			}
			for _, code := range tt.wantCodes {
				if !codes[code] {
					t.Errorf("no %s finding; got %v", code, codes)
				}
			}
			for _, code := range tt.wantNone {
				if codes[code] {
					t.Errorf("unexpected %s finding", code)
				}
			}
		})
	}
}

func TestSuppressedStayMarked(t *testing.T) {
	c := goldenCases[0]
	for _, gc := range goldenCases {
		if gc.file == "suppressed.toml" {
			c = gc
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "golden", c.file))
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Decode(audit(t, data, false, c))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range r.Findings {
		if f.Suppressed != nil {
			got = append(got, fmt.Sprintf("%s %s %s", f.Code, f.Path, f.Suppressed.Reason))
		}
	}
	if len(got) == 0 {
		t.Fatalf("no finding is marked suppressed in %+v", r.Findings)
	}
	for _, s := range got {
		if !strings.HasPrefix(s, assess.CodeUnpinned+" ") && s != assess.CodeChildEnv+" mcp.env not_applicable" {
			t.Errorf("suppressed a finding no suppression names: %s", s)
		}
	}
	if r.Counts.Suppressed != len(got) {
		t.Errorf("counts.suppressed = %d, want %d", r.Counts.Suppressed, len(got))
	}
}

// TestDeterministic audits every golden manifest twice in sequence and 64
// times concurrently, and wants the same bytes every time.
func TestDeterministic(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "golden", c.file))
			if err != nil {
				t.Fatal(err)
			}
			isJSON := strings.HasSuffix(c.file, ".json")
			want := audit(t, data, isJSON, c)
			if again := audit(t, data, isJSON, c); !bytes.Equal(again, want) {
				t.Fatalf("second audit differs:\n got %s\nwant %s", again, want)
			}
			const n = 64
			got := make([][]byte, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { got[i], errs[i] = auditBytes(data, isJSON, c) })
			}
			wg.Wait()
			for i, b := range got {
				if errs[i] != nil {
					t.Fatalf("goroutine %d: %v", i, errs[i])
				}
				if !bytes.Equal(b, want) {
					t.Fatalf("goroutine %d differs:\n got %s\nwant %s", i, b, want)
				}
			}
		})
	}
}

func ExampleBuild() {
	manifest := []byte(`[addon]
name = "example"
version = "1.0.0"

[mcp]
command = "uvx"
args = ["mcp-server-time"]
`)
	m, err := addon.ParseTOML(manifest)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, b, err := report.Build(report.Input{
		Manifest: manifest,
		Parsed:   m,
		Result:   assess.Audit(m),
		Tier:     registry.TierCommunity,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := report.Decode(b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Schema, r.Addon.Name, r.Tier, r.Verdict)
	// Output: registryd.report/v2 example community review
}
