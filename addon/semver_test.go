package addon

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/registry"
)

// semverRegexp is the regular expression semver.org suggests for checking a
// SemVer 2.0.0 string. ParseSemVer must accept exactly what it matches.
var semverRegexp = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

var semverCases = []struct {
	in   string
	want string // "" when valid, else a part of the refusal
}{
	{"0.0.0", ""},
	{"1.2.3", ""},
	{"10.20.30", ""},
	{"1.0.0-alpha", ""},
	{"1.0.0-alpha.1", ""},
	{"1.0.0-0.3.7", ""},
	{"1.0.0-x.7.z.92", ""},
	{"1.0.0-x-y-z.--", ""},
	{"1.0.0-alpha+001", ""},
	{"1.0.0+20130313144700", ""},
	{"1.0.0-beta+exp.sha.5114f85", ""},
	{"1.0.0+21AF26D3----117B344092BD", ""},
	{"1.0.0-0A.is.legal", ""},
	{"1.0.0+0.build.1-rc.10000aaa-kk-0.1", ""},
	{"99999999999999999999999.999999999999999999.99999999999999999", ""},
	{"1.0.0-rc.1+build.1", ""},
	{"1.0.0+a", ""},

	{"", "is empty"},
	{"v1.2.3", `must not start with "v"`},
	{"V1.2.3", `must not start with "v"`},
	{"1", "three numbers"},
	{"1.2", "three numbers"},
	{"1.2.3.4", "three numbers"},
	{"1.2.", "empty patch"},
	{".2.3", "empty major"},
	{"01.2.3", "major number with a leading zero"},
	{"1.02.3", "minor number with a leading zero"},
	{"1.2.03", "patch number with a leading zero"},
	{"1.2.3-", "empty pre-release identifier"},
	{"1.2.3-a..b", "empty pre-release identifier"},
	{"1.2.3-01", "numeric pre-release identifier with a leading zero"},
	{"1.2.3+", "empty build metadata identifier"},
	{"1.2.3+a..b", "empty build metadata identifier"},
	{"1.2.3+a+b", "build metadata identifier with a character"},
	{"1.2.3-a_b", "pre-release identifier with a character"},
	{"1.2.3-ä", "pre-release identifier with a character"},
	{" 1.2.3", "major that is not a number"},
	{"1.2.3 ", "patch that is not a number"},
	{"=1.2.3", "major that is not a number"},
	{"1.x.3", "minor that is not a number"},
	{"1.2.*", "patch that is not a number"},
	{"latest", "three numbers"},
	{"../../../v1/audit-log?x=", "three numbers"},
	{"1.2.3/../4", "three numbers"},
	{"1.2.3-rc.1/x", "pre-release identifier with a character"},
	{"１.2.3", "major that is not a number"},
}

func TestParseSemVer(t *testing.T) {
	for _, tt := range semverCases {
		v, err := ParseSemVer(tt.in)
		if tt.want == "" {
			if err != nil {
				t.Errorf("ParseSemVer(%q): %v", tt.in, err)
			} else if v.String() != tt.in {
				t.Errorf("ParseSemVer(%q).String() = %q", tt.in, v.String())
			}
		} else if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseSemVer(%q) = %v, want an error containing %q", tt.in, err, tt.want)
		}
		if got := semverRegexp.MatchString(tt.in); got != (tt.want == "") {
			t.Errorf("the semver.org expression matches %q: %v; the table says %v", tt.in, got, tt.want == "")
		}
		if err != nil && strings.Contains(err.Error(), tt.in) && tt.in != "" && len(tt.in) > 2 {
			t.Errorf("ParseSemVer(%q) echoes its input: %v", tt.in, err)
		}
	}
}

