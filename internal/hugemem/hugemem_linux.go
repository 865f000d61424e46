package hugemem

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// pageSize is the size of a base page, the granularity of madvise.
const pageSize = 4096

// Bytes returns a zeroed slice of length and capacity n. From Min bytes on,
// the slice is advised MADV_HUGEPAGE: each 2 MiB-aligned stretch inside it
// can be a huge page (no slack is allocated to align the slice itself, so
// up to 2 MiB at each end stays on base pages and allocation counts stay
// exact).
func Bytes(n int) []byte {
	b := make([]byte, n)
	if n < Min {
		return b
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((pageSize - start%pageSize) % pageSize)
	hi := lo + (n-lo)/pageSize*pageSize
	_ = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE)
	return b
}
