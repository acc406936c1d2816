package githubapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/google/go-github/v89/github"

	"github.com/registryd/registryd/registry"
)

// MaxRetryDelay bounds the delay IsRetryable reports: GitHub's primary
// rate limit resets within the hour.
const MaxRetryDelay = time.Hour

// DefaultRateLimitDelay is the delay for a rate-limited answer that names
// none: GitHub asks clients to wait at least a minute.
const DefaultRateLimitDelay = time.Minute

// Error is a failed API call, classified. Every error the Client returns is
// an *Error (reach it with errors.As).
type Error struct {
	// Op names the operation ("list pull request files").
	Op string
	// StatusCode is the HTTP status GitHub answered, 0 if none.
	StatusCode int
	// Retryable reports whether the same call may succeed later.
	Retryable bool
	// RetryAfter is the delay GitHub asked for (Retry-After or
	// X-RateLimit-Reset), bounded by MaxRetryDelay; 0 when it asked for
	// none and the caller's backoff applies.
	RetryAfter time.Duration
	// Err is the underlying error.
	Err  error
	kind error // registry sentinel, if any
}

// Error describes e. It never includes a response body.
func (e *Error) Error() string {
	s := "github: " + e.Op
	if e.StatusCode != 0 {
		s += ": HTTP " + strconv.Itoa(e.StatusCode)
	}
	if e.Retryable {
		s += " (retryable"
		if e.RetryAfter > 0 {
			s += " after " + e.RetryAfter.String()
		}
		s += ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error and, when the status maps to one, the
// registry sentinel (404 → ErrNotFound, 401 → ErrUnauthenticated, 403 →
// ErrForbidden, 409 → ErrConflict, 413 → ErrTooLarge, 422 → ErrInvalid).
func (e *Error) Unwrap() []error {
	if e.kind != nil {
		return []error{e.Err, e.kind}
	}
	return []error{e.Err}
}

// IsRetryable reports whether err (from this package or from go-github)
// is worth retrying, and after how long at least. Retryable are: 5xx
// answers, timeouts and transient network failures, secondary rate limits
// (403 or 429 with Retry-After or a secondary-rate-limit document) and
// primary rate limits (403 or 429 with X-RateLimit-Remaining: 0). The
// delay is what GitHub asked for, bounded by MaxRetryDelay, or 0 when it
// asked for nothing specific. Every other 4xx, invalid input and a
// cancelled context are permanent. nil is not retryable.
func IsRetryable(err error) (bool, time.Duration) {
	if err == nil {
		return false, 0
	}
	var e *Error
	if !errors.As(err, &e) {
		e = classify("", err, time.Now)
	}
	return e.Retryable, e.RetryAfter
}

func opErr(op string, err error) error {
	return &Error{Op: op, Err: err}
}

func (c *Client) classify(op string, err error) error {
	return classify(op, err, c.now)
}

func classify(op string, err error, now func() time.Time) *Error {
	e := &Error{Op: op, Err: err}
	var (
		rle *github.RateLimitError
		are *github.AbuseRateLimitError
		ere *github.ErrorResponse
	)
	switch {
	case errors.Is(err, context.Canceled):
		return e
	case errors.Is(err, context.DeadlineExceeded):
		e.Retryable = true
		return e
	case errors.As(err, &rle):
		e.Retryable = true
		e.StatusCode = statusOf(rle.Response)
		e.RetryAfter = headerDelay(rle.Response, now)
		if e.RetryAfter == 0 && !rle.Rate.Reset.IsZero() {
			e.RetryAfter = rle.Rate.Reset.Sub(now()) + time.Second
		}
		if e.RetryAfter <= 0 {
			e.RetryAfter = time.Second
		}
	case errors.As(err, &are):
		e.Retryable = true
		e.StatusCode = statusOf(are.Response)
		e.RetryAfter = headerDelay(are.Response, now)
		if e.RetryAfter == 0 && are.RetryAfter != nil && *are.RetryAfter > 0 {
			// go-github refused locally, remembering an earlier
			// Retry-After: it carries the time still to wait.
			e.RetryAfter = *are.RetryAfter
		}
		if e.RetryAfter == 0 {
			e.RetryAfter = DefaultRateLimitDelay
		}
	case errors.As(err, &ere):
		e.StatusCode = statusOf(ere.Response)
		var h http.Header
		if ere.Response != nil {
			h = ere.Response.Header
		}
		switch {
		case e.StatusCode >= 500:
			e.Retryable = true
			e.RetryAfter = headerDelay(ere.Response, now)
		case e.StatusCode == http.StatusTooManyRequests:
			e.Retryable = true
			e.RetryAfter = headerDelay(ere.Response, now)
			if e.RetryAfter == 0 {
				e.RetryAfter = DefaultRateLimitDelay
			}
		case e.StatusCode == http.StatusForbidden && (h.Get("Retry-After") != "" || h.Get("X-RateLimit-Remaining") == "0"):
			e.Retryable = true
			e.RetryAfter = headerDelay(ere.Response, now)
			if e.RetryAfter == 0 {
				e.RetryAfter = DefaultRateLimitDelay
			}
		default:
			e.kind = sentinelFor(e.StatusCode)
		}
	case isTransientNetwork(err):
		e.Retryable = true
	}
	if e.RetryAfter > MaxRetryDelay {
		e.RetryAfter = MaxRetryDelay
	}
	if e.RetryAfter < 0 {
		e.RetryAfter = 0
	}
	return e
}

func statusOf(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

// headerDelay reads the delay GitHub asks for, in the order its rate limit
// documentation gives: Retry-After (seconds or an HTTP date); else, when
// X-RateLimit-Remaining is 0, the time until X-RateLimit-Reset (epoch
// seconds). GitHub sends the X-RateLimit headers on every answer, so the
// reset alone, with quota remaining, asks for nothing. It returns 0 when
// nothing usable was asked.
func headerDelay(r *http.Response, now func() time.Time) time.Duration {
	if r == nil {
		return 0
	}
	if v := r.Header.Get("Retry-After"); v != "" {
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
			if secs > int64(MaxRetryDelay/time.Second) {
				return MaxRetryDelay
			}
			return time.Duration(secs) * time.Second
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now()), 0)
		}
	}
	if v := r.Header.Get("X-RateLimit-Reset"); v != "" && r.Header.Get("X-RateLimit-Remaining") == "0" {
		if epoch, err := strconv.ParseInt(v, 10, 64); err == nil && epoch > 0 {
			d := time.Unix(epoch, 0).Sub(now())
			if d > MaxRetryDelay {
				return MaxRetryDelay
			}
			// The reset instant is whole seconds; wait one more so the
			// retry lands after it.
			return max(d+time.Second, time.Second)
		}
	}
	return 0
}

