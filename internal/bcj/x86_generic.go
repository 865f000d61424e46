//go:build (!amd64 && !arm64) || !gc || purego

package bcj

// findE8 is findE8Generic where no assembly is available (or purego).
func findE8(b []byte) int { return findE8Generic(b) }

// FastPaths names the assembly paths in use: none here.
func FastPaths() []string { return nil }
