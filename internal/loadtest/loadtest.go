// Package loadtest drives HTTP load at a registryd server and measures it:
// requests a second and latency quantiles for report GETs, 304
// revalidations and manifest submissions. cmd/registryd-load is its command
// line; the comparison harness in this package's tests measures registryd on
// both stores against a bare net/http handler in one run.
//
// A run is closed-loop: Concurrency workers each send a request, wait for
// the whole response, and send the next, until Duration has passed or
// MaxRequests have been sent. By default only loopback targets are allowed,
// and the check is made on every connection's resolved address, so neither
// a host name nor a redirect can point the load elsewhere.
package loadtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/registryd/registryd/safetext"
)

// Mode is what a run's requests do.
type Mode string

// The modes.
const (
	// ModeGet sends GET and expects 200 with the same body length every
	// time.
	ModeGet Mode = "get"
	// ModeRevalidate fetches the resource once for its ETag, then sends
	// GET with If-None-Match and expects 304.
	ModeRevalidate Mode = "revalidate"
	// ModeSubmit POSTs a new manifest (application/toml) per request, each
	// naming a distinct addon so that every request is a real insert, and
	// expects 201.
	ModeSubmit Mode = "submit"
)

// Valid reports whether m is one of the modes.
func (m Mode) Valid() bool { return m == ModeGet || m == ModeRevalidate || m == ModeSubmit }

// Bounds of a Config.
const (
	MaxConcurrency = 512
	MaxDuration    = 10 * time.Minute
	MaxRequests    = 100_000_000
	// RequestTimeout bounds each request.
	RequestTimeout = 10 * time.Second
	// maxErrorSamples is how many distinct error descriptions a Result
	// keeps.
	maxErrorSamples = 5
)

// Config is one run. URL, Mode, Concurrency and Duration are required.
type Config struct {
	// URL is the full URL requests go to, for example
	// http://127.0.0.1:8080/v1/addons/weather/report.
	URL string
	// Mode selects the requests.
	Mode Mode
	// Concurrency is the number of workers, each with at most one request
	// in flight: 1 to MaxConcurrency.
	Concurrency int
	// Duration bounds the run's time: above 0 and at most MaxDuration.
	Duration time.Duration
	// MaxRequests bounds the number of requests sent: 0 to MaxRequests,
	// where 0 means MaxRequests.
	MaxRequests int64
	// Token, when not empty, is sent as `Authorization: Bearer <Token>`.
	// ModeSubmit needs one of the submitter role.
	Token string
	// AllowRemote permits targets that are not loopback addresses.
	AllowRemote bool
	// VaryQuery spells the URL's query differently in each request of
	// ModeGet (characters percent-encoded or not, in upper or lower case,
	// by the digits of the request's number), so that the same
	// request reaches the server under many spellings: a server that keeps
	// answers in memory by the raw query then answers each from its
	// database, and the run measures that, not the memory. A query of k
	// characters besides '&', '=' and '+' has 2^k to 3^k spellings.
	VaryQuery bool
	// RunID distinguishes the addon names of ModeSubmit between runs
	// against one database: lower-case letters and digits, at most 16.
	// Empty picks a random one.
	RunID string
}

// Result is the outcome of a run. Requests counts every request that
// completed or failed; when Duration ends the run, requests in flight are
// let finish and counted, and Elapsed includes them; requests aborted by
// the caller's context are not counted. Latencies are those of successful
// requests only.
type Result struct {
	Mode        Mode
	URL         string
	Concurrency int
	Elapsed     time.Duration
	Requests    int64
	Errors      int64
	P50         time.Duration
	P90         time.Duration
	P99         time.Duration
	Max         time.Duration
	// ErrorSamples holds up to a few distinct error descriptions, safe to
	// print.
	ErrorSamples []string
}

// OK returns the number of successful requests.
func (r Result) OK() int64 { return r.Requests - r.Errors }

// PerSecond returns successful requests per second of the run.
func (r Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.OK()) / r.Elapsed.Seconds()
}

// String renders r on one line.
func (r Result) String() string {
	return fmt.Sprintf("%s c=%d %.1fs: %d requests, %d errors, %.0f req/s, p50 %s p90 %s p99 %s max %s",
		r.Mode, r.Concurrency, r.Elapsed.Seconds(), r.Requests, r.Errors, r.PerSecond(),
		fmtDur(r.P50), fmtDur(r.P90), fmtDur(r.P99), fmtDur(r.Max))
}

// fmtDur renders d in milliseconds with three decimals.
func fmtDur(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64) + "ms"
}

