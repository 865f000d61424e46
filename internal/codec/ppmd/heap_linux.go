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
// refuses it the heap is used as it is.
func newHeap(n int) []byte {
	b := make([]byte, n)
	if n < hugePageMin {
		return b
	}
	const page = 4096
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int((page - start%page) % page)
	end := off + (n-off)/page*page
	_ = unix.Madvise(b[off:end], unix.MADV_HUGEPAGE)
	return b
}
