//go:build linux

package prefault

import "unsafe"

// init runs among the first of the program's: the package imports nothing
// but unsafe where rawSyscall6 is written in assembly, so that the code
// and heap the other inits touch are mapped already.
func init() {
	phdr, phent, phnum, page := auxv()
	populate(phdr, phent, phnum, page)
	hugeHeap(page)
}

// Auxiliary vector keys and ELF program header fields (elf(5)).
const (
	atPhdr   = 3
	atPhent  = 4
	atPhnum  = 5
	atPagesz = 6

	ptLoad = 1
	ptPhdr = 6
	pfW    = 2 // segment writable

	madvHugepage     = 14
	madvPopulateRead = 22 // Linux 5.14
	madvCollapse     = 25 // Linux 6.1

	atFdcwd    = -100
	oCloexec   = 0o2000000
	errnoEINTR = 4
)

// auxv returns where the program headers are mapped, the size of one, how
// many there are and the page size, from /proc/self/auxv (0s when it cannot
// be read).
func auxv() (phdr, phent, phnum, page uintptr) {
	path := [...]byte{'/', 'p', 'r', 'o', 'c', '/', 's', 'e', 'l', 'f', '/', 'a', 'u', 'x', 'v', 0}
	dirfd := atFdcwd
	fd, errno := rawSyscall6(sysOpenat, uintptr(dirfd), uintptr(unsafe.Pointer(&path[0])), oCloexec, 0, 0, 0)
	if errno != 0 {
		return 0, 0, 0, 0
	}
	defer rawSyscall6(sysClose, fd, 0, 0, 0, 0, 0)
	var buf [1024]uintptr // far more than the ~25 pairs of a Linux auxv
	b := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(buf)*int(unsafe.Sizeof(buf[0])))
	n := 0
	for n < len(b) {
		k, errno := rawSyscall6(sysRead, fd, uintptr(unsafe.Pointer(&b[n])), uintptr(len(b)-n), 0, 0, 0)
		if errno == errnoEINTR {
			continue
		}
		if errno != 0 || k == 0 {
			break
		}
		n += int(k)
	}
	words := buf[:n/int(unsafe.Sizeof(buf[0]))]
	for i := 0; i+1 < len(words); i += 2 {
		switch words[i] {
		case atPhdr:
			phdr = words[i+1]
		case atPhent:
			phent = words[i+1]
		case atPhnum:
			phnum = words[i+1]
		case atPagesz:
			page = words[i+1]
		}
	}
	return phdr, phent, phnum, page
}

// segment is a loadable segment of the program as mapped: its address,
// the bytes of it the file backs, and whether it is writable.
type segment struct {
	addr, size uintptr
	writable   bool
}

// populate maps the program's read-only segments (code, read-only data).
// The writable ones are left alone: populating them for writing would
// copy every page of them.
func populate(phdr, phent, phnum, page uintptr) {
	if phdr == 0 || phnum == 0 || phent == 0 || phnum > 64 || page == 0 {
		return
	}
	// The program headers are mapped with the first segment; phdr is that
	// address (a uintptr read as the pointer it is).
	p := *(*unsafe.Pointer)(unsafe.Pointer(&phdr))
	headers := unsafe.Slice((*byte)(p), phnum*phent)
	for _, s := range segments(headers, int(phent), phdr, unsafe.Sizeof(uintptr(0)) == 8) {
		if s.writable || s.size == 0 {
			continue
		}
		start := s.addr &^ (page - 1)
		end := (s.addr + s.size + page - 1) &^ (page - 1)
		// Errors (EINVAL before Linux 5.14) leave the faults to happen.
		rawSyscall6(sysMadvise, start, end-start, madvPopulateRead, 0, 0, 0)
	}
}

