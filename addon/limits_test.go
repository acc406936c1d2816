package addon

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLimitsDocumented keeps docs/limits.md and the constants in step.
func TestLimitsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"MaxManifestBytes": MaxManifestBytes, "MaxRegistryFileBytes": MaxRegistryFileBytes,
		"MaxRegistryEntries": MaxRegistryEntries, "MaxDepth": MaxDepth,
		"MaxStringBytes": MaxStringBytes, "MaxArgBytes": MaxArgBytes,
		"MaxDescriptionBytes": MaxDescriptionBytes, "MaxNameBytes": MaxNameBytes, "MaxVersionBytes": MaxVersionBytes,
		"MaxKeyBytes": MaxKeyBytes, "MaxArgs": MaxArgs, "MaxListLen": MaxListLen,
		"MaxMapEntries": MaxMapEntries, "MaxArtifacts": MaxArtifacts,
		"MaxDependencies": MaxDependencies, "MaxErrors": MaxErrors,
	}
	got := map[string]int{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(Max\\w+)` \\| (\\d+) \\|").FindAllSubmatch(b, -1) {
		n, err := strconv.Atoi(string(m[2]))
		if err != nil {
			t.Fatal(err)
		}
		got[string(m[1])] = n
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/limits.md (-code +doc):\n%s", diff)
	}
}
