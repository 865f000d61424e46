package hugemem

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestAligned checks that Aligned and Mapped start on a huge page of this system's
// size, read from the kernel.
func TestAligned(t *testing.T) {
	page, huge := sizes()
	if page != os.Getpagesize() {
		t.Fatalf("page size %d, want %d", page, os.Getpagesize())
	}
	if b, err := os.ReadFile(thpDir + "/hpage_pmd_size"); err == nil {
		if want, _ := strconv.Atoi(strings.TrimSpace(string(b))); huge != want {
			t.Fatalf("huge page size %d, kernel says %d", huge, want)
		}
	}
	if huge == 0 {
		t.Skip("no transparent huge pages here")
	}
	for _, n := range []int{max(Min, huge), 3*max(Min, huge) + 12345} {
		if a := uintptr(unsafe.Pointer(unsafe.SliceData(Aligned(n)))) % uintptr(huge); a != 0 {
			t.Errorf("Aligned(%d) starts %d bytes past a %d-byte huge-page boundary", n, a, huge)
		}
		m, unmap := Mapped(n)
		if a := uintptr(unsafe.Pointer(unsafe.SliceData(m))) % uintptr(huge); a != 0 {
			t.Errorf("Mapped(%d) starts %d bytes past a %d-byte huge-page boundary", n, a, huge)
		}
		unmap()
	}
}

// TestHugePageSize covers the page sizes of amd64 and arm64 kernels, the
// fallback for kernels without hpage_pmd_size, and what is refused.
func TestHugePageSize(t *testing.T) {
	for _, c := range []struct {
		page int
		pmd  string // "" for a missing file
		thp  bool
		want int
	}{
		{4096, "2097152\n", true, 2 << 20},
		{16384, "33554432\n", true, 32 << 20},
		{65536, "536870912\n", true, 512 << 20},
		{4096, "", true, 2 << 20},       // before Linux 4.11
		{16384, "", true, 32 << 20},     // likewise, 16 KiB pages
		{65536, "", true, 512 << 20},    // likewise, 64 KiB pages
		{4096, "", false, 0},            // no transparent huge pages
		{4096, "4096\n", true, 0},       // not above the page size
		{4096, "3000000\n", true, 0},    // not a power of two
		{4096, "junk", true, 0},         // not a number
		{4096, "4294967296\n", true, 0}, // beyond what this package assumes
	} {
		var pmd []byte
		if c.pmd != "" {
			pmd = []byte(c.pmd)
		}
		if got := hugePageSize(c.page, pmd, c.thp); got != c.want {
			t.Errorf("hugePageSize(%d, %q, %v) = %d, want %d", c.page, c.pmd, c.thp, got, c.want)
		}
	}
}

// TestHeap: after Heap, most of the small objects the heap next allocates
// lie in mappings advised MADV_HUGEPAGE (smaps flag "hg"), where the kernel
// keeps the advice (a mapping of the test's own is the control: qemu-user
// takes the advice and drops it). It runs in a fresh process, as Heap is
// meant to at a run's start: in this one, the free heap the other tests
// left (Aligned's unadvised margins) is reused first.
func TestHeap(t *testing.T) {
	if _, huge := sizes(); huge == 0 {
		t.Skip("no transparent huge pages here")
	}
	if limited(unix.RLIMIT_AS) || limited(unix.RLIMIT_DATA) {
		t.Skip("a limit on address space or data: Heap does nothing")
	}
	m, err := unix.Mmap(-1, 0, 4<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Skip(err)
	}
	defer unix.Munmap(m)
	if err := unix.Madvise(m, unix.MADV_HUGEPAGE); err != nil {
		t.Skip(err)
	}
	if !advised(t, uintptr(unsafe.Pointer(&m[0]))) {
		t.Skip("MADV_HUGEPAGE not kept here")
	}
	const child = "HUGEMEM_HEAP_CHILD"
	if os.Getenv(child) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHeap$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), child+"=1")
		out, err := cmd.CombinedOutput()
		if errors.Is(err, unix.ENOEXEC) {
			t.Skipf("cannot run the test binary again here: %v", err)
		}
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		if strings.Contains(string(out), "--- SKIP") {
			t.Skipf("child skipped:\n%s", out)
		}
		return
	}
	Heap(32 << 20)
	type record struct{ a, b, c, d, e, f, g, h uintptr }
	keep := make([]*record, 0, 1<<17)
	for range cap(keep) { // 8 MiB of records
		keep = append(keep, new(record))
	}
	in := 0
	for i := 0; i < len(keep); i += 512 {
		if advised(t, uintptr(unsafe.Pointer(keep[i]))) {
			in++
		}
	}
	if total := len(keep) / 512; in < total/2 {
		t.Errorf("%d of %d sampled records on advised mappings", in, total)
	}
}

// advised reports whether the mapping holding address p is advised
// MADV_HUGEPAGE, from /proc/self/smaps.
func advised(t *testing.T, p uintptr) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if lo, hi, ok := strings.Cut(strings.Fields(line + " x")[0], "-"); ok && !strings.HasSuffix(line, ":") {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(p) >= l && uint64(p) < h
				continue
			}
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Contains(line, " hg")
		}
	}
	return false
}
