package extract

import (
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// A file written whole is closed in a batch with others: closeBatch
// descriptors are closed by runs of consecutive numbers, one
// close_range(2) a run, instead of one close(2) each. Only on the file
// systems whose close reports nothing (no flush on close: ext4, XFS,
// btrfs, tmpfs), so that no error is lost, and only for files in a
// directory on the destination's own device (a directory mounted below
// it may be another file system).

// closeBatch is the most descriptors waiting for their close.
const closeBatch = 32

// fdBatch holds the descriptors of files done with until they are closed.
type fdBatch struct {
	once sync.Once
	dev  uint64 // the destination's device, where closes may wait
	ok   bool   // they may

	mu  sync.Mutex
	fds []int
}

// noCloseRange is set when the kernel has no close_range (before 5.9).
var noCloseRange atomic.Bool

// closeFile closes f as f.Close does, or hands its descriptor to the batch
// where its close cannot fail.
func (d *Dir) closeFile(f *wfile) error {
	b := &d.closing
	b.once.Do(func() { b.dev, b.ok = d.closeReportsNothing() })
	if !b.ok || f.dir.dev != b.dev {
		return f.Close()
	}
	if f.d != nil {
		f.d.release(f.dir)
		f.d = nil
	}
	var full []int
	b.mu.Lock()
	b.fds = append(b.fds, f.fd)
	if len(b.fds) >= closeBatch {
		full, b.fds = b.fds, make([]int, 0, closeBatch)
	}
	b.mu.Unlock()
	closeRuns(full)
	return nil
}

// closeReportsNothing reports the destination's device and whether its
// file system's close(2) can report no error, and the descriptors
// allowed leave room for a batch (the directory handles and the held
// files take up to three quarters of them: see maxDirHandles, maxHeldFDs).
func (d *Dir) closeReportsNothing() (uint64, bool) {
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) != nil || r.Cur < 8*closeBatch {
		return 0, false
	}
	h, err := d.dirFD("")
	if err != nil {
		return 0, false
	}
	defer d.release(h)
	var st unix.Statfs_t
	if unix.Fstatfs(h.fd, &st) != nil {
		return 0, false
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC:
		return h.dev, true
	}
	return 0, false
}

// flush closes the descriptors waiting.
func (b *fdBatch) flush() {
	b.mu.Lock()
	fds := b.fds
	b.fds = nil
	b.mu.Unlock()
	closeRuns(fds)
}

// closeRuns closes fds (open, and closed by nothing else), a run of
// consecutive numbers at a time.
func closeRuns(fds []int) {
	slices.Sort(fds)
	for i := 0; i < len(fds); {
		j := i + 1
		for j < len(fds) && fds[j] == fds[j-1]+1 {
			j++
		}
		if j-i == 1 || noCloseRange.Load() {
			for _, fd := range fds[i:j] {
				unix.Close(fd)
			}
		} else if err := unix.CloseRange(uint(fds[i]), uint(fds[j-1]), 0); err != nil {
			noCloseRange.Store(true)
			for _, fd := range fds[i:j] {
				unix.Close(fd)
			}
		}
		i = j
	}
}

// aside moves the descriptor fd of a directory handle, which stays open
// long, above asideBase where it can (else it returns fd): below it the
// files' descriptors, opened and closed all the time, then take numbers
// in a run, and are closed by few close_range calls.
func aside(fd int) int {
	base := asideBase()
	if fd >= base {
		return fd
	}
	hi, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, base)
	if err != nil {
		return fd
	}
	unix.Close(fd)
	return hi
}

// asideBase is the lowest descriptor a directory handle is moved to: half
// the descriptors allowed, at most 1<<16 (the handles take at most a
// quarter: see maxDirHandles).
var asideBase = sync.OnceValue(func() int {
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) != nil {
		return 512
	}
	return int(min(1<<16, r.Cur/2))
})
