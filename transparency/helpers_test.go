package transparency_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/registryd/registryd/transparency"
)

// seedReader returns a reader that yields the 32-byte seed built from b,
// so that a test key is the same on every run.
func seedReader(b byte) *bytes.Reader {
	return bytes.NewReader(bytes.Repeat([]byte{b}, 32))
}

// testSigner returns the deterministic key named name made from seed byte b.
func testSigner(t testing.TB, name string, b byte) *transparency.Signer {
	t.Helper()
	skey, _, err := transparency.GenerateKey(seedReader(b), name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := transparency.ParseSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hex64 returns 64 hex digits made of c.
func hex64(c string) string { return strings.Repeat(c, 64) }

// sampleLeaf is a valid leaf.
var sampleLeaf = transparency.Leaf{Addon: "echo", Version: "1.2.3", ManifestSHA256: hex64("a"), ReportSHA256: hex64("b")}

// mustNotQuote fails when err's text carries secret, the input that a
// message must never echo.
func mustNotQuote(t *testing.T, err error, secret string) {
	t.Helper()
	if secret != "" && strings.Contains(err.Error(), secret) {
		t.Errorf("error %q quotes the input %q", err, secret)
	}
}
