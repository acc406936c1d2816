// Package readcache keeps what registryd serves most (published reports,
// badges, the first pages of the registry) in memory, and knows when it
// must stop serving it.
//
// A Tracker is told of every change to what the published reads return:
// per addon, when the database names the addon (PostgreSQL's notifications),
// or all at once (a transaction of this process, a write SQLite saw another
// connection commit, a restarted listener). A reader takes a Stamp before
// it reads the database, computes its answer, and keeps the answer with the
// stamp in a Cache; the answer is served again only while the stamp is
// Valid. A change that commits after the stamp was taken therefore
// invalidates the answer even when the read saw the old data, and a change
// that commits before was seen by the read. Nothing is ever deleted to
// invalidate it: a stale entry is only never served again, and is replaced
// or evicted later.
//
// The transparency log (the checkpoints signed of it, whose tree every
// proof is of) is tracked apart: a checkpoint signed after an append for
// one addon changes the proof of every other, but not their reports,
// badges or lists. A stamp taken WithLog is valid only while the log has
// not changed either, and only while the store hears of the log's changes
// (HearLog).
//
// The tracker is off until its store turns it on (Reset(true)), when the
// store is sure to hear of every later change; while off, no stamp is valid
// and every read goes to the database.
package readcache

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// slots is how many per-addon change counters a Tracker keeps. Addons
// share them by hash, so the tracker's memory does not grow with the
// registry; a change to one addon invalidates the few others that share
// its slot, which costs them one database read each.
const slots = 4096

// Tracker counts changes to the published reads. It is safe for concurrent
// use; its zero value is not usable: use NewTracker.
type Tracker struct {
	on    atomic.Bool
	logOn atomic.Bool   // the log's changes are heard too (HearLog)
	epoch atomic.Uint64 // bumped when everything changes (and by Reset)
	all   atomic.Uint64 // bumped by every change, for answers about all addons
	log   atomic.Uint64 // bumped by every change to the log
	seed  maphash.Seed
	gens  [slots]atomic.Uint64
}

// NewTracker returns a tracker that is off.
func NewTracker() *Tracker { return &Tracker{seed: maphash.MakeSeed()} }

// Stamp is what a Tracker had counted when a read began. The zero Stamp is
// never valid.
type Stamp struct {
	on         bool
	slot       int // -1 for a stamp over every addon
	epoch, gen uint64
	withLog    bool // the stamp covers the log too, as it was at log
	log        uint64
}

func (t *Tracker) slot(addon string) int {
	return int(maphash.String(t.seed, addon) % slots)
}

// Addon returns the stamp of what the published reads return for addon.
// Take it before reading the database.
func (t *Tracker) Addon(addon string) Stamp {
	i := t.slot(addon)
	return Stamp{on: t.on.Load(), slot: i, epoch: t.epoch.Load(), gen: t.gens[i].Load()}
}

// All returns the stamp of what the published reads return for every
// addon (a list). Take it before reading the database.
func (t *Tracker) All() Stamp {
	return Stamp{on: t.on.Load(), slot: -1, epoch: t.epoch.Load(), gen: t.all.Load()}
}

// WithLog returns s covering the transparency log as well: an answer
// computed from the log (an inclusion proof) is served again only while
// neither what s covers nor the log has changed. Take it before reading
// the database, as s. While the tracker does not hear of the log's
// changes, the stamp is never valid.
func (t *Tracker) WithLog(s Stamp) Stamp {
	s.withLog, s.log = true, t.log.Load()
	s.on = s.on && t.logOn.Load()
	return s
}

// Valid reports whether nothing s covers has changed since it was taken,
// and the tracker has been on all along.
func (t *Tracker) Valid(s Stamp) bool {
	if !s.on || !t.on.Load() || t.epoch.Load() != s.epoch {
		return false
	}
	if s.withLog && (!t.logOn.Load() || t.log.Load() != s.log) {
		return false
	}
	if s.slot < 0 {
		return t.all.Load() == s.gen
	}
	return t.gens[s.slot].Load() == s.gen
}

// Changed records a change to what the published reads return for addon.
func (t *Tracker) Changed(addon string) {
	t.gens[t.slot(addon)].Add(1)
	t.all.Add(1)
}

// ChangedAll records a change that may concern any addon, and the log.
func (t *Tracker) ChangedAll() { t.epoch.Add(1) }

// LogChanged records a change to the transparency log: a checkpoint
// signed.
func (t *Tracker) LogChanged() { t.log.Add(1) }

// HearLog tells whether the store hears of every change to the log (a
// PostgreSQL database migrated to send its notifications; SQLite, whose
// data version moves with any commit). Stamps taken WithLog are valid only
// while it does; every stamp taken before the call is invalid. A store
// calls it before Reset(true).
func (t *Tracker) HearLog(on bool) {
	t.logOn.Store(on)
	t.epoch.Add(1)
}

// Reset turns the tracker on or off; every stamp taken before is invalid.
// Whether the log is heard (HearLog) is left as it is.
func (t *Tracker) Reset(on bool) {
	t.on.Store(on)
	t.epoch.Add(1)
}

// On reports whether the tracker is on.
func (t *Tracker) On() bool { return t.on.Load() }

// Cache keeps up to a fixed number of answers, each with the stamp taken
// before it was computed, and serves an answer only while its stamp is
// valid. Past its size it evicts an arbitrary entry for each new one, so
// that clients asking for ever new keys (free-text labels, cursors) keep
// its memory bounded and cannot flush the entries others use all at once.
// It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	t   *Tracker
	max int

	hits, misses atomic.Uint64

	mu      sync.Mutex
	entries map[K]entry[V]
}

type entry[V any] struct {
	v V
	s Stamp
}

// NewCache returns a cache of at most size answers (at least 1) whose stamps
// come from t.
func NewCache[K comparable, V any](t *Tracker, size int) *Cache[K, V] {
	return &Cache[K, V]{t: t, max: max(size, 1), entries: make(map[K]entry[V])}
}

// Get returns the answer kept for k if its stamp is still valid.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	e, ok := c.entries[k]
	c.mu.Unlock()
	if ok && c.t.Valid(e.s) {
		c.hits.Add(1)
		return e.v, true
	}
	c.misses.Add(1)
	var zero V
	return zero, false
}

// Put keeps v as the answer for k, computed from reads that began after s
// was taken. It keeps nothing when s is no longer valid.
func (c *Cache[K, V]) Put(k K, v V, s Stamp) {
	if !c.t.Valid(s) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.max {
		for old := range c.entries {
			delete(c.entries, old)
			break
		}
	}
	c.entries[k] = entry[V]{v: v, s: s}
}

// Len returns how many entries the cache holds, valid or not.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Lookups returns how many Gets found a valid answer (hits) and how many
// did not (misses).
func (c *Cache[K, V]) Lookups() (hits, misses uint64) { return c.hits.Load(), c.misses.Load() }
