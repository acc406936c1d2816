package postgres

import (
	"context"
	"time"
)

// Cached reports whether s answers addon@version's digest (version "" for
// the latest) from memory, for tests that must know a read was served from
// the cache.
func Cached(s *Store, addon, version string) bool {
	h0, _ := s.ReportCacheLookups()
	if _, err := s.PublishedReportDigest(context.Background(), addon, version); err != nil {
		return false
	}
	h1, _ := s.ReportCacheLookups()
	return h1 > h0
}

// SetLockLease sets how long the leases of s's locks last unrenewed.
func SetLockLease(s *Store, d time.Duration) { s.lockLease = d }
