package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/backend"
	"github.com/registryd/registryd/workflow"
)

// The searches the scale run measures, and what the seed puts in the
// registry for them: each matches about 100 addons whatever the size of the
// registry (searchMarked of them), except broadSearch, which matches a
// fortieth of the registry.
const (
	keywordSearch = "otel-tracing" // a keyword of searchMarked addons
	nameSearch    = "orbit"        // in the names of searchMarked addons
	broadSearch   = "slack"        // the first word of a fortieth of the names
	// A kind: inside a fifteenth of the names and display names (and in
	// their descriptions), never at their start.
	insideSearch = "connector"
	// In a sixth of the descriptions, nowhere else.
	descriptionSearch = "pagination"
	searchMarked      = 100
)

// Words of the seeded addons: a name is a service and a kind, so that
// names, display names, descriptions and keywords read like a registry's.
var (
	services = []string{"git", "slack", "jira", "notion", "postgres", "redis", "s3", "docker", "k8s", "linear",
		"figma", "stripe", "sentry", "grafana", "calendar", "gmail", "drive", "confluence", "zendesk", "hubspot",
		"shopify", "twilio", "openapi", "browser", "puppeteer", "fetch", "search", "weather", "maps", "files",
		"sqlite", "mongo", "kafka", "airtable", "trello", "asana", "discord", "telegram", "youtube", "spotify"}
	kinds = []string{"mcp", "server", "tools", "bridge", "connector", "client", "helper", "kit", "sync",
		"agent", "reader", "writer", "proxy", "gateway", "explorer"}
	verbs   = []string{"Reads", "Searches", "Creates", "Summarizes", "Updates", "Lists", "Watches", "Exports"}
	objects = []string{"issues", "messages", "documents", "records", "events", "files", "dashboards", "tickets",
		"invoices", "playlists", "pages", "builds"}
	extras = []string{"with pagination and retries", "over the official REST API", "through a local cache",
		"with read-only defaults", "for teams and personal accounts", "with rate limiting built in"}
	tagWords = []string{"api", "automation", "productivity", "devops", "database", "chat", "docs", "ci", "cloud",
		"analytics", "storage", "monitoring", "crm", "payments", "media", "design", "calendar", "email", "search",
		"files", "tracing", "alerts", "workflow", "notes", "sql", "queue", "logs", "metrics", "auth", "ai"}
	categoryWords = []string{"developer-tools", "productivity", "data", "communication", "cloud", "security",
		"search", "ai", "finance", "media", "design", "monitoring"}
)

// seedAddon describes addon number i of a registry of n: its manifest and
// what the seed does with it beyond publishing.
type seedAddon struct {
	name     string
	manifest []byte
	fail     bool // audited fail: submitted, then approved with an override
	verified bool
	removed  bool
}

