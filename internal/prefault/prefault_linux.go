//go:build linux

package prefault

import (
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() { populate() }

// Auxiliary vector keys and ELF program header fields (elf(5)).
const (
	atPhdr  = 3
	atPhent = 4
	atPhnum = 5

	ptLoad = 1
	ptPhdr = 6
	pfW    = 2 // segment writable
)

// segment is a loadable segment of the program as mapped: its address,
// the bytes of it the file backs, and whether it is writable.
type segment struct {
	addr, size uintptr
	writable   bool
}

// populate maps the program's read-only segments (code, read-only data).
// The writable ones are left alone: populating them for writing would
// copy every page of them.
func populate() {
	aux, err := unix.Auxv()
	if err != nil {
		return
	}
	var phdr, phent, phnum uintptr
	for _, kv := range aux {
		switch kv[0] {
		case atPhdr:
			phdr = kv[1]
		case atPhent:
			phent = kv[1]
		case atPhnum:
			phnum = kv[1]
		}
	}
	if phdr == 0 || phnum == 0 || phent == 0 || phnum > 64 {
		return
	}
	// The program headers are mapped with the first segment; phdr is that
	// address (a uintptr read as the pointer it is).
	p := *(*unsafe.Pointer)(unsafe.Pointer(&phdr))
	headers := unsafe.Slice((*byte)(p), phnum*phent)
	page := uintptr(unix.Getpagesize())
	for _, s := range segments(headers, int(phent), phdr, unsafe.Sizeof(uintptr(0)) == 8) {
		if s.writable || s.size == 0 {
			continue
		}
		start := s.addr &^ (page - 1)
		end := (s.addr + s.size + page - 1) &^ (page - 1)
		// Errors (EINVAL before Linux 5.14) leave the faults to happen.
		unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_POPULATE_READ)
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
			h = header{binary.NativeEndian.Uint32(e[0:]), binary.NativeEndian.Uint32(e[4:]),
				binary.NativeEndian.Uint64(e[16:]), binary.NativeEndian.Uint64(e[32:])}
		case !elf64 && ent >= 32:
			h = header{binary.NativeEndian.Uint32(e[0:]), binary.NativeEndian.Uint32(e[24:]),
				uint64(binary.NativeEndian.Uint32(e[8:])), uint64(binary.NativeEndian.Uint32(e[16:]))}
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
