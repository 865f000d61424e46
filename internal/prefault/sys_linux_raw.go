//go:build linux && (amd64 || arm64) && !purego

package prefault

// rawAsm: rawSyscall6 is in assembly, and the package imports only unsafe.
const rawAsm = true

// rawSyscall6 makes a system call without telling the scheduler (the
// calls here do not block) and without the syscall package, whose
// dependencies would hold this package's init back behind a dozen others.
// It returns the result, or errno (non-zero) when the call failed.
//
//go:noescape
func rawSyscall6(num, a1, a2, a3, a4, a5, a6 uintptr) (r, errno uintptr)
