package assess_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/registryd/registryd/assess"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden pins every finding (messages included) for the conformance
// vectors and the fuzz seeds in testdata/golden.txt, so that a change of
// wording or path is reviewed. Run `go test -run TestGolden -update` to
// accept a change.
func TestGolden(t *testing.T) {
	var b strings.Builder
	for _, v := range loadVectors(t) {
		m, err := parseVector(v)
		if err != nil {
			fmt.Fprintf(&b, "%s: refused by the decoder\n", v.ID)
			continue
		}
		r := assess.Audit(m)
		fmt.Fprintf(&b, "%s: verdict %s, network %v, exec %v\n", v.ID, r.Verdict(), r.Inferred.Network, r.Inferred.Exec)
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "  %s %s %s: %s\n", f.Level, f.Code, f.Path, f.Message)
		}
	}
	for i, s := range fuzzSeeds {
		r := assess.Audit(stdio(s[0], s[1:]...))
		fmt.Fprintf(&b, "seed %d %q: verdict %s, network %v, exec %v\n", i, s, r.Verdict(), r.Inferred.Network, r.Inferred.Exec)
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "  %s %s %s: %s\n", f.Level, f.Code, f.Path, f.Message)
		}
	}
	const file = "testdata/golden.txt"
	if *update {
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("findings changed (-golden +got); run with -update if intended:\n%s", diff)
	}
}
