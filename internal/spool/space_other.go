//go:build !linux && !darwin && !freebsd && !windows

package spool

// diskSpace cannot read the free space here: the spool is bounded by its
// byte limit, and by the write that fails when the disk is full (an I/O
// error, not told apart from others).
func diskSpace(string) (free, total uint64, ok bool) { return 0, 0, false }

func noSpace(error) bool { return false }
