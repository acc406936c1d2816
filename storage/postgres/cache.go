package postgres

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/registryd/registryd/registry"
)

// notifyChannel is the channel migration 00004's triggers notify with an
// addon's name whenever something PublishedReport reads for it changes.
const notifyChannel = "registryd_reports"

// maxCachedReports bounds the cache; past it the cache starts over.
const maxCachedReports = 4096

type cacheKey struct{ addon, version string }

var errNoTriggers = errors.New("the report notification triggers are missing (run registryd migrate)")

// reportCache keeps published reports in memory, so that the install
// clients' hot path (a report GET and its revalidation) costs no database
// round trip. It is only ever on while a connection LISTENs to
// notifyChannel: every change to an addon's reports, versions or row
// notifies it at commit, whichever replica made the change, and the
// addon's entries are dropped then. While the listener is down the cache is
// off and every read goes to the database.
//
// A read that misses takes a ticket before querying and stores its result
// only if no notification for the addon (and no restart of the listener)
// came in between, so a report read just before a change cannot outlive
// the change's notification.
type reportCache struct {
	hits, misses atomic.Uint64 // get's answers, for the metrics

	mu      sync.Mutex
	on      bool
	epoch   uint64            // bumped whenever the cache is cleared
	gens    map[string]uint64 // per addon: bumped by each notification
	entries map[cacheKey]registry.Report
}

type ticket struct {
	ok         bool
	epoch, gen uint64
}

func newReportCache() *reportCache {
	return &reportCache{gens: map[string]uint64{}, entries: map[cacheKey]registry.Report{}}
}

func (c *reportCache) get(addon, version string) (registry.Report, bool) {
	c.mu.Lock()
	r, ok := c.entries[cacheKey{addon, version}]
	ok = ok && c.on
	c.mu.Unlock()
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return r, ok
}

// lookups returns how many gets found an entry and how many did not (the
// cache being off counts as a miss).
func (c *reportCache) lookups() (hits, misses uint64) { return c.hits.Load(), c.misses.Load() }

// ticket is taken before a database read whose result may be cached.
func (c *reportCache) ticket(addon string) ticket {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ticket{ok: c.on, epoch: c.epoch, gen: c.gens[addon]}
}

// put caches r unless the addon changed, or the cache was cleared, since t
// was taken.
func (c *reportCache) put(addon, version string, r registry.Report, t ticket) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !t.ok || !c.on || t.epoch != c.epoch || t.gen != c.gens[addon] {
		return
	}
	if len(c.entries) >= maxCachedReports {
		c.entries = map[cacheKey]registry.Report{}
	}
	c.entries[cacheKey{addon, version}] = r
}

// invalidate drops an addon's entries.
func (c *reportCache) invalidate(addon string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gens[addon]++
	for k := range c.entries {
		if k.addon == addon {
			delete(c.entries, k)
		}
	}
}

// clear drops every entry and outstanding ticket, keeping the cache on or
// off. The store calls it after each of its own transactions, so that this
// process reads its own writes at once rather than when their notification
// arrives.
func (c *reportCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.gens = map[string]uint64{}
	c.entries = map[cacheKey]registry.Report{}
}

// reset clears the cache and turns it on or off.
func (c *reportCache) reset(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = on
	c.epoch++
	c.gens = map[string]uint64{}
	c.entries = map[cacheKey]registry.Report{}
}

// listen keeps a connection LISTENing to notifyChannel until ctx ends,
// turning the cache on while it does and off while it cannot, and
// reconnecting with a bounded backoff.
func (c *reportCache) listen(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := c.listenOnce(ctx, pool)
		c.reset(false)
		if ctx.Err() != nil {
			return
		}
		log.Warn("report cache off: the notification listener failed; reports are read from the database until it reconnects", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (c *reportCache) listenOnce(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	// A database not yet migrated to 00004 (a replica started with
	// --skip-migrate) sends no notifications: caching there would serve
	// stale reports.
	var triggers int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_trigger WHERE tgname IN ('reports_notify', 'addons_notify', 'versions_notify') AND NOT tgisinternal`).Scan(&triggers); err != nil {
		return err
	}
	if triggers != 3 {
		return errNoTriggers
	}
	// Only now that every later change will be heard may entries be kept.
	c.reset(true)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		c.invalidate(n.Payload)
	}
}

// PublishedReport is the reader's PublishedReport through the report cache.
func (s *Store) PublishedReport(ctx context.Context, addon, version string) (registry.Report, error) {
	if r, ok := s.cache.get(addon, version); ok {
		return r, nil
	}
	t := s.cache.ticket(addon)
	r, err := s.Store.PublishedReport(ctx, addon, version)
	if err != nil {
		return r, err
	}
	s.cache.put(addon, version, r, t)
	return r, nil
}

// PublishedReportDigest answers from the report cache when it can.
func (s *Store) PublishedReportDigest(ctx context.Context, addon, version string) (string, error) {
	if r, ok := s.cache.get(addon, version); ok {
		return r.SHA256, nil
	}
	return s.Store.PublishedReportDigest(ctx, addon, version)
}
