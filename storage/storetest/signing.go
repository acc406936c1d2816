package storetest

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/transparency"
)

// SignEnvelopesAfterRotation: old and rotated are stores on one empty
// database, rotated with keys old lacks (a key rotation, or a replica
// started with another key). Reports published through old are signed
// again by rotated's SignEnvelopes, over several batches in one call:
// every envelope then holds its report's bytes under rotated's key, each
// report once, and the log neither grows nor moves a leaf. A second call
// finds nothing to sign.
func SignEnvelopesAfterRotation(t *testing.T, old, rotated storage.Store) {
	t.Helper()
	ctx := context.Background()
	const n, batch = 25, 10 // three batches, the last one short
	st := newLogState()
	st.add(PublishLeaves(t, old, "alpha", 0, n)...)
	before := mustCheckpoint(t, old)

	signed, err := rotated.SignEnvelopes(ctx, batch)
	if err != nil || signed != n {
		t.Fatalf("SignEnvelopes = %d, %v; want all %d signed", signed, err, n)
	}
	keys := rotated.SigningKeys()
	for i := range n {
		ref := fmt.Sprintf("1.0.%d", i) // as publishOne names them
		rep, err := rotated.PublishedReport(ctx, "alpha", ref)
		if err != nil {
			t.Fatal(err)
		}
		env, err := rotated.PublishedEnvelope(ctx, "alpha", ref)
		if err != nil {
			t.Fatal(err)
		}
		payload, keyID, err := transparency.OpenEnvelope(env.Bytes, keys...)
		if err != nil || !bytes.Equal(payload, rep.Bytes) || keyID != keys[0].ID {
			t.Errorf("alpha@%s: envelope holds %q by %s (%v); want %q by %s", ref, payload, keyID, err, rep.Bytes, keys[0].ID)
		}
	}
	if n, err := rotated.SignEnvelopes(ctx, batch); err != nil || n != 0 {
		t.Errorf("SignEnvelopes again = %d, %v; want nothing left to sign", n, err)
	}
	// The checkpoint lacks rotated's key until it is signed again; the
	// tree is the same.
	if _, err := rotated.RefreshCheckpoint(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	if after := mustCheckpoint(t, rotated); !bytes.Equal(after.Root, before.Root) {
		t.Errorf("the log's root changed from %x to %x: signing envelopes appended leaves", before.Root, after.Root)
	}
	verifyLog(t, rotated, st, n)
}
