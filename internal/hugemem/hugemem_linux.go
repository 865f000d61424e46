package hugemem

import (
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// thpDir is where Linux describes its transparent huge pages.
const thpDir = "/sys/kernel/mm/transparent_hugepage"

// sizes are the base and huge page sizes, read on the first large
// allocation (a program decoding only small inputs never reads sysfs).
var sizes = sync.OnceValues(func() (page, huge int) {
	page = os.Getpagesize()
	b, err := os.ReadFile(thpDir + "/hpage_pmd_size")
	if err != nil {
		_, derr := os.Stat(thpDir)
		return page, hugePageSize(page, nil, derr == nil)
	}
	return page, hugePageSize(page, b, true)
})

// hugePageSize is the huge page size: the kernel's hpage_pmd_size when it
// is a power of two above the page size (and up to 2 GiB); when the kernel
// has transparent huge pages (thp) but no such file (before Linux 4.11),
// what one page-table page maps (page/8 entries of page bytes: 2 MiB for
// 4 KiB pages, 32 MiB for 16 KiB, 512 MiB for 64 KiB); 0 without them or
// with a size it does not understand.
func hugePageSize(page int, pmdSize []byte, thp bool) int {
	if !thp || page <= 0 {
		return 0
	}
	if pmdSize != nil {
		n, err := strconv.ParseInt(strings.TrimSpace(string(pmdSize)), 10, 64)
		if err != nil || n <= int64(page) || n&(n-1) != 0 || n > math.MaxInt32 {
			return 0
		}
		return int(n)
	}
	if int64(page)*int64(page)/8 > math.MaxInt32 {
		return 0
	}
	return page / 8 * page
}

// Bytes returns a zeroed slice of length and capacity n. From Min bytes
// and one huge page on, the slice is advised MADV_HUGEPAGE: each
// huge-page-aligned stretch inside it can be a huge page (no slack is
// allocated to align the slice itself, so up to a huge page at each end
// stays on base pages and allocation counts stay exact).
func Bytes(n int) []byte {
	b := make([]byte, n)
	if n < Min {
		return b
	}
	page, huge := sizes()
	if huge == 0 || n < huge {
		return b
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((uintptr(page) - start%uintptr(page)) % uintptr(page))
	hi := lo + (n-lo)/page*page
	_ = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE)
	return b
}

// RoundUp rounds n up to whole huge pages from Min on, as the kernel backs
// only whole ones: a buffer meant to be all on huge pages is allocated
// this long.
func RoundUp(n int) int {
	if n < Min {
		return n
	}
	_, huge := sizes()
	if huge == 0 {
		return n
	}
	return (n + huge - 1) &^ (huge - 1)
}

// Aligned is Bytes for buffers read all over at random (a PPMd model
// heap), where every part should be on huge pages: from Min bytes and one
// huge page on, the slice starts on a huge-page boundary. The up to one
// huge page allocated to align it is never touched, so it costs address
// space only, but it counts as allocated.
func Aligned(n int) []byte {
	if n < Min {
		return make([]byte, n)
	}
	page, huge := sizes()
	if huge == 0 || n < huge || n > math.MaxInt-huge {
		return Bytes(n)
	}
	b := make([]byte, n+huge)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int((uintptr(huge) - start%uintptr(huge)) % uintptr(huge))
	b = b[off : off+n : off+n]
	_ = unix.Madvise(b[:n/page*page], unix.MADV_HUGEPAGE)
	return b
}

// Mapped returns a zeroed slice of length and capacity n mapped from the
// kernel outside the Go heap, and the function that unmaps it (it may be
// called more than once; the slice must not be used after). The garbage
// collector neither counts it towards its next cycle nor zeroes it on
// reuse, and the pages come zeroed from the kernel on first touch. From
// Min bytes and one huge page on, it starts on a huge-page boundary and
// is advised MADV_HUGEPAGE, as Aligned. Where the kernel refuses the
// mapping, the slice is Aligned's and unmapping does nothing.
func Mapped(n int) ([]byte, func()) {
	if n <= 0 {
		return nil, func() {}
	}
	page, huge := sizes()
	align := page
	if huge != 0 && n >= Min && n >= huge {
		align = huge
	}
	size := (n + page - 1) &^ (page - 1)
	if size < n || size > math.MaxInt-align {
		return Aligned(n), func() {}
	}
	total := size + align - page
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(total), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return Aligned(n), func() {}
	}
	// Trim the mapping to size bytes from the first aligned address.
	off := (uintptr(align) - uintptr(p)%uintptr(align)) % uintptr(align)
	if off > 0 {
		_ = unix.MunmapPtr(p, off)
	}
	base := unsafe.Add(p, off)
	if tail := uintptr(total) - off - uintptr(size); tail > 0 {
		_ = unix.MunmapPtr(unsafe.Add(base, size), tail)
	}
	if align == huge {
		_ = unix.Madvise(unsafe.Slice((*byte)(base), size), unix.MADV_HUGEPAGE)
	}
	var once sync.Once
	return unsafe.Slice((*byte)(base), n), func() {
		once.Do(func() { _ = unix.MunmapPtr(base, uintptr(size)) })
	}
}

// heapOnce makes Heap act once per process: a second time, the runtime could
// give the object pages the heap used before, and zero them.
var heapOnce sync.Once

// heapSink keeps Heap's object from being optimised away.
var heapSink []byte

// Heap puts about the next n bytes the Go heap grows by on huge pages, for
// a run about to allocate many small objects that it keeps (the records of
// an extraction of many files): the runtime maps its heap a few MiB at a
// time as it grows, with mappings that carry no advice, and each first
// touch of a 4 KiB page of them is a page fault. Heap allocates n bytes
// (the runtime maps them at once, and does not touch fresh pages), advises
// them MADV_HUGEPAGE, drops them and runs a collection, which hands their
// pages back to the heap: its next spans come from there, one fault per
// huge page. It acts once per process, only where the kernel has
// transparent huge pages, and not under a limit on address space or data
// (RLIMIT_AS, RLIMIT_DATA), which the n bytes would count against; the
// collection costs a fraction of a millisecond at the small heap of a
// run's start.
func Heap(n int) {
	heapOnce.Do(func() {
		if _, huge := sizes(); huge == 0 || n < huge || limited(unix.RLIMIT_AS) || limited(unix.RLIMIT_DATA) {
			return
		}
		heapSink = Bytes(n)
		heapSink = nil
		runtime.GC()
	})
}

// limited reports whether resource has a limit (or cannot be read).
func limited(resource int) bool {
	var l unix.Rlimit
	return unix.Getrlimit(resource, &l) != nil || l.Cur != unix.RLIM_INFINITY
}
