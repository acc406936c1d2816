package postgres

// Cached reports whether s's report cache holds addon@version (version ""
// for the latest), for tests that must know a read was served from memory.
func Cached(s *Store, addon, version string) bool {
	_, ok := s.cache.get(addon, version)
	return ok
}
