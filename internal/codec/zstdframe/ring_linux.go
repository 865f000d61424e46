package zstdframe

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// adviseRing asks the kernel to back the decoder's window ring with huge
// pages. p is the first block of a frame the decoder on the reader's
// goroutine returned: klauspost writes each frame's blocks into one ring of
// at least window plus two blocks, from its start, and returns them from
// there, so p starts the ring. The ring is a plain make of the decoder,
// touched only as the window fills, so most of it has not been faulted in
// yet; on the VMs unpack is measured on a 4 KiB first-touch fault costs
// ~20 µs, an 8 MiB window ~2000 of them (TestRingAdvised checks that
// these premises still hold). Only whole 2 MiB pages inside the window are
// advised; the advice is a hint, which the kernel may ignore.
func adviseRing(p []byte, window int64) {
	if len(p) == 0 || window < 2*hugePage {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	lo := (start + hugePage - 1) &^ (hugePage - 1)
	hi := (start + uintptr(window)) &^ (hugePage - 1)
	if lo < hi {
		// A raw madvise: the range is the ring's, beyond p's capacity, so
		// no Go slice is made over it.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_HUGEPAGE)
	}
}
