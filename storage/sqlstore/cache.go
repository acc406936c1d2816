package sqlstore

import (
	"context"

	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage"
	"github.com/registryd/registryd/storage/readcache"
)

// maxCachedReports bounds the report cache, and the envelope cache alike.
// A report is a few kilobytes and its envelope (assembled when read, the
// report again in base64 and the signatures) a third more, so each holds a
// few tens of megabytes at most.
const maxCachedReports = 4096

type reportKey struct{ addon, version string }

// cache is the store's in-memory side: the tracker that its database
// package keeps informed of changes, and the published reports and their
// signed envelopes read through it.
type cache struct {
	// beforeDrop, when set, runs at the end of each transaction, just
	// before every kept answer is dropped (see Store.AfterTx).
	beforeDrop func()
	changes    *readcache.Tracker
	reports    *readcache.Cache[reportKey, registry.Report]
	envelopes  *readcache.Cache[reportKey, storage.Envelope]
}

func newCache() cache {
	t := readcache.NewTracker()
	return cache{changes: t,
		reports:   readcache.NewCache[reportKey, registry.Report](t, maxCachedReports),
		envelopes: readcache.NewCache[reportKey, storage.Envelope](t, maxCachedReports)}
}

// Changes returns the tracker of what the published reads return. The
// database package turns it on once it will hear of every change made
// outside this store's transactions (PostgreSQL's notifications, SQLite's
// data version) and tells it of each; the store itself records every
// transaction it runs. Answers computed from the published reads (badges,
// lists) may be kept against its stamps.
func (s *Store) Changes() *readcache.Tracker { return s.cache.changes }

// AfterTx has f run at the end of each of the store's transactions,
// committed or not, just before every answer kept in memory is dropped:
// for a database package that must take note of its own process's
// commits (SQLite's data version). Call it before the store is used.
func (s *Store) AfterTx(f func()) { s.cache.beforeDrop = f }

// txEnded drops every answer kept against the store's changes, a
// transaction of this process having ended.
func (s *Store) txEnded() {
	if s.cache.beforeDrop != nil {
		s.cache.beforeDrop()
	}
	s.cache.changes.ChangedAll()
}

// PublishedReport is the reader's PublishedReport, answered from memory
// while nothing that it returns has changed.
func (s *Store) PublishedReport(ctx context.Context, addon, version string) (registry.Report, error) {
	k := reportKey{addon, version}
	if r, ok := s.cache.reports.Get(k); ok {
		return r, nil
	}
	st := s.cache.changes.Addon(addon)
	r, err := s.reader.PublishedReport(ctx, addon, version)
	if err != nil {
		return r, err
	}
	s.cache.reports.Put(k, r, st)
	return r, nil
}

// PublishedReportDigest answers from the report cache when it can, and
// otherwise reads the digest alone.
func (s *Store) PublishedReportDigest(ctx context.Context, addon, version string) (string, error) {
	if r, ok := s.cache.reports.Get(reportKey{addon, version}); ok {
		return r.SHA256, nil
	}
	return s.reader.PublishedReportDigest(ctx, addon, version)
}

// PublishedEnvelope is the reader's PublishedEnvelope, answered from
// memory while nothing that it returns has changed.
func (s *Store) PublishedEnvelope(ctx context.Context, addon, version string) (storage.Envelope, error) {
	k := reportKey{addon, version}
	if e, ok := s.cache.envelopes.Get(k); ok {
		return e, nil
	}
	st := s.cache.changes.Addon(addon)
	e, err := s.reader.PublishedEnvelope(ctx, addon, version)
	if err != nil {
		return e, err
	}
	s.cache.envelopes.Put(k, e, st)
	return e, nil
}

// PublishedEnvelopeDigest answers from the envelope cache: the digest is
// of the envelope assembled from the report, which PublishedEnvelope
// assembles and keeps.
func (s *Store) PublishedEnvelopeDigest(ctx context.Context, addon, version string) (string, error) {
	e, err := s.PublishedEnvelope(ctx, addon, version)
	return e.SHA256, err
}

// ReportCacheLookups returns how many published-report reads the cache
// answered (hits) and how many went to the database (misses) since the
// store opened.
func (s *Store) ReportCacheLookups() (hits, misses uint64) { return s.cache.reports.Lookups() }
