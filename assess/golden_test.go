package assess_test

import (
	"crypto/sha256"
	"encoding/hex"
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
// accept a change; a change of findings also needs a new assess.Ruleset,
// which testdata/golden.ruleset records.
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
	// Stored reports are re-assessed only when assess.Ruleset changes, so
	// findings may not change under a ruleset already recorded:
	// testdata/golden.ruleset names the ruleset the golden file was made
	// under, and its digest.
	const rulesetFile = "testdata/golden.ruleset"
	sum := sha256.Sum256([]byte(b.String()))
	stamp := assess.Ruleset + " " + hex.EncodeToString(sum[:]) + "\n"
	recorded, err := os.ReadFile(rulesetFile)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	recRuleset, recSum, _ := strings.Cut(strings.TrimSpace(string(recorded)), " ")
	if recRuleset == assess.Ruleset && recSum != hex.EncodeToString(sum[:]) {
		t.Errorf("findings changed under ruleset %s, which stored reports were made with: bump assess.Ruleset so that they are re-assessed, then run with -update", assess.Ruleset)
	} else if *update {
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(rulesetFile, []byte(stamp), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if recRuleset != assess.Ruleset {
		t.Errorf("%s records ruleset %s, the rules are %s: run with -update", rulesetFile, recRuleset, assess.Ruleset)
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("findings changed (-golden +got); run with -update if intended:\n%s", diff)
	}
}
