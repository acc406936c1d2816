package transparency_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/transparency-dev/formats/log"

	"github.com/registryd/registryd/transparency"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGolden pins the wire formats byte for byte, made with a fixed key:
// a change to any of them is a change to what every client verifies.
func TestGolden(t *testing.T) {
	skey, vkey, err := transparency.GenerateKey(seedReader(42), "registry.example")
	if err != nil {
		t.Fatal(err)
	}
	s, err := transparency.ParseSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	envelope, err := transparency.SignEnvelope(sampleReport, s)
	if err != nil {
		t.Fatal(err)
	}
	checkpoint, err := transparency.SignCheckpoint(transparency.Checkpoint{
		Checkpoint: log.Checkpoint{Origin: "registry.example", Size: 1, Hash: sampleLeaf.Hash()},
		Timestamp:  1700000000,
	}, s)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"verifier-key.txt": []byte(vkey + "\n"),
		"key-id.txt":       []byte(s.Verifier().ID + "\n"),
		"leaf.txt":         sampleLeaf.Marshal(),
		"report.dsse":      envelope,
		"checkpoint.txt":   checkpoint,
	}
	for name, got := range files {
		path := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./transparency -update to create it)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n%s\nwant:\n%s", name, got, want)
		}
	}
}
