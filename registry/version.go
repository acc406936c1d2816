package registry

import "strings"

// VersionKey returns what identifies version v among an addon's published
// versions: v without its build metadata (everything from the first "+").
// Semantic Versioning 2.0.0 ignores build metadata when it orders versions,
// so 1.0.0+a and 1.0.0+b are the same version, and an addon publishes at
// most one version per key. Numbers in a valid version have no leading
// zeros, so equal precedence is equal key. Stores keep the key beside the
// version and hold it unique.
func VersionKey(v string) string {
	k, _, _ := strings.Cut(v, "+")
	return k
}
