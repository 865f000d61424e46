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

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// RoundUp rounds n up to whole huge pages from Min on, as the kernel backs
// only whole ones: a buffer meant to be all on huge pages is allocated
// this long.
func RoundUp(n int) int {
	if n < Min {
		return n
	}
	return (n + hugePage - 1) &^ (hugePage - 1)
}

// Aligned is Bytes for buffers read all over at random (a PPMd model
// heap), where every part should be on huge pages: from Min bytes on, the
// slice starts on a huge-page boundary. The up to 2 MiB allocated to align
// it are never touched, so they cost address space only, but they count as
// allocated.
func Aligned(n int) []byte {
	if n < Min {
		return make([]byte, n)
	}
	b := make([]byte, n+hugePage)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int((hugePage - start%hugePage) % hugePage)
	b = b[off : off+n : off+n]
	_ = unix.Madvise(b[:n/pageSize*pageSize], unix.MADV_HUGEPAGE)
	return b
}
