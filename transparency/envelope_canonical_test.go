package transparency_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/registryd/registryd/transparency"
)

// checkEnvelopeEncoding fails t unless the envelope's direct canonical
// writing equals the reference, encoding/json then jcs.Transform, and
// jcs.Transform leaves it unchanged.
func checkEnvelopeEncoding(t *testing.T, env *dsse.Envelope) []byte {
	t.Helper()
	got := transparency.AppendEnvelope(nil, env)
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	want, err := jcs.Transform(b)
	if err != nil {
		t.Fatalf("jcs.Transform of the reference: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("direct writing differs from encoding/json + jcs.Transform:\n got %q\nwant %q", got, want)
	}
	canon, err := jcs.Transform(got)
	if err != nil || !bytes.Equal(canon, got) {
		t.Fatalf("not canonical (%v):\n got %q\nwant %q", err, got, canon)
	}
	// Appending keeps what dst held.
	if again := transparency.AppendEnvelope([]byte("x"), env); !bytes.Equal(again, append([]byte("x"), got...)) {
		t.Fatalf("AppendEnvelope to a non-empty slice = %q", again)
	}
	return got
}

// trickyStrings are strings whose RFC 8785 form differs from their bytes,
// or from what encoding/json writes.
var trickyStrings = func() []string {
	var controls strings.Builder
	for c := byte(0); c < 0x20; c++ {
		controls.WriteByte(c)
	}
	return []string{
		"", "plain", controls.String(), `say "hi" \ bye`, "\b\t\n\f\r", "\x7f\u0085\u009f",
		"<script>&amp;</script>", "a\u2028b\u2029c", "é ✓ 😀 \ufffd", "a\xffb", "a\xe2\x9c", "\xed\xa0\x80",
		"\xc0\xaf", "\"x\"", "/", "\\u0041", base64.StdEncoding.EncodeToString([]byte{0xfb, 0xff, 0xfe}),
	}
}()

func TestEnvelopeEncodingMatchesReference(t *testing.T) {
	for i, s := range trickyStrings {
		for _, env := range []*dsse.Envelope{
			{Payload: s, PayloadType: s, Signatures: []dsse.Signature{{KeyID: s, Sig: s}}},
			{Payload: "eA==", PayloadType: transparency.PayloadType, Signatures: []dsse.Signature{{KeyID: s, Sig: "c2ln"}, {KeyID: "k", Sig: s}}},
			{Payload: s, PayloadType: transparency.PayloadType, Signatures: nil},
			{Payload: s, PayloadType: s, Signatures: []dsse.Signature{}},
		} {
			t.Run(string(rune('a'+i)), func(t *testing.T) { checkEnvelopeEncoding(t, env) })
		}
	}
}

// TestEnvelopeEncodingRandom checks many envelopes made of random strings,
// drawn mostly from the characters that need care, with a fixed seed so
// that a failure repeats.
func TestEnvelopeEncodingRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(8785, 1))
	alphabet := []string{"a", "Z", "0", "+", "/", "=", `"`, `\`, "\x00", "\x1f", "\n", "\x7f", "é", "\u2028", "😀", "\xff", "\xe2\x9c", "<", "&"}
	str := func() string {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 5000 {
		env := &dsse.Envelope{Payload: str(), PayloadType: str()}
		if n := r.IntN(4); n > 0 {
			env.Signatures = make([]dsse.Signature, n-1)
			for j := range env.Signatures {
				env.Signatures[j] = dsse.Signature{KeyID: str(), Sig: str()}
			}
		}
		checkEnvelopeEncoding(t, env)
	}
}

// TestSignEnvelopeIsReferenceEncoding: a signed envelope is byte for byte
// what the library's envelope gives through encoding/json and
// jcs.Transform.
func TestSignEnvelopeIsReferenceEncoding(t *testing.T) {
	a, b := testSigner(t, "a", 4), testSigner(t, "b", 5)
	for _, report := range [][]byte{sampleReport, {}, bytes.Repeat([]byte("\xff\"\\\n"), 1000)} {
		env, err := transparency.SignEnvelope(report, a, b)
		if err != nil {
			t.Fatal(err)
		}
		var decoded dsse.Envelope
		if err := json.Unmarshal(env, &decoded); err != nil {
			t.Fatal(err)
		}
		if again := checkEnvelopeEncoding(t, &decoded); !bytes.Equal(again, env) {
			t.Errorf("SignEnvelope = %q, reference %q", env, again)
		}
		if got, _, err := transparency.OpenEnvelope(env, b.Verifier()); err != nil || !bytes.Equal(got, report) {
			t.Errorf("OpenEnvelope = %q, %v", got, err)
		}
	}
}

// FuzzEnvelopeEncoding checks the direct writing against encoding/json +
// jcs.Transform for arbitrary strings.
func FuzzEnvelopeEncoding(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s, s, s, s, true)
	}
	f.Add("eA==", transparency.PayloadType, "abc", "c2ln", false)
	f.Fuzz(func(t *testing.T, payload, payloadType, keyID, sig string, two bool) {
		env := &dsse.Envelope{Payload: payload, PayloadType: payloadType, Signatures: []dsse.Signature{{KeyID: keyID, Sig: sig}}}
		if two {
			env.Signatures = append(env.Signatures, dsse.Signature{KeyID: sig, Sig: keyID})
		}
		checkEnvelopeEncoding(t, env)
	})
}

// TestAssembleEnvelope: the envelope assembled from a report and the
// signatures EnvelopeSignatures kept of it is byte for byte the one
// SignEnvelope writes through the DSSE library, for one key and two, on
// the reports of TestSignEnvelopeIsReferenceEncoding and 2,000 random ones
// of every length up to 4 KiB; and it verifies.
func TestAssembleEnvelope(t *testing.T) {
	a, b := testSigner(t, "a", 4), testSigner(t, "b", 5)
	r := rand.New(rand.NewPCG(3, 4))
	reports := [][]byte{sampleReport, {}, nil, bytes.Repeat([]byte("\xff\"\\\n"), 1000)}
	for range 2000 {
		rep := make([]byte, r.IntN(4097))
		for i := range rep {
			rep[i] = byte(r.Uint32())
		}
		reports = append(reports, rep)
	}
	for i, report := range reports {
		for _, signers := range [][]*transparency.Signer{{a}, {b, a}} {
			want, err := transparency.SignEnvelope(report, signers...)
			if err != nil {
				t.Fatal(err)
			}
			sigs, err := transparency.EnvelopeSignatures(report, signers...)
			if err != nil {
				t.Fatal(err)
			}
			got := transparency.AssembleEnvelope(report, sigs)
			if !bytes.Equal(got, want) {
				t.Fatalf("report %d, %d keys: assembled\n%q\nwant what SignEnvelope writes\n%q", i, len(signers), got, want)
			}
			if payload, keyID, err := transparency.OpenEnvelope(got, signers[len(signers)-1].Verifier()); err != nil ||
				!bytes.Equal(payload, report) || keyID != signers[len(signers)-1].Verifier().ID {
				t.Fatalf("report %d: OpenEnvelope = %q, %s, %v", i, payload, keyID, err)
			}
		}
	}
	if _, err := transparency.EnvelopeSignatures(sampleReport); err == nil {
		t.Error("EnvelopeSignatures without a signer: no error")
	}
}