// segments returns the loadable segments that the program headers b
// (entries of size ent, 64-bit ELF or 32-bit) describe, at their mapped
// addresses: the headers themselves being mapped at addr, their PT_PHDR
// entry gives the load bias. Without one the addresses are unknown and
// nothing is returned.
func segments(b []byte, ent int, addr uintptr, elf64 bool) []segment {
	type header struct {
		typ, flags    uint32
		vaddr, filesz uint64
	}
	var hs []header
	for off := 0; off+ent <= len(b); off += ent {
		e := b[off : off+ent]
		var h header
		switch {
		case elf64 && ent >= 56:
			h = header{u32(e[0:]), u32(e[4:]), u64(e[16:]), u64(e[32:])}
		case !elf64 && ent >= 32:
			h = header{u32(e[0:]), u32(e[24:]), uint64(u32(e[8:])), uint64(u32(e[16:]))}
		default:
			return nil
		}
		hs = append(hs, h)
	}
	var bias uintptr
	found := false
	for _, h := range hs {
		if h.typ == ptPhdr {
			bias, found = addr-uintptr(h.vaddr), true
		}
	}
	if !found {
		return nil
	}
	var segs []segment
	for _, h := range hs {
		if h.typ == ptLoad {
			segs = append(segs, segment{addr: bias + uintptr(h.vaddr), size: uintptr(h.filesz), writable: h.flags&pfW != 0})
		}
	}
	return segs
}

// u32 and u64 read a field of the program headers, in the machine's byte
// order (the kernel's and the program's). encoding/binary would do, but
// would hold this package's init back behind reflect's.
func u32(b []byte) uint32 {
	_ = b[3]
	return *(*uint32)(unsafe.Pointer(&b[0]))
}

func u64(b []byte) uint64 {
	_ = b[7]
	return *(*uint64)(unsafe.Pointer(&b[0]))
}

// probe is a heap object: its address tells where the heap starts.
var probe *[16]byte

// spill is the object that makes the runtime map the heap's next chunk at
// start-up (hugeHeap); it is dropped at once.
var spill []byte

// hugeHeap asks for huge pages under the first of the Go heap: each first
// touch of a 4 KiB page of it is a page fault, and a small run touches a
// few hundred of them (its goroutine stacks, the entries it lists, its
// buffers), which on a virtual machine cost more than the rest of the run.
// The runtime maps the heap in 4 MiB chunks (aligned); the one holding
// its first objects is advised MADV_HUGEPAGE, so that the first touch of
// an untouched 2 MiB half maps it whole, and the half holding those
// objects is collapsed into a huge page at once (its pages touched so far
// copied into it). The heap's base is placed at random in its first
// chunk: when it starts in the upper half, the run soon needs the next
// chunk, which the runtime maps with a call of its own (the advice does
// not carry over to it). So the next chunk is mapped now, by an object
// larger than what is left of the first, and advised too; the object is
// dropped, its pages never touched, left to the collector. All are hints:
// a kernel without transparent huge pages, or without MADV_COLLAPSE,
// refuses them and the faults happen as before. Only in 64-bit programs
// with 4 KiB base pages (2 MiB huge pages): larger huge pages would cost
// more to fill than the faults they save.
func hugeHeap(page uintptr) {
	huge := page * (page / 8) // what one page-table page of 8-byte entries maps
	if huge != 2<<20 || unsafe.Sizeof(page) != 8 {
		return
	}
	probe = new([16]byte)
	p := uintptr(unsafe.Pointer(probe))
	chunk := p &^ (2*huge - 1)
	rawSyscall6(sysMadvise, chunk, 2*huge, madvHugepage, 0, 0, 0)
	rawSyscall6(sysMadvise, p&^(huge-1), huge, madvCollapse, 0, 0, 0)
	if p-chunk < huge {
		return
	}
	spill = make([]byte, huge)
	end := uintptr(unsafe.Pointer(unsafe.SliceData(spill))) + huge
	spill = nil
	if next := chunk + 2*huge; end > next {
		rawSyscall6(sysMadvise, next, 2*huge, madvHugepage, 0, 0, 0)
	}
}