func TestSemVerPrecedence(t *testing.T) {
	// The order semver.org gives as its example (section 11), then more.
	ordered := []string{
		"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "1.9.0", "1.10.0", "1.11.0",
		"2.0.0-0", "2.0.0-9", "2.0.0-10", "2.0.0-A", "2.0.0-a", "2.0.0", "10.0.0", "99999999999999999999.0.0",
	}
	vs := make([]SemVer, len(ordered))
	for i, s := range ordered {
		var err error
		if vs[i], err = ParseSemVer(s); err != nil {
			t.Fatal(err)
		}
	}
	for i := range vs {
		for j := range vs {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := vs[i].Compare(vs[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", vs[i], vs[j], got, want)
			}
		}
	}
}

func TestSemVerBuildMetadataIgnored(t *testing.T) {
	a, _ := ParseSemVer("1.0.0+a")
	b, _ := ParseSemVer("1.0.0+b")
	c, _ := ParseSemVer("1.0.0")
	if a.Compare(b) != 0 || a.Compare(c) != 0 || b.Compare(c) != 0 {
		t.Errorf("build metadata changes precedence: %d %d %d", a.Compare(b), a.Compare(c), b.Compare(c))
	}
	if a.Build() != "a" || c.Build() != "" || a.Prerelease() {
		t.Errorf("Build %q %q, Prerelease %v", a.Build(), c.Build(), a.Prerelease())
	}
	if got := registry.VersionKey("1.0.0-rc.1+b.7"); got != "1.0.0-rc.1" {
		t.Errorf("VersionKey = %q", got)
	}
}

func TestCheckVersion(t *testing.T) {
	tests := []struct {
		name, doc string
		asJSON    bool
		want      []registry.FieldError
	}{
		{"valid", "[addon]\nname = \"a\"\nversion = \"1.0.0-rc.1+b.5\"\n", false, nil},
		{"missing", "# top\n[addon]\nname = \"a\"\n\n[mcp]\ncommand = \"x\"\n", false,
			[]registry.FieldError{{Path: "addon.version", Line: 2, Message: "is required: the registry publishes each version of an addon under its SemVer 2.0.0 version, such as 1.0.0"}}},
		{"empty", "[addon]\nname = \"a\"\nversion = \"\"\n", false,
			[]registry.FieldError{{Path: "addon.version", Line: 3, Message: "is required: the registry publishes each version of an addon under its SemVer 2.0.0 version, such as 1.0.0"}}},
		{"leading v", "[addon]\nname = \"a\"\n\nversion = \"v1.0.0\"\n", false,
			[]registry.FieldError{{Path: "addon.version", Line: 4, Message: `is not a SemVer 2.0.0 version: must not start with "v": a version is its numbers alone, such as 1.4.0`}}},
		{"path traversal", "[addon]\nname = \"a\"\nversion = \"../../../v1/audit-log?x=\"\n", false,
			[]registry.FieldError{{Path: "addon.version", Line: 3, Message: "is not a SemVer 2.0.0 version: must have three numbers, MAJOR.MINOR.PATCH"}}},
		{"too long", "[addon]\nname = \"a\"\nversion = \"1.0.0+" + strings.Repeat("b", MaxVersionBytes) + "\"\n", false,
			[]registry.FieldError{{Path: "addon.version", Line: 3, Message: "is longer than 64 bytes"}}},
		{"json missing", "{\n  \"addon\": {\n    \"name\": \"a\"\n  }\n}\n", true,
			[]registry.FieldError{{Path: "addon.version", Line: 2, Message: "is required: the registry publishes each version of an addon under its SemVer 2.0.0 version, such as 1.0.0"}}},
		{"json shortened", "{\"addon\": {\"name\": \"a\",\n \"version\": \"1.0\"}}", true,
			[]registry.FieldError{{Path: "addon.version", Line: 2, Message: "is not a SemVer 2.0.0 version: must have three numbers, MAJOR.MINOR.PATCH"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m *Manifest
			var err error
			if tt.asJSON {
				m, err = ParseJSON([]byte(tt.doc))
			} else {
				m, err = ParseTOML([]byte(tt.doc))
			}
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = CheckVersion(m)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckVersion: %v", err)
				}
				return
			}
			var ve *registry.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, registry.ErrInvalid) {
				t.Fatalf("CheckVersion = %v, want a *registry.ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, ve.Fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
	if err := CheckVersion(nil); !errors.Is(err, registry.ErrInvalid) {
		t.Errorf("CheckVersion(nil) = %v", err)
	}
	// The longest accepted version is a valid URL path segment for the API.
	m, err := ParseTOML([]byte("[addon]\nname = \"a\"\nversion = \"1.0.0+" + strings.Repeat("b", MaxVersionBytes-6) + "\"\n"))
	if err != nil || CheckVersion(m) != nil {
		t.Errorf("a version of exactly %d bytes: parse %v, check %v", MaxVersionBytes, err, CheckVersion(m))
	}
}

// FuzzParseSemVer checks ParseSemVer against the semver.org expression:
// it accepts exactly the strings the expression matches, round-trips them,
// and orders them consistently (antisymmetric, reflexive, blind to build
// metadata).
func FuzzParseSemVer(f *testing.F) {
	for _, c := range semverCases {
		f.Add(c.in, "1.0.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		va, errA := ParseSemVer(a)
		if got, want := errA == nil, semverRegexp.MatchString(a); got != want {
			t.Fatalf("ParseSemVer(%q) accepted %v; the semver.org expression says %v (err %v)", a, got, want, errA)
		}
		if errA != nil {
			var se semverError
			if !errors.As(errA, &se) {
				t.Fatalf("error of type %T", errA)
			}
			return
		}
		if va.String() != a {
			t.Fatalf("String() = %q, want %q", va.String(), a)
		}
		if va.Compare(va) != 0 {
			t.Fatalf("%q does not equal itself", a)
		}
		core, _, _ := strings.Cut(a, "+")
		if vc, err := ParseSemVer(core + "+fuzz.1"); err != nil || vc.Compare(va) != 0 {
			t.Fatalf("changing the build metadata of %q changed precedence: %v", a, err)
		}
		vb, errB := ParseSemVer(b)
		if errB != nil {
			return
		}
		if va.Compare(vb) != -vb.Compare(va) {
			t.Fatalf("Compare(%q, %q) = %d but Compare(%q, %q) = %d", a, b, va.Compare(vb), b, a, vb.Compare(va))
		}
		if (va.Compare(vb) == 0) != (registry.VersionKey(a) == registry.VersionKey(b)) {
			// Equal precedence is equal text without build metadata:
			// numbers have no leading zeros, so there is one spelling.
			t.Fatalf("Compare(%q, %q) = %d, but their keys are %q and %q", a, b, va.Compare(vb), registry.VersionKey(a), registry.VersionKey(b))
		}
	})
}
