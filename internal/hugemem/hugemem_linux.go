package hugemem

import (
	"math"
	"os"
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
