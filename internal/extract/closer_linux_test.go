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
