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
	"slices"
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
	// at, for a search or a filter (a path with a query), is where in its
	// matches the measured page starts: atFirst, atLast (the last page of
	// 30), atPrefixEnd (past the names that start with the query: a
	// fortieth of the registry for broadSearch), atTail (the page the last
	// page's cursor leads to, when a page that stopped where it had read
	// its share of the index left one).
	at int
}

const (
	atFirst = iota
	atLast
	atPrefixEnd
	atTail
)

// scaleTarget is one server of a scale run, with what its requests need.
type scaleTarget struct {
	base    string
	token   string // a submitter token on its database, "" to skip submit
	pid     int
	dataDir string
	db      *loadtest.Backends // its PostgreSQL backends, nil when not given
	addons  int                // listed
	paths   map[string]string  // request name → path; absent: not measured
}

// scaleRequests are the rows of the table, in order; the path of each is
// the target's (its first addon, its deep cursor).
var scaleRequests = []scaleRequest{
	{"list (30)", "/v1/addons?limit=30&include_removed=false", loadtest.ModeGet, atFirst},
	{"list, 10,000 deep", "", loadtest.ModeGet, atFirst},
	{"search keyword (~100 match)", "/v1/addons?limit=30&q=" + keywordSearch, loadtest.ModeGet, atFirst},
	{"search name part (~100 match)", "/v1/addons?limit=30&q=" + nameSearch, loadtest.ModeGet, atFirst},
	{"search broad (1/40 match)", "/v1/addons?limit=30&q=" + broadSearch, loadtest.ModeGet, atFirst},
	{"search broad, past its prefix matches", "/v1/addons?limit=30&q=" + broadSearch, loadtest.ModeGet, atPrefixEnd},
	{"search broad, last page", "/v1/addons?limit=30&q=" + broadSearch, loadtest.ModeGet, atLast},
	{"search inside names (1/15 match)", "/v1/addons?limit=30&q=" + insideSearch, loadtest.ModeGet, atFirst},
	{"search inside names, last page", "/v1/addons?limit=30&q=" + insideSearch, loadtest.ModeGet, atLast},
	{"search inside names, after the last match", "/v1/addons?limit=30&q=" + insideSearch, loadtest.ModeGet, atTail},
	{"search descriptions (1/6 match)", "/v1/addons?limit=30&q=" + descriptionSearch, loadtest.ModeGet, atFirst},
	{"search inside names&verdict=review", "/v1/addons?limit=30&verdict=review&q=" + insideSearch, loadtest.ModeGet, atFirst},
	{"search inside names&verdict=fail", "/v1/addons?limit=30&verdict=fail&q=" + insideSearch, loadtest.ModeGet, atFirst},
	{"search none match", "/v1/addons?limit=30&q=zzqx", loadtest.ModeGet, atFirst},
	{"tier=verified", "/v1/addons?limit=30&tier=verified", loadtest.ModeGet, atFirst},
	// One in 150 addons is verified: 6 at 1,000, a page of 30 only from
	// 4,500 on. A page of 5 is full at every size, so that its figures
	// compare the same work.
	{"tier=verified, 5 a page", "/v1/addons?limit=5&tier=verified", loadtest.ModeGet, atFirst},
	{"tier=community", "/v1/addons?limit=30&tier=community", loadtest.ModeGet, atFirst},
	{"verdict=pass", "/v1/addons?limit=30&verdict=pass", loadtest.ModeGet, atFirst},
	{"verdict=review", "/v1/addons?limit=30&verdict=review", loadtest.ModeGet, atFirst},
	{"verdict=fail", "/v1/addons?limit=30&verdict=fail", loadtest.ModeGet, atFirst},
	{"include_removed=true", "/v1/addons?limit=30&include_removed=true", loadtest.ModeGet, atFirst},
	{"verdict=fail&tier=verified (none match)", "/v1/addons?limit=30&verdict=fail&tier=verified", loadtest.ModeGet, atFirst},
	{"report", "/v1/addons/{name}/report", loadtest.ModeGet, atFirst},
	{"badge.svg", "/v1/addons/{name}/badge.svg", loadtest.ModeGet, atFirst},
	{"page: registry index", "/", loadtest.ModeGet, atFirst},
	{"page: registry search", "/?q=" + keywordSearch, loadtest.ModeGet, atFirst},
	{"page: addon", "/addons/{name}", loadtest.ModeGet, atFirst},
	{"submit", submitPath, loadtest.ModeSubmit, atFirst},
}

