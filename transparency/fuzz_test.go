package transparency_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/registryd/registryd/transparency"
)

// FuzzParseLeaf: whatever ParseLeaf accepts is valid and marshals back to
// the same bytes; nothing panics.
func FuzzParseLeaf(f *testing.F) {
	for _, l := range goodLeaves {
		f.Add(l.Marshal())
	}
	for _, tc := range badLeaves {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := transparency.ParseLeaf(b)
		if err != nil {
			return
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("ParseLeaf accepted a leaf Validate refuses: %v", err)
		}
		if !bytes.Equal(l.Marshal(), b) {
			t.Fatalf("ParseLeaf accepted a non-canonical leaf:\n%q\nmarshals to\n%q", b, l.Marshal())
		}
	})
}

// FuzzParseCheckpoint: whatever ParseCheckpoint accepts marshals back to the
// same bytes and can be signed and opened again; nothing panics.
func FuzzParseCheckpoint(f *testing.F) {
	f.Add([]byte(sampleCheckpointText))
	for _, tc := range badCheckpoints {
		f.Add([]byte(tc.in))
	}
	s := testSigner(f, "fuzz", 1)
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := transparency.ParseCheckpoint(b)
		if err != nil {
			return
		}
		if !bytes.Equal(c.Marshal(), b) {
			t.Fatalf("ParseCheckpoint accepted a non-canonical body:\n%q\nmarshals to\n%q", b, c.Marshal())
		}
		signed, err := transparency.SignCheckpoint(c, s)
		if err != nil {
			// note refuses text that is not valid note text (for
			// example a character it does not allow); that is not a
			// parse bug as long as nothing panics.
			return
		}
		if _, _, err := transparency.OpenCheckpoint(signed, c.Origin, s.Verifier()); err != nil {
			t.Fatalf("a signed checkpoint does not open: %v", err)
		}
	})
}

// FuzzOpenCheckpoint: no signed-note input makes OpenCheckpoint panic or
// accept a note the key did not sign.
func FuzzOpenCheckpoint(f *testing.F) {
	s := testSigner(f, "fuzz", 2)
	good := mustSign(&testing.T{}, transparency.Checkpoint{Checkpoint: sampleCheckpoint.Checkpoint, Timestamp: 5}, s)
	f.Add(good)
	f.Add([]byte(sampleCheckpointText))
	f.Add(mustSign(&testing.T{}, transparency.Checkpoint{Checkpoint: sampleCheckpoint.Checkpoint, Timestamp: 5}, s, testSigner(f, "witness.example", 7)))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, _, err := transparency.OpenCheckpoint(b, "registry.example", s.Verifier())
		if err != nil {
			return
		}
		// The note may carry signatures by other keys (a witness's), which
		// OpenCheckpoint ignores: its body and the key's signature line
		// must be the very bytes the key writes.
		again := mustSign(t, c, s)
		body, sig, _ := bytes.Cut(again, []byte("\n\n"))
		gotBody, gotSigs, _ := bytes.Cut(b, []byte("\n\n"))
		if !bytes.Equal(gotBody, body) || !slices.ContainsFunc(bytes.SplitAfter(gotSigs, []byte("\n")), func(l []byte) bool { return bytes.Equal(l, sig) }) {
			t.Fatalf("OpenCheckpoint accepted a note that is not the key's signature of its body:\n%q\n%q", b, again)
		}
	})
}

// FuzzOpenEnvelope: no input makes OpenEnvelope panic, and what it accepts
// carries the payload the key signed.
func FuzzOpenEnvelope(f *testing.F) {
	s := testSigner(f, "fuzz", 3)
	env, err := transparency.SignEnvelope(sampleReport, s)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(env)
	f.Add([]byte(`{"payload":"","payloadType":"","signatures":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		payload, _, err := transparency.OpenEnvelope(b, s.Verifier())
		if err != nil {
			return
		}
		if !bytes.Equal(payload, sampleReport) {
			t.Fatalf("OpenEnvelope accepted a payload the key never signed: %q", payload)
		}
	})
}
