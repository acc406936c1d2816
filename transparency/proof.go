package transparency

import (
	"errors"
	"fmt"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// ErrProof is wrapped by the errors of VerifyInclusion and VerifyConsistency.
var ErrProof = errors.New("invalid proof")

// VerifyInclusion checks that leaf is the entry at index of the tree of
// size whose root hash is root, given the audit path hashes (RFC 9162
// §2.1.3), using the library's RFC 6962 hasher.
func VerifyInclusion(leaf []byte, index, size uint64, hashes [][]byte, root []byte) error {
	h := rfc6962.DefaultHasher.HashLeaf(leaf)
	if err := proof.VerifyInclusion(rfc6962.DefaultHasher, index, size, h, hashes, root); err != nil {
		return fmt.Errorf("%w: inclusion of leaf %d in tree of size %d: %v", ErrProof, index, size, err)
	}
	return nil
}

// VerifyConsistency checks that the tree of size2 with root2 extends the
// tree of size1 with root1, given the consistency proof hashes (RFC 9162
// §2.1.4). size1 = 0 or size1 = size2 need an empty proof.
func VerifyConsistency(size1, size2 uint64, hashes [][]byte, root1, root2 []byte) error {
	if err := proof.VerifyConsistency(rfc6962.DefaultHasher, size1, size2, hashes, root1, root2); err != nil {
		return fmt.Errorf("%w: consistency of tree sizes %d and %d: %v", ErrProof, size1, size2, err)
	}
	return nil
}
