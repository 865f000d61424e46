package lzma

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeWindowMin is the window size from which the decoder asks for
// transparent huge pages.
const hugeWindowMin = 4 << 20

// newWindow allocates a dictionary window of n bytes. Matches reach back
// anywhere in a large dictionary, so with 4 KiB pages a good part of the
// decoding time goes to TLB misses on the match source; Linux backs the
// 2 MiB-aligned part of a region advised MADV_HUGEPAGE with huge pages,
// which removes most of them (and most of the page faults of a fresh
// window). The advice is only a hint: where the kernel refuses it the
// window is used as it is. Nothing is allocated beyond the n bytes.
func newWindow(n int) []byte {
	b := make([]byte, n)
	if n < hugeWindowMin {
		return b
	}
	const page = 4096
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((page - start%page) % page)
	hi := lo + (n-lo)/page*page
	_ = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE)
	return b
}
