package addon

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLineIndexAgreesWithMap drives a lineIndex (starting from a list with
// repeated paths) and a map through the same random sets and deletes, across the move from list to map, and requires
// the same answers: get for every path, and all with each path once.
func TestLineIndexAgreesWithMap(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 3))
		var x lineIndex
		want := map[string]int{}
		paths := 2 + r.IntN(3*maxListed)
		// As the scanner leaves it: a list in which a path may repeat,
		// its first entry counting.
		for range r.IntN(maxListed + 1) {
			p, l := fmt.Sprintf("p%d", r.IntN(paths)), r.IntN(100)
			x.list = append(x.list, lineEntry{p, l})
			if _, ok := want[p]; !ok {
				want[p] = l
			}
		}
		for range r.IntN(4 * maxListed) {
			p := fmt.Sprintf("p%d", r.IntN(paths))
			if r.IntN(5) == 0 {
				x.del(p)
				delete(want, p)
				continue
			}
			l := r.IntN(100)
			x.set(p, l)
			want[p] = l
		}
		for i := range paths {
			p := fmt.Sprintf("p%d", i)
			gl, gok := x.get(p)
			wl, wok := want[p]
			if gl != wl || gok != wok {
				t.Fatalf("seed %d: get(%q) = %d, %v; want %d, %v", seed, p, gl, gok, wl, wok)
			}
		}
		got := map[string]int{}
		for p, l := range x.all {
			if _, dup := got[p]; dup {
				t.Fatalf("seed %d: all yields %q twice", seed, p)
			}
			got[p] = l
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d: all (-want +got):\n%s", seed, diff)
		}
	}
}

// TestScanKeepsFirstLine: a path recorded again (a table extended by a
// later header) keeps its first line, whether the scanner's records fit a
// list or need a map.
func TestScanKeepsFirstLine(t *testing.T) {
	for _, extra := range []int{0, 2 * maxListed} {
		src := "[mcp]\ncommand = \"x\"\n"
		for i := range extra {
			src += fmt.Sprintf("k%d = \"v\"\n", i)
		}
		src += "[mcp.env]\nA = \"1\"\n"
		pos := scanTOML(src)
		if got, _ := pos.lines.get("mcp"); got != 1 {
			t.Errorf("%d extra keys: line of mcp = %d, want 1", extra, got)
		}
		if got, want := pos.lines.size() > maxListed, extra > 0; got != want {
			t.Errorf("%d extra keys: in a map = %v, want %v", extra, got, want)
		}
		if got, _ := pos.lines.get("mcp.env.A"); got != extra+4 {
			t.Errorf("%d extra keys: line of mcp.env.A = %d, want %d", extra, got, extra+4)
		}
	}
}