// runScale is `registryd-load scale`: it measures, one after the other,
// every request of the scale table against one or several servers whose
// registries `registryd-load seed` filled (each request on each server in
// turn, so that the machine's load weighs alike on all), and prints the
// table in Markdown, with the p99 of the last server over the first's, each
// server's resident memory and the SQLite files' size.
func runScale(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var (
		urls, pids, dataDirs, dbURLs string
		c                            loadtest.Config
		only                         string
		rounds                       int
	)
	fs := flag.NewFlagSet("registryd-load scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "Usage: registryd-load scale [flags]")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Measures each request of the scale table in turn (list, a page 10,000 rows deep,")
		fmt.Fprintln(w, "searches, each filter, report, badge, web pages, submit) against servers whose")
		fmt.Fprintln(w, "registries `registryd-load seed` filled, and prints a Markdown table. With several")
		fmt.Fprintln(w, "servers (-url A,B,C) each request runs on each in turn, and the last column is the")
		fmt.Fprintln(w, "last server's p99 over the first's. Submit runs where a submitter token is given")
		fmt.Fprintln(w, "(REGISTRYD_LOAD_TOKEN, comma-separated like -url). Run the servers with")
		fmt.Fprintln(w, "--rate-limit 0 --cacheable-rate-limit 0. With -pid, each server's CPU time per request")
		fmt.Fprintln(w, "is shown too (and with -database-url, its PostgreSQL backends' added to it): on a")
		fmt.Fprintln(w, "busy machine a steadier measure of the work a request costs than its latency.")
		fmt.Fprintln(w, "With -rounds N each request runs N times on each server in turn, and every")
		fmt.Fprintln(w, "figure is the median of its N rounds: a shared machine's load moves one round's")
		fmt.Fprintln(w, "p99 by more than the difference most comparisons look for.")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Flags:")
		fs.PrintDefaults()
	}
	fs.StringVar(&urls, "url", defaultURL, "base URLs of the servers, comma-separated (loopback only)")
	fs.DurationVar(&c.Duration, "duration", 5*time.Second, "how long each request is measured on each server")
	fs.IntVar(&c.Concurrency, "concurrency", 8, "workers, each with one request in flight")
	fs.StringVar(&pids, "pid", "", "the servers' process ids, comma-separated like -url, to report their resident memory (Linux)")
	fs.StringVar(&dataDirs, "data-dir", "", "the servers' SQLite directories, comma-separated like -url, to report their size (on PostgreSQL, ask it: SELECT pg_database_size(current_database()))")
	fs.StringVar(&dbURLs, "database-url", "", "the servers' PostgreSQL URLs, comma-separated like -url (empty for SQLite), to add their backends' CPU time to the servers' (PostgreSQL on this machine)")
	fs.StringVar(&only, "only", "", "measure only the requests whose names contain this text")
	fs.IntVar(&rounds, "rounds", 1, "how many times each request runs on each server, in turn (1 to 99); the table gives each figure's median")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitError{code: 2}
	}
	if fs.NArg() > 0 {
		return &exitError{code: 2, err: fmt.Errorf("unexpected argument %s", strconv.QuoteToASCII(fs.Arg(0)))}
	}
	if rounds < 1 || rounds > 99 {
		return &exitError{code: 2, err: fmt.Errorf("rounds: must be 1 to 99, got %d", rounds)}
	}
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	bases, pidList, dirs, tokens, dbs := split(urls), split(pids), split(dataDirs), split(getenv("REGISTRYD_LOAD_TOKEN")), split(dbURLs)
	var targets []*scaleTarget
	for i, b := range bases {
		b = strings.TrimRight(b, "/")
		if _, err := loadtest.CheckTarget(b, false); err != nil {
			return &exitError{code: 2, err: err}
		}
		t := &scaleTarget{base: b}
		if i < len(pidList) {
			t.pid, _ = strconv.Atoi(pidList[i])
		}
		if i < len(dirs) {
			t.dataDir = dirs[i]
		}
		if i < len(tokens) {
			t.token = tokens[i]
		}
		if i < len(dbs) && dbs[i] != "" {
			b, err := loadtest.NewBackends(dbs[i])
			if err != nil {
				return &exitError{code: 2, err: fmt.Errorf("database-url: %w", err)}
			}
			t.db = b
		}
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return &exitError{code: 2, err: errors.New("url: give at least one server")}
	}
	client := &http.Client{Timeout: loadtest.RequestTimeout}
	for _, t := range targets {
		if err := t.prepare(ctx, client); err != nil {
			return &exitError{code: 1, err: err}
		}
	}

	if rounds > 1 {
		fmt.Fprintf(stdout, "each request %s at concurrency %d on each server in turn, %d rounds; medians of the rounds\n\n", c.Duration, c.Concurrency, rounds)
	} else {
		fmt.Fprintf(stdout, "each request %s at concurrency %d on each server in turn\n\n", c.Duration, c.Concurrency)
	}
	withCPU := pidList != nil
	head, rule := "| request |", "|---|"
	for _, t := range targets {
		head += fmt.Sprintf(" %d addons: req/s | p50 ms | p99 ms |", t.addons)
		rule += "---:|---:|---:|"
		if withCPU {
			head += " CPU ms/req |"
			rule += "---:|"
		}
	}
	if len(targets) > 1 {
		head += " p99 last/first |"
		rule += "---:|"
		if withCPU {
			head += " CPU last/first |"
			rule += "---:|"
		}
	}
	fmt.Fprintln(stdout, head)
	fmt.Fprintln(stdout, rule)
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
	}
	failed := false
	for _, r := range scaleRequests {
		if only != "" && !strings.Contains(r.name, only) {
			continue
		}
		row := "| " + r.name + " |"
		var p99s, cpus []time.Duration
		dash := " – | – | – |"
		if withCPU {
			dash += " – |"
		}
		// Each round runs the request on every server in turn, so that a
		// change of the machine's load falls on all of them alike.
		runs := make([][]scaleRun, len(targets))
		for range rounds {
			for i, t := range targets {
				path, ok := t.paths[r.name]
				if !ok {
					continue
				}
				rc := c
				rc.URL, rc.Mode = t.base+path, r.mode
				// Lists and searches are kept in memory by their raw query:
				// spelled differently each time, each request reads the
				// database, which is what the table measures. Reports,
				// badges and addon pages are meant to be served from memory.
				rc.VaryQuery = strings.Contains(path, "?")
				if r.mode == loadtest.ModeSubmit {
					rc.Token = t.token
				}
				cpu0 := t.cpu()
				res, err := loadtest.Run(ctx, rc)
				cpu := t.cpu().since(cpu0)
				if err != nil || res.Errors > 0 {
					failed = true
					fmt.Fprintf(stderr, "registryd-load scale: %s on %s: %v %v\n", r.name, t.base, err, res.ErrorSamples)
				}
				run := scaleRun{failed: err != nil}
				if err == nil {
					run.perSecond, run.p50, run.p99 = res.PerSecond(), res.P50, res.P99
					if cpu > 0 && res.Requests > 0 {
						run.cpu = cpu / time.Duration(res.Requests)
					}
				}
				runs[i] = append(runs[i], run)
			}
		}
		for i, t := range targets {
			if _, ok := t.paths[r.name]; !ok {
				row += dash
				p99s, cpus = append(p99s, 0), append(cpus, 0)
				continue
			}
			m, ok := medianRun(runs[i])
			if !ok {
				row += " error" + strings.TrimPrefix(dash, " –")
				p99s, cpus = append(p99s, 0), append(cpus, 0)
				continue
			}
			row += fmt.Sprintf(" %.0f | %s | %s |", m.perSecond, ms(m.p50), ms(m.p99))
			p99s = append(p99s, m.p99)
			if withCPU {
				if m.cpu > 0 {
					row += fmt.Sprintf(" %.2f |", float64(m.cpu)/float64(time.Millisecond))
				} else {
					row += " – |"
				}
				cpus = append(cpus, m.cpu)
			}
		}
		if len(targets) > 1 {
			row += ratio(p99s)
			if withCPU {
				row += ratio(cpus)
			}
		}
		fmt.Fprintln(stdout, row)
	}
	fmt.Fprintln(stdout)
	for _, t := range targets {
		fmt.Fprintf(stdout, "%s: %d addons listed", t.base, t.addons)
		if t.pid > 0 {
			if rss, err := residentMemory(t.pid); err == nil {
				fmt.Fprintf(stdout, ", server RSS %s", rss)
			}
		}
		if size := sqliteSize(t.dataDir); size > 0 {
			fmt.Fprintf(stdout, ", database %.1f MiB (%.0f bytes an addon)", float64(size)/(1<<20), float64(size)/float64(max(t.addons, 1)))
		}
		fmt.Fprintln(stdout)
	}
	if failed {
		return &exitError{code: 3}
	}
	return nil
}

