//go:build !linux

package cli

import (
	"fmt"
	"os"

	"golang.org/x/term"
)

// readSecret shows prompt on tty and reads one line without echo.
func readSecret(tty *os.File, prompt string, _ func(func()) func()) (string, error) {
	fmt.Fprint(tty, prompt)
	pw, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(tty)
	if err != nil {
		return "", err
	}
	return string(pw), nil
}
