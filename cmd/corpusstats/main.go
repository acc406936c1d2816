// Command corpusstats audits the real-world corpus of MCP wirings and prints,
// as Markdown, how often each finding code fires and the verdict mix over
// the unique wirings. docs/corpus.md is built from its output.
//
// Usage (from the repository root):
//
//	go run ./cmd/corpusstats [-dir shared/corpus]
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/internal/corpus"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
)

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "corpusstats:", err)
		os.Exit(1)
	}
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("corpusstats", flag.ContinueOnError)
	fset.SetOutput(stderr)
	dir := fset.String("dir", "", "corpus `directory` (default: REGISTRYD_CORPUS_DIR, ../shared/corpus, /work/shared/corpus)")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		d, err := corpus.Locate(getenv, ".")
		if err != nil {
			return err
		}
		*dir = d
	}
	recs, err := corpus.LoadFile(filepath.Join(*dir, corpus.FileName))
	if err != nil {
		return err
	}
	s, err := collect(recs)
	if err != nil {
		return err
	}
	return s.write(stdout)
}

// stats is what the corpus run measured.
type stats struct {
	records, unique, audited, refused int
	refusals                          map[string]int // "path: message" → unique wirings
	verdicts                          map[registry.Verdict]int
	codeWirings                       map[string]int            // code → unique wirings with ≥1 counted finding
	codeFindings                      map[string]int            // code → findings over unique wirings
	codePaths                         map[string]map[string]int // code → field path → findings
	risks                             map[registry.Level]int
}

func collect(recs []corpus.Record) (*stats, error) {
	s := &stats{
		records:      len(recs),
		refusals:     map[string]int{},
		verdicts:     map[registry.Verdict]int{},
		codeWirings:  map[string]int{},
		codeFindings: map[string]int{},
		codePaths:    map[string]map[string]int{},
		risks:        map[registry.Level]int{},
	}
	seen := map[string]bool{}
	for i, r := range recs {
		k := r.Key()
		if seen[k] {
			continue
		}
		seen[k] = true
		s.unique++
		o := corpus.AuditRecord(r)
		switch {
		case o.Err != nil:
			return nil, fmt.Errorf("record %d: %w", i+1, o.Err)
		case o.Refusal != nil:
			s.refused++
			for _, f := range o.Refusal.Fields {
				s.refusals[f.Path+": "+f.Message]++
			}
			continue
		}
		rep, err := report.Decode(o.Report)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", i+1, err)
		}
		s.audited++
		s.verdicts[rep.Verdict]++
		s.risks[rep.Risk]++
		fired := map[string]bool{}
		for _, f := range rep.Findings {
			s.codeFindings[f.Code]++
			if s.codePaths[f.Code] == nil {
				s.codePaths[f.Code] = map[string]int{}
			}
			s.codePaths[f.Code][f.Path]++
			fired[f.Code] = true
		}
		for c := range fired {
			s.codeWirings[c]++
		}
	}
	return s, nil
}

// topPaths renders the n most frequent paths of m as "`path` ×count".
func topPaths(m map[string]int, n int) string {
	paths := make([]string, 0, len(m))
	for p := range m {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
	out := ""
	for i, p := range paths {
		if i == n {
			out += ", …"
			break
		}
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("`%s` ×%d", p, m[p])
	}
	return out
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

func (s *stats) write(w io.Writer) error {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("Ruleset `%s`. %d records, %d unique wirings (deduplicated on command, args, env names, url and header names); %d audited, %d refused by the decoder.\n\n",
		assess.Ruleset, s.records, s.unique, s.audited, s.refused)

	p("| verdict | unique wirings | share |\n|---|---:|---:|\n")
	for _, v := range []registry.Verdict{registry.VerdictPass, registry.VerdictReview, registry.VerdictFail} {
		p("| %s | %d | %s |\n", v, s.verdicts[v], pct(s.verdicts[v], s.audited))
	}
	p("\n| highest level | unique wirings | share |\n|---|---:|---:|\n")
	for _, l := range []registry.Level{registry.LevelNone, registry.LevelInfo, registry.LevelWarn, registry.LevelDanger} {
		p("| %s | %d | %s |\n", l, s.risks[l], pct(s.risks[l], s.audited))
	}

	type row struct {
		rule              registry.Rule
		wirings, findings int
	}
	var rows []row
	for _, r := range assess.Rules() {
		rows = append(rows, row{r, s.codeWirings[r.Code], s.codeFindings[r.Code]})
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(b.wirings, a.wirings), cmp.Compare(a.rule.Code, b.rule.Code))
	})
	p("\n| code | level | blocking | unique wirings | share | findings | most frequent fields |\n|---|---|---|---:|---:|---:|---|\n")
	for _, r := range rows {
		blocking := ""
		if r.rule.Blocking {
			blocking = "yes"
		}
		p("| `%s` | %s | %s | %d | %s | %d | %s |\n", r.rule.Code, r.rule.Level, blocking, r.wirings, pct(r.wirings, s.audited), r.findings, topPaths(s.codePaths[r.rule.Code], 4))
	}
	if len(s.refusals) > 0 {
		p("\n| refused field: reason | unique wirings |\n|---|---:|\n")
		keys := make([]string, 0, len(s.refusals))
		for k := range s.refusals {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p("| %s | %d |\n", k, s.refusals[k])
		}
	}
	return nil
}
