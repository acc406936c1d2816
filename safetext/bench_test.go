package safetext

import (
	"strings"
	"testing"
)

// BenchmarkCheck measures the rule on the text it mostly sees: ASCII
// manifest values, and prose in other scripts.
func BenchmarkCheck(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"ascii", strings.Repeat("npx -y @modelcontextprotocol/server-filesystem@1.2.3 ", 4)},
		{"unicode", strings.Repeat("Recherche rapide — 検索ツール, Zürich 👨\u200D👩 ", 4)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.s)))
			for b.Loop() {
				if err := Check(bc.s, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
