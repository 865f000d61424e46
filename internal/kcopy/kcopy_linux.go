package kcopy

import (
	"os"

	"golang.org/x/sys/unix"
)

// maxChunk bounds one sendfile call (Linux copies at most 0x7ffff000 bytes
// per call; an int count must also fit 32-bit targets).
const maxChunk = 1 << 30

// Send copies n bytes of src from offset off (src's own file offset is
// left alone) to dst at dst's offset, and returns how many it copied:
// fewer than n with a nil error when src ends first. A non-nil error means
// the kernel stopped after the bytes returned; the caller copies the rest
// itself.
func Send(dst, src *os.File, off, n int64) (int64, error) {
	dc, err := dst.SyscallConn()
	if err != nil {
		return 0, err
	}
	sc, err := src.SyscallConn()
	if err != nil {
		return 0, err
	}
	var done int64
	var serr error
	cerr := sc.Control(func(sfd uintptr) {
		// Control, not Write: several goroutines may send to one file
		// (/dev/null) at once, which Write would take turns at.
		cerr := dc.Control(func(dfd uintptr) { done, serr = send(int(dfd), int(sfd), off, n) })
		if serr == unix.EAGAIN && cerr == nil {
			// A non-blocking destination (a pipe from the poller) is
			// full: Write waits until it takes more.
			cerr = dc.Write(func(dfd uintptr) bool {
				var k int64
				k, serr = send(int(dfd), int(sfd), off+done, n-done)
				done += k
				return serr != unix.EAGAIN
			})
		}
		if serr == nil {
			serr = cerr
		}
	})
	if serr == nil {
		serr = cerr
	}
	if errno, ok := serr.(unix.Errno); ok {
		serr = os.NewSyscallError("sendfile", errno)
	}
	return done, serr
}

// send copies with sendfile until n bytes are copied, src ends or the
// kernel fails (the bare errno).
func send(dfd, sfd int, off, n int64) (int64, error) {
	var done int64
	for done < n {
		o := off + done
		k, err := unix.Sendfile(dfd, sfd, &o, int(min(n-done, maxChunk)))
		if k > 0 {
			done += int64(k)
		}
		switch {
		case err == unix.EINTR:
		case err != nil:
			return done, err
		case k == 0:
			return done, nil // src ended
		}
	}
	return done, nil
}

// File copies n bytes of src from offset off (src's own offset is left
// alone) into the file open as dst at dst's offset, which it advances,
// with copy_file_range(2): in the kernel, and as shared blocks where the
// file system can. It returns what Send returns.
func File(dst int, src *os.File, off, n int64) (int64, error) {
	sc, err := src.SyscallConn()
	if err != nil {
		return 0, err
	}
	var done int64
	var serr error
	cerr := sc.Control(func(sfd uintptr) {
		for done < n {
			o := off + done
			k, err := unix.CopyFileRange(int(sfd), &o, dst, nil, int(min(n-done, maxChunk)), 0)
			if k > 0 {
				done += int64(k)
			}
			switch {
			case err == unix.EINTR:
			case err != nil:
				serr = os.NewSyscallError("copy_file_range", err)
				return
			case k == 0:
				return // src ended
			}
		}
	})
	if serr == nil {
		serr = cerr
	}
	return done, serr
}
