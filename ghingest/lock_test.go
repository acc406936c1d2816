package ghingest

import (
	"context"
	"errors"
	"testing"

	"github.com/registryd/registryd/storage"
)

// TestLockLost: work that failed because its lock was lost says so, with
// the work's own error; work cut short by a shutdown, or that succeeded,
// is left as it is.
func TestLockLost(t *testing.T) {
	callErr := errors.New("post comment: context canceled")

	lost, cancel := context.WithCancelCause(context.Background())
	cancel(errors.Join(storage.ErrLockLost, errors.New("renew its lease: conn closed")))
	if err := lockLost(lost, callErr); !errors.Is(err, storage.ErrLockLost) || !errors.Is(err, callErr) {
		t.Errorf("lockLost after the lock was lost = %v; want it to wrap storage.ErrLockLost and the call's error", err)
	}
	if err := lockLost(lost, nil); err != nil {
		t.Errorf("lockLost of work that succeeded = %v, want nil", err)
	}

	stopped, stop := context.WithCancel(context.Background())
	stop()
	if err := lockLost(stopped, callErr); err != callErr {
		t.Errorf("lockLost after a shutdown = %v, want the call's error unchanged", err)
	}
	if err := lockLost(context.Background(), callErr); err != callErr {
		t.Errorf("lockLost while the lock is held = %v, want the call's error unchanged", err)
	}
}
