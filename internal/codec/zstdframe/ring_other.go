//go:build !linux

package zstdframe

// adviseRing does nothing where there is no madvise(MADV_HUGEPAGE).
func adviseRing(p []byte, window int64) {}
