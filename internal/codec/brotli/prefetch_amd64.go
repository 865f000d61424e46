//go:build amd64 && gc && !purego

package brotli

// prefetch asks the CPU to bring the cache lines of p[0] and p[15] (a
// 16-byte copy's source) into the cache, without waiting for them
// (PREFETCHT0, in prefetch_amd64.s).
//
//go:noescape
func prefetch(p *byte)

// FastPaths names the assembly paths in use: the copy sources' prefetch.
func FastPaths() []string { return []string{"brotli PREFETCHT0"} }
