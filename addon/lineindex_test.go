package addon

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestLineIndexAgreesWithMap checks the scanner's records, kept as they
// are (few) or in a map (many), against the map the records stand for:
// the first line recorded for a path, empty paths left out, with paths
// set and dropped afterwards as the walker does.
func TestLineIndexAgreesWithMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, maxScannedLines, maxScannedLines + 1, 300} {
		for round := 0; round < 20; round++ {
			var arena []byte
			var recs []pathRec
			want := map[string]int{}
			names := []string{""}
			for i := 0; i < n; i++ {
				// Few distinct paths, so that some repeat on later lines.
				p := "mcp.env.K" + strconv.Itoa(rng.IntN(n/2+2))
				if rng.IntN(10) == 0 {
					p = ""
				}
				line := i + 1
				arena = append(arena, p...)
				recs = append(recs, pathRec{int32(len(arena)), int32(line)})
				if _, ok := want[p]; !ok && p != "" {
					want[p] = line
				}
				names = append(names, p)
			}
			x := newLineIndex(string(arena), recs)
			names = append(names, "mcp.env", "mcp.env.K", "mcp.env.K999", "mcp.env.K1x")
			check := func(step string) {
				t.Helper()
				for _, p := range names {
					l, ok := x.get(p)
					wl, wok := want[p]
					if l != wl || ok != wok {
						t.Fatalf("n=%d round=%d %s: get(%q) = %d, %v; want %d, %v", n, round, step, p, l, ok, wl, wok)
					}
					if l, ok := x.getBytes([]byte(p)); l != wl || ok != wok {
						t.Fatalf("n=%d round=%d %s: getBytes(%q) = %d, %v; want %d, %v", n, round, step, p, l, ok, wl, wok)
					}
				}
				if got := x.toMap(); len(got) != len(want) {
					t.Fatalf("n=%d round=%d %s: toMap has %d paths, want %d", n, round, step, len(got), len(want))
				}
			}
			check("scanned")
			for i := 0; i < 10; i++ {
				p := names[rng.IntN(len(names))]
				if p == "" {
					continue
				}
				if rng.IntN(2) == 0 {
					x.drop(p)
					delete(want, p)
				} else {
					x.set(p, 1000+i)
					want[p] = 1000 + i
				}
				check("after " + strconv.Itoa(i+1) + " changes")
			}
		}
	}
}
