package extract

import (
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The *at system calls of every file, with their names made C strings in
// a buffer on the caller's stack: x/sys/unix copies each name to the heap
// (one allocation a name, a file's worth of garbage). A name too long for
// the buffer, or one with a NUL (which the kernel would cut), takes x/sys's
// way, with its errors.

// cname is a NUL-terminated name.
type cname [256]byte

// set makes b the C string of s and returns it, or nil when s does not
// fit or has a NUL.
func (b *cname) set(s string) unsafe.Pointer {
	if len(s) >= len(b) || strings.IndexByte(s, 0) >= 0 {
		return nil
	}
	b[copy(b[:], s)] = 0
	return unsafe.Pointer(&b[0])
}

// errnoOf is the error of a system call's errno, as x/sys returns it.
func errnoOf(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// openat is unix.Openat.
func openat(dirfd int, name string, flags int, mode uint32) (int, error) {
	var b cname
	p := b.set(name)
	if p == nil {
		return unix.Openat(dirfd, name, flags, mode)
	}
	fd, _, e := syscall.Syscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(p), uintptr(flags|unix.O_LARGEFILE), uintptr(mode), 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// linkatFD links the open file fd as name in dirfd (failing with EEXIST
// if name exists), through /proc/self/fd as unix.Linkat(AT_FDCWD,
// "/proc/self/fd/N", dirfd, name, AT_SYMLINK_FOLLOW) does.
func linkatFD(fd, dirfd int, name string) error {
	var from, to cname
	n := copy(from[:], "/proc/self/fd/")
	n = len(strconv.AppendInt(from[n:n], int64(fd), 10)) + n
	p := to.set(name)
	if p == nil {
		return unix.Linkat(unix.AT_FDCWD, string(from[:n]), dirfd, name, unix.AT_SYMLINK_FOLLOW)
	}
	from[n] = 0
	_, _, e := syscall.Syscall6(unix.SYS_LINKAT, atFDCWD, uintptr(unsafe.Pointer(&from[0])), uintptr(dirfd), uintptr(p), unix.AT_SYMLINK_FOLLOW, 0)
	return errnoOf(e)
}

// atFDCWD is AT_FDCWD as a system call's argument.
var atFDCWD = func() uintptr { fd := unix.AT_FDCWD; return uintptr(fd) }()

// renameat2 is unix.Renameat2 within one directory.
func renameat2(dirfd int, from, to string, flags uint) error {
	var bf, bt cname
	pf, pt := bf.set(from), bt.set(to)
	if pf == nil || pt == nil {
		return unix.Renameat2(dirfd, from, dirfd, to, flags)
	}
	_, _, e := syscall.Syscall6(unix.SYS_RENAMEAT2, uintptr(dirfd), uintptr(pf), uintptr(dirfd), uintptr(pt), uintptr(flags), 0)
	return errnoOf(e)
}

// unlinkat is unix.Unlinkat.
func unlinkat(dirfd int, name string, flags int) error {
	var b cname
	p := b.set(name)
	if p == nil {
		return unix.Unlinkat(dirfd, name, flags)
	}
	_, _, e := syscall.Syscall(unix.SYS_UNLINKAT, uintptr(dirfd), uintptr(p), uintptr(flags))
	return errnoOf(e)
}

// mkdirat is unix.Mkdirat.
func mkdirat(dirfd int, name string, mode uint32) error {
	var b cname
	p := b.set(name)
	if p == nil {
		return unix.Mkdirat(dirfd, name, mode)
	}
	_, _, e := syscall.Syscall(unix.SYS_MKDIRAT, uintptr(dirfd), uintptr(p), uintptr(mode))
	return errnoOf(e)
}
