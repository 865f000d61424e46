//go:build linux && !purego

package prefault

// System call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
const (
	sysRead    = 0
	sysClose   = 3
	sysMadvise = 28
	sysOpenat  = 257
)