// ratio returns the table cell of the last figure over the first.
func ratio(d []time.Duration) string {
	if first, last := d[0], d[len(d)-1]; first > 0 && last > 0 {
		return fmt.Sprintf(" %.2fx |", float64(last)/float64(first))
	}
	return " – |"
}

// cpuReading is the CPU time a server (and its PostgreSQL backends) had
// used at one moment; ok is false where it could not be read.
type cpuReading struct {
	server time.Duration
	db     map[int]time.Duration
	ok     bool
}

// cpu reads t's CPU time so far: its process's, given -pid, and its
// backends', given -database-url.
func (t *scaleTarget) cpu() cpuReading {
	if t.pid <= 0 {
		return cpuReading{}
	}
	d, ok := loadtest.ProcessCPU(t.pid)
	r := cpuReading{server: d, ok: ok}
	if t.db != nil && ok {
		var err error
		if r.db, err = t.db.CPU(); err != nil {
			r.ok = false
		}
	}
	return r
}

// since returns the CPU time used between from and r, 0 when either
// could not be read.
func (r cpuReading) since(from cpuReading) time.Duration {
	if !r.ok || !from.ok {
		return 0
	}
	return r.server - from.server + loadtest.Spent(from.db, r.db)
}

// scaleRun is one round of a request on one server.
type scaleRun struct {
	failed    bool
	perSecond float64
	p50, p99  time.Duration
	cpu       time.Duration // a request's, 0 when not read
}

