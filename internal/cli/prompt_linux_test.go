package cli

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns the master and the slave (the terminal unpack would ask
// on) of a new pseudo-terminal, or skips the test where there is none.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open slave: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// ptyScreen collects what the terminal shows (everything written to the
// slave, echo included), read from the master.
type ptyScreen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func watch(master *os.File) *ptyScreen {
	s := &ptyScreen{}
	go func() {
		var b [256]byte
		for {
			n, err := master.Read(b[:])
			s.mu.Lock()
			s.buf.Write(b[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *ptyScreen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func (s *ptyScreen) waitFor(t *testing.T, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(s.String(), what) {
			return
		}
	}
	t.Fatalf("the terminal never showed %q (it shows %q)", what, s.String())
}

func echoOn(t *testing.T, tty *os.File) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ECHO != 0
}

type result struct {
	line string
	err  error
}

// The password typed is not echoed, echo is off before the prompt shows,
// and the terminal is as it was afterwards.
func TestReadSecretPTY(t *testing.T) {
	master, tty := openPTY(t)
	if !echoOn(t, tty) {
		t.Fatal("a new pseudo-terminal echoes")
	}
	scr := watch(master)
	done := make(chan result, 1)
	go func() {
		line, err := readSecret(tty, "Password: ", func(func()) func() { return func() {} })
		done <- result{line, err}
	}()
	scr.waitFor(t, "Password: ")
	if echoOn(t, tty) {
		t.Error("echo is on while the prompt is shown")
	}
	if _, err := master.Write([]byte("s3cret word\n")); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.line != "s3cret word" {
		t.Fatalf("readSecret = %q, %v", r.line, r.err)
	}
	if strings.Contains(scr.String(), "s3cret") {
		t.Errorf("the password was echoed: %q", scr.String())
	}
	if !echoOn(t, tty) {
		t.Error("echo is still off after the prompt")
	}
}

// Ctrl-C during the prompt: the interrupt hook (run by Main before it
// exits, while the read still blocks) turns echo back on.
func TestReadSecretInterruptPTY(t *testing.T) {
	master, tty := openPTY(t)
	scr := watch(master)
	hooks := make(chan func(), 1)
	removed := make(chan struct{})
	done := make(chan result, 1)
	go func() {
		line, err := readSecret(tty, "Password: ", func(fn func()) func() {
			hooks <- fn
			return func() { close(removed) }
		})
		done <- result{line, err}
	}()
	hook := <-hooks
	scr.waitFor(t, "Password: ")
	if echoOn(t, tty) {
		t.Fatal("echo is on while the prompt is shown")
	}
	hook() // what Main runs on SIGINT
	if !echoOn(t, tty) {
		t.Error("echo is still off after the interrupt hook ran")
	}
	master.Write([]byte("\n"))
	<-done
	select {
	case <-removed:
	default:
		t.Error("the interrupt hook was not removed after the prompt")
	}
}

func TestReadSecretNoTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "notatty")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = readSecret(f, "Password: ", func(func()) func() { return func() {} })
	if !errors.Is(err, errNoTerminal) {
		t.Errorf("readSecret on a file: %v", err)
	}
}
