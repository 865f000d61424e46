//go:build !amd64 || !gc || purego

package brotli

// prefetch does nothing where no assembly is available (or purego):
// runSeqs' early loads then bring the copies' sources in.
func prefetch(p *byte) {}

// FastPaths names the assembly paths in use: none here.
func FastPaths() []string { return nil }
