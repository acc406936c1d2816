package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/registry"
)

// fullReport is a report with every field set, every string replaced by s.
func fullReport(s string) *Report {
	return &Report{
		Schema:         s,
		Ruleset:        s,
		Addon:          Addon{Name: s, Version: s},
		ManifestSHA256: s,
		Tier:           registry.Tier(s),
		Removed:        true,
		Verdict:        registry.Verdict(s),
		Risk:           registry.LevelDanger,
		Counts:         Counts{Info: 1, Warn: 22, Danger: 333, Suppressed: 4444},
		Transport:      s,
		Findings: []Finding{
			{Level: registry.LevelWarn, Code: s, Message: s, Path: s, Line: 7, Blocking: true},
			{Level: registry.LevelInfo, Code: s, Message: s, Path: s, Suppressed: &Suppressed{Reason: registry.SuppressionReason(s)}},
		},
		Capabilities: &Capabilities{
			Network:    addon.NetworkAccess(s),
			Filesystem: addon.FilesystemAccess(s),
			Env:        []string{s, s},
			Exec:       addon.ExecMode(s),
			ExecAllow:  []string{s},
		},
		Inferred:     Inferred{Network: true},
		WiringSHA256: s,
	}
}

// checkEncode fails t unless Encode(r) equals the reference encoding
// (encoding/json then jcs.Transform) and jcs.Transform leaves it unchanged.
func checkEncode(t *testing.T, r *Report) []byte {
	t.Helper()
	got, err := Encode(r)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	want, err := encodeGeneral(r)
	if err != nil {
		t.Fatalf("encodeGeneral: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode differs from encoding/json + jcs.Transform:\n got %q\nwant %q", got, want)
	}
	canon, err := jcs.Transform(got)
	if err != nil {
		t.Fatalf("jcs.Transform: %v", err)
	}
	if !bytes.Equal(canon, got) {
		t.Fatalf("Encode is not canonical:\n got %q\nwant %q", got, canon)
	}
	return got
}

func TestEncodeStringsMatchReference(t *testing.T) {
	var controls strings.Builder
	for c := byte(0); c < 0x20; c++ {
		controls.WriteByte(c)
	}
	tests := []struct {
		name string
		s    string
		want string // a fragment the encoded report must contain
	}{
		// A few of each kind: internal/canonjson's tests hold the string
		// writer to the reference case by case; here every string field
		// of a whole report goes through it.
		{"plain", "npx -y @scope/pkg@1.2.3", `"npx -y @scope/pkg@1.2.3"`},
		{"quote and backslash", `say "hi" \ bye`, `"say \"hi\" \\ bye"`},
		{"every C0 control", controls.String(), `"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f"`},
		{"HTML characters and separators stay raw", "<script>&amp;</script>\u2028", "\"<script>&amp;</script>\u2028\""},
		{"invalid byte", "a\xffb", "\"a\ufffdb\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkEncode(t, fullReport(tt.s))
			if !bytes.Contains(got, []byte(tt.want)) {
				t.Errorf("report lacks %q:\n%q", tt.want, got)
			}
		})
	}
}

func TestEncodeShapesMatchReference(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *Report)
		fast bool // whether appendCanonical writes it (else Encode falls back)
	}{
		{"full", func(*Report) {}, true},
		{"zero report", func(r *Report) { *r = Report{} }, true},
		{"nil capabilities", func(r *Report) { r.Capabilities = nil }, true},
		{"nil lists", func(r *Report) { r.Findings, r.Capabilities.Env, r.Capabilities.ExecAllow = nil, nil, nil }, true},
		{"empty lists", func(r *Report) { r.Findings, r.Capabilities.Env = []Finding{}, []string{} }, true},
		{"unknown level", func(r *Report) { r.Risk, r.Findings[0].Level = registry.Level(9), registry.Level(200) }, true},
		{"negative integers", func(r *Report) { r.Counts.Info, r.Findings[1].Line = -1, -42 }, true},
		{"largest exact integer", func(r *Report) { r.Counts.Warn, r.Findings[0].Line = 1<<53, -(1 << 53) }, true},
		{"line beyond 2^53", func(r *Report) { r.Findings[1].Line = 1<<53 + 1 }, false},
		{"count beyond 2^53", func(r *Report) { r.Counts.Suppressed = 1 << 62 }, false},
		{"negative count beyond 2^53", func(r *Report) { r.Counts.Danger = -(1 << 60) - 3 }, false},
		{"all flags false", func(r *Report) { r.Removed, r.Inferred = false, Inferred{} }, true},
		{"all flags true", func(r *Report) { r.Inferred = Inferred{Network: true, Exec: true}; r.Findings[1].Blocking = true }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fullReport("x")
			tt.edit(r)
			if _, ok := appendCanonical(nil, r); ok != tt.fast {
				t.Errorf("appendCanonical ok = %v, want %v", ok, tt.fast)
			}
			checkEncode(t, r)
		})
	}
}

// FuzzEncode checks the direct canonical writer against encoding/json +
// jcs.Transform for arbitrary strings and integers.
func FuzzEncode(f *testing.F) {
	f.Add("plain", "x\u2028\"<&>\\\x01", 3, false)
	f.Add("\xff\xfe", "\xed\xa0\x80", -7, true)
	f.Add("", "", 1<<53+1, true)
	f.Fuzz(func(t *testing.T, a, b string, n int, caps bool) {
		r := fullReport(a)
		r.Findings[0].Message, r.Findings[1].Path = b, b+a
		r.Findings[1].Line, r.Counts.Warn = n, -n
		if !caps {
			r.Capabilities = nil
		}
		checkEncode(t, r)
	})
}

// TestEncodedSizeHint: for every golden report, the capacity Encode starts
// with holds the report (when no string needs an escape, which the slack
// does not have to cover) and is not much larger, so that a report is
// written into one allocation of about its size.
func TestEncodedSizeHint(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.report.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden reports: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		hint := encodedSizeHint(r)
		if !bytes.Contains(b, []byte(`\`)) && hint < len(b) {
			t.Errorf("%s: hint %d < length %d", f, hint, len(b))
		}
		if max := len(b) + 32 + 2*len(r.Findings); hint > max {
			t.Errorf("%s: hint %d > %d (length %d)", f, hint, max, len(b))
		}
	}
}
