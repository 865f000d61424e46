//go:build darwin || linux

package quarantine

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

func getxattr(path, attr string, buf []byte) (int, error) {
	return unix.Getxattr(path, attr, buf)
}

func fsetxattr(f *os.File, attr string, value []byte) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fsetxattr(int(fd), attr, value, 0) }); err != nil {
		return err
	}
	return serr
}

// isRange reports the error of a buffer too small for the value.
func isRange(err error) bool { return errors.Is(err, unix.ERANGE) }
