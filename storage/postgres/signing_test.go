package postgres_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/registryd/registryd/internal/pgtest"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/storetest"
	"github.com/registryd/registryd/transparency"
)

// TestSignEnvelopesBesideRerender: a replica that signs envelopes with a
// key of its own (SignEnvelopes, at start) while another transaction
// renders a published report again never stores an envelope of the old
// report over the new one. It signs only reports it holds, and passes over
// one another transaction holds, neither waiting for it nor keeping it
// from a re-assessment.
func TestSignEnvelopesBesideRerender(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a := openURL(t, url, false)
	b := openURL(t, url, true) // another replica, with its own key
	publish(t, a, "alpha", `{"v":1}`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	holding, release := make(chan struct{}), make(chan struct{})
	rerendered := make(chan error, 1)
	go func() {
		first := true
		rerendered <- a.InTx(ctx, func(tx storage.Tx) error {
			if err := tx.PutReport(ctx, reportOf("sub_alpha", `{"v":2}`), nil); err != nil {
				return err
			}
			if first {
				first = false
				close(holding)
				<-release
			}
			return nil
		})
	}()
	<-holding

	type result struct {
		n   int
		err error
	}
	signed := make(chan result, 1)
	go func() {
		n, err := b.SignEnvelopes(ctx, 10)
		signed <- result{n, err}
	}()
	// The re-render commits once the signer has returned or waits for it.
	var r result
	returned := false
	for !returned {
		select {
		case r = <-signed:
			returned = true
			continue
		default:
		}
		var waiting bool
		err := b.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0)`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	if err := <-rerendered; err != nil {
		t.Fatal(err)
	}
	if !returned {
		r = <-signed
	}
	if r.err != nil {
		t.Fatalf("SignEnvelopes: %v", r.err)
	}

	rep, err := b.PublishedReport(ctx, "alpha", "1.0.0")
	if err != nil || string(rep.Bytes) != `{"v":2}` {
		t.Fatalf("report = %s, %v; want the new one", rep.Bytes, err)
	}
	env, err := b.PublishedEnvelope(ctx, "alpha", "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	payload, _, err := transparency.OpenEnvelope(env.Bytes, append(a.SigningKeys(), b.SigningKeys()...)...)
	if err != nil || !bytes.Equal(payload, rep.Bytes) {
		t.Errorf("the envelope holds %s, %v; want the report it is served with, %s (signer signed %d)", payload, err, rep.Bytes, r.n)
	}
}

// TestSignEnvelopesAfterRotation: a replica started with another key signs
// every envelope again with it.
func TestSignEnvelopesAfterRotation(t *testing.T) {
	url := pgtest.NewDatabase(t)
	storetest.SignEnvelopesAfterRotation(t, openURL(t, url, false), openURL(t, url, true))
}
