package assess

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// TestExpandBracesAgreesWithTheShellLibrary holds the audit's brace
// expansion to the shell library's (which the audit may not import: its
// package also runs programs) on words of every form bash expands.
func TestExpandBracesAgreesWithTheShellLibrary(t *testing.T) {
	for _, src := range []string{
		"{curl,-s,https://x}", "cu{rl,}", "{a,b}{c,d}", "x{a,b{c,d}e}y", "{1..5}", "{5..1}", "{1..10..3}",
		"{10..1..4}", "{01..10}", "{-3..3}", "{a..e}", "{e..a..2}", "{a,b}.{1..2}", "{x}", "{a,}", "{,b}",
		"'{a,b}'{c,d}", `"{a,b}"{c,d}`, "a{b", "{1..2,3}", "{a..b..c}", "pre{1..3}post{x,y}",
	} {
		t.Run(src, func(t *testing.T) {
			f, err := syntax.NewParser().Parse(strings.NewReader("echo "+src), "")
			if err != nil {
				t.Fatal(err)
			}
			w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
			cp := *w
			if !syntax.SplitBraces(&cp) {
				if _, ok := wordText(w); !ok {
					t.Fatal("not literal")
				}
				return // nothing to expand: the word stays as it is
			}
			var want []string
			for bw, err := range expand.BracesSeq(nil, &cp) {
				if err != nil {
					t.Fatal(err)
				}
				s, _ := wordLiteral(bw, nil)
				want = append(want, s)
			}
			var got []string
			expandBraces(cp.Parts, "", func(s string) bool {
				got = append(got, s)
				return true
			})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-library +audit):\n%s", diff)
			}
		})
	}
}
