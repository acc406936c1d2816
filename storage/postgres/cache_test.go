package postgres

import (
	"testing"

	"github.com/registryd/registryd/registry"
)

// A read that started before a change must not store what it read once
// the change's notification, or a transaction of this process, came in.
func TestReportCacheTickets(t *testing.T) {
	r1 := registry.Report{SubmissionID: "sub_1", SHA256: "one"}
	tests := []struct {
		name    string
		between func(c *reportCache)
		stored  bool
	}{
		{"nothing happened", func(c *reportCache) {}, true},
		{"the addon changed", func(c *reportCache) { c.invalidate("a") }, false},
		{"another addon changed", func(c *reportCache) { c.invalidate("b") }, true},
		{"a local transaction", func(c *reportCache) { c.clear() }, false},
		{"the listener restarted", func(c *reportCache) { c.reset(false); c.reset(true) }, false},
		{"the listener stopped", func(c *reportCache) { c.reset(false) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newReportCache()
			c.reset(true)
			tk := c.ticket("a")
			tt.between(c)
			c.put("a", "", r1, tk)
			_, ok := c.get("a", "")
			if ok != tt.stored {
				t.Errorf("cached = %v, want %v", ok, tt.stored)
			}
		})
	}
}

func TestReportCacheOffCachesNothing(t *testing.T) {
	c := newReportCache()
	c.put("a", "", registry.Report{}, c.ticket("a"))
	if _, ok := c.get("a", ""); ok {
		t.Fatal("a cache that never listened served an entry")
	}
	c.reset(true)
	c.put("a", "1.0.0", registry.Report{SHA256: "x"}, c.ticket("a"))
	c.put("b", "1.0.0", registry.Report{SHA256: "y"}, c.ticket("b"))
	c.invalidate("a")
	if _, ok := c.get("a", "1.0.0"); ok {
		t.Error("invalidated entry still served")
	}
	if _, ok := c.get("b", "1.0.0"); !ok {
		t.Error("another addon's entry was dropped")
	}
	c.reset(false)
	if _, ok := c.get("b", "1.0.0"); ok {
		t.Error("entry served while the cache is off")
	}
	// The metrics' count: one entry served, three reads sent to the
	// database (the cache off counts as a miss).
	if hits, misses := c.lookups(); hits != 1 || misses != 3 {
		t.Errorf("lookups = %d hits, %d misses; want 1 and 3", hits, misses)
	}
}
