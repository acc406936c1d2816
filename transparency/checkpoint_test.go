package transparency_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"

	"github.com/registryd/registryd/transparency"
)

var sampleRoot = sha256.Sum256([]byte("root"))

var sampleCheckpoint = transparency.Checkpoint{
	Checkpoint: log.Checkpoint{Origin: "registry.example", Size: 42, Hash: sampleRoot[:]},
	Timestamp:  1700000000,
}

const sampleCheckpointText = "registry.example\n42\nSBNJTRN+FjG7owHVrKtue7eqdM4RhdRWVl71HXN2d7I=\n" + "Timestamp: 1700000000\n"

func TestCheckpointMarshal(t *testing.T) {
	if got := string(sampleCheckpoint.Marshal()); got != sampleCheckpointText {
		t.Errorf("Marshal:\n%s\nwant:\n%s", got, sampleCheckpointText)
	}
	got, err := transparency.ParseCheckpoint([]byte(sampleCheckpointText))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleCheckpoint, got); diff != "" {
		t.Errorf("ParseCheckpoint (-want +got):\n%s", diff)
	}
	if got.Time().Unix() != 1700000000 {
		t.Errorf("Time() = %v", got.Time())
	}
}

var badCheckpoints = []struct{ name, in, want string }{
	{"empty", "", "too few newlines"},
	{"no timestamp", "registry.example\n42\nSBNJTRN+FjG7owHVrKtue7eqdM4RhdRWVl71HXN2d7I=\n", "Timestamp"},
	{"two extensions", sampleCheckpointText + "Other: x\n", "one extension"},
	{"timestamp twice", sampleCheckpointText + "Timestamp: 1\n", "one extension"},
	{"blank line", sampleCheckpointText + "\n", "one extension"},
	{"no final newline", strings.TrimSuffix(sampleCheckpointText, "\n"), "one extension"},
	{"timestamp key only", strings.TrimSuffix(sampleCheckpointText, "1700000000\n"), "one extension"},
	{"negative time", strings.Replace(sampleCheckpointText, "1700000000", "-1", 1), "Timestamp"},
	{"plus time", strings.Replace(sampleCheckpointText, "1700000000", "+1700000000", 1), "canonical"},
	{"leading zero time", strings.Replace(sampleCheckpointText, "1700000000", "01700000000", 1), "canonical"},
	{"time not a number", strings.Replace(sampleCheckpointText, "1700000000", "\x1b[31m", 1), "Timestamp"},
	{"lowercase key", strings.Replace(sampleCheckpointText, "Timestamp", "timestamp", 1), "Timestamp"},
	{"leading zero size", strings.Replace(sampleCheckpointText, "\n42\n", "\n042\n", 1), "canonical"},
	{"plus size", strings.Replace(sampleCheckpointText, "\n42\n", "\n+42\n", 1), "size invalid"},
	{"size not a number", strings.Replace(sampleCheckpointText, "\n42\n", "\n\x1bsize\n", 1), "size invalid"},
	{"short hash", strings.Replace(sampleCheckpointText, "SBNJTRN+FjG7owHVrKtue7eqdM4RhdRWVl71HXN2d7I=", "AAAA", 1), "3 bytes"},
	{"hash not base64", strings.Replace(sampleCheckpointText, "SBNJ", "\x1b\x1b\x1b\x1b", 1), "invalid hash"},
	{"empty origin", strings.Replace(sampleCheckpointText, "registry.example", "", 1), "empty origin"},
	{"origin control", strings.Replace(sampleCheckpointText, "registry.example", "reg\x1b[31m", 1), "origin contains a control"},
	{"origin bidi", strings.Replace(sampleCheckpointText, "registry.example", "reg\u202e", 1), "origin contains a bidi"},
	{"origin not UTF-8", strings.Replace(sampleCheckpointText, "registry.example", "reg\xff", 1), "not valid UTF-8"},
	{"origin long", strings.Replace(sampleCheckpointText, "registry.example", strings.Repeat("o", transparency.MaxOrigin+1), 1), "origin longer"},
	{"CRLF", strings.ReplaceAll(sampleCheckpointText, "\n", "\r\n"), "size invalid"},
}

