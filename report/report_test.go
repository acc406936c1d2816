package report

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/assess"
	"github.com/registryd/registryd/registry"
)

func finding(l registry.Level, code, path string) registry.Finding {
	return registry.Finding{Level: l, Code: code, Path: path, Message: code + " at " + path}
}

func baseInput(fs ...registry.Finding) Input {
	return Input{
		Manifest: []byte("[addon]\nname = \"demo\"\n"),
		Parsed: &addon.Manifest{
			Addon: addon.Meta{Name: "demo", Version: "1.2.3", Verified: true},
			MCP:   addon.MCP{Declared: true, Command: "demo-server"},
		},
		Result: assess.Result{Findings: fs},
		Tier:   registry.TierCommunity,
	}
}

// testRules stands in for the rule table so that the report logic is tested
// independently of which rules exist and how they are graded: only
// pipe_to_shell and forbidden_env block.
var testRules = func() rulebook {
	blocking := map[string]bool{"pipe_to_shell": true, "forbidden_env": true}
	return rulebook{
		blocking: func(code string) bool { return blocking[code] },
		verdict: func(fs []registry.Finding, counted func(int) bool) registry.Verdict {
			v := registry.VerdictPass
			for i, f := range fs {
				switch {
				case counted != nil && !counted(i):
				case blocking[f.Code]:
					return registry.VerdictFail
				case f.Level >= registry.LevelWarn:
					v = registry.VerdictReview
				}
			}
			return v
		},
	}
}()

