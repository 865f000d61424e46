//go:build !amd64 || !gc || purego

package lzo

// decompress1X is decompress1XGeneric where no assembly is available (or
// purego).
func decompress1X(dst, src []byte) int { return decompress1XGeneric(dst, src) }

// FastPaths names the assembly paths in use: none here.
func FastPaths() []string { return nil }
