package web

// SetRegistryCountMax makes the registry page count up to n matches until
// the returned function restores the bound.
func SetRegistryCountMax(n int) (restore func()) {
	old := registryCountMax
	registryCountMax = n
	return func() { registryCountMax = old }
}
