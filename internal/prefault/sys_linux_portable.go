//go:build linux && (!(amd64 || arm64) || purego)

package prefault

import "syscall"

// System call numbers, from the syscall package elsewhere than on amd64
// and arm64 (and with purego): there this package's init waits for it.
const (
	sysOpenat  = syscall.SYS_OPENAT
	sysRead    = syscall.SYS_READ
	sysClose   = syscall.SYS_CLOSE
	sysMadvise = syscall.SYS_MADVISE
)

// rawAsm: rawSyscall6 is in assembly, and the package imports only unsafe.
const rawAsm = false

// rawSyscall6 makes a system call; it returns the result, or errno
// (non-zero) when the call failed.
func rawSyscall6(num, a1, a2, a3, a4, a5, a6 uintptr) (r, errno uintptr) {
	r, _, e := syscall.RawSyscall6(num, a1, a2, a3, a4, a5, a6)
	if e != 0 {
		return 0, uintptr(e)
	}
	return r, 0
}
