package transparency_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"

	"github.com/registryd/registryd/transparency"
)

func TestVerifyProofs(t *testing.T) {
	tree := testonly.New(rfc6962.DefaultHasher)
	var leaves [][]byte
	for i := range 17 {
		l := transparency.Leaf{Addon: fmt.Sprintf("a%d", i), Version: "1.0.0", ManifestSHA256: hex64("a"), ReportSHA256: hex64("b")}.Marshal()
		leaves = append(leaves, l)
		tree.AppendData(l)
	}
	for size := uint64(1); size <= tree.Size(); size++ {
		root := tree.HashAt(size)
		for i := uint64(0); i < size; i++ {
			p, err := tree.InclusionProof(i, size)
			if err != nil {
				t.Fatal(err)
			}
			if err := transparency.VerifyInclusion(leaves[i], i, size, p, root); err != nil {
				t.Errorf("inclusion %d in %d: %v", i, size, err)
			}
			if err := transparency.VerifyInclusion(leaves[(i+1)%size], i, size, p, root); size > 1 && !errors.Is(err, transparency.ErrProof) {
				t.Errorf("inclusion of another leaf at %d in %d = %v, want ErrProof", i, size, err)
			}
		}
		for from := uint64(0); from <= size; from++ {
			p, err := tree.ConsistencyProof(from, size)
			if err != nil {
				t.Fatal(err)
			}
			if err := transparency.VerifyConsistency(from, size, p, tree.HashAt(from), root); err != nil {
				t.Errorf("consistency %d..%d: %v", from, size, err)
			}
			if from > 0 && from < size {
				other := rfc6962.DefaultHasher.HashLeaf([]byte("forked"))
				if err := transparency.VerifyConsistency(from, size, p, other, root); !errors.Is(err, transparency.ErrProof) {
					t.Errorf("consistency %d..%d from a forked root = %v, want ErrProof", from, size, err)
				}
			}
		}
	}
}
