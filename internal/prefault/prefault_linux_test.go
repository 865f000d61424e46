//go:build linux

package prefault

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// phdrs encodes program headers {type, flags, vaddr, filesz} as 64-bit or
// 32-bit ELF.
func phdrs(elf64 bool, hs ...[4]uint64) ([]byte, int) {
	ent := 32
	if elf64 {
		ent = 56
	}
	b := make([]byte, ent*len(hs))
	for i, h := range hs {
		e := b[i*ent:]
		if elf64 {
			binary.NativeEndian.PutUint32(e[0:], uint32(h[0]))
			binary.NativeEndian.PutUint32(e[4:], uint32(h[1]))
			binary.NativeEndian.PutUint64(e[16:], h[2])
			binary.NativeEndian.PutUint64(e[32:], h[3])
		} else {
			binary.NativeEndian.PutUint32(e[0:], uint32(h[0]))
			binary.NativeEndian.PutUint32(e[24:], uint32(h[1]))
			binary.NativeEndian.PutUint32(e[8:], uint32(h[2]))
			binary.NativeEndian.PutUint32(e[16:], uint32(h[3]))
		}
	}
	return b, ent
}

// TestSegments: the load segments at their addresses, the bias taken from
// PT_PHDR (a position-independent program), in both ELF classes; without
// PT_PHDR, or with entries too short, nothing.
func TestSegments(t *testing.T) {
	for _, elf64 := range []bool{true, false} {
		b, ent := phdrs(elf64,
			[4]uint64{ptPhdr, 4, 0x40, 0x150},
			[4]uint64{ptLoad, 5, 0x0, 0x2000},    // R E
			[4]uint64{ptLoad, 4, 0x3000, 0x1800}, // R
			[4]uint64{ptLoad, 6, 0x5000, 0x100},  // RW
			[4]uint64{0x6474e551, 6, 0, 0})       // GNU_STACK
		got := segments(b, ent, 0x10040, elf64) // loaded 0x10000 up
		want := []segment{{0x10000, 0x2000, false}, {0x13000, 0x1800, false}, {0x15000, 0x100, true}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("elf64 %v: %+v, want %+v", elf64, got, want)
		}
		if got := segments(b[ent:], ent, 0x10040, elf64); got != nil {
			t.Errorf("elf64 %v without PT_PHDR: %+v", elf64, got)
		}
		if got := segments(b, 16, 0x10040, elf64); got != nil {
			t.Errorf("elf64 %v, 16-byte entries: %+v", elf64, got)
		}
	}
}

// TestOwnSegments: this test binary's auxiliary vector, read with the raw
// calls, is the runtime's; its headers, read as populate reads them, give
// a read-only segment holding its code; populate runs.
func TestOwnSegments(t *testing.T) {
	phdr, phent, phnum, page := auxv()
	aux, err := unix.Auxv()
	if err != nil {
		t.Skip(err)
	}
	ours := map[uintptr]uintptr{atPhdr: phdr, atPhent: phent, atPhnum: phnum, atPagesz: page}
	for _, kv := range aux {
		if want, ok := ours[kv[0]]; ok && kv[1] != want {
			t.Errorf("auxv key %d: %#x, the runtime's %#x", kv[0], want, kv[1])
		}
	}
	if page != uintptr(os.Getpagesize()) {
		t.Errorf("page size %d, the runtime's %d", page, os.Getpagesize())
	}
	p := *(*unsafe.Pointer)(unsafe.Pointer(&phdr))
	segs := segments(unsafe.Slice((*byte)(p), phnum*phent), int(phent), phdr, unsafe.Sizeof(uintptr(0)) == 8)
	code := reflect.ValueOf(TestOwnSegments).Pointer()
	found := false
	for _, s := range segs {
		if code >= s.addr && code < s.addr+s.size && !s.writable {
			found = true
		}
	}
	if !found {
		t.Errorf("no read-only segment holds the code at %#x: %+v", code, segs)
	}
	populate(phdr, phent, phnum, page)
}

// TestRawSyscall: the raw calls return results and errnos as the syscall
// package does.
func TestRawSyscall(t *testing.T) {
	if r, errno := rawSyscall6(sysClose, ^uintptr(0), 0, 0, 0, 0, 0); errno != uintptr(unix.EBADF) || r != 0 {
		t.Errorf("close(-1): %d, errno %d, want EBADF (%d)", r, errno, unix.EBADF)
	}
	b := []byte("/proc/self/auxv\x00")
	dirfd := atFdcwd
	fd, errno := rawSyscall6(sysOpenat, uintptr(dirfd), uintptr(unsafe.Pointer(&b[0])), oCloexec, 0, 0, 0)
	if errno != 0 {
		t.Fatalf("openat: errno %d", errno)
	}
	var buf [64]byte
	if n, errno := rawSyscall6(sysRead, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0); errno != 0 || n != uintptr(len(buf)) {
		t.Errorf("read: %d, errno %d", n, errno)
	}
	if _, errno := rawSyscall6(sysClose, fd, 0, 0, 0, 0, 0); errno != 0 {
		t.Errorf("close: errno %d", errno)
	}
}

// TestFirstInit: where the raw calls are in assembly the package imports
// nothing but unsafe (so that its init runs among the first).
func TestFirstInit(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Imports}}", ".").Output()
	if err != nil {
		t.Skip(err)
	}
	if got := strings.TrimSpace(string(out)); rawAsm && got != "[unsafe]" {
		t.Errorf("imports %s, want [unsafe]", got)
	}
}

// TestHugeHeap: this test binary's init advised the heap chunk holding
// probe MADV_HUGEPAGE (smaps flag "hg"), where the kernel has transparent
// huge pages.
func TestHugeHeap(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("no transparent huge pages")
	}
	if os.Getpagesize() != 4096 || unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("not 4 KiB pages in a 64-bit program")
	}
	if probe == nil {
		t.Fatal("hugeHeap did not run")
	}
	// A control: a mapping of the test's own, advised the same way. Where
	// it shows no "hg" (qemu-user takes the advice and drops it), the
	// heap's flags say nothing about hugeHeap.
	m, err := unix.Mmap(-1, 0, 4<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Skip(err)
	}
	defer unix.Munmap(m)
	if err := unix.Madvise(m, unix.MADV_HUGEPAGE); err != nil {
		t.Skip(err)
	}
	if flags, err := vmFlags(uint64(uintptr(unsafe.Pointer(&m[0])))); err != nil {
		t.Skip(err)
	} else if !strings.Contains(flags, " hg") {
		t.Skipf("MADV_HUGEPAGE not kept here (a mapping advised by the test: %s)", flags)
	}
	p := uint64(uintptr(unsafe.Pointer(probe)))
	flags, err := vmFlags(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(flags, " hg") {
		t.Errorf("the heap's chunk is not advised: %s", flags)
	}
}

// vmFlags returns the VmFlags line of the mapping holding address p, from
// /proc/self/smaps.
func vmFlags(p uint64) (string, error) {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		var lo, hi uint64
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= p && p < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return line, nil
		}
	}
	return "", fmt.Errorf("no mapping holds %#x", p)
}
