//go:build unix

package cli

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// askSecret asks for a password on the controlling terminal (/dev/tty).
func askSecret(prompt string, onInterrupt func(func()) func()) (string, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "", errNoTerminal
	}
	defer tty.Close()
	return readSecret(tty, prompt, onInterrupt)
}

// readSecret turns echo off on tty, then shows prompt and reads one line.
// Echo goes off before the prompt is shown, so nothing typed once it is
// visible can be echoed (term.ReadPassword shows the prompt first). The
// line editing stays the kernel's (canonical mode); Ctrl-C still
// interrupts, and onInterrupt restores the terminal before the exit.
func readSecret(tty *os.File, prompt string, onInterrupt func(func()) func()) (string, error) {
	fd := int(tty.Fd())
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoTerminal, err)
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	quiet.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &quiet); err != nil {
		return "", err
	}
	restore := func() { unix.IoctlSetTermios(fd, ioctlSetTermios, old) }
	remove := onInterrupt(func() {
		restore()
		fmt.Fprintln(tty) // "unpack: interrupted" goes below the prompt
	})
	defer func() {
		remove()
		restore()
	}()
	fmt.Fprint(tty, prompt)
	line, err := readLine(tty)
	fmt.Fprintln(tty)
	return line, err
}
