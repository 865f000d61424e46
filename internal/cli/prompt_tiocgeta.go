//go:build darwin || dragonfly || freebsd || ios || netbsd || openbsd

package cli

import "golang.org/x/sys/unix"

// The termios ioctls of the BSDs and macOS.
const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)
