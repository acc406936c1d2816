package githubapi_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/registryd/registryd/githubapi"
	"github.com/registryd/registryd/githubapi/githubfake"
	"github.com/registryd/registryd/registry"
)

// t0 is the clients' clock in these tests. It lies in the past so that
// go-github's own pre-emptive rate-limit check, which uses the real clock,
// never blocks a retry: only the delays computed from t0 matter.
var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func TestIsRetryableAgainstGitHubAnswers(t *testing.T) {
	tests := []struct {
		name       string
		fail       githubfake.Failure
		wantRetry  bool
		wantDelay  time.Duration
		wantStatus int
		wantKind   error
	}{
		{"500", githubfake.ServerError(), true, 0, 500, nil},
		{"502", githubfake.BadGateway(), true, 0, 502, nil},
		{"429 with Retry-After", githubfake.TooManyRequests(7 * time.Second), true, 7 * time.Second, 429, nil},
		{"429 without Retry-After", githubfake.TooManyRequests(0), true, githubapi.DefaultRateLimitDelay, 429, nil},
		{"secondary with Retry-After", githubfake.SecondaryRateLimit(30 * time.Second), true, 30 * time.Second, 403, nil},
		{"secondary without Retry-After", githubfake.SecondaryRateLimit(0), true, githubapi.DefaultRateLimitDelay, 403, nil},
		{"primary, reset in 42s", githubfake.PrimaryRateLimit(t0.Add(42 * time.Second)), true, 43 * time.Second, 403, nil},
		{"primary, reset already passed", githubfake.PrimaryRateLimit(t0.Add(-time.Minute)), true, time.Second, 403, nil},
		{"primary, reset hours away (bounded)", githubfake.PrimaryRateLimit(t0.Add(3 * time.Hour)), true, githubapi.MaxRetryDelay, 403, nil},
		{"404", githubfake.NotFound(), false, 0, 404, registry.ErrNotFound},
		{"403 without rate limit", githubfake.Forbidden(), false, 0, 403, registry.ErrForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, c := newClient(t, t0)
			fake.AddPullRequest("o", "r", 1, manyFiles(3)...)
			fake.FailNext(githubfake.RoutePullFiles, 1, tt.fail)
			_, err := c.PullRequestFiles(context.Background(), "o", "r", 1)
			if err == nil {
				t.Fatal("no error")
			}
			retry, delay := githubapi.IsRetryable(err)
			if retry != tt.wantRetry || delay != tt.wantDelay {
				t.Errorf("IsRetryable = %v, %v; want %v, %v (err %v)", retry, delay, tt.wantRetry, tt.wantDelay, err)
			}
			var ae *githubapi.Error
			if !errors.As(err, &ae) || ae.StatusCode != tt.wantStatus {
				t.Fatalf("error %v: status %+v, want %d", err, ae, tt.wantStatus)
			}
			if tt.wantKind != nil && !errors.Is(err, tt.wantKind) {
				t.Errorf("error %v does not match %v", err, tt.wantKind)
			}
		})
	}
}

// TestSecondaryLimitRemembered: after a secondary rate limit, go-github
// refuses further calls locally until Retry-After has passed; the delay
// reported must be the time still to wait, not a default.
func TestSecondaryLimitRemembered(t *testing.T) {
	fake, c := newClient(t)
	fake.AddPullRequest("o", "r", 1)
	fake.FailNext(githubfake.RoutePullFiles, 1, githubfake.SecondaryRateLimit(30*time.Second))
	_, err := c.PullRequestFiles(context.Background(), "o", "r", 1)
	if retry, d := githubapi.IsRetryable(err); !retry || d != 30*time.Second {
		t.Fatalf("first call: IsRetryable = %v, %v; want true, 30s", retry, d)
	}
	_, err = c.PullRequestFiles(context.Background(), "o", "r", 1)
	retry, d := githubapi.IsRetryable(err)
	if !retry || d <= 0 || d > 30*time.Second || d == githubapi.DefaultRateLimitDelay {
		t.Errorf("second call: IsRetryable = %v, %v; want true and the rest of the 30s", retry, d)
	}
	if n := fake.Calls(githubfake.RoutePullFiles); n != 1 {
		t.Errorf("%d requests reached GitHub, want 1 (the second is refused locally)", n)
	}
}

