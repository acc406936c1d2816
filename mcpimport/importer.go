package mcpimport

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/registryd/registryd/addon"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/safetext"
	"github.com/registryd/registryd/serverjson"
	"github.com/registryd/registryd/workflow"
)

// Workflow is the part of the review workflow an import uses; the concrete
// *workflow.Service satisfies it.
type Workflow interface {
	Import(ctx context.Context, a workflow.Actor, source registry.Source, items []workflow.ImportItem) ([]workflow.ImportResult, error)
	RecordSync(ctx context.Context, url string, mark time.Time) error
}

// Marks reads the import's high-water marks; a storage.Reader satisfies
// it.
type Marks interface {
	UpstreamSync(ctx context.Context, url string) (registry.UpstreamSync, error)
}

// Importer imports an MCP Registry's servers as pending submissions.
type Importer struct {
	Client   *Client
	Workflow Workflow
	Marks    Marks
	// Actor is who the submissions are recorded as submitted by; its Name
	// defaults to "import:" and the upstream's host.
	Actor workflow.Actor
	// Progress, when set, is called after every page (from the goroutine
	// that called Run).
	Progress func(Progress)
	// Now is the clock for the progress's rate; nil is time.Now.
	Now func() time.Time
	// Workers is how many transactions import one page at once, each a
	// share of its servers chosen by name (so that no two touch one
	// addon); zero is DefaultWorkers.
	Workers int
}

// DefaultWorkers is the number of transactions a page is imported in at
// once: the import waits on the database more than it computes, and two
// overlap those waits on a machine of two cores.
const DefaultWorkers = 2

// Options choose what a run imports.
type Options struct {
	// Search imports only the servers the upstream's search finds. A run
	// with a search does not move the high-water mark, which stands for
	// the whole upstream.
	Search string
	// Since imports the servers updated since this instant; nil asks since
	// the high-water mark of the last complete run (everything on the
	// first).
	Since *time.Time
}

// Progress counts what a run has done so far.
type Progress struct {
	Seen     int           // server versions read from the upstream
	Created  int           // new pending submissions
	Existing int           // imported before: nothing new
	Skipped  int           // not imported (see Summary.Skips)
	Elapsed  time.Duration // since the run began
}

// Rate returns the server versions read per second so far.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Seen) / p.Elapsed.Seconds()
}

// Skip is one server version that was not imported, and why. Name and
// Version are safe to print (a name that is not a valid server name, or a
// version with unsafe characters, is replaced by a placeholder), and so is
// Reason.
type Skip struct {
	Name    string
	Version string
	Reason  string
}

// Summary is what a run did.
type Summary struct {
	Progress
	Skips []Skip
	// Since is the updated_since the run asked for (nil for everything).
	Since *time.Time
	// HighWater is the latest update time the run saw (zero when none).
	HighWater time.Time
}

// maxSkipsKept bounds Summary.Skips; the count goes on.
const maxSkipsKept = 1000

