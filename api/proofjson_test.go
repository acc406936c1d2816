package api

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/registryd/registryd/storage"
)

// The proof's answer is written without reflection: it must be byte for
// byte what encoding/json writes of proofJSON, so that its ETag and every
// client's decoding are unchanged, whatever the proof's sizes and the
// checkpoint's text.
func TestProofJSONIsEncodingJSON(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	bytesOf := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rnd.UintN(256))
		}
		return b
	}
	cases := []storage.Inclusion{
		{},
		{LeafIndex: 0, TreeSize: 1, Leaf: []byte("registryd leaf\n"), Checkpoint: []byte("origin\n1\nhash=\n\n— key sig\n")},
		{LeafIndex: 1<<63 - 1, TreeSize: 1<<64 - 1, Leaf: []byte{}, Hashes: [][]byte{{}, nil, {1}},
			Checkpoint: []byte("<a & b>\"\\\b\f\t\r\x01\x7f\u2028\u2029\xff é")},
	}
	for range 200 {
		p := storage.Inclusion{LeafIndex: rnd.Uint64(), TreeSize: rnd.Uint64(), Leaf: bytesOf(rnd.IntN(300)), Checkpoint: bytesOf(rnd.IntN(400))}
		for range rnd.IntN(64) {
			p.Hashes = append(p.Hashes, bytesOf(32))
		}
		cases = append(cases, p)
	}
	for i, p := range cases {
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(proofJSON{LeafIndex: p.LeafIndex, TreeSize: p.TreeSize, Leaf: p.Leaf,
			Hashes: nonNilHashes(p.Hashes), Checkpoint: string(p.Checkpoint)}); err != nil {
			t.Fatal(err)
		}
		got := renderProof(p)
		if !bytes.Equal(got.body, want.Bytes()) {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got.body, want.Bytes())
		}
		if got.etag != etagOf(want.Bytes()) {
			t.Errorf("case %d: ETag %s, want that of the bytes", i, got.etag)
		}
	}
}
