package sqlstore

import (
	"context"
	"math"
	"sync"
	"time"
)

// The checkpoint signer. An append does not sign (translog.go): once a
// transaction that appended commits, the store wakes its signer, a
// goroutine started on the first append, which signs a checkpoint of the
// head's tree, whatever appended it, unless the checkpoint covers it
// already. It signs at most once every signGap: appends that commit while
// it waits are covered by the one signature, which is what saves a
// publication the checkpoint's signature when publications follow each
// other. A new checkpoint is so signed within signGap and one transaction
// of an append, well within the second the log promises (docs/trust.md).
//
// Replicas each sign after their own appends, one at a time per process,
// holding no lock while they sign: a compare-and-swap on the head row's
// checkpoint decides between them (signCheckpoint), and a checkpoint is
// never stored over one of a larger tree. A replica that stopped
// between an append and its signature leaves the tree ahead of its
// checkpoint until the next append, the next proof of a leaf not covered,
// or the periodic refresh (RefreshCheckpoint) signs it.

// signGap is the least time between two signatures of the signer.
const signGap = 200 * time.Millisecond

// retryGap is how long the signer waits after a failed signature before it
// tries again.
const retryGap = time.Second

// neverStale is the maxAge of a signature that only covers the tree: a
// checkpoint is never too old for it.
const neverStale = time.Duration(math.MaxInt64)

// checkpointer is a store's checkpoint signer.
type checkpointer struct {
	mu sync.Mutex // held while the process signs (signCheckpoint)

	state   sync.Mutex
	started bool
	stopped bool

	wake chan struct{} // an append committed since the signer last looked
	stop chan struct{} // closed by StopSigning
	done chan struct{} // closed when the signer has returned
}

func newCheckpointer() *checkpointer {
	return &checkpointer{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// appended wakes the signer, starting it on the first append.
func (s *Store) appended() {
	c := s.cp
	c.state.Lock()
	if c.stopped {
		c.state.Unlock()
		return
	}
	if !c.started {
		c.started = true
		go s.signLoop()
	}
	c.state.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// StopSigning stops the checkpoint signer, once it has signed what this
// process appended (for at most a few seconds). The database package
// calls it when it closes the store, before closing its connections; the
// store's appends are no longer signed after it but by the next reader
// that needs them, another replica or the periodic refresh.
func (s *Store) StopSigning() {
	c := s.cp
	c.state.Lock()
	started := c.started && !c.stopped
	c.stopped = true
	c.state.Unlock()
	if !started {
		return
	}
	close(c.stop)
	<-c.done
}

func (s *Store) signLoop() {
	c := s.cp
	defer close(c.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last time.Time
	for {
		select {
		case <-c.wake:
		case <-c.stop:
			s.signLast()
			return
		}
		if wait := signGap - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-c.stop:
				t.Stop()
				s.signLast()
				return
			}
		}
		// Every append committed before this point is in the tree the
		// signature reads; a later one wakes the signer again.
		select {
		case <-c.wake:
		default:
		}
		last = time.Now()
		if _, err := s.signCheckpoint(ctx, neverStale); err != nil {
			// The next attempt comes after retryGap; the periodic
			// refresh reports errors that last.
			last = last.Add(retryGap - signGap)
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}
	}
}

// signLast signs what the process appended last, as the signer stops.
func (s *Store) signLast() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = s.signCheckpoint(ctx, neverStale)
}