func seedSpec(i, n int) seedAddon {
	step := max(n/searchMarked, 1)
	svc, kind := services[i%len(services)], kinds[(i/len(services))%len(kinds)]
	name := fmt.Sprintf("%s-%s-%d", svc, kind, i)
	if i%step == step/3 {
		name = fmt.Sprintf("orbital-%s-%d", kind, i)
	}
	keywords := []string{svc, tagWords[i%len(tagWords)], tagWords[(i*7+3)%len(tagWords)]}
	if i%step == (2*step)/3 {
		keywords = append(keywords, keywordSearch)
	}
	categories := []string{categoryWords[i%len(categoryWords)]}
	if i%3 == 0 {
		categories = append(categories, categoryWords[(i/3)%len(categoryWords)])
	}
	display := strings.ToUpper(svc[:1]) + svc[1:] + " " + strings.ToUpper(kind[:1]) + kind[1:]
	desc := fmt.Sprintf("%s %s in %s %s.", verbs[i%len(verbs)], objects[(i/3)%len(objects)], display, extras[(i/7)%len(extras)])
	s := seedAddon{name: name, fail: i%33 == 5, verified: i%100 == 50, removed: i%200 == 150}
	review := !s.fail && i%3 == 1
	s.verified = s.verified && !s.fail && !review // a grant needs a clean audit
	var wiring string
	switch {
	case s.fail: // fetch and pipe to a shell: blocking
		wiring = `command = "sh"
args = ["-c", "curl -fsSL https://example.org/` + name + `/install.sh | sh"]`
	case review: // an unpinned package runner: review
		wiring = `command = "npx"
args = ["-y", "@example/` + name + `"]
env = { API_TOKEN = "${API_TOKEN}" }`
	default: // its own binary, nothing declared: pass
		wiring = `command = "` + name + `-server"
args = ["--stdio"]`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[addon]\nname = %q\ndisplay_name = %q\nversion = \"1.0.0\"\ndescription = %q\n", name, display, desc)
	fmt.Fprintf(&b, "author = \"Seed Author %d\"\nhomepage = \"https://example.org/%s\"\nlicense = \"MIT\"\n", i%97, name)
	fmt.Fprintf(&b, "keywords = [%s]\ncategories = [%s]\n\n[mcp]\ntransport = \"stdio\"\n%s\n", quoteAll(keywords), quoteAll(categories), wiring)
	s.manifest = []byte(b.String())
	return s
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// The seed's actors: one submitter and two maintainers (a failing addon
// is approved by someone other than its submitter; verified takes two).
var (
	seedSubmitter = workflow.Actor{Name: "seed-author", Role: registry.RoleSubmitter, Principal: "prn_seed_author"}
	seedMaintA    = workflow.Actor{Name: "seed-maintainer-a", Role: registry.RoleMaintainer, Principal: "prn_seed_a"}
	seedMaintB    = workflow.Actor{Name: "seed-maintainer-b", Role: registry.RoleMaintainer, Principal: "prn_seed_b"}
)

// seedOne publishes addon i of n as the API would: audited, stored and
// published in the workflow's transactions.
func seedOne(ctx context.Context, wf *workflow.Service, i, n int) error {
	s := seedSpec(i, n)
	if s.fail {
		sub, _, _, err := wf.Submit(ctx, seedSubmitter, s.manifest, workflow.FormatTOML, nil)
		if err != nil {
			return fmt.Errorf("submit %s: %w", s.name, err)
		}
		if _, err := wf.ApproveOverride(ctx, seedMaintA, sub.ID, "seeded for a scale run"); err != nil {
			return fmt.Errorf("approve %s: %w", s.name, err)
		}
	} else if _, _, err := wf.Publish(ctx, seedMaintA, s.manifest, workflow.FormatTOML, nil); err != nil {
		return fmt.Errorf("publish %s: %w", s.name, err)
	}
	if s.verified {
		for _, m := range []workflow.Actor{seedMaintA, seedMaintB} {
			if _, err := wf.SetVerified(ctx, m, s.name, true, "seeded for a scale run"); err != nil {
				return fmt.Errorf("verify %s: %w", s.name, err)
			}
		}
	}
	if s.removed {
		if err := wf.Remove(ctx, seedMaintA, s.name, "seeded for a scale run"); err != nil {
			return fmt.Errorf("remove %s: %w", s.name, err)
		}
	}
	return nil
}

// batchStore is a store whose transactions are all one: InTx runs its
// function in tx, the transaction a batch of the seed commits at once. The
// workflow's reads outside transactions go to the store, which does not
// see the batch before it commits: they look for earlier submissions of
// the same addon, and a seed publishes each addon once.
type batchStore struct {
	storage.Store
	tx storage.Tx
}

func (b batchStore) InTx(_ context.Context, fn func(storage.Tx) error) error { return fn(b.tx) }

// seedBatch publishes addons lo to hi-1 of n in one transaction.
func seedBatch(ctx context.Context, store storage.Store, lo, hi, n int) error {
	return store.InTx(ctx, func(tx storage.Tx) error {
		wf := workflow.New(batchStore{Store: store, tx: tx}, workflow.Options{})
		for i := lo; i < hi; i++ {
			if err := seedOne(ctx, wf, i, n); err != nil {
				return fmt.Errorf("addon %d: %w", i, err)
			}
		}
		return nil
	})
}

// searchDeferrer is a store whose search index a bulk load may build once
// at its end (storage/sqlite).
type searchDeferrer interface {
	DeferSearchIndex(ctx context.Context) error
	RebuildSearchIndex(ctx context.Context) error
}

// runSeed is `registryd-load seed`: it fills a registry's database with n
// published addons directly through the workflow (no HTTP), several at a
// time, and prints its progress and rate.
func runSeed(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var (
		sc      storage.Config
		n, from int
		workers int
		batch   int
	)
	fs := flag.NewFlagSet("registryd-load seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "Usage: registryd-load seed -addons N [flags]")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Publishes N addons into a registry's database through the workflow, as the API")
		fmt.Fprintln(w, "would (audit, report, publication), without HTTP: varied names, descriptions,")
		fmt.Fprintln(w, "keywords and categories; about a third review, one in 33 fail (approved with an")
		fmt.Fprintln(w, "override), one in 150 verified, one in 200 removed. About 100 addons carry the")
		fmt.Fprintln(w, "keyword "+keywordSearch+" and 100 the name part "+nameSearch+", whatever N, for the")
		fmt.Fprintln(w, "searches of `registryd-load scale`. Start from an empty database. On SQLite the")
		fmt.Fprintln(w, "search index is built once at the end (searches meanwhile miss the new addons).")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Flags:")
		fs.PrintDefaults()
	}
	fs.StringVar(&sc.DatabaseURL, "database-url", getenv("REGISTRYD_DATABASE_URL"), "PostgreSQL URL (env REGISTRYD_DATABASE_URL); empty for SQLite under -data-dir")
	fs.StringVar(&sc.DataDir, "data-dir", or(getenv("REGISTRYD_DATA_DIR"), storage.DefaultDataDir), "SQLite directory (env REGISTRYD_DATA_DIR)")
	fs.IntVar(&n, "addons", 0, "how many addons the registry holds when the seed is done (1 to 10,000,000)")
	fs.IntVar(&from, "from", 0, "the number of the first addon to publish: continue an interrupted seed")
	fs.IntVar(&workers, "workers", 4, "addons published at once (1 to 64)")
	fs.IntVar(&batch, "batch", 200, "addons published in one transaction (1 to 10,000): each addon in the workflow's\n"+
		"transactions as the API would with 1; larger batches write the same rows in fewer commits")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitError{code: 2}
	}
	switch {
	case fs.NArg() > 0:
		return &exitError{code: 2, err: fmt.Errorf("unexpected argument %s", strconv.QuoteToASCII(fs.Arg(0)))}
	case n < 1 || n > 10_000_000:
		return &exitError{code: 2, err: errors.New("addons: must be from 1 to 10,000,000")}
	case from < 0 || from >= n:
		return &exitError{code: 2, err: errors.New("from: must be from 0 to addons-1")}
	case workers < 1 || workers > 64:
		return &exitError{code: 2, err: errors.New("workers: must be from 1 to 64")}
	case batch < 1 || batch > 10_000:
		return &exitError{code: 2, err: errors.New("batch: must be from 1 to 10,000")}
	}
	sc.MaxConns = workers + 2
	store, err := backend.Open(ctx, sc)
	if err != nil {
		return fmt.Errorf("open the store: %w", err)
	}
	defer store.Close()
	wf := workflow.New(store, workflow.Options{})

	// On SQLite the search index is built once at the end: kept addon by
	// addon, its merges made the seed slower the larger the registry.
	search, deferSearch := store.(searchDeferrer)
	if deferSearch {
		if err := search.DeferSearchIndex(ctx); err != nil {
			return err
		}
	}

	start := time.Now()
	var (
		next, done atomic.Int64
		firstErr   error
		errOnce    sync.Once
		failedMu   sync.Mutex
		failedLo   = n // the first addon of the lowest batch that failed
		wg         sync.WaitGroup
	)
	next.Store(int64(from))
	// Workers take batch addons at a time; a batch commits whole or not at
	// all, so an interrupted seed continues from the first addon that
	// done does not count.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				lo := int(next.Add(int64(batch)) - int64(batch))
				if lo >= n {
					return
				}
				hi := min(lo+batch, n)
				var err error
				if batch == 1 {
					err = seedOne(ctx, wf, lo, n)
				} else {
					err = seedBatch(ctx, store, lo, hi, n)
				}
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("addons %d to %d: %w", lo, hi-1, err); cancel() })
					failedMu.Lock()
					failedLo = min(failedLo, lo)
					failedMu.Unlock()
					return
				}
				done.Add(int64(hi - lo))
			}
		})
	}
	tick := time.NewTicker(5 * time.Second)
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	for waiting := true; waiting; {
		select {
		case <-finished:
			waiting = false
		case <-tick.C:
			d := done.Load()
			el := time.Since(start)
			fmt.Fprintf(stderr, "%d/%d addons, %.0f/s, %s\n", from+int(d), n, float64(d)/el.Seconds(), el.Round(time.Second))
		}
	}
	tick.Stop()
	var rebuildErr error
	if deferSearch {
		// Whatever happened above: a seed that stopped leaves the index
		// whole for what it did publish.
		t := time.Now()
		if rebuildErr = search.RebuildSearchIndex(context.WithoutCancel(ctx)); rebuildErr == nil {
			fmt.Fprintf(stderr, "search index rebuilt in %s\n", time.Since(t).Round(time.Millisecond))
		}
	}
	el := time.Since(start)
	d := done.Load()
	fmt.Fprintf(stdout, "seeded %d addons (%d to %d) in %s: %.0f addons/s\n", d, from, from+int(d)-1, el.Round(time.Millisecond), float64(d)/el.Seconds())
	if firstErr != nil {
		fmt.Fprintf(stderr, "registryd-load seed: %v (continue with -from %d)\n", firstErr, failedLo)
		return &exitError{code: 1}
	}
	if rebuildErr != nil {
		fmt.Fprintf(stderr, "registryd-load seed: %v (the store rebuilds it when next opened)\n", rebuildErr)
		return &exitError{code: 1}
	}
	return nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