// Validate checks c and returns its target URL. Errors name the field.
func (c Config) Validate() (*url.URL, error) {
	var errs []error
	u, err := CheckTarget(c.URL, c.AllowRemote)
	if err != nil {
		errs = append(errs, err)
	}
	if !c.Mode.Valid() {
		errs = append(errs, errors.New("mode: must be get, revalidate or submit"))
	}
	if c.Concurrency < 1 || c.Concurrency > MaxConcurrency {
		errs = append(errs, fmt.Errorf("concurrency: must be from 1 to %d", MaxConcurrency))
	}
	if c.Duration <= 0 || c.Duration > MaxDuration {
		errs = append(errs, fmt.Errorf("duration: must be above 0 and at most %s", MaxDuration))
	}
	if c.MaxRequests < 0 || c.MaxRequests > MaxRequests {
		errs = append(errs, fmt.Errorf("requests: must be from 0 (no bound but the duration) to %d", MaxRequests))
	}
	if !printableToken(c.Token) {
		errs = append(errs, errors.New("token: must be printable ASCII without spaces"))
	}
	if c.Mode == ModeSubmit && c.Token == "" {
		errs = append(errs, errors.New("token: submit needs a token of the submitter role"))
	}
	if len(c.RunID) > 16 || !lowerAlnum(c.RunID) {
		errs = append(errs, errors.New("run id: must be at most 16 lower-case letters and digits"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return u, nil
}

// CheckTarget parses raw as the URL of a run: http or https, a host, no
// credentials, no fragment. Unless allowRemote is set, the host must be
// "localhost" or a loopback IP address. Errors start with "url:" and never
// echo the URL's characters unescaped.
func CheckTarget(raw string, allowRemote bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Fragment != "" {
		return nil, errors.New("url: must be an absolute http or https URL with a host and without credentials or fragment")
	}
	if !allowRemote && !loopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("url: host %s is not a loopback address; pass the allow-remote option to load another machine",
			strconv.QuoteToASCII(u.Hostname()))
	}
	return u, nil
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// printableToken reports whether s is at most 256 bytes of visible ASCII,
// as API tokens and ETags are.
func printableToken(s string) bool { return len(s) <= 256 && safetext.GraphicASCII(s) }

func lowerAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}

// errNotLoopback refuses a connection to a non-loopback address.
var errNotLoopback = errors.New("refusing to connect to a non-loopback address")

// newClient returns a client with one kept-alive connection per worker, no
// proxy (the environment's proxy settings must not send loopback load
// elsewhere), no redirects and no compression. Without allowRemote every
// connection's resolved address is checked to be loopback.
func newClient(concurrency int, allowRemote bool) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !allowRemote {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return errNotLoopback
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return errNotLoopback
			}
			return nil
		}
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		MaxIdleConns:          concurrency,
		MaxIdleConnsPerHost:   concurrency,
		MaxConnsPerHost:       concurrency,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ResponseHeaderTimeout: RequestTimeout,
		TLSHandshakeTimeout:   5 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   RequestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// target is what every request of a run needs, fixed before the workers
// start.
type target struct {
	url     string
	mode    Mode
	vary    bool
	auth    string
	etag    string // ModeRevalidate
	bodyLen int64  // ModeGet: the length of the priming response's body
	runID   string // ModeSubmit
}

// Run performs one run and returns its measurements. It returns an error,
// before sending load, for an invalid Config or when the priming request
// of ModeGet or ModeRevalidate fails; failures during the run are counted
// in Result.Errors and sampled in Result.ErrorSamples. ctx cancels the run
// early. Run is safe for concurrent use, though concurrent runs measure
// each other.
func Run(ctx context.Context, c Config) (Result, error) {
	u, err := c.Validate()
	if err != nil {
		return Result{}, err
	}
	client := newClient(c.Concurrency, c.AllowRemote)
	defer client.CloseIdleConnections()
	tg := target{url: u.String(), mode: c.Mode, runID: c.RunID, vary: c.VaryQuery && c.Mode == ModeGet}
	if c.Token != "" {
		tg.auth = "Bearer " + c.Token
	}
	if tg.runID == "" {
		tg.runID = randomRunID()
	}
	if c.Mode == ModeGet || c.Mode == ModeRevalidate {
		if err := prime(ctx, client, &tg); err != nil {
			return Result{}, err
		}
	}
	limit := c.MaxRequests
	if limit == 0 {
		limit = MaxRequests
	}

	// The deadline stops new requests; requests in flight finish (within
	// RequestTimeout), so that the end of a run neither truncates requests
	// nor leaves the server logging cancelled ones. Only ctx aborts them.
	stopCtx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()
	var (
		issued atomic.Int64
		wg     sync.WaitGroup
		hists  = make([]*histogram, c.Concurrency)
		stats  = make([]workerStats, c.Concurrency)
	)
	start := time.Now()
	for w := range c.Concurrency {
		hists[w] = new(histogram)
		wg.Go(func() {
			work(ctx, stopCtx, client, &tg, &issued, limit, hists[w], &stats[w])
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	res := Result{Mode: c.Mode, URL: tg.url, Concurrency: c.Concurrency, Elapsed: elapsed}
	var all histogram
	seen := map[string]bool{}
	for w := range c.Concurrency {
		all.merge(hists[w])
		res.Requests += stats[w].requests
		res.Errors += stats[w].errors
		for _, s := range stats[w].samples {
			if !seen[s] && len(res.ErrorSamples) < maxErrorSamples {
				seen[s] = true
				res.ErrorSamples = append(res.ErrorSamples, s)
			}
		}
	}
	res.P50, res.P90, res.P99, res.Max = all.quantile(0.50), all.quantile(0.90), all.quantile(0.99), all.max
	return res, nil
}

// workerStats is one worker's counts.
type workerStats struct {
	requests, errors int64
	samples          []string
}

func (s *workerStats) fail(err error) {
	s.errors++
	if len(s.samples) < maxErrorSamples {
		s.samples = append(s.samples, describe(err))
	}
}

// work is one worker's loop: it sends requests until stop is done or the
// run's count is reached; ctx aborts a request in flight.
func work(ctx, stop context.Context, client *http.Client, tg *target, issued *atomic.Int64, limit int64, h *histogram, s *workerStats) {
	for stop.Err() == nil {
		n := issued.Add(1)
		if n > limit {
			return
		}
		start := time.Now()
		err := do(ctx, client, tg, n)
		d := time.Since(start)
		if err != nil && ctx.Err() != nil {
			return // aborted by the caller: not a failure of the target
		}
		s.requests++
		if err != nil {
			s.fail(err)
			continue
		}
		h.record(d)
	}
}

// statusError is a response with an unexpected status.
type statusError struct{ got, want int }

func (e *statusError) Error() string {
	return fmt.Sprintf("status %d, want %d", e.got, e.want)
}

// do sends request number n of the run and checks its response.
func do(ctx context.Context, client *http.Client, tg *target, n int64) error {
	var (
		req  *http.Request
		err  error
		want int
	)
	switch tg.mode {
	case ModeSubmit:
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, tg.url, bytes.NewReader(SubmitManifest(tg.runID, n)))
		if err == nil {
			req.Header.Set("Content-Type", "application/toml")
		}
		want = http.StatusCreated
	case ModeRevalidate:
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, tg.url, nil)
		if err == nil {
			req.Header.Set("If-None-Match", tg.etag)
		}
		want = http.StatusNotModified
	default:
		u := tg.url
		if tg.vary {
			u = VaryQuery(u, n)
		}
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		want = http.StatusOK
	}
	if err != nil {
		return err
	}
	if tg.auth != "" {
		req.Header.Set("Authorization", tg.auth)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	got, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return &statusError{got: resp.StatusCode, want: want}
	}
	if tg.mode == ModeGet && got != tg.bodyLen {
		return fmt.Errorf("body of %d bytes, want %d", got, tg.bodyLen)
	}
	return nil
}

// VaryQuery returns rawURL with its query spelled as the n-th variant:
// each character but '&', '=', '+' and those already escaped is kept, or
// percent-encoded in upper or lower case (where the hex has a letter), by
// the digits of n in a base of 2 or 3 a character, from the query's first.
// Every variant means the same query, and variants up to the product of
// those bases differ. A URL
// without a query is returned as it is.
func VaryQuery(rawURL string, n int64) string {
	base, query, ok := strings.Cut(rawURL, "?")
	if !ok || query == "" {
		return rawURL
	}
	const upper, lower = "0123456789ABCDEF", "0123456789abcdef"
	var b strings.Builder
	b.WriteString(base)
	b.WriteByte('?')
	d := uint64(n)
	for i := 0; i < len(query); i++ {
		ch := query[i]
		if ch == '&' || ch == '=' || ch == '+' || ch == '%' {
			b.WriteByte(ch)
			if ch == '%' && i+2 < len(query) { // an escape: kept whole
				b.WriteString(query[i+1 : i+3])
				i += 2
			}
			continue
		}
		// Upper and lower case differ only where the hex has a letter.
		forms := uint64(2)
		if upper[ch>>4] > '9' || upper[ch&15] > '9' {
			forms = 3
		}
		switch d % forms {
		case 0:
			b.WriteByte(ch)
		case 1:
			b.WriteByte('%')
			b.WriteByte(upper[ch>>4])
			b.WriteByte(upper[ch&15])
		case 2:
			b.WriteByte('%')
			b.WriteByte(lower[ch>>4])
			b.WriteByte(lower[ch&15])
		}
		d /= forms
	}
	return b.String()
}

// prime fetches the target once, before any load: it checks that the
// target answers 200 with a body, and records the body length (ModeGet)
// or the ETag (ModeRevalidate).
func prime(ctx context.Context, client *http.Client, tg *target) error {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, tg.url, nil)
	if err != nil {
		return fmt.Errorf("priming request: %s", describe(err))
	}
	if tg.auth != "" {
		req.Header.Set("Authorization", tg.auth)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("priming request: %s", describe(err))
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("priming request: %s", describe(err))
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("priming request: status %d, want 200", resp.StatusCode)
	}
	tg.bodyLen = n
	if tg.mode == ModeRevalidate {
		tg.etag = resp.Header.Get("ETag")
		if tg.etag == "" || !printableToken(strings.ReplaceAll(tg.etag, " ", "")) || len(tg.etag) > 256 {
			return errors.New("priming request: the response has no usable ETag to revalidate")
		}
	}
	return nil
}

// describe renders err for a terminal: printable ASCII only, bounded.
func describe(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200]
	}
	q := strconv.QuoteToASCII(s)
	return q[1 : len(q)-1]
}
