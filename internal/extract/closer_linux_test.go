package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCloseRuns: closeRuns closes exactly the descriptors it is given,
// in runs and one by one, and none of those between them.
func TestCloseRuns(t *testing.T) {
	dir := t.TempDir()
	var mine, others []int
	for i := range 40 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		fd, err := unix.Dup(int(f.Fd()))
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		// Runs of three, a kept descriptor between them, and singles.
		if i%4 == 3 || i%13 == 0 {
			others = append(others, fd)
		} else {
			mine = append(mine, fd)
		}
	}
	// Out of order, as two goroutines hand them over.
	for i, j := 0, len(mine)-1; i < j; i, j = i+1, j-1 {
		mine[i], mine[j] = mine[j], mine[i]
	}
	closeRuns(append([]int(nil), mine...))
	for _, fd := range mine {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != unix.EBADF {
			t.Errorf("descriptor %d given to closeRuns still open (%v)", fd, err)
		}
	}
	for _, fd := range others {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
			t.Errorf("descriptor %d not given to closeRuns closed: %v", fd, err)
		}
		unix.Close(fd)
	}
}

// TestAsideHandles: a directory handle moved aside is above the files'
// descriptors and still its directory.
func TestAsideHandles(t *testing.T) {
	dir := t.TempDir()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	hi := aside(fd)
	defer unix.Close(hi)
	if hi < asideBase() && hi == fd {
		t.Skip("no descriptor above", asideBase())
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != unix.EBADF {
		t.Errorf("the low descriptor %d still open", fd)
	}
	if flags, err := unix.FcntlInt(uintptr(hi), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("moved handle: flags %#x, %v; want FD_CLOEXEC", flags, err)
	}
	nfd, err := unix.Openat(hi, "x", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(nfd)
	if _, err := os.Stat(filepath.Join(dir, "x")); err != nil {
		t.Error(err)
	}
}
