package cli

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// askSecret asks for a password on the console: CONIN$ and CONOUT$ are
// the console's input and screen even when stdin and stdout are
// redirected (the Windows counterpart of /dev/tty).
func askSecret(prompt string, onInterrupt func(func()) func()) (string, error) {
	in, err := os.OpenFile("CONIN$", os.O_RDWR, 0)
	if err != nil {
		return "", fmt.Errorf("no console to ask for a password")
	}
	defer in.Close()
	out, err := os.OpenFile("CONOUT$", os.O_RDWR, 0)
	if err != nil {
		return "", fmt.Errorf("no console to ask for a password")
	}
	defer out.Close()
	return readConsoleSecret(in, out, prompt, onInterrupt)
}

// readConsoleSecret turns echo off on the console input in, then shows
// prompt on out and reads one line, as readSecret does on Unix: the
// console keeps its line editing, Ctrl-C still interrupts, and
// onInterrupt restores the console mode before the exit (the mode
// outlives the process).
func readConsoleSecret(in, out *os.File, prompt string, onInterrupt func(func()) func()) (string, error) {
	h := windows.Handle(in.Fd())
	var old uint32
	if err := windows.GetConsoleMode(h, &old); err != nil {
		return "", fmt.Errorf("no console to ask for a password: %v", err)
	}
	quiet := old&^windows.ENABLE_ECHO_INPUT | windows.ENABLE_LINE_INPUT | windows.ENABLE_PROCESSED_INPUT
	if err := windows.SetConsoleMode(h, quiet); err != nil {
		return "", err
	}
	restore := func() { windows.SetConsoleMode(h, old) }
	remove := onInterrupt(func() {
		restore()
		fmt.Fprintln(out)
	})
	defer func() {
		remove()
		restore()
	}()
	fmt.Fprint(out, prompt)
	line, err := readLine(in)
	fmt.Fprintln(out)
	return line, err
}