// medianRun returns the median of each figure over the rounds that did not
// fail (each figure on its own: the median p99 need not be the median
// round's), and false when every round failed. With an even number of
// rounds it takes the higher of the two middle values.
func medianRun(runs []scaleRun) (scaleRun, bool) {
	var rate []float64
	var p50, p99, cpu []time.Duration
	for _, r := range runs {
		if r.failed {
			continue
		}
		rate, p50, p99 = append(rate, r.perSecond), append(p50, r.p50), append(p99, r.p99)
		if r.cpu > 0 {
			cpu = append(cpu, r.cpu)
		}
	}
	if len(rate) == 0 {
		return scaleRun{}, false
	}
	median := func(d []time.Duration) time.Duration {
		if len(d) == 0 {
			return 0
		}
		slices.Sort(d)
		return d[len(d)/2]
	}
	slices.Sort(rate)
	return scaleRun{perSecond: rate[len(rate)/2], p50: median(p50), p99: median(p99), cpu: median(cpu)}, true
}

// prepare reads what t's requests need from its registry: an addon's
// name, the cursor 10,000 addons deep, how many addons it lists.
func (t *scaleTarget) prepare(ctx context.Context, client *http.Client) error {
	first, _, err := listPage(ctx, client, t.base+"/v1/addons?limit=1")
	if err != nil || len(first) == 0 {
		return fmt.Errorf("read the registry at %s: %v (is it seeded?)", t.base, err)
	}
	if t.addons, err = countAddons(ctx, client, t.base); err != nil {
		return err
	}
	deep, err := matchCursor(ctx, client, t.base, "", 10_000)
	if err != nil {
		return err
	}
	t.paths = map[string]string{}
	for _, r := range scaleRequests {
		switch {
		case r.mode == loadtest.ModeSubmit && t.token == "":
		case r.path == "" && deep != "":
			t.paths[r.name] = "/v1/addons?limit=30&cursor=" + url.QueryEscape(deep)
		case r.at == atLast || r.at == atPrefixEnd || r.at == atTail:
			_, query, _ := strings.Cut(r.path, "?")
			depth := t.addons / len(services) // the names of a service
			if r.at != atPrefixEnd {
				n, err := countMatches(ctx, client, t.base, query)
				if err != nil {
					return err
				}
				depth = n - 1 - (n-1)%30
			}
			cursor := ""
			if depth > 0 {
				if cursor, err = matchCursor(ctx, client, t.base, query, depth); err != nil {
					return err
				}
			} else if r.at != atTail {
				continue // the first page: measured by another row
			}
			if r.at == atTail {
				if cursor, err = t.tail(ctx, client, r.name, r.path, cursor); err != nil {
					return err
				}
			}
			if cursor != "" {
				t.paths[r.name] = r.path + "&cursor=" + url.QueryEscape(cursor)
			}
		case r.path != "":
			t.paths[r.name] = strings.ReplaceAll(r.path, "{name}", url.PathEscape(first[0]))
		}
	}
	return nil
}

