package transparency_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/registryd/registryd/transparency"
)

func ExampleLeaf_Marshal() {
	l := transparency.Leaf{
		Addon:          "echo",
		Version:        "1.2.3",
		ManifestSHA256: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
		ReportSHA256:   "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9",
	}
	fmt.Print(string(l.Marshal()))
	// Output:
	// registryd.report.leaf/v1
	// addon echo
	// version 1.2.3
	// manifest sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae
	// report sha256:fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9
}

// A client pins the registry's verifier key, opens the envelope of a
// report with it, and checks that the report's leaf is in the log of a
// checkpoint the same key signed.
func ExampleOpenEnvelope() {
	// The registry's side: a key, a signed report, a one-leaf log.
	skey, vkey, _ := transparency.GenerateKey(bytes.NewReader(make([]byte, 32)), "registry.example")
	signer, _ := transparency.ParseSigner(skey)
	report := []byte(`{"addon":{"name":"echo","version":"1.2.3"}}`)
	envelope, _ := transparency.SignEnvelope(report, signer)
	reportSum := sha256.Sum256(report)
	leaf := transparency.Leaf{Addon: "echo", Version: "1.2.3",
		ManifestSHA256: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
		ReportSHA256:   hex.EncodeToString(reportSum[:])}
	root := rfc6962.DefaultHasher.HashLeaf(leaf.Marshal())
	checkpoint, _ := transparency.SignCheckpoint(transparency.Checkpoint{
		Checkpoint: log.Checkpoint{Origin: "registry.example", Size: 1, Hash: root},
		Timestamp:  1700000000,
	}, signer)

	// The client's side, with nothing but the verifier key.
	key, err := transparency.ParseVerifierKey(vkey)
	if err != nil {
		fmt.Println(err)
		return
	}
	got, keyID, err := transparency.OpenEnvelope(envelope, key)
	fmt.Println(string(got), keyID == key.ID, err)
	c, _, err := transparency.OpenCheckpoint(checkpoint, key.Name(), key)
	fmt.Println(c.Size, err)
	fmt.Println(transparency.VerifyInclusion(leaf.Marshal(), 0, c.Size, nil, c.Hash))
	// Output:
	// {"addon":{"name":"echo","version":"1.2.3"}} true <nil>
	// 1 <nil>
	// <nil>
}
