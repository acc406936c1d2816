package client

import (
	"context"
	"testing"
)

// BenchmarkVerifyReport is the client's work per report once the answers
// are fetched: the envelope's signature, the report's decoding, the
// checkpoint's signature and age, the inclusion proof, the consistency proof
// from the last checkpoint seen, and the policy's decision. The target is at
// most 1 ms.
func BenchmarkVerifyReport(b *testing.B) {
	l := newFuzzLog(b)
	b.ReportAllocs()
	for b.Loop() {
		v, err := l.client.openReport(l.ref, l.envelope)
		if err != nil {
			b.Fatal(err)
		}
		p, err := parseProof(l.proof)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.client.verifyInclusion(v, p); err != nil {
			b.Fatal(err)
		}
		hashes, err := parseConsistency(l.cons)
		if err != nil {
			b.Fatal(err)
		}
		if err := checkConsistency(l.old, v.Checkpoint, hashes); err != nil {
			b.Fatal(err)
		}
		if d := BlockFail.Decide(v.Report); !d.Allowed {
			b.Fatal(d.Reasons)
		}
	}
}

// BenchmarkCheck is a whole Check against a registry on the loopback
// interface: three requests (envelope, proof and, as the log grew since the
// last one, a consistency proof) and the state directory's atomic, synced
// write on top of BenchmarkVerifyReport's work.
func BenchmarkCheck(b *testing.B) {
	l := newFuzzLog(b)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		// Put the older checkpoint back, so that each Check verifies a
		// consistency proof and saves a checkpoint.
		if err := l.client.state.save(l.old.Origin, l.oldNote); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c, err := l.client.Check(ctx, l.ref, BlockFail)
		if err != nil || !c.Decision.Allowed {
			b.Fatal(err, c.Decision)
		}
	}
}