// tail returns the cursor that the page of path at cursor (the last page
// of its matches) leaves, "" when it leaves none; and says on standard
// error how many pages, each without a match, follow it before a page
// leaves no cursor.
func (t *scaleTarget) tail(ctx context.Context, client *http.Client, name, path, cursor string) (string, error) {
	u := t.base + path
	if cursor != "" {
		u += "&cursor=" + url.QueryEscape(cursor)
	}
	_, next, err := listPage(ctx, client, u)
	if err != nil || next == "" {
		return "", err
	}
	pages, found, c := 0, 0, next
	for c != "" {
		names, n, err := listPage(ctx, client, t.base+path+"&cursor="+url.QueryEscape(c))
		if err != nil {
			return "", err
		}
		pages, found, c = pages+1, found+len(names), n
	}
	fmt.Fprintf(os.Stderr, "%s: %s: %d more pages after the last page, %d addons on them\n", t.base, name, pages, found)
	return next, nil
}

// countMatches counts what GET /v1/addons?query lists, paging through it.
func countMatches(ctx context.Context, client *http.Client, base, query string) (int, error) {
	v, err := url.ParseQuery(query)
	if err != nil {
		return 0, err
	}
	v.Set("limit", strconv.Itoa(storage.MaxLimit))
	n := 0
	for {
		names, next, err := listPage(ctx, client, base+"/v1/addons?"+v.Encode())
		if err != nil {
			return 0, err
		}
		n += len(names)
		if next == "" {
			return n, nil
		}
		v.Set("cursor", next)
	}
}

// matchCursor returns the cursor that follows the first depth addons GET
// /v1/addons?query lists (query "" for the whole registry), paging by up to
// storage.MaxLimit, or "" when it lists fewer. The query's own limit is
// replaced while paging; the cursor carries the list's filters, not its
// limit.
func matchCursor(ctx context.Context, client *http.Client, base, query string, depth int) (string, error) {
	v, err := url.ParseQuery(query)
	if err != nil {
		return "", err
	}
	cursor, seen := "", 0
	for seen < depth {
		v.Set("limit", strconv.Itoa(min(storage.MaxLimit, depth-seen)))
		if cursor != "" {
			v.Set("cursor", cursor)
		}
		names, next, err := listPage(ctx, client, base+"/v1/addons?"+v.Encode())
		if err != nil {
			return "", err
		}
		seen += len(names)
		if next == "" {
			return "", nil
		}
		cursor = next
	}
	return cursor, nil
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
