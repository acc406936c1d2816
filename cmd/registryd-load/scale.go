package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/registryd/registryd/internal/loadtest"
	"github.com/registryd/registryd/storage"
)

// scaleRequest is one row of the scale table.
type scaleRequest struct {
	name string
	path string
	mode loadtest.Mode
}

// runScale is `registryd-load scale`: it measures, one after the other,
// every request of the scale table against a server whose registry
// `registryd-load seed` filled, and prints the table in Markdown, with the
// server's resident memory and the database's size.
func runScale(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var (
		base, dataDir string
		pid           int
		c             loadtest.Config
		only          string
	)
	fs := flag.NewFlagSet("registryd-load scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "Usage: registryd-load scale [flags]")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Measures each request of the scale table in turn (list, a page 10,000 rows deep,")
		fmt.Fprintln(w, "searches, each filter, report, badge, web pages, submit) against a server whose")
		fmt.Fprintln(w, "registry `registryd-load seed` filled, and prints a Markdown table. Submit runs")
		fmt.Fprintln(w, "when a submitter token is given (REGISTRYD_LOAD_TOKEN). Run the server with")
		fmt.Fprintln(w, "--rate-limit 0 --cacheable-rate-limit 0.")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Flags:")
		fs.PrintDefaults()
	}
	fs.StringVar(&base, "url", defaultURL, "base URL of the server (loopback only)")
	fs.DurationVar(&c.Duration, "duration", 5*time.Second, "how long each request is measured")
	fs.IntVar(&c.Concurrency, "concurrency", 8, "workers, each with one request in flight")
	fs.IntVar(&pid, "pid", 0, "the server's process id, to report its resident memory (Linux)")
	fs.StringVar(&dataDir, "data-dir", "", "the server's SQLite directory, to report the database's size (on PostgreSQL, ask it: SELECT pg_database_size(current_database()))")
	fs.StringVar(&only, "only", "", "measure only the requests whose names contain this text")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitError{code: 2}
	}
	if fs.NArg() > 0 {
		return &exitError{code: 2, err: fmt.Errorf("unexpected argument %s", strconv.QuoteToASCII(fs.Arg(0)))}
	}
	base = strings.TrimRight(base, "/")
	if _, err := loadtest.CheckTarget(base, false); err != nil {
		return &exitError{code: 2, err: err}
	}
	token := getenv("REGISTRYD_LOAD_TOKEN")

	client := &http.Client{Timeout: loadtest.RequestTimeout}
	first, _, err := listPage(ctx, client, base+"/v1/addons?limit=1")
	if err != nil || len(first) == 0 {
		return fmt.Errorf("read the registry: %v (is it seeded?)", err)
	}
	name := url.PathEscape(first[0])
	total, err := countAddons(ctx, client, base)
	if err != nil {
		return err
	}
	reqs := []scaleRequest{
		{"list (30)", "/v1/addons?limit=30", loadtest.ModeGet},
	}
	if deep, err := deepCursor(ctx, client, base, 10_000); err != nil {
		return err
	} else if deep != "" {
		reqs = append(reqs, scaleRequest{"list, 10,000 deep", "/v1/addons?limit=30&cursor=" + url.QueryEscape(deep), loadtest.ModeGet})
	}
	reqs = append(reqs,
		scaleRequest{"search keyword (~100 match)", "/v1/addons?limit=30&q=" + keywordSearch, loadtest.ModeGet},
		scaleRequest{"search name part (~100 match)", "/v1/addons?limit=30&q=" + nameSearch, loadtest.ModeGet},
		scaleRequest{"search broad (1/40 match)", "/v1/addons?limit=30&q=" + broadSearch, loadtest.ModeGet},
		scaleRequest{"search none match", "/v1/addons?limit=30&q=zzqx", loadtest.ModeGet},
		scaleRequest{"tier=verified", "/v1/addons?limit=30&tier=verified", loadtest.ModeGet},
		scaleRequest{"tier=community", "/v1/addons?limit=30&tier=community", loadtest.ModeGet},
		scaleRequest{"verdict=pass", "/v1/addons?limit=30&verdict=pass", loadtest.ModeGet},
		scaleRequest{"verdict=review", "/v1/addons?limit=30&verdict=review", loadtest.ModeGet},
		scaleRequest{"verdict=fail", "/v1/addons?limit=30&verdict=fail", loadtest.ModeGet},
		scaleRequest{"include_removed=true", "/v1/addons?limit=30&include_removed=true", loadtest.ModeGet},
		scaleRequest{"verdict=fail&tier=verified (none match)", "/v1/addons?limit=30&verdict=fail&tier=verified", loadtest.ModeGet},
		scaleRequest{"report", "/v1/addons/" + name + "/report", loadtest.ModeGet},
		scaleRequest{"badge.svg", "/v1/addons/" + name + "/badge.svg", loadtest.ModeGet},
		scaleRequest{"page: registry index", "/", loadtest.ModeGet},
		scaleRequest{"page: registry search", "/?q=" + keywordSearch, loadtest.ModeGet},
		scaleRequest{"page: addon", "/addons/" + name, loadtest.ModeGet},
	)
	if token != "" {
		reqs = append(reqs, scaleRequest{"submit", submitPath, loadtest.ModeSubmit})
	}

	fmt.Fprintf(stdout, "%d addons listed; each request %s at concurrency %d\n\n", total, c.Duration, c.Concurrency)
	fmt.Fprintln(stdout, "| request | req/s | p50 ms | p99 ms | errors |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|")
	failed := false
	for _, r := range reqs {
		if only != "" && !strings.Contains(r.name, only) {
			continue
		}
		rc := c
		rc.URL, rc.Mode = base+r.path, r.mode
		if r.mode == loadtest.ModeSubmit {
			rc.Token = token
		}
		res, err := loadtest.Run(ctx, rc)
		if err != nil {
			fmt.Fprintf(stdout, "| %s | – | – | – | %s |\n", r.name, strings.ReplaceAll(err.Error(), "|", "/"))
			failed = true
			continue
		}
		ms := func(d time.Duration) string {
			return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
		}
		fmt.Fprintf(stdout, "| %s | %.0f | %s | %s | %d |\n", r.name, res.PerSecond(), ms(res.P50), ms(res.P99), res.Errors)
		failed = failed || res.Errors > 0
	}
	fmt.Fprintln(stdout)
	if pid > 0 {
		if rss, err := residentMemory(pid); err == nil {
			fmt.Fprintf(stdout, "server RSS     %s\n", rss)
		} else {
			fmt.Fprintf(stdout, "server RSS     unknown: %v\n", err)
		}
	}
	if size := sqliteSize(dataDir); size > 0 {
		fmt.Fprintf(stdout, "database size  %.1f MiB (%.0f bytes an addon)\n", float64(size)/(1<<20), float64(size)/float64(max(total, 1)))
	}
	if failed {
		return &exitError{code: 3}
	}
	return nil
}

