package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/report"
)

// FuzzBuild feeds arbitrary manifests through the pipeline. Whatever the
// decoder accepts must give a canonical report that decodes, re-encodes to
// the same bytes and is the same on a second build, and that Build's report
// is the one its bytes decode to.
func FuzzBuild(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.toml"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("[addon]\nname = \"x\"\n[mcp]\ncommand = \"sh\"\nargs = [\"-c\", \"echo \\\"<&>\\\" \\u2028\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := addon.ParseTOML(data)
		if err != nil {
			return
		}
		in := report.Input{Manifest: data, Parsed: m, Result: assess.Audit(m), Tier: registry.TierCommunity,
			Suppressions: []report.Suppression{{Code: assess.CodeUnpinned, Reason: registry.ReasonMitigated}}}
		built, b, err := report.Build(in)
		if err != nil {
			t.Fatalf("Build of an accepted manifest: %v", err)
		}
		canon, err := jcs.Transform(b)
		if err != nil || !bytes.Equal(canon, b) {
			t.Fatalf("not canonical (%v):\n got %s\nwant %s", err, b, canon)
		}
		r, err := report.Decode(b)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		again, err := report.Encode(r)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("Encode(Decode(b)) differs (%v):\n got %s\nwant %s", err, again, b)
		}
		if diff := cmp.Diff(r, built); diff != "" {
			t.Fatalf("Build's report differs from Decode of its bytes (-decoded +built):\n%s", diff)
		}
		if _, b2, _ := report.Build(in); !bytes.Equal(b2, b) {
			t.Fatalf("second Build differs")
		}
	})
}

// FuzzDecode feeds arbitrary bytes to Decode: it must never panic, and its
// errors must never carry a control character from the input.
func FuzzDecode(f *testing.F) {
	reports, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.report.json"))
	for _, s := range reports {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"schema":"\u001b[31m"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := report.Decode(data)
		if err != nil {
			if strings.ContainsFunc(err.Error(), func(c rune) bool { return c < 0x20 && c != '\n' || c == 0x7f }) {
				t.Fatalf("error carries a control character: %q", err.Error())
			}
			return
		}
		if _, err := report.Encode(r); err != nil {
			t.Fatalf("Encode of a decoded report: %v", err)
		}
	})
}
