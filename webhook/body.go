package webhook

import (
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/registryd/registryd/problem"
	"github.com/registryd/registryd/registry"
)

// Sizes of the body budget.
const (
	// DefaultBodyBudget is the budget of delivery bytes a server holds at
	// once unless configured otherwise.
	DefaultBodyBudget = 64 << 20
	// SmallBodyBytes is the largest delivery that may use the budget's
	// reserve: nearly every delivery GitHub sends is smaller.
	SmallBodyBytes = 1 << 20
	// SmallBodyReserve is the part of the budget only deliveries that
	// declare a Content-Length of at most SmallBodyBytes may use, so that a
	// flood of large bodies (which may be anyone's) cannot starve GitHub's
	// ordinary deliveries.
	SmallBodyReserve = 8 << 20
	// MinBodyBudget is the smallest budget NewBodyBudget accepts: room for
	// one delivery of MaxBodyBytes beside the reserve.
	MinBodyBudget = MaxBodyBytes + SmallBodyReserve
	// DefaultTrimAfter is how long a budget waits, once no body is in
	// flight, before it lets its spare buffers go.
	DefaultTrimAfter = 3 * time.Second
)

// chunkBytes is the unit of the budget: bodies are read into buffers of
// this size, so that every buffer can be reused by any body and the budget
// counts exactly what is held.
const chunkBytes = 64 << 10

// returnToOS is how much spare memory a trim must let go of before it asks
// the runtime to return freed memory to the operating system at once, rather
// than at the runtime's own pace (minutes on an idle server).
const returnToOS = 8 << 20

// Errors of BodyBudget.Read.
var (
	// ErrBodyTooLarge: the body is over MaxBodyBytes. It matches
	// registry.ErrTooLarge.
	ErrBodyTooLarge = fmt.Errorf("webhook body over %d bytes: %w", MaxBodyBytes, registry.ErrTooLarge)
	// ErrBusy: the budget cannot hold the body now; the caller should
	// answer 503 with a Retry-After.
	ErrBusy = errors.New("webhook body budget exhausted")
	// ErrBodyTimeout: the body did not arrive before the connection's read
	// deadline. It matches registry.ErrInvalid, but is best answered 408.
	ErrBodyTimeout = fmt.Errorf("webhook body arrived too slowly: %w", registry.ErrInvalid)
)

// BodyBudget bounds the memory that delivery bodies hold at once across
// every request that reads through it. A body that declares its length
// reserves it whole before a byte is read, or is refused with ErrBusy; a
// chunked body reserves as it arrives, and is refused with ErrBusy as soon
// as the budget cannot hold more of it. Bodies over SmallBodyBytes (and every
// chunked one) may use all of the budget but SmallBodyReserve.
//
// Buffers are reused from body to body; once no body has been in flight for
// a few seconds the spare ones are let go and the memory returned to the
// operating system. A BodyBudget is safe for concurrent use.
type BodyBudget struct {
	limit     int64
	reserve   int64
	trimAfter time.Duration

	mu   sync.Mutex
	held int64    // bytes of chunks handed out to bodies
	free [][]byte // chunks handed back, for the next bodies
	trim *time.Timer
}

// NewBodyBudget returns a budget of limit bytes. It refuses (with an error
// matching registry.ErrInvalid) a limit under MinBodyBudget, which could not
// hold GitHub's largest delivery.
func NewBodyBudget(limit int64) (*BodyBudget, error) {
	if limit < MinBodyBudget {
		return nil, fmt.Errorf("webhook body budget %d bytes is under the minimum of %d: %w", limit, MinBodyBudget, registry.ErrInvalid)
	}
	return newBodyBudget(limit, SmallBodyReserve, DefaultTrimAfter), nil
}

func newBodyBudget(limit, reserve int64, trimAfter time.Duration) *BodyBudget {
	return &BodyBudget{limit: limit / chunkBytes * chunkBytes, reserve: reserve, trimAfter: trimAfter}
}

// Held returns the bytes of bodies in flight and of spare buffers kept for
// reuse.
func (b *BodyBudget) Held() (inFlight, spare int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held, int64(len(b.free)) * chunkBytes
}

// take reserves n chunks and returns them, or returns nil when the budget
// cannot hold them. small bodies may use the reserve.
func (b *BodyBudget) take(n int, small bool) [][]byte {
	limit := b.limit
	if !small {
		limit -= b.reserve
	}
	want := int64(n) * chunkBytes
	b.mu.Lock()
	if b.held+want > limit {
		b.mu.Unlock()
		return nil
	}
	b.held += want
	out := make([][]byte, 0, n)
	for len(out) < n && len(b.free) > 0 {
		last := len(b.free) - 1
		out = append(out, b.free[last])
		b.free[last] = nil
		b.free = b.free[:last]
	}
	b.mu.Unlock()
	// Buffers are only made when none is spare, so that bodies in flight
	// plus spare buffers never exceed the limit.
	for len(out) < n {
		out = append(out, make([]byte, chunkBytes))
	}
	return out
}

