package ppmd

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePageMin is the heap size from which the model asks for transparent
// huge pages.
const hugePageMin = 4 << 20

// newHeap allocates a model heap of n bytes. PPMd walks its contexts in
// an order no cache predicts, so on a large heap most of the time goes to
// TLB misses; Linux backs a region advised MADV_HUGEPAGE with 2 MiB pages,
// which removes most of them. The advice is only a hint: where the kernel
// refuses it the heap is used as it is. Smaller heaps are plain slices.
func newHeap(n int) []byte {
	if n < hugePageMin {
		return make([]byte, n)
	}
	// Start the heap on a huge page boundary, so that all of it can be
	// backed by huge pages; the slack is never touched.
	const huge = 2 << 20
	b := make([]byte, n+huge)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int((huge - start%huge) % huge)
	b = b[off : off+n : off+n]
	end := n / 4096 * 4096
	_ = unix.Madvise(b[:end], unix.MADV_HUGEPAGE)
	return b
}
