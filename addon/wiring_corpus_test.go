package addon_test

import (
	"path/filepath"
	"testing"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/internal/corpus"
)

// TestWiringSHA256Corpus: over every real-world wiring of the corpus, the
// streamed digest is the digest of the wiring's entries, both for the
// manifest the parser makes of the record and for the record put into a
// Manifest directly (which also reaches the records the parser refuses).
func TestWiringSHA256Corpus(t *testing.T) {
	recs, err := corpus.LoadFile(filepath.Join("..", "assess", "testdata", "mcp-wirings.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	parsed := 0
	for i, r := range recs {
		direct := &addon.Manifest{Addon: addon.Meta{Name: r.Name}, MCP: addon.MCP{Declared: true,
			Transport: addon.Transport(r.Transport), Command: r.Command, Args: r.Args, Env: r.Env, URL: r.URL, Headers: r.Headers}}
		if got, want := direct.WiringSHA256(), direct.Wiring().SHA256(); got != want {
			t.Errorf("record %d (%s) as a Manifest: WiringSHA256() = %s, Wiring().SHA256() = %s", i+1, r.Name, got, want)
		}
		b, err := r.Manifest()
		if err != nil {
			continue
		}
		m, err := addon.ParseTOML(b)
		if err != nil {
			continue
		}
		parsed++
		if got, want := m.WiringSHA256(), m.Wiring().SHA256(); got != want {
			t.Errorf("record %d (%s) parsed: WiringSHA256() = %s, Wiring().SHA256() = %s", i+1, r.Name, got, want)
		}
	}
	if len(recs) != 3344 || parsed < 3000 {
		t.Errorf("compared %d records, %d of them parsed; want all 3344 records, at least 3000 parsed", len(recs), parsed)
	}
}
