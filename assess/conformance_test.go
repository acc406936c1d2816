package assess_test

import (
	"encoding/json"
	"errors"
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

// vector is one entry of testdata/leanctx-vectors.json: a manifest and what
// upstream lean-ctx computes for it.
type vector struct {
	ID           string `json:"id"`
	UpstreamTest string `json:"upstream_test"`
	TOML         string `json:"toml"`
	Expected     struct {
		Tier               string `json:"tier"`
		ValidateRejects    bool   `json:"validate_rejects"`
		Installable        bool   `json:"installable"`
		Audit              []vf   `json:"audit"`
		Verdict            string `json:"verdict"`
		CapabilityCoherent bool   `json:"capability_coherent"`
		BinaryPinned       bool   `json:"binary_pinned"`
		UsesNetwork        bool   `json:"uses_network"`
		Spawns             bool   `json:"spawns"`
	} `json:"expected"`
}

type vf struct {
	Level string `json:"level"`
	Code  string `json:"code"`
}

// outcome is what the conformance test compares.
type outcome struct {
	Rejected    bool
	Findings    []string // "level code", sorted
	Verdict     string
	Installable bool
	Pinned      bool
	Network     bool
	Spawns      bool
	Coherent    bool
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	b, err := os.ReadFile("testdata/leanctx-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

func expectedOutcome(v vector) outcome {
	o := outcome{
		Rejected:    v.Expected.ValidateRejects,
		Verdict:     v.Expected.Verdict,
		Installable: v.Expected.Installable,
		Pinned:      v.Expected.BinaryPinned,
		Network:     v.Expected.UsesNetwork,
		Spawns:      v.Expected.Spawns,
		Coherent:    v.Expected.CapabilityCoherent,
		Findings:    []string{},
	}
	for _, f := range v.Expected.Audit {
		o.Findings = append(o.Findings, f.Level+" "+f.Code)
	}
	sort.Strings(o.Findings)
	if o.Rejected {
		// Nothing is audited once the manifest is refused.
		return outcome{Rejected: true, Findings: []string{}}
	}
	return o
}

func actualOutcome(m *addon.Manifest, err error) outcome {
	if err != nil {
		return outcome{Rejected: true, Findings: []string{}}
	}
	r := assess.Audit(m)
	o := outcome{
		Verdict:     string(r.Verdict()),
		Installable: assess.Installable(m),
		Pinned:      assess.BinaryPinned(m),
		Network:     r.Inferred.Network,
		Spawns:      r.Inferred.Exec,
		Coherent:    r.Coherent(),
		Findings:    []string{},
	}
	for _, f := range r.Findings {
		o.Findings = append(o.Findings, f.Level.String()+" "+f.Code)
	}
	sort.Strings(o.Findings)
	return o
}

var deviationRow = regexp.MustCompile(`^\|\s*([A-Z][0-9]{2})\s*\|`)

// deviationIDs returns the vector ids that docs/deviations.md has a row for.
func deviationIDs(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../docs/deviations.md")
	if err != nil {
		t.Fatalf("read deviations: %v", err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if m := deviationRow.FindStringSubmatch(line); m != nil {
			if ids[m[1]] {
				t.Errorf("docs/deviations.md: more than one row for %s", m[1])
			}
			ids[m[1]] = true
		}
	}
	return ids
}

// TestConformance runs every upstream vector. registryd agrees with upstream
// (same codes at the same levels as a multiset, verdict and derived flags) or
// the vector has its row in docs/deviations.md; a row for a vector that
// agrees is stale and fails too.
func TestConformance(t *testing.T) {
	vs := loadVectors(t)
	if len(vs) != 82 {
		t.Fatalf("got %d vectors, want 82", len(vs))
	}
	rows := deviationIDs(t)
	for _, v := range vs {
		t.Run(v.ID, func(t *testing.T) {
			m, err := addon.ParseTOML([]byte(v.TOML))
			if err != nil && !errors.Is(err, registry.ErrInvalid) {
				t.Fatalf("ParseTOML: unexpected error kind: %v", err)
			}
			got, want := actualOutcome(m, err), expectedOutcome(v)
			diff := cmp.Diff(want, got)
			switch {
			case diff != "" && !rows[v.ID]:
				t.Errorf("disagrees with upstream and has no row in docs/deviations.md (-upstream +registryd):\n%s", diff)
			case diff == "" && rows[v.ID]:
				t.Errorf("agrees with upstream, but docs/deviations.md still lists it")
			case diff != "" && testing.Verbose():
				t.Logf("documented deviation (-upstream +registryd):\n%s", diff)
			}
		})
	}
}

func parseVector(v vector) (*addon.Manifest, error) { return addon.ParseTOML([]byte(v.TOML)) }