func TestParseCheckpointRefuses(t *testing.T) {
	for _, tc := range badCheckpoints {
		t.Run(tc.name, func(t *testing.T) {
			_, err := transparency.ParseCheckpoint([]byte(tc.in))
			if !errors.Is(err, transparency.ErrCheckpoint) {
				t.Fatalf("ParseCheckpoint = %v, want ErrCheckpoint", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			mustNotQuote(t, err, "\x1b")
		})
	}
}

func TestSignAndOpenCheckpoint(t *testing.T) {
	active, retired, stranger := testSigner(t, "registry.example", 10), testSigner(t, "registry.old", 11), testSigner(t, "registry.example", 12)
	signed, err := transparency.SignCheckpoint(sampleCheckpoint, active, retired)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(signed, []byte(sampleCheckpointText+"\n\u2014 registry.example ")) {
		t.Errorf("signed note does not start with the body and the active key's signature:\n%s", signed)
	}
	for _, keys := range [][]transparency.VerifierKey{{active.Verifier()}, {retired.Verifier()}, {stranger.Verifier(), retired.Verifier()}} {
		c, by, err := transparency.OpenCheckpoint(signed, "registry.example", keys...)
		if err != nil {
			t.Fatalf("OpenCheckpoint: %v", err)
		}
		if diff := cmp.Diff(sampleCheckpoint, c); diff != "" {
			t.Errorf("checkpoint (-want +got):\n%s", diff)
		}
		if len(by) != 1 || by[0] != keys[len(keys)-1].ID {
			t.Errorf("signed by %q, want [%s]", by, keys[len(keys)-1].ID)
		}
	}
	_, by, err := transparency.OpenCheckpoint(signed, "registry.example", active.Verifier(), retired.Verifier())
	if err != nil || !cmp.Equal(by, []string{active.Verifier().ID, retired.Verifier().ID}) {
		t.Errorf("OpenCheckpoint with both keys: signed by %q, %v", by, err)
	}

	cases := map[string]struct {
		signed []byte
		origin string
		keys   []transparency.VerifierKey
		want   string
	}{
		"no keys":                 {signed, "registry.example", nil, "no key"},
		"unknown key":             {signed, "registry.example", []transparency.VerifierKey{stranger.Verifier()}, "not signed by a known key"},
		"other origin":            {signed, "registry.other", []transparency.VerifierKey{active.Verifier()}, "origin"},
		"tampered size":           {bytes.Replace(signed, []byte("\n42\n"), []byte("\n43\n"), 1), "registry.example", []transparency.VerifierKey{active.Verifier()}, "does not verify"},
		"garbage":                 {[]byte("\x1b[31m"), "registry.example", []transparency.VerifierKey{active.Verifier()}, "not a signed note"},
		"body only":               {[]byte(sampleCheckpointText), "registry.example", []transparency.VerifierKey{active.Verifier()}, "not a signed note"},
		"forged by name":          {mustSign(t, sampleCheckpoint, stranger), "registry.example", []transparency.VerifierKey{active.Verifier()}, "not signed by a known key"},
		"non-canonical signature": {nonCanonical(t, signed), "registry.example", []transparency.VerifierKey{active.Verifier()}, "canonical base64"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := transparency.OpenCheckpoint(tc.signed, tc.origin, tc.keys...)
			if !errors.Is(err, transparency.ErrCheckpoint) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("OpenCheckpoint = %v, want ErrCheckpoint saying %q", err, tc.want)
			}
		})
	}

	// A note the key signs whose body is not a checkpoint is refused too.
	n, err := note.Sign(&note.Note{Text: "registry.example\n42\nnot a hash\n"}, active)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := transparency.OpenCheckpoint(n, "registry.example", active.Verifier()); !errors.Is(err, transparency.ErrCheckpoint) {
		t.Errorf("OpenCheckpoint of a signed non-checkpoint = %v", err)
	}
	if _, err := transparency.SignCheckpoint(transparency.Checkpoint{Checkpoint: log.Checkpoint{Origin: "o", Hash: []byte{1}}}, active); !errors.Is(err, transparency.ErrCheckpoint) {
		t.Errorf("SignCheckpoint of a 1-byte root = %v, want ErrCheckpoint", err)
	}
	if _, err := transparency.SignCheckpoint(sampleCheckpoint); err == nil {
		t.Error("SignCheckpoint without a signer succeeded")
	}
}

// nonCanonical rewrites the first signature of a signed note so that its
// base64 has a non-zero unused bit: the same signature bytes, written
// another way.
func nonCanonical(t *testing.T, signed []byte) []byte {
	t.Helper()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	out := bytes.Clone(signed)
	// After the blank line that ends the body; an Ed25519 note signature
	// is 68 bytes, written with one '=' of padding.
	sigs := bytes.Index(out, []byte("\n\n"))
	i := bytes.Index(out[sigs+1:], []byte("=\n")) + sigs + 1
	if sigs < 0 || i <= sigs+1 {
		t.Fatalf("no padded signature in %q", signed)
	}
	v := strings.IndexByte(alphabet, out[i-1])
	if v < 0 || v&3 != 0 {
		t.Fatalf("the signature's last character %q is not canonical already", out[i-1])
	}
	out[i-1] = alphabet[v|1]
	if bytes.Equal(out, signed) {
		t.Fatal("nothing changed")
	}
	return out
}

func mustSign(t *testing.T, c transparency.Checkpoint, s ...note.Signer) []byte {
	t.Helper()
	b, err := transparency.SignCheckpoint(c, s...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
