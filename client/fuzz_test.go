package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/registryd/registryd/client/internal/testregistry"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/transparency"
)

// fuzzLog is a registry with one report and what a client fetched of it.
type fuzzLog struct {
	client   *Client
	ref      Ref
	report   []byte
	envelope []byte
	proof    []byte
	old      transparency.Checkpoint // the log before the report was added
	oldNote  []byte
	fork     transparency.Checkpoint // a checkpoint of another log under the same key, larger than old
	cons     []byte                  // the consistency proof from old to the proof's checkpoint
	at       time.Time
}

func newFuzzLog(f testing.TB) *fuzzLog {
	f.Helper()
	reg, err := testregistry.New("fuzz.example")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(reg.Close)
	signer, err := testregistry.NewSigner("fuzz.example")
	if err != nil {
		f.Fatal(err)
	}
	reg.SetSigner(signer)
	at := time.Unix(1_800_000_000, 0)
	reg.SetClock(func() time.Time { return at })
	reg.AppendLeaf([]byte("first\n"))
	reg.AppendLeaf([]byte("second\n"))
	reg.AppendLeaf([]byte("third\n"))
	oldNote, err := reg.Checkpoint()
	if err != nil {
		f.Fatal(err)
	}
	rep, err := reg.Publish(testregistry.Report("demo", "1.0.0", []byte("manifest"), registry.TierVerified, registry.VerdictPass))
	if err != nil {
		f.Fatal(err)
	}
	c, err := New(Options{Registry: reg.URL, Keys: []string{reg.VerifierKey()}, StateDir: f.TempDir(), Now: func() time.Time { return at }})
	if err != nil {
		f.Fatal(err)
	}
	l := &fuzzLog{client: c, ref: Ref{Name: "demo", Version: "1.0.0"}, report: rep, oldNote: oldNote, at: at}
	get := func(path string) []byte {
		resp, err := http.Get(reg.URL + path)
		if err != nil {
			f.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	l.envelope = get("/v1/addons/demo/versions/1.0.0/report.dsse")
	l.proof = get("/v1/addons/demo/versions/1.0.0/proof")
	l.cons = get("/v1/log/consistency?from=3&to=4")
	if l.old, err = parseSaved(oldNote); err != nil {
		f.Fatal(err)
	}
	// The genuine answers verify: the fuzzers start from inputs that pass.
	v, err := c.openReport(l.ref, l.envelope)
	if err != nil {
		f.Fatal(err)
	}
	p, err := parseProof(l.proof)
	if err != nil {
		f.Fatal(err)
	}
	if err := c.verifyInclusion(v, p); err != nil {
		f.Fatal(err)
	}
	hashes, err := parseConsistency(l.cons)
	if err != nil {
		f.Fatal(err)
	}
	if err := checkConsistency(l.old, v.Checkpoint, hashes); err != nil {
		f.Fatal(err)
	}
	// Another log under the same key, larger than the old one: a fork.
	other, err := testregistry.New("fuzz.example")
	if err != nil {
		f.Fatal(err)
	}
	defer other.Close()
	other.SetSigner(signer)
	other.SetClock(func() time.Time { return at })
	for _, leaf := range []string{"first\n", "second\n", "another third\n", "fourth\n", "fifth\n"} {
		other.AppendLeaf([]byte(leaf))
	}
	forked, err := other.Checkpoint()
	if err != nil {
		f.Fatal(err)
	}
	if l.fork, err = parseSaved(forked); err != nil {
		f.Fatal(err)
	}
	return l
}

// FuzzVerifyReport feeds arbitrary envelopes and proofs to the checks of
// Verify that read them. Whatever the bytes, nothing panics, and what is
// accepted is the report the registry signed, at its place in the log.
func FuzzVerifyReport(f *testing.F) {
	l := newFuzzLog(f)
	f.Add(l.envelope, l.proof)
	f.Add(l.envelope, []byte(`{"leaf_index":0,"tree_size":1,"leaf":"","hashes":[],"checkpoint":""}`))
	f.Add([]byte(`{"payload":"","payloadType":"","signatures":[]}`), l.proof)
	f.Fuzz(func(t *testing.T, envelope, proofBody []byte) {
		v, err := l.client.openReport(l.ref, envelope)
		if err != nil {
			if !errors.Is(err, ErrUnverified) {
				t.Fatalf("openReport error does not match ErrUnverified: %v", err)
			}
			return
		}
		if !bytes.Equal(v.ReportBytes, l.report) {
			t.Fatalf("accepted a report the registry did not sign:\n%s", v.ReportBytes)
		}
		p, err := parseProof(proofBody)
		if err != nil {
			if !errors.Is(err, ErrUnverified) {
				t.Fatalf("parseProof error does not match ErrUnverified: %v", err)
			}
			return
		}
		if err := l.client.verifyInclusion(v, p); err != nil {
			if !errors.Is(err, ErrUnverified) {
				t.Fatalf("verifyInclusion error does not match ErrUnverified: %v", err)
			}
			return
		}
		if v.LeafIndex != 3 || v.Checkpoint.Size != 4 {
			t.Fatalf("accepted leaf %d of %d, want 3 of 4", v.LeafIndex, v.Checkpoint.Size)
		}
	})
}

// FuzzConsistency feeds arbitrary consistency proofs to the client. It never
// panics, and no proof makes it accept a forked log.
func FuzzConsistency(f *testing.F) {
	l := newFuzzLog(f)
	f.Add(l.cons)
	f.Add([]byte(`{"hashes":[]}`))
	f.Add([]byte(`{"hashes":null}`))
	f.Add([]byte(`{"hashes":["AAAA"]} x`))
	f.Fuzz(func(t *testing.T, body []byte) {
		hashes, err := parseConsistency(body)
		if err != nil {
			if !errors.Is(err, ErrInconsistent) {
				t.Fatalf("parseConsistency error does not match ErrInconsistent: %v", err)
			}
			return
		}
		if err := checkConsistency(l.old, l.fork, hashes); err == nil {
			t.Fatalf("a proof made a forked log consistent")
		}
	})
}

// FuzzParseSaved reads arbitrary state files: no panic, and what parses
// is a checkpoint that marshals back to the note's text.
func FuzzParseSaved(f *testing.F) {
	l := newFuzzLog(f)
	f.Add(l.oldNote)
	f.Add([]byte("o\n1\nAAAA\n\n— o abcd\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseSaved(b)
		if err != nil {
			return
		}
		if !bytes.HasPrefix(b, c.Marshal()) {
			t.Fatalf("parsed %+v from a note that does not start with its body", c)
		}
	})
}

// FuzzParseProof: no panic on any proof, and a parsed proof has every
// field and a bounded number of hashes.
func FuzzParseProof(f *testing.F) {
	l := newFuzzLog(f)
	f.Add(l.proof)
	f.Add([]byte(`{"leaf_index":1,"tree_size":1,"leaf":"AA==","hashes":[],"checkpoint":"x","extra":true}`))
	f.Add([]byte(`{"leaf_index":-1}`))
	f.Add([]byte(`{"leaf_index":1,"tree_size":1,"leaf":"AA==","hashes":[],"Checkpoint":"x"}`))
	f.Add([]byte(`{"leaf_index":1,"tree_size":1,"leaf":"AA==","hashes":[],"checkpoint":"x","CHECKPOINT":"y"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parseProof(b)
		if err != nil {
			return
		}
		if len(p.Hashes) > maxProofHashes || p.Hashes == nil {
			t.Fatalf("parsed a proof with %d hashes", len(p.Hashes))
		}
		var generic map[string]json.RawMessage
		if json.Unmarshal(b, &generic) != nil || generic["checkpoint"] == nil {
			t.Fatalf("parsed a proof from something else")
		}
	})
}

// FuzzParseRef: no panic, and a parsed ref round-trips through String.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"demo", "demo@1.0.0", "demo@1.0.0-rc.1+b", "@", "a@b@c", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			return
		}
		if r.String() != s {
			t.Fatalf("ParseRef(%q).String() = %q", s, r.String())
		}
		if _, err := r.envelopePath(), r.validate(); err != nil {
			t.Fatalf("a parsed ref is not valid: %v", err)
		}
	})
}

// TestFieldSpelling: encoding/json matches field names in any letter case;
// the client reads a proof or a consistency proof only under the names the
// registry writes, so a field spelled otherwise is refused, not read.
func TestFieldSpelling(t *testing.T) {
	good := `{"leaf_index":1,"tree_size":1,"leaf":"AA==","hashes":[],"checkpoint":"x"}`
	if _, err := parseProof([]byte(good)); err != nil {
		t.Fatalf("the registry's own spelling: %v", err)
	}
	for _, body := range []string{
		`{"leaf_index":1,"tree_size":1,"leaf":"AA==","hashes":[],"Checkpoint":"x"}`,
		`{"leaf_index":1,"tree_size":1,"leaf":"AA==","hashes":[],"checkpoint":"x","CHECKPOINT":"y"}`,
		`{"LEAF_INDEX":1,"tree_size":1,"leaf":"AA==","hashes":[],"checkpoint":"x"}`,
		"{\"leaf_index\":1,\"tree_size\":1,\"leaf\":\"AA==\",\"ha\u017fhes\":[],\"checkpoint\":\"x\"}",
	} {
		_, err := parseProof([]byte(body))
		if !errors.Is(err, ErrNotIncluded) || !strings.Contains(err.Error(), "is spelled") {
			t.Errorf("parseProof(%s) = %v, want a spelling error", body, err)
		}
	}
	if _, err := parseConsistency([]byte(`{"Hashes":[]}`)); !errors.Is(err, ErrInconsistent) {
		t.Errorf("parseConsistency with Hashes = %v, want ErrInconsistent", err)
	}
}
