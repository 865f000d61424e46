//go:build linux && !purego

package prefault

// System call numbers (include/uapi/asm-generic/unistd.h).
const (
	sysOpenat  = 56
	sysClose   = 57
	sysRead    = 63
	sysMadvise = 233
)
