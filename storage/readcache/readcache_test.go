package readcache

import (
	"strconv"
	"testing"
)

// An answer computed from a read that began before a change must not be
// served once the change is known, nor while the tracker is off.
func TestStamps(t *testing.T) {
	tests := []struct {
		name    string
		between func(t *Tracker)
		addon   bool // the answer about addon "a" is still served
		all     bool // the answer about every addon is still served
	}{
		{"nothing happened", func(*Tracker) {}, true, true},
		{"the addon changed", func(t *Tracker) { t.Changed("a") }, false, false},
		{"another addon changed", func(t *Tracker) { t.Changed("b") }, true, false},
		{"everything changed", func(t *Tracker) { t.ChangedAll() }, false, false},
		{"the tracker went off", func(t *Tracker) { t.Reset(false) }, false, false},
		{"the tracker went off and on", func(t *Tracker) { t.Reset(false); t.Reset(true) }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker()
			tr.Reset(true)
			byAddon := NewCache[string, int](tr, 10)
			lists := NewCache[string, int](tr, 10)
			sa, sall := tr.Addon("a"), tr.All()
			tt.between(tr)
			byAddon.Put("a", 1, sa)
			lists.Put("first page", 1, sall)
			if _, ok := byAddon.Get("a"); ok != tt.addon {
				t.Errorf("answer about the addon served = %v, want %v", ok, tt.addon)
			}
			if _, ok := lists.Get("first page"); ok != tt.all {
				t.Errorf("answer about every addon served = %v, want %v", ok, tt.all)
			}
			// A change after the answer was kept invalidates it too.
			tr.ChangedAll()
			if _, ok := byAddon.Get("a"); ok {
				t.Error("answer served after a later change")
			}
		})
	}
}

func TestOffCachesNothing(t *testing.T) {
	tr := NewTracker()
	c := NewCache[string, int](tr, 10)
	c.Put("a", 1, tr.Addon("a"))
	if _, ok := c.Get("a"); ok {
		t.Fatal("a tracker never turned on let an answer be served")
	}
	tr.Reset(true)
	if _, ok := c.Get("a"); ok {
		t.Fatal("an answer kept while off is served once on")
	}
	c.Put("a", 1, tr.Addon("a"))
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("Get = %d, %v; want 1, true", v, ok)
	}
	if hits, misses := c.Lookups(); hits != 1 || misses != 2 {
		t.Errorf("lookups = %d hits, %d misses; want 1 and 2", hits, misses)
	}
}

// Keys chosen by clients (labels, cursors) cannot grow a cache past its
// size, and each new key evicts one entry, not all of them.
func TestBounded(t *testing.T) {
	tr := NewTracker()
	tr.Reset(true)
	const size = 64
	c := NewCache[string, int](tr, size)
	for i := range 100 * size {
		k := strconv.Itoa(i)
		c.Put(k, i, tr.Addon(k))
		if n := c.Len(); n > size {
			t.Fatalf("after %d puts the cache holds %d entries, more than its size %d", i+1, n, size)
		}
	}
	if n := c.Len(); n != size {
		t.Errorf("cache holds %d entries, want %d", n, size)
	}
	// Replacing a kept key evicts nothing.
	var kept string
	for i := 100*size - 1; ; i-- {
		if _, ok := c.Get(strconv.Itoa(i)); ok {
			kept = strconv.Itoa(i)
			break
		}
	}
	c.Put(kept, -1, tr.Addon(kept))
	if n := c.Len(); n != size {
		t.Errorf("after replacing a key the cache holds %d entries, want %d", n, size)
	}
	// One new key evicts one entry.
	valid := 0
	for i := range 100 * size {
		if _, ok := c.Get(strconv.Itoa(i)); ok {
			valid++
		}
	}
	c.Put("new", 0, tr.Addon("new"))
	after := 0
	for i := range 100 * size {
		if _, ok := c.Get(strconv.Itoa(i)); ok {
			after++
		}
	}
	if after != valid-1 {
		t.Errorf("a new key left %d of %d entries, want %d", after, valid, valid-1)
	}
}

// A proof is kept with a stamp over its addon and the log: any append or
// checkpoint (on any addon) and any change to its addon invalidate it, and
// nothing is kept while the log's changes are not heard; the log's
// changes leave answers that do not cover it alone.
func TestLogStamps(t *testing.T) {
	tests := []struct {
		name     string
		between  func(t *Tracker)
		proof    bool // the proof of addon "a" is still served
		byDigest bool // the proof found by a digest (any addon) is still served
		report   bool // the report of "a" (not covering the log) is still served
	}{
		{"nothing happened", func(*Tracker) {}, true, true, true},
		{"the log changed", func(t *Tracker) { t.LogChanged() }, false, false, true},
		{"the addon changed", func(t *Tracker) { t.Changed("a") }, false, false, false},
		{"another addon changed", func(t *Tracker) { t.Changed("b") }, true, false, true},
		{"everything changed", func(t *Tracker) { t.ChangedAll() }, false, false, false},
		{"the log went unheard", func(t *Tracker) { t.HearLog(false) }, false, false, false},
		{"the log went unheard and heard", func(t *Tracker) { t.HearLog(false); t.HearLog(true) }, false, false, false},
		{"the tracker went off and on", func(t *Tracker) { t.Reset(false); t.Reset(true) }, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker()
			tr.HearLog(true)
			tr.Reset(true)
			proofs := NewCache[string, int](tr, 10)
			reports := NewCache[string, int](tr, 10)
			sp, sd, sr := tr.WithLog(tr.Addon("a")), tr.WithLog(tr.All()), tr.Addon("a")
			tt.between(tr)
			proofs.Put("a", 1, sp)
			proofs.Put("digest", 1, sd)
			reports.Put("a", 1, sr)
			if _, ok := proofs.Get("a"); ok != tt.proof {
				t.Errorf("proof of the addon served = %v, want %v", ok, tt.proof)
			}
			if _, ok := proofs.Get("digest"); ok != tt.byDigest {
				t.Errorf("proof by digest served = %v, want %v", ok, tt.byDigest)
			}
			if _, ok := reports.Get("a"); ok != tt.report {
				t.Errorf("report served = %v, want %v", ok, tt.report)
			}
			// A change to the log after the proof was kept invalidates it.
			tr.LogChanged()
			if _, ok := proofs.Get("a"); ok {
				t.Error("proof served after a later change to the log")
			}
		})
	}
}

// A tracker that hears of every change but the log's keeps no proof.
func TestLogUnheardCachesNoProof(t *testing.T) {
	tr := NewTracker()
	tr.Reset(true)
	c := NewCache[string, int](tr, 10)
	c.Put("a", 1, tr.WithLog(tr.Addon("a")))
	if _, ok := c.Get("a"); ok {
		t.Fatal("a proof was kept though the log's changes are not heard")
	}
	c.Put("r", 1, tr.Addon("r"))
	if _, ok := c.Get("r"); !ok {
		t.Fatal("an answer not covering the log was not kept")
	}
}
