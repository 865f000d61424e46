package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// maxSecret bounds the length of a typed password.
const maxSecret = 4096

// readSecret turns echo off on tty, then shows prompt and reads one line.
// Echo goes off before the prompt is shown, so nothing typed once it is
// visible can be echoed (term.ReadPassword shows the prompt first). The
// line editing stays the kernel's (canonical mode); Ctrl-C still
// interrupts, and onInterrupt restores the terminal before the exit.
func readSecret(tty *os.File, prompt string, onInterrupt func(func()) func()) (string, error) {
	fd := int(tty.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return "", fmt.Errorf("no terminal to ask for a password: %v", err)
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	quiet.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return "", err
	}
	restore := func() { unix.IoctlSetTermios(fd, unix.TCSETS, old) }
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

// readLine reads up to a newline (not included), at most maxSecret bytes.
func readLine(r io.Reader) (string, error) {
	var buf [256]byte
	var line []byte
	for {
		n, err := r.Read(buf[:])
		end := bytes.IndexByte(buf[:n], '\n')
		if end >= 0 {
			n = end
		}
		line = append(line, buf[:n]...)
		if len(line) > maxSecret {
			return "", fmt.Errorf("password longer than %d bytes", maxSecret)
		}
		if end >= 0 {
			return string(line), nil
		}
		if err == io.EOF {
			if len(line) == 0 {
				return "", io.ErrUnexpectedEOF
			}
			return string(line), nil
		}
		if err != nil {
			return "", err
		}
	}
}
