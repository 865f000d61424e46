//go:build linux || darwin || freebsd

package spool

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// diskSpace reads the free and total bytes of dir's file system.
func diskSpace(dir string) (free, total uint64, ok bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return 0, 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), uint64(st.Blocks) * uint64(st.Bsize), true
}

func noSpace(err error) bool { return errors.Is(err, syscall.ENOSPC) }
