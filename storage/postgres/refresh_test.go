package postgres_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/registryd/registryd/storage/postgres"
	"github.com/registryd/registryd/storage/storetest"
)

// TestRefreshAcrossReplicas: four replicas whose clocks all say the
// checkpoint is too old refresh it at once, as each does ten times per
// interval. The signature is stored by a compare-and-swap on the head row,
// without its lock: exactly one of them stores a new checkpoint, and the
// others, finding it there, sign nothing more. Repeated, so that the
// replicas' reads and updates interleave in many ways.
func TestRefreshAcrossReplicas(t *testing.T) {
	cfg, skew := skewedSigning(t)
	replicas := make([]*postgres.Store, 4)
	for i := range replicas {
		s, err := postgres.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		replicas[i] = s
	}
	publish(t, replicas[0], "demo", `{"n":1}`)
	storetest.WaitCheckpoint(t, replicas[0], 1)
	for round := range 10 {
		skew.Add(int64(time.Hour))
		var signed atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, s := range replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ok, err := s.RefreshCheckpoint(context.Background(), 10*time.Minute)
				if err != nil {
					t.Error(err)
				}
				if ok {
					signed.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if n := signed.Load(); n != 1 {
			t.Errorf("round %d: %d replicas signed a checkpoint, want 1", round, n)
		}
		cp, err := replicas[round%len(replicas)].Checkpoint(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if age := cfg.Signing.Now().Sub(cp.SignedAt); cp.Size != 1 || age > time.Minute {
			t.Errorf("round %d: checkpoint of size %d signed %v ago, want of size 1, just signed", round, cp.Size, age)
		}
	}
}