func TestIsRetryableTransport(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		block := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-block:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(srv.Close)
		t.Cleanup(func() { close(block) })
		c, err := githubapi.New(githubapi.Config{BaseURL: srv.URL, HTTPClient: &http.Client{Timeout: 20 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.PullRequestFiles(context.Background(), "o", "r", 1)
		if retry, _ := githubapi.IsRetryable(err); !retry {
			t.Errorf("IsRetryable(%v) = false, want true", err)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		c, err := githubapi.New(githubapi.Config{BaseURL: "http://" + addr + "/"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.PullRequestFiles(context.Background(), "o", "r", 1)
		if retry, _ := githubapi.IsRetryable(err); !retry {
			t.Errorf("IsRetryable(%v) = false, want true", err)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		fake, c := newClient(t)
		fake.AddPullRequest("o", "r", 1)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.PullRequestFiles(ctx, "o", "r", 1)
		if retry, _ := githubapi.IsRetryable(err); retry || !errors.Is(err, context.Canceled) {
			t.Errorf("IsRetryable(%v) = %v, want false and context.Canceled", err, retry)
		}
	})
	t.Run("nil and foreign errors", func(t *testing.T) {
		for _, err := range []error{nil, errors.New("boom"), fmt.Errorf("wrapped: %w", registry.ErrInvalid)} {
			if retry, d := githubapi.IsRetryable(err); retry || d != 0 {
				t.Errorf("IsRetryable(%v) = %v, %v; want false, 0", err, retry, d)
			}
		}
	})
}

// sleeper records the waits a Retrier asks for instead of sleeping.
type sleeper struct{ waits []time.Duration }

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.waits = append(s.waits, d)
	return ctx.Err()
}

func TestRetrierRecovers(t *testing.T) {
	tests := []struct {
		name      string
		failures  []githubfake.Failure
		wantWaits []time.Duration
	}{
		{"two 500s", []githubfake.Failure{githubfake.ServerError(), githubfake.ServerError()},
			[]time.Duration{500 * time.Millisecond, time.Second}},
		{"429 asks for longer than the backoff", []githubfake.Failure{githubfake.TooManyRequests(3 * time.Second)},
			[]time.Duration{3 * time.Second}},
		{"secondary without Retry-After waits a minute", []githubfake.Failure{githubfake.SecondaryRateLimit(0)},
			[]time.Duration{time.Minute}},
		{"primary until reset", []githubfake.Failure{githubfake.PrimaryRateLimit(t0.Add(42 * time.Second))},
			[]time.Duration{43 * time.Second}},
		{"502 then 429 then 500", []githubfake.Failure{githubfake.BadGateway(), githubfake.TooManyRequests(1 * time.Second), githubfake.ServerError()},
			[]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, c := newClient(t, t0)
			fake.AddPullRequest("o", "r", 1, manyFiles(150)...)
			for _, f := range tt.failures {
				fake.FailNext(githubfake.RoutePullFiles, 1, f)
			}
			var s sleeper
			r := githubapi.Retrier{MaxAttempts: 5, MaxDelay: 2 * time.Minute, Sleep: s.sleep}
			var files []githubapi.File
			err := r.Do(context.Background(), func(ctx context.Context) error {
				var err error
				files, err = c.PullRequestFiles(ctx, "o", "r", 1)
				return err
			})
			if err != nil {
				t.Fatalf("Do: %v", err)
			}
			if len(files) != 150 {
				t.Errorf("%d files after recovery, want 150", len(files))
			}
			if diff := cmp.Diff(tt.wantWaits, s.waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if got, want := fake.Calls(githubfake.RoutePullFiles), len(tt.failures)+2; got != want {
				t.Errorf("%d requests, want %d (failures, then two pages)", got, want)
			}
		})
	}
}

func TestRetrierStops(t *testing.T) {
	t.Run("permanent 404 is not retried", func(t *testing.T) {
		fake, c := newClient(t, t0)
		fake.AddPullRequest("o", "r", 1)
		fake.FailNext(githubfake.RoutePullFiles, 3, githubfake.NotFound())
		var s sleeper
		err := githubapi.Retrier{Sleep: s.sleep}.Do(context.Background(), func(ctx context.Context) error {
			_, err := c.PullRequestFiles(ctx, "o", "r", 1)
			return err
		})
		if !errors.Is(err, registry.ErrNotFound) || len(s.waits) != 0 || fake.Calls(githubfake.RoutePullFiles) != 1 {
			t.Errorf("err %v, waits %v, calls %d; want ErrNotFound, no wait, one call", err, s.waits, fake.Calls(githubfake.RoutePullFiles))
		}
	})
	t.Run("attempts used up", func(t *testing.T) {
		fake, c := newClient(t, t0)
		fake.AddPullRequest("o", "r", 1)
		fake.FailNext(githubfake.RouteCreateStatus, 10, githubfake.ServerError())
		var s sleeper
		err := githubapi.Retrier{MaxAttempts: 3, BaseDelay: time.Second, MaxDelay: 3 * time.Second, Sleep: s.sleep}.Do(context.Background(), func(ctx context.Context) error {
			return c.SetStatus(ctx, "o", "r", head, githubapi.Status{State: githubapi.StateSuccess})
		})
		if retry, _ := githubapi.IsRetryable(err); !retry {
			t.Errorf("final error %v not retryable; a job queue should still retry it", err)
		}
		if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, s.waits); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
		if n := fake.Calls(githubfake.RouteCreateStatus); n != 3 {
			t.Errorf("%d calls, want 3", n)
		}
		if n := len(fake.Statuses("o", "r")); n != 0 {
			t.Errorf("%d statuses recorded by failed calls", n)
		}
	})
	t.Run("GitHub asks for more than MaxDelay", func(t *testing.T) {
		fake, c := newClient(t, t0)
		fake.AddPullRequest("o", "r", 1)
		fake.FailNext(githubfake.RouteListComments, 1, githubfake.PrimaryRateLimit(t0.Add(20*time.Minute)))
		var s sleeper
		err := githubapi.Retrier{MaxDelay: time.Minute, Sleep: s.sleep}.Do(context.Background(), func(ctx context.Context) error {
			_, _, err := c.UpsertComment(ctx, "o", "r", 1, "<!-- m -->", "x")
			return err
		})
		retry, delay := githubapi.IsRetryable(err)
		if !retry || delay != 20*time.Minute+time.Second || len(s.waits) != 0 {
			t.Errorf("err %v: retry %v delay %v waits %v; want the error handed back with its 20m1s delay, no wait", err, retry, delay, s.waits)
		}
	})
	t.Run("context cancelled while waiting", func(t *testing.T) {
		fake, c := newClient(t, t0)
		fake.AddPullRequest("o", "r", 1)
		fake.FailNext(githubfake.RoutePullFiles, 5, githubfake.ServerError())
		ctx, cancel := context.WithCancel(context.Background())
		sleep := func(ctx context.Context, d time.Duration) error {
			cancel()
			return ctx.Err()
		}
		err := githubapi.Retrier{Sleep: sleep}.Do(ctx, func(ctx context.Context) error {
			_, err := c.PullRequestFiles(ctx, "o", "r", 1)
			return err
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Do = %v, want context.Canceled", err)
		}
		if n := fake.Calls(githubfake.RoutePullFiles); n != 1 {
			t.Errorf("%d calls, want 1", n)
		}
	})
	t.Run("real timer", func(t *testing.T) {
		n := 0
		err := githubapi.Retrier{MaxAttempts: 2, BaseDelay: time.Millisecond}.Do(context.Background(), func(ctx context.Context) error {
			n++
			if n == 1 {
				return context.DeadlineExceeded
			}
			return nil
		})
		if err != nil || n != 2 {
			t.Errorf("Do = %v after %d calls, want nil after 2", err, n)
		}
	})
}

// TestFailuresOnEveryRoute drives each endpoint through a failure and its
// recovery, so that every route's error path is exercised.
func TestFailuresOnEveryRoute(t *testing.T) {
	const marker = "<!-- registryd:audit -->"
	calls := map[githubfake.Route]func(context.Context, *githubapi.Client) error{
		githubfake.RoutePullFiles: func(ctx context.Context, c *githubapi.Client) error {
			_, err := c.PullRequestFiles(ctx, "o", "r", 1)
			return err
		},
		githubfake.RouteContents: func(ctx context.Context, c *githubapi.Client) error {
			_, err := c.FileContent(ctx, "o", "r", "a.toml", head)
			return err
		},
		githubfake.RouteCreateStatus: func(ctx context.Context, c *githubapi.Client) error {
			return c.SetStatus(ctx, "o", "r", head, githubapi.Status{State: githubapi.StateSuccess})
		},
		githubfake.RouteListComments: func(ctx context.Context, c *githubapi.Client) error {
			_, _, err := c.UpsertComment(ctx, "o", "r", 1, marker, "new")
			return err
		},
		githubfake.RouteCreateComment: func(ctx context.Context, c *githubapi.Client) error {
			_, _, err := c.UpsertComment(ctx, "o", "r", 2, marker, "new")
			return err
		},
		githubfake.RouteEditComment: func(ctx context.Context, c *githubapi.Client) error {
			_, _, err := c.UpsertComment(ctx, "o", "r", 1, marker, "new")
			return err
		},
		githubfake.RouteCompare: func(ctx context.Context, c *githubapi.Client) error {
			_, err := c.CompareFiles(ctx, "o", "r", base, head)
			return err
		},
		githubfake.RoutePull: func(ctx context.Context, c *githubapi.Client) error {
			_, err := c.PullRequestHead(ctx, "o", "r", 3)
			return err
		},
		githubfake.RouteTree: func(ctx context.Context, c *githubapi.Client) error {
			_, err := c.TreeFiles(ctx, "o", "r", head)
			return err
		},
	}
	for _, route := range githubfake.Routes {
		t.Run(string(route), func(t *testing.T) {
			call := calls[route]
			if call == nil {
				t.Fatalf("no call drives %s", route)
			}
			fake, c := newClient(t, t0)
			fake.AddPullRequest("o", "r", 1)
			fake.AddPullRequest("o", "r", 2)
			fake.AddPullRequest("o", "r", 3)
			fake.SetPullHead("o", "r", 3, "o", "r", head)
			fake.AddComment("o", "r", 1, githubfake.BotLogin, marker+"\nold")
			fake.PutFile("o", "r", head, "a.toml", []byte("a"))
			fake.SetCompare("o", "r", base, head)
			fake.FailNext(route, 1, githubfake.ServerError())
			if err := call(context.Background(), c); err == nil {
				t.Fatal("no error while the route fails")
			} else if retry, _ := githubapi.IsRetryable(err); !retry {
				t.Fatalf("500 on %s: %v not retryable", route, err)
			}
			if err := call(context.Background(), c); err != nil {
				t.Fatalf("after recovery: %v", err)
			}
			if n := fake.Calls(route); n != 2 {
				t.Errorf("%d calls to %s, want 2", n, route)
			}
		})
	}
}
