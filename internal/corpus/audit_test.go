package corpus

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/registryd/registryd/report"
)

// loadCorpus returns the real-world corpus, or skips the test saying how to
// provide it.
func loadCorpus(t testing.TB) []Record {
	t.Helper()
	dir, err := Locate(os.Getenv, filepath.Join("..", ".."))
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	recs, err := LoadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// corpusSize is the number of records in shared/corpus/mcp-wirings.jsonl.
const corpusSize = 3344

// TestCorpusAudit audits every record: no panic, no error on a manifest the
// decoder accepts, every refusal explained, and the same bytes on a second
// pass.
func TestCorpusAudit(t *testing.T) {
	recs := loadCorpus(t)
	if len(recs) != corpusSize {
		t.Errorf("corpus has %d records, want %d", len(recs), corpusSize)
	}
	first := make([]Outcome, len(recs))
	refusals := map[string]int{}
	audited := 0
	for i, r := range recs {
		o := AuditRecord(r)
		first[i] = o
		switch {
		case o.Err != nil:
			t.Errorf("record %d (%s): %v", i+1, r.Source, o.Err)
		case o.Refusal != nil:
			if len(o.Refusal.Fields) == 0 {
				t.Errorf("record %d (%s): refused without naming a field", i+1, r.Source)
			}
			for _, f := range o.Refusal.Fields {
				refusals[refusalKind(f.Path, f.Message)]++
			}
		default:
			audited++
			if _, err := report.Decode(o.Report); err != nil {
				t.Errorf("record %d (%s): the report does not decode: %v", i+1, r.Source, err)
			}
		}
	}
	// A refusal is acceptable only for what the strict decoder exists to
	// refuse in real data. Anything else is a decoder or converter defect.
	for kind, n := range refusals {
		if !explainedRefusal(kind) {
			t.Errorf("%d records refused for an unexplained reason: %s", n, kind)
		}
	}
	t.Logf("audited %d of %d records; refusals by field and reason: %v", audited, len(recs), sortedCounts(refusals))

	for i, r := range recs {
		o := AuditRecord(r)
		if !bytes.Equal(o.Report, first[i].Report) || !bytes.Equal(o.Manifest, first[i].Manifest) {
			t.Errorf("record %d (%s): second pass differs:\n got %s\nwant %s", i+1, r.Source, o.Report, first[i].Report)
		}
	}
}

// refusalKind reduces a field error to its field family and message, so
// that refusals can be counted by cause (mcp.env.X and mcp.env.Y are one
// family).
func refusalKind(path, msg string) string {
	fam := path
	for _, p := range []string{"mcp.env.", "mcp.headers.", "mcp.args["} {
		if strings.HasPrefix(path, p) {
			fam = p + "*"
		}
	}
	return fam + ": " + msg
}

// explainedRefusal lists the causes for which registryd refuses real-world
// wirings on purpose; docs/corpus.md gives the counts.
func explainedRefusal(kind string) bool {
	for _, why := range []string{
		"control character", // terminal escapes, NUL, newlines in a single-line field
		"bidirectional",     // Trojan Source style reordering
		"zero-width",        // invisible characters
		"invisible",
		"format character",
		"not safe to print", // env or header names that could not be echoed
		"unprintable",
	} {
		if strings.Contains(kind, why) {
			return true
		}
	}
	return false
}

func sortedCounts(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k, n := range m {
		out = append(out, k+" ×"+strconv.Itoa(n))
	}
	sort.Strings(out)
	return out
}

func TestAuditRecordNoWiring(t *testing.T) {
	o := AuditRecord(Record{Name: "x", Transport: "stdio"})
	if !errors.Is(o.Err, ErrNoWiring) {
		t.Errorf("Err = %v, want ErrNoWiring", o.Err)
	}
}

func TestAuditRecordRefusal(t *testing.T) {
	o := AuditRecord(Record{Name: "x", Transport: "stdio", Command: "node\x1b[2J"})
	if o.Err != nil || o.Refusal == nil || o.Report != nil {
		t.Fatalf("outcome = %+v, want a refusal and no report", o)
	}
	if got := o.Refusal.Fields[0].Path; got != "mcp.command" {
		t.Errorf("refused field = %q, want mcp.command", got)
	}
}