func TestAssembleVerdict(t *testing.T) {
	tests := []struct {
		name        string
		in          Input
		wantVerdict registry.Verdict
		wantRisk    registry.Level
		wantCounts  Counts
	}{
		{
			name:        "no findings",
			in:          baseInput(),
			wantVerdict: registry.VerdictPass,
			wantRisk:    registry.LevelNone,
		},
		{
			name:        "info only",
			in:          baseInput(finding(registry.LevelInfo, "child_env", "mcp.env.A")),
			wantVerdict: registry.VerdictPass,
			wantRisk:    registry.LevelInfo,
			wantCounts:  Counts{Info: 1},
		},
		{
			name: "warn is review",
			in: baseInput(
				finding(registry.LevelWarn, "unpinned", "mcp.args[0]"),
				finding(registry.LevelInfo, "child_env", "mcp.env.A"),
			),
			wantVerdict: registry.VerdictReview,
			wantRisk:    registry.LevelWarn,
			wantCounts:  Counts{Info: 1, Warn: 1},
		},
		{
			name:        "danger that does not block is review",
			in:          baseInput(finding(registry.LevelDanger, "shell_exec", "mcp.command")),
			wantVerdict: registry.VerdictReview,
			wantRisk:    registry.LevelDanger,
			wantCounts:  Counts{Danger: 1},
		},
		{
			name:        "blocking code fails",
			in:          baseInput(finding(registry.LevelDanger, "pipe_to_shell", "mcp.args[1]")),
			wantVerdict: registry.VerdictFail,
			wantRisk:    registry.LevelDanger,
			wantCounts:  Counts{Danger: 1},
		},
		{
			name: "suppressed blocking finding no longer counts",
			in: func() Input {
				in := baseInput(
					finding(registry.LevelDanger, "pipe_to_shell", "mcp.args[1]"),
					finding(registry.LevelInfo, "child_env", "mcp.env.A"),
				)
				in.Suppressions = []Suppression{{Code: "pipe_to_shell", Path: "mcp.args[1]", Reason: registry.ReasonFalsePositive}}
				return in
			}(),
			wantVerdict: registry.VerdictPass,
			wantRisk:    registry.LevelInfo,
			wantCounts:  Counts{Info: 1, Suppressed: 1},
		},
		{
			name: "suppression on another path does not match",
			in: func() Input {
				in := baseInput(finding(registry.LevelDanger, "pipe_to_shell", "mcp.args[1]"))
				in.Suppressions = []Suppression{{Code: "pipe_to_shell", Path: "mcp.args[2]", Reason: registry.ReasonMitigated}}
				return in
			}(),
			wantVerdict: registry.VerdictFail,
			wantRisk:    registry.LevelDanger,
			wantCounts:  Counts{Danger: 1},
		},
		{
			name: "suppression without path matches every path of its code",
			in: func() Input {
				in := baseInput(
					finding(registry.LevelWarn, "unpinned", "mcp.args[0]"),
					finding(registry.LevelWarn, "unpinned", "mcp.args[3]"),
				)
				in.Suppressions = []Suppression{{Code: "unpinned", Reason: registry.ReasonAcceptedRisk}}
				return in
			}(),
			wantVerdict: registry.VerdictPass,
			wantRisk:    registry.LevelNone,
			wantCounts:  Counts{Suppressed: 2},
		},
		{
			name: "removed addon fails whatever it contains",
			in: func() Input {
				in := baseInput()
				in.Removed = true
				return in
			}(),
			wantVerdict: registry.VerdictFail,
			wantRisk:    registry.LevelNone,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := assemble(tt.in, testRules)
			if err != nil {
				t.Fatalf("assemble: %v", err)
			}
			if r.Verdict != tt.wantVerdict {
				t.Errorf("verdict = %q, want %q", r.Verdict, tt.wantVerdict)
			}
			if r.Risk != tt.wantRisk {
				t.Errorf("risk = %v, want %v", r.Risk, tt.wantRisk)
			}
			if diff := cmp.Diff(tt.wantCounts, r.Counts); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAssembleFields(t *testing.T) {
	in := baseInput(
		finding(registry.LevelInfo, "child_env", "mcp.env.B"),
		finding(registry.LevelDanger, "pipe_to_shell", "mcp.args[1]"),
		finding(registry.LevelWarn, "unpinned", "mcp.args[0]"),
		finding(registry.LevelInfo, "child_env", "mcp.env.A"),
	)
	in.Tier = registry.TierVerified
	in.Result.Inferred = assess.Inferred{Network: true}
	in.Suppressions = []Suppression{{Code: "child_env", Path: "mcp.env.B", Reason: registry.ReasonNotApplicable}}
	in.Parsed.Capabilities = &addon.Capabilities{Exec: addon.ExecAllow, ExecAllow: []string{"git"}}
	got, err := assemble(in, testRules)
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	want := &Report{
		Schema:         Schema,
		Ruleset:        assess.Ruleset,
		Addon:          Addon{Name: "demo", Version: "1.2.3"},
		ManifestSHA256: SHA256(in.Manifest),
		Tier:           registry.TierVerified,
		Verdict:        registry.VerdictFail,
		Risk:           registry.LevelDanger,
		Counts:         Counts{Info: 1, Warn: 1, Danger: 1, Suppressed: 1},
		Transport:      "stdio",
		Findings: []Finding{
			{Level: registry.LevelDanger, Code: "pipe_to_shell", Message: "pipe_to_shell at mcp.args[1]", Path: "mcp.args[1]", Blocking: true},
			{Level: registry.LevelWarn, Code: "unpinned", Message: "unpinned at mcp.args[0]", Path: "mcp.args[0]"},
			{Level: registry.LevelInfo, Code: "child_env", Message: "child_env at mcp.env.A", Path: "mcp.env.A"},
			{Level: registry.LevelInfo, Code: "child_env", Message: "child_env at mcp.env.B", Path: "mcp.env.B", Suppressed: &Suppressed{Reason: registry.ReasonNotApplicable}},
		},
		Capabilities: &Capabilities{Network: addon.NetworkNone, Filesystem: addon.FilesystemReadOnly, Env: []string{}, Exec: addon.ExecAllow, ExecAllow: []string{"git"}},
		Inferred:     Inferred{Network: true},
		WiringSHA256: in.Parsed.Wiring().SHA256(),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

func TestBuildRefusesBadInput(t *testing.T) {
	tests := []struct {
		name      string
		mutate    func(*Input)
		wantPaths []string
	}{
		{"no parsed manifest", func(in *Input) { in.Parsed = nil }, []string{"parsed"}},
		{"empty tier", func(in *Input) { in.Tier = "" }, []string{"tier"}},
		{"unknown tier", func(in *Input) { in.Tier = "gold" }, []string{"tier"}},
		{"suppression without code or reason", func(in *Input) {
			in.Suppressions = []Suppression{{Reason: registry.ReasonMitigated}, {Code: "x", Reason: "because"}}
		}, []string{"suppressions[0].code", "suppressions[1].reason"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := baseInput()
			tt.mutate(&in)
			_, b, err := Build(in)
			if err == nil {
				t.Fatalf("Build = %s, want an error", b)
			}
			if !errors.Is(err, registry.ErrInvalid) {
				t.Errorf("error %v does not match ErrInvalid", err)
			}
			var ve *registry.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T is not a *ValidationError", err)
			}
			var got []string
			for _, f := range ve.Fields {
				got = append(got, f.Path)
			}
			if diff := cmp.Diff(tt.wantPaths, got); diff != "" {
				t.Errorf("field paths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildIsCanonicalAndRoundTrips(t *testing.T) {
	in := baseInput(
		finding(registry.LevelWarn, "unpinned", "mcp.args[0]"),
		registry.Finding{Level: registry.LevelInfo, Code: "child_env", Path: "mcp.env.A", Message: `quote " <tag> & é ✓`},
	)
	in.Parsed.Capabilities = &addon.Capabilities{Network: addon.NetworkFull, Env: []string{"HOME"}}
	in.Suppressions = []Suppression{{Code: "unpinned", Reason: registry.ReasonMitigated}}
	_, b, err := Build(in)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	canon, err := jcs.Transform(b)
	if err != nil {
		t.Fatalf("jcs.Transform: %v", err)
	}
	if !bytes.Equal(canon, b) {
		t.Errorf("report is not canonical:\n got %s\nwant %s", b, canon)
	}
	if bytes.Contains(b, []byte("\\u003c")) {
		t.Errorf("report escapes HTML characters, which JCS does not: %s", b)
	}
	r, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	again, err := Encode(r)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if !bytes.Equal(again, b) {
		t.Errorf("Encode(Decode(b)) differs:\n got %s\nwant %s", again, b)
	}
}

func TestBuildNullsAndEmptyLists(t *testing.T) {
	_, b, err := Build(baseInput())
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	for _, want := range []string{`"findings":[]`, `"capabilities":null`, `"risk":"none"`, `"verdict":"pass"`, `"tier":"community"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("report lacks %s: %s", want, b)
		}
	}
	if bytes.Contains(b, []byte(`"suppressed":{`)) {
		t.Errorf("report marks an unsuppressed finding: %s", b)
	}
}

func TestBuildIgnoresManifestVerifiedClaim(t *testing.T) {
	in := baseInput()
	in.Parsed.Addon.Verified = true
	_, b, err := Build(in)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if !bytes.Contains(b, []byte(`"tier":"community"`)) {
		t.Errorf("a manifest's own verified claim changed the tier: %s", b)
	}
}

func TestBuildConcurrentIdentical(t *testing.T) {
	in := baseInput(
		finding(registry.LevelWarn, "unpinned", "mcp.args[0]"),
		finding(registry.LevelInfo, "child_env", "mcp.env.A"),
	)
	_, want, err := Build(in)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	const n = 64
	got := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, got[i], errs[i] = Build(in) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("goroutine %d: %v", i, errs[i])
		}
		if !bytes.Equal(got[i], want) {
			t.Fatalf("goroutine %d: bytes differ:\n got %s\nwant %s", i, got[i], want)
		}
	}
}

func TestSHA256(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tt := range tests {
		if got := SHA256([]byte(tt.in)); got != tt.want {
			t.Errorf("SHA256(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestPutHex: the digests' hex digits are hex.Encode's, for every byte
// value at every position of a digest.
func TestPutHex(t *testing.T) {
	src := make([]byte, 32)
	for v := range 256 {
		for i := range src {
			src[i] = byte(v + i*7)
		}
		src[v%32] = byte(v)
		dst := make([]byte, 64)
		putHex(dst, src)
		if want := hex.EncodeToString(src); string(dst) != want {
			t.Fatalf("putHex(%x) = %s, want %s", src, dst, want)
		}
	}
}

func TestDecodeRefusesBadReports(t *testing.T) {
	_, good, err := Build(baseInput(finding(registry.LevelWarn, "unpinned", "mcp.args[0]")))
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	_, empty, err := Build(baseInput())
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	edit := func(old, new string) string {
		s := strings.Replace(string(good), old, new, 1)
		if s == string(good) {
			t.Fatalf("edit %q not applied to %s", old, good)
		}
		return s
	}
	tests := []struct {
		name     string
		in       string
		wantPath string
	}{
		{"empty", "", "(document)"},
		{"not JSON", "\x1b[31mhello", "(document)"},
		{"truncated", string(good[:len(good)/2]), "(document)"},
		{"trailing data", string(good) + "{}", "(document)"},
		{"unknown field", edit(`{"addon"`, `{"\x1b[2Jevil":1,"addon"`), "(document)"},
		{"wrong type", edit(`"removed":false`, `"removed":"no"`), "(document)"},
		{"unknown level", edit(`"level":"warn"`, `"level":"\u001b[31m"`), "(document)"},
		{"other schema", edit(Schema, "registryd.report/v0"), "schema"},
		{"bad sha", edit(`"manifest_sha256":"`, `"manifest_sha256":"Z`), "manifest_sha256"},
		{"unknown tier", edit(`"tier":"community"`, `"tier":"gold"`), "tier"},
		{"unknown verdict", edit(`"verdict":"review"`, `"verdict":"maybe"`), "verdict"},
		{"null findings", strings.Replace(string(empty), `"findings":[]`, `"findings":null`, 1), "findings"},
		{"negative line", edit(`"line":0`, `"line":-3`), "findings[0].line"},
		{"bad wiring digest", edit(`"wiring_sha256":"`, `"wiring_sha256":"Z`), "wiring_sha256"},
		{"v2 without wiring digest", strings.Replace(string(good), `,"wiring_sha256":"`+wiringOf(t, good)+`"`, "", 1), "wiring_sha256"},
		{"v1 with wiring digest", edit(Schema, SchemaV1), "wiring_sha256"},
		{"bad reason", edit(`"level":"warn","line":0`, `"level":"warn","line":0,"suppressed":{"reason":"whim"}`), "findings[0].suppressed.reason"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Decode([]byte(tt.in))
			if err == nil {
				t.Fatalf("Decode = %+v, want an error", r)
			}
			var ve *registry.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T (%v) is not a *ValidationError", err, err)
			}
			if got := ve.Fields[0].Path; got != tt.wantPath {
				t.Errorf("first field = %q, want %q (%v)", got, tt.wantPath, err)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\x1b\x00") {
				t.Errorf("error echoes control bytes: %q", msg)
			}
		})
	}
}

// wiringOf returns the wiring digest a report carries.
func wiringOf(t *testing.T, b []byte) string {
	t.Helper()
	r, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return r.WiringSHA256
}

// TestDecodeReadsV1 keeps the reports stored before the wiring digest
// readable until they are rendered again: a v1 report decodes with an
// empty WiringSHA256.
func TestDecodeReadsV1(t *testing.T) {
	in := baseInput(finding(registry.LevelWarn, "unpinned", "mcp.args[0]"))
	_, b, err := Build(in)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	want := in.Parsed.Wiring().SHA256()
	if got := wiringOf(t, b); got != want {
		t.Fatalf("wiring_sha256 = %q, want %q", got, want)
	}
	v1 := strings.Replace(string(b), `,"wiring_sha256":"`+want+`"`, "", 1)
	v1 = strings.Replace(v1, Schema, SchemaV1, 1)
	r, err := Decode([]byte(v1))
	if err != nil {
		t.Fatalf("Decode(v1) = %v", err)
	}
	if r.Schema != SchemaV1 || r.WiringSHA256 != "" || r.Addon.Name != "demo" {
		t.Errorf("Decode(v1) = schema %q, wiring %q, addon %q", r.Schema, r.WiringSHA256, r.Addon.Name)
	}
}
