package transparency_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/transparency"
)

const sampleLeafText = "registryd.report.leaf/v1\naddon echo\nversion 1.2.3\nmanifest sha256:" +
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nreport sha256:" +
	"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n"

func TestLeafMarshal(t *testing.T) {
	if got := string(sampleLeaf.Marshal()); got != sampleLeafText {
		t.Errorf("Marshal:\n%s\nwant:\n%s", got, sampleLeafText)
	}
}

// The leaf hash is RFC 6962's, computed here from its definition.
func TestLeafHash(t *testing.T) {
	want := sha256.Sum256(append([]byte{0}, sampleLeafText...))
	if got := sampleLeaf.Hash(); !bytes.Equal(got, want[:]) {
		t.Errorf("Hash = %x, want SHA-256(0x00 || leaf) = %x", got, want)
	}
}

var goodLeaves = []transparency.Leaf{
	sampleLeaf,
	{Addon: "a", Version: "0.0.0-rc.1+build.5", ManifestSHA256: hex64("0"), ReportSHA256: hex64("f")},
	{Addon: strings.Repeat("n", transparency.MaxLeafField), Version: "v 1 é", ManifestSHA256: hex64("9"), ReportSHA256: hex64("1")},
}

func TestParseLeafRoundTrip(t *testing.T) {
	for _, l := range goodLeaves {
		if err := l.Validate(); err != nil {
			t.Fatalf("Validate(%+v): %v", l, err)
		}
		got, err := transparency.ParseLeaf(l.Marshal())
		if err != nil {
			t.Fatalf("ParseLeaf(%q): %v", l.Marshal(), err)
		}
		if diff := cmp.Diff(l, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
}

// badLeaves maps a name to a leaf text ParseLeaf must refuse, and a part
// of the error message.
var badLeaves = []struct {
	name, in, want string
}{
	{"empty", "", "newline"},
	{"no final newline", strings.TrimSuffix(sampleLeafText, "\n"), "newline"},
	{"blank line after", sampleLeafText + "\n", "6 lines"},
	{"extra line", sampleLeafText + "tier verified\n", "6 lines"},
	{"missing line", strings.Replace(sampleLeafText, "version 1.2.3\n", "", 1), "4 lines"},
	{"other header", strings.Replace(sampleLeafText, "/v1", "/v2", 1), "first line"},
	{"CRLF", strings.ReplaceAll(sampleLeafText, "\n", "\r\n"), "first line"},
	{"lines swapped", strings.Replace(strings.Replace(sampleLeafText, "addon echo", "X", 1), "version 1.2.3", "addon echo", 1), "line 2"},
	{"key case", strings.Replace(sampleLeafText, "addon ", "Addon ", 1), "line 2"},
	{"two spaces", strings.Replace(sampleLeafText, "addon ", "addon  ", 1), "addon: leading"},
	{"trailing space", strings.Replace(sampleLeafText, "1.2.3", "1.2.3 ", 1), "version: leading or trailing"},
	{"empty name", strings.Replace(sampleLeafText, "addon echo", "addon ", 1), "addon: empty"},
	{"control", strings.Replace(sampleLeafText, "echo", "ec\x1bho", 1), "addon: contains a control"},
	{"bidi", strings.Replace(sampleLeafText, "echo", "ec\u202eho", 1), "addon: contains a bidi"},
	{"zero width", strings.Replace(sampleLeafText, "1.2.3", "1.2\u200b.3", 1), "version: contains an invisible"},
	{"not UTF-8", strings.Replace(sampleLeafText, "echo", "ec\xffho", 1), "addon: is not valid UTF-8"},
	{"long name", strings.Replace(sampleLeafText, "echo", strings.Repeat("e", transparency.MaxLeafField+1), 1), "addon: longer"},
	{"huge", sampleLeafText + strings.Repeat("x", 4096), "longer than"},
	{"upper hex", strings.Replace(sampleLeafText, "aaaa", "AAAA", 1), "manifest: not 64"},
	{"short hex", strings.Replace(sampleLeafText, "aaaa", "aaa", 1), "manifest: not 64"},
	{"no prefix", strings.Replace(sampleLeafText, "report sha256:", "report ", 1), "line 5"},
	{"other algorithm", strings.Replace(sampleLeafText, "manifest sha256:", "manifest sha512:", 1), "line 4"},
	{"not hex", strings.Replace(sampleLeafText, "bbbb", "bbgb", 1), "report: not 64"},
}

func TestParseLeafRefuses(t *testing.T) {
	for _, tc := range badLeaves {
		t.Run(tc.name, func(t *testing.T) {
			_, err := transparency.ParseLeaf([]byte(tc.in))
			if err == nil {
				t.Fatal("ParseLeaf accepted it")
			}
			if !errors.Is(err, transparency.ErrLeaf) {
				t.Errorf("error %v does not wrap ErrLeaf", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			mustNotQuote(t, err, "echo")
			mustNotQuote(t, err, "\x1b")
		})
	}
}

func TestValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		leaf transparency.Leaf
		want string
	}{
		{transparency.Leaf{Version: "1", ManifestSHA256: hex64("a"), ReportSHA256: hex64("a")}, "addon: empty"},
		{transparency.Leaf{Addon: "x", ManifestSHA256: hex64("a"), ReportSHA256: hex64("a")}, "version: empty"},
		{transparency.Leaf{Addon: "x", Version: "1", ManifestSHA256: "sha256:" + hex64("a"), ReportSHA256: hex64("a")}, "manifest:"},
		{transparency.Leaf{Addon: "x", Version: "1", ManifestSHA256: hex64("a"), ReportSHA256: ""}, "report:"},
	} {
		err := tc.leaf.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want an error saying %q", tc.leaf, err, tc.want)
		}
	}
}
