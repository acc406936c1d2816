// Package mcpimport reads an MCP Registry (the official one, or any server
// that speaks its API) into registryd: Client pages through
// GET /v0.1/servers, backing off and retrying when the upstream asks (429)
// or fails (5xx); Importer converts each server.json to a manifest
// (package serverjson) and submits it through the review workflow, so that
// every imported version is audited and waits for a maintainer like any
// submission.
package mcpimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/registryd/registryd/serverjson"
)

// Defaults of a Client.
const (
	DefaultPageSize    = 100
	DefaultMaxAttempts = 6
	// MaxPageBytes bounds one page's body.
	MaxPageBytes = 32 << 20
	// maxBackoff bounds one wait between attempts, Retry-After included.
	maxBackoff = 2 * time.Minute
	firstBack  = 500 * time.Millisecond
)

// Client reads the list of an MCP Registry. The zero value is not usable:
// BaseURL is required. A Client is safe for concurrent use.
type Client struct {
	// BaseURL is the registry's base URL ("https://registry.modelcontextprotocol.io").
	BaseURL string
	// HTTP sends the requests; nil is a client with a 60-second timeout.
	HTTP *http.Client
	// PageSize is the limit asked per page; zero is DefaultPageSize.
	PageSize int
	// MaxAttempts bounds the attempts of one request; zero is
	// DefaultMaxAttempts.
	MaxAttempts int
	// Wait waits d or until ctx is done, between attempts; nil waits on a
	// timer. Tests record the waits instead.
	Wait func(ctx context.Context, d time.Duration) error
	// UserAgent identifies registryd to the upstream.
	UserAgent string
}

// Query selects the servers a listing returns: a search text (the
// upstream's substring match on names) and servers updated since an
// instant (then deleted ones too, as the API says).
type Query struct {
	Search       string
	UpdatedSince *time.Time
}

// Entry is one server version of a page: its document, or Err when the
// document did not decode (the page goes on without it). UpdatedAt and
// Status come from the upstream's official metadata (zero and "" when it
// has none).
type Entry struct {
	Server    serverjson.Server
	UpdatedAt time.Time
	Status    string
	Err       error
}

// Page is one page of a listing.
type Page struct {
	Entries []Entry
	// Next is the cursor of the next page, "" after the last.
	Next string
}

// StatusError is an upstream's answer that is not 200.
type StatusError struct {
	Status int
}

func (e *StatusError) Error() string { return "the upstream answered " + strconv.Itoa(e.Status) }

// retryable reports whether an answer asks for another attempt.
func (e *StatusError) retryable() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

type wirePage struct {
	Servers []struct {
		Server json.RawMessage `json:"server"`
		Meta   struct {
			Official struct {
				Status    string    `json:"status"`
				UpdatedAt time.Time `json:"updatedAt"`
			} `json:"io.modelcontextprotocol.registry/official"`
		} `json:"_meta"`
	} `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor"`
		Count      int    `json:"count"`
	} `json:"metadata"`
}

// Page fetches the page of q after cursor ("" for the first). It retries a
// 429 (after its Retry-After), a 5xx and a failed connection, waiting
// longer each time, up to MaxAttempts; any other answer, or a body that is
// not a page, is an error at once.
func (c *Client) Page(ctx context.Context, q Query, cursor string) (Page, error) {
	u, err := c.pageURL(q, cursor)
	if err != nil {
		return Page{}, err
	}
	attempts := c.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	backoff := firstBack
	for attempt := 1; ; attempt++ {
		p, wait, asked, err := c.fetch(ctx, u)
		if err == nil {
			return p, nil
		}
		var se *StatusError
		if ctx.Err() != nil || attempt == attempts || (errors.As(err, &se) && !se.retryable()) || errors.Is(err, errNotAPage) {
			return Page{}, fmt.Errorf("list servers: %w", err)
		}
		if !asked {
			wait = backoff
			backoff = min(2*backoff, maxBackoff)
		}
		if err := c.wait(ctx, min(wait, maxBackoff)); err != nil {
			return Page{}, err
		}
	}
}

func (c *Client) pageURL(q Query, cursor string) (string, error) {
	base, err := url.Parse(strings.TrimRight(c.BaseURL, "/"))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return "", errors.New("the upstream URL must be an absolute http or https URL")
	}
	size := c.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	v := url.Values{"limit": {strconv.Itoa(size)}}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if q.Search != "" {
		v.Set("search", q.Search)
	}
	if q.UpdatedSince != nil {
		v.Set("updated_since", q.UpdatedSince.UTC().Format(time.RFC3339Nano))
	}
	return base.String() + "/v0.1/servers?" + v.Encode(), nil
}

var errNotAPage = errors.New("the upstream's answer is not a list of servers")

// fetch makes one attempt. With an error, it returns how long the
// upstream asked to wait (Retry-After), and whether it asked.
func (c *Client) fetch(ctx context.Context, u string) (p Page, wait time.Duration, asked bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Page{}, 0, false, err
	}
	req.Header.Set("Accept", "application/json")
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Page{}, 0, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		wait, asked := retryAfter(resp.Header.Get("Retry-After"), time.Now())
		return Page{}, wait, asked, &StatusError{Status: resp.StatusCode}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxPageBytes+1))
	if err != nil {
		return Page{}, 0, false, err
	}
	if len(body) > MaxPageBytes {
		return Page{}, 0, false, fmt.Errorf("%w: larger than %d bytes", errNotAPage, MaxPageBytes)
	}
	var w wirePage
	if err := json.Unmarshal(body, &w); err != nil {
		return Page{}, 0, false, fmt.Errorf("%w: %v", errNotAPage, err)
	}
	p = Page{Next: w.Metadata.NextCursor, Entries: make([]Entry, len(w.Servers))}
	for i, s := range w.Servers {
		e := Entry{UpdatedAt: s.Meta.Official.UpdatedAt, Status: s.Meta.Official.Status}
		if err := json.Unmarshal(s.Server, &e.Server); err != nil {
			e.Err = errors.New("the server document does not decode as server.json")
		}
		p.Entries[i] = e
	}
	return p, 0, false, nil
}

// retryAfter reads a Retry-After header, seconds or an HTTP date, and
// whether it was there and readable.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	if h == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func (c *Client) wait(ctx context.Context, d time.Duration) error {
	if c.Wait != nil {
		return c.Wait(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
