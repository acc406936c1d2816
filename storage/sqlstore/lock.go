package sqlstore

import (
	"context"
	"sync"
)

// KeyLocks are exclusive locks named by keys, held in this process. The
// zero value is ready to use; it is safe for concurrent use.
type KeyLocks struct {
	mu   sync.Mutex
	held map[string]chan struct{} // closed when the key's holder unlocks
}

// Lock waits until it holds the lock named key, or ctx is done (then it
// returns ctx's error), and returns the function that releases it; calling
// that more than once is harmless.
func (k *KeyLocks) Lock(ctx context.Context, key string) (func(), error) {
	for {
		k.mu.Lock()
		if k.held == nil {
			k.held = map[string]chan struct{}{}
		}
		busy, ok := k.held[key]
		if !ok {
			done := make(chan struct{})
			k.held[key] = done
			k.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					k.mu.Lock()
					delete(k.held, key)
					k.mu.Unlock()
					close(done)
				})
			}, nil
		}
		k.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
