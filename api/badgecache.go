package api

import (
	"sync"

	"github.com/registryd/registryd/badge"
	"github.com/registryd/registryd/registry"
)

// maxCachedBadges bounds the rendered-badge cache; past it the cache
// starts over. Labels are free text, so a client can ask for as many
// distinct badges as it likes: the bound keeps that from growing memory.
const maxCachedBadges = 1024

// badgeKey is everything a rendered badge depends on.
type badgeKey struct {
	tier     registry.Tier
	verdict  registry.Verdict
	found    bool
	label    string
	style    badge.Style
	endpoint bool
}

// renderedBadge is a badge's bytes and their strong ETag.
type renderedBadge struct {
	body []byte
	etag string
}

// badgeCache keeps rendered badges: rendering and hashing cost more than
// the rest of a badge request once the addon is read, and a handful of
// (tier, verdict, label, style) combinations covers nearly every request.
// It is safe for concurrent use.
type badgeCache struct {
	mu      sync.Mutex
	entries map[badgeKey]renderedBadge
}

func newBadgeCache() *badgeCache {
	return &badgeCache{entries: make(map[badgeKey]renderedBadge)}
}

// get returns the badge of k, rendering it on a miss; hit reports whether
// it was cached. Callers must not modify the bytes.
func (c *badgeCache) get(k badgeKey) (rb renderedBadge, hit bool) {
	c.mu.Lock()
	rb, hit = c.entries[k]
	c.mu.Unlock()
	if hit {
		return rb, true
	}
	b := badge.ForAddon(k.tier, k.verdict, k.found, k.label)
	if k.endpoint {
		rb.body = badge.Endpoint(b)
	} else {
		rb.body = badge.Render(b, k.style)
	}
	rb.etag = badge.ETag(rb.body)
	c.mu.Lock()
	if len(c.entries) >= maxCachedBadges {
		clear(c.entries)
	}
	c.entries[k] = rb
	c.mu.Unlock()
	return rb, false
}