func sentinelFor(status int) error {
	switch status {
	case http.StatusNotFound, http.StatusGone:
		return registry.ErrNotFound
	case http.StatusUnauthorized:
		return registry.ErrUnauthenticated
	case http.StatusForbidden:
		return registry.ErrForbidden
	case http.StatusConflict:
		return registry.ErrConflict
	case http.StatusRequestEntityTooLarge:
		return registry.ErrTooLarge
	case http.StatusUnprocessableEntity, http.StatusBadRequest:
		return registry.ErrInvalid
	}
	return nil
}

func isTransientNetwork(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// Retrier retries a call while IsRetryable says so, waiting the longer of
// the delay GitHub asked for and an exponential backoff. It is meant for
// short in-process retries; a delay above MaxDelay is not waited out but
// returned (the error still reports it through IsRetryable), so that a job
// queue can reschedule instead of holding a worker. The zero value is
// usable. A Retrier is safe for concurrent use if Sleep is.
type Retrier struct {
	// MaxAttempts is the number of calls, first one included; 0 means 4.
	MaxAttempts int
	// BaseDelay is the first backoff, doubled after each attempt; 0 means
	// 500ms.
	BaseDelay time.Duration
	// MaxDelay caps one wait; 0 means 30s.
	MaxDelay time.Duration
	// Sleep waits for d or until ctx is done; nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Do calls fn until it succeeds, returns a permanent error, the attempts
// are used up, GitHub asks for a delay above MaxDelay, or ctx is done. It
// returns fn's last error (or the context's error, wrapped with fn's).
func (r Retrier) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	attempts, base, maxDelay := r.MaxAttempts, r.BaseDelay, r.MaxDelay
	if attempts <= 0 {
		attempts = 4
	}
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if maxDelay <= 0 {
		maxDelay = 30 * time.Second
	}
	sleep := r.Sleep
	if sleep == nil {
		sleep = sleepTimer
	}
	backoff := base
	for i := 1; ; i++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		retry, asked := IsRetryable(err)
		if !retry || i >= attempts || asked > maxDelay {
			return err
		}
		wait := min(max(asked, backoff), maxDelay)
		if serr := sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w (while retrying: %w)", serr, err)
		}
		backoff = min(backoff*2, maxDelay)
	}
}

func sleepTimer(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
