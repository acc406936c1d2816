package api

import (
	"strconv"

	"github.com/registryd/registryd/badge"
	"github.com/registryd/registryd/registry"
	"github.com/registryd/registryd/storage/readcache"
)

// The sizes of the API's caches of answers. Labels, cursors and search
// text are the client's choice, so a client can ask for as many distinct
// answers as it likes: the bounds keep that from growing memory (a badge
// is at most a few kilobytes, a page of the registry at most a few hundred).
const (
	maxCachedBadges = 4096
	maxCachedLists  = 256
	// A proof is at most 63 hashes, the leaf and the checkpoint: about
	// 4 KiB.
	maxCachedProofs = 4096
)

// badgeKey is the request a badge answers: everything else it depends on
// is the addon's, which the stamp kept with it covers.
type badgeKey struct {
	name     string
	label    string
	style    badge.Style
	endpoint bool
}

// renderedBadge is a badge's bytes and their strong ETag, with the values
// of its ETag and Content-Length headers made once for every answer that
// serves it (they are never modified in place).
type renderedBadge struct {
	body          []byte
	etag          string
	etags, length []string
}

// renderBadge draws the badge of an addon in the given state.
func renderBadge(tier registry.Tier, verdict registry.Verdict, found bool, k badgeKey) renderedBadge {
	b := badge.ForAddon(tier, verdict, found, k.label)
	var rb renderedBadge
	if k.endpoint {
		rb.body = badge.Endpoint(b)
	} else {
		rb.body = badge.Render(b, k.style)
	}
	rb.etag = badge.ETag(rb.body)
	rb.etags = []string{rb.etag}
	rb.length = []string{strconv.Itoa(len(rb.body))}
	return rb
}

// changeTracker is a store that tells when what its published reads
// return changed, so that answers computed from them can be kept.
type changeTracker interface {
	Changes() *readcache.Tracker
}

// trackerOf returns r's tracker, or one that is never on (nothing is
// kept) when r does not tell of its changes.
func trackerOf(r any) *readcache.Tracker {
	if c, ok := r.(changeTracker); ok {
		return c.Changes()
	}
	return readcache.NewTracker()
}
