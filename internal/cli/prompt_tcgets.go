//go:build aix || linux || solaris

package cli

import "golang.org/x/sys/unix"

// The termios ioctls of System V descent.
const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)