// Run pages through the upstream's servers, converts each and submits them
// page by page (one transaction per page). A document that does not decode
// or convert, a deleted server and a manifest registryd refuses are
// skipped and reported, never fatal. A complete run without a search
// records the latest update time it saw as the next run's high-water mark.
// Run fails on a failure of the upstream that retries did not cure, or of
// the database; what earlier pages submitted stays, and the next run takes
// it as imported.
func (im *Importer) Run(ctx context.Context, opts Options) (Summary, error) {
	now := im.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	upstream := strings.TrimRight(im.Client.BaseURL, "/")
	actor := im.Actor
	if actor.Name == "" {
		actor.Name = "import:" + hostOf(upstream)
	}
	sum := Summary{Since: opts.Since}
	if sum.Since == nil {
		mark, err := im.Marks.UpstreamSync(ctx, upstream)
		switch {
		case err == nil:
			hw := mark.HighWater
			sum.Since = &hw
		case !errors.Is(err, registry.ErrNotFound):
			return sum, fmt.Errorf("read the high-water mark: %w", err)
		}
	}
	q := Query{Search: opts.Search, UpdatedSince: sum.Since}

	// Pages are fetched one ahead of the one being imported.
	type fetched struct {
		page Page
		err  error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan fetched, 1)
	go func() {
		defer close(pages)
		cursor := ""
		for {
			p, err := im.Client.Page(ctx, q, cursor)
			select {
			case pages <- fetched{p, err}:
			case <-ctx.Done():
				return
			}
			if err != nil || p.Next == "" || len(p.Entries) == 0 {
				return
			}
			if p.Next == cursor {
				select {
				case pages <- fetched{err: errors.New("list servers: the upstream returned the same cursor twice")}:
				case <-ctx.Done():
				}
				return
			}
			cursor = p.Next
		}
	}()
	for f := range pages {
		if f.err != nil {
			sum.Elapsed = now().Sub(start)
			return sum, f.err
		}
		if err := im.importPage(ctx, upstream, actor, f.page, &sum); err != nil {
			sum.Elapsed = now().Sub(start)
			return sum, err
		}
		sum.Elapsed = now().Sub(start)
		if im.Progress != nil {
			im.Progress(sum.Progress)
		}
	}
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	if opts.Search == "" && !sum.HighWater.IsZero() {
		if err := im.Workflow.RecordSync(ctx, upstream, sum.HighWater); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// importPage converts one page and submits what converts, in up to
// Workers transactions at once, each a share of the page's servers by
// name.
func (im *Importer) importPage(ctx context.Context, upstream string, actor workflow.Actor, p Page, sum *Summary) error {
	workers := im.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}
	type shard struct {
		items   []workflow.ImportItem
		origins []Skip
		res     []workflow.ImportResult
		err     error
	}
	shards := make([]shard, workers)
	for _, e := range p.Entries {
		sum.Seen++
		if e.UpdatedAt.After(sum.HighWater) {
			sum.HighWater = e.UpdatedAt
		}
		at := Skip{Name: printableName(e.Server.Name), Version: printableVersion(e.Server.Version)}
		switch {
		case e.Err != nil:
			sum.skip(at, e.Err.Error())
			continue
		case e.Status == "deleted":
			sum.skip(at, "deleted upstream")
			continue
		}
		m, err := serverjson.ToManifest(e.Server)
		if err != nil {
			sum.skip(at, err.Error())
			continue
		}
		sh := &shards[shardOf(e.Server.Name, workers)]
		sh.items = append(sh.items, workflow.ImportItem{
			Manifest: addon.EncodeJSON(m),
			Upstream: registry.UpstreamOrigin{URL: upstream, Name: e.Server.Name, Version: e.Server.Version},
		})
		sh.origins = append(sh.origins, at)
	}
	var wg sync.WaitGroup
	for i := range shards {
		if len(shards[i].items) == 0 {
			continue
		}
		wg.Add(1)
		go func(sh *shard) {
			defer wg.Done()
			sh.res, sh.err = im.Workflow.Import(ctx, actor, registry.SourceMCPRegistry, sh.items)
		}(&shards[i])
	}
	wg.Wait()
	for _, sh := range shards {
		if sh.err != nil {
			return sh.err
		}
		for i, r := range sh.res {
			switch {
			case r.Err != nil:
				sum.skip(sh.origins[i], reason(r.Err))
			case r.Created:
				sum.Created++
			default:
				sum.Existing++
			}
		}
	}
	return nil
}

// shardOf picks the share of a page a server name is imported in: the same
// for every version of one server.
func shardOf(name string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32() % uint32(n))
}

func (s *Summary) skip(at Skip, why string) {
	s.Skipped++
	if len(s.Skips) < maxSkipsKept {
		at.Reason = why
		s.Skips = append(s.Skips, at)
	}
}

// reason is the printable reason of a refusal: a validation error's fields
// on one line, else the error's text (the workflow's refusals are safe to
// print).
func reason(err error) string {
	var ve *registry.ValidationError
	if errors.As(err, &ve) {
		parts := make([]string, 0, len(ve.Fields))
		for _, f := range ve.Fields {
			parts = append(parts, f.String())
		}
		return "refused: " + strings.Join(parts, "; ")
	}
	return safetext.Replace(err.Error(), 0, '?')
}

func printableName(s string) string {
	if serverjson.ValidName(s) {
		return s
	}
	return "(not a server name)"
}

func printableVersion(s string) string {
	if len(s) <= 64 && safetext.GraphicASCII(s) {
		return s
	}
	return "(unprintable version)"
}

// hostOf returns the host of an upstream URL, or "upstream" when it has
// none fit to name a submitter.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || len(p.Host) > 253 || !safetext.GraphicASCII(p.Host) {
		return "upstream"
	}
	return p.Host
}