// give hands chunks back and, once no body is in flight, schedules the trim.
func (b *BodyBudget) give(chunks [][]byte) {
	if len(chunks) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= int64(len(chunks)) * chunkBytes
	b.free = append(b.free, chunks...)
	if b.held > 0 {
		return
	}
	if b.trim == nil {
		b.trim = time.AfterFunc(b.trimAfter, b.trimSpare)
	} else {
		b.trim.Reset(b.trimAfter)
	}
}

// trimSpare lets the spare chunks go if no body is in flight.
func (b *BodyBudget) trimSpare() {
	b.mu.Lock()
	if b.held > 0 {
		b.mu.Unlock()
		return
	}
	spare := int64(len(b.free)) * chunkBytes
	b.free = nil
	b.mu.Unlock()
	if spare >= returnToOS {
		debug.FreeOSMemory()
	}
}

// Read reads a delivery body from r within the budget. declared is the
// request's Content-Length, or -1 when unknown (chunked). The caller must
// Release the Body.
//
// Errors: ErrBodyTooLarge (registry.ErrTooLarge) for a body, declared or
// read, over MaxBodyBytes; ErrBusy when the budget cannot hold it (before
// reading anything when the length is declared); ErrBodyTimeout when r
// fails with a timeout; a 400 malformed-body *problem.Error on field "body"
// (wrapping a *registry.ValidationError) when r fails otherwise (a body cut
// short, a malformed chunked encoding). Nothing is held after an error.
func (b *BodyBudget) Read(r io.Reader, declared int64) (*Body, error) {
	if declared > MaxBodyBytes {
		return nil, ErrBodyTooLarge
	}
	bd := &Body{budget: b}
	if declared > 0 {
		bd.chunks = b.take(int((declared+chunkBytes-1)/chunkBytes), declared <= SmallBodyBytes)
		if bd.chunks == nil {
			return nil, ErrBusy
		}
	}
	if err := bd.fill(r, declared); err != nil {
		bd.Release()
		return nil, err
	}
	return bd, nil
}

// fill reads r to its end into bd's chunks, reserving more as needed.
func (bd *Body) fill(r io.Reader, declared int64) error {
	for {
		if bd.n == len(bd.chunks)*chunkBytes {
			// Full: the body should end here when it said so or when it
			// reached the limit; probe before reserving more.
			if int64(bd.n) >= MaxBodyBytes || (declared >= 0 && int64(bd.n) >= declared) {
				var one [1]byte
				k, err := io.ReadFull(r, one[:])
				if k == 0 {
					if err == io.EOF {
						return nil
					}
					return readError(err)
				}
				if int64(bd.n) >= MaxBodyBytes {
					return ErrBodyTooLarge
				}
				if err := bd.grow(); err != nil {
					return err
				}
				bd.chunks[len(bd.chunks)-1][0] = one[0]
				bd.n++
				continue
			}
			if err := bd.grow(); err != nil {
				return err
			}
		}
		c := bd.chunks[bd.n/chunkBytes]
		k, err := r.Read(c[bd.n%chunkBytes:])
		bd.n += k
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readError(err)
		}
	}
}

// grow reserves one more chunk, as for a large body.
func (bd *Body) grow() error {
	c := bd.budget.take(1, false)
	if c == nil {
		return ErrBusy
	}
	bd.chunks = append(bd.chunks, c[0])
	return nil
}

// readError classifies a failure to read the body: none is the server's
// fault.
func readError(err error) error {
	var mbe *http.MaxBytesError
	var te interface{ Timeout() bool }
	switch {
	case errors.As(err, &mbe):
		return ErrBodyTooLarge
	case errors.As(err, &te) && te.Timeout():
		return ErrBodyTimeout
	case errors.Is(err, io.ErrUnexpectedEOF):
		return problem.MalformedBody("body", "ended before its declared length")
	}
	return problem.MalformedBody("body", "could not be read")
}

// Body is a delivery body read within a BodyBudget. Release it once done;
// it is not safe for concurrent use.
type Body struct {
	budget *BodyBudget
	chunks [][]byte
	n      int
}

// Len returns the length of the body.
func (bd *Body) Len() int { return bd.n }

// Verify is the package's Verify over the body, without copying it.
func (bd *Body) Verify(sigHeader string, secrets [][]byte) error {
	return verify(sigHeader, secrets, func(m hash.Hash) {
		left := bd.n
		for _, c := range bd.chunks {
			k := min(left, len(c))
			m.Write(c[:k])
			left -= k
		}
	})
}

// Bytes returns the body in one slice. A body of one buffer is returned in
// place, valid until Release; a longer one is copied.
func (bd *Body) Bytes() []byte {
	switch {
	case bd.n == 0:
		return []byte{}
	case bd.n <= chunkBytes:
		return bd.chunks[0][:bd.n]
	}
	out := make([]byte, 0, bd.n)
	left := bd.n
	for _, c := range bd.chunks {
		k := min(left, len(c))
		out = append(out, c[:k]...)
		left -= k
	}
	return out
}

// Release hands the body's buffers back to the budget. The body must not be
// used afterwards; releasing twice is harmless.
func (bd *Body) Release() {
	bd.budget.give(bd.chunks)
	bd.chunks, bd.n = nil, 0
}