// listPage GETs one page of addons and returns their names and the next
// cursor.
func listPage(ctx context.Context, client *http.Client, u string) ([]string, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
	}
	var l struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
		Next *string `json:"next_cursor"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		return nil, "", fmt.Errorf("GET %s: %w", u, err)
	}
	names := make([]string, len(l.Items))
	for i, it := range l.Items {
		names[i] = it.Name
	}
	next := ""
	if l.Next != nil {
		next = *l.Next
	}
	return names, next, nil
}

// deepCursor pages through the registry by storage.MaxLimit and returns
// the cursor that follows its first depth addons, or "" when it holds
// fewer.
func deepCursor(ctx context.Context, client *http.Client, base string, depth int) (string, error) {
	cursor, seen := "", 0
	for seen < depth {
		u := base + "/v1/addons?limit=" + strconv.Itoa(min(storage.MaxLimit, depth-seen))
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		names, next, err := listPage(ctx, client, u)
		if err != nil {
			return "", err
		}
		seen += len(names)
		if next == "" {
			return "", nil
		}
		cursor = next
	}
	// The cursor carries the list's filters; the measured request asks
	// for the same list, only its limit differs.
	return cursor, nil
}

// countAddons counts the listed addons by paging through them.
func countAddons(ctx context.Context, client *http.Client, base string) (int, error) {
	n, cursor := 0, ""
	for {
		u := base + "/v1/addons?limit=" + strconv.Itoa(storage.MaxLimit)
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		names, next, err := listPage(ctx, client, u)
		if err != nil {
			return 0, err
		}
		n += len(names)
		if next == "" {
			return n, nil
		}
		cursor = next
	}
}

// residentMemory returns the VmRSS line of a Linux process.
func residentMemory(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", errors.New("no VmRSS")
}

// sqliteSize returns the size of the SQLite files under dataDir, 0 when
// it is empty.
func sqliteSize(dataDir string) int64 {
	if dataDir == "" {
		return 0
	}
	var n int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(filepath.Join(dataDir, storage.SQLiteFile+suffix)); err == nil {
			n += fi.Size()
		}
	}
	return n
}
