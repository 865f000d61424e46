// The terminal tests drive tmux and a named pipe: Unix only.

//go:build unix

package e2e

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmuxWait bounds every wait on the terminal; the tests poll, never sleep
// and hope.
const tmuxWait = 15 * time.Second

// term is a detached tmux session on a private server running one shell
// command line; the line's exit status is printed as "UNPACK-EXIT=N".
type term struct {
	t    *testing.T
	sock string
}

// startTerm runs cmdline in dir in a new 100x20 terminal.
func startTerm(t *testing.T, dir, cmdline string) *term {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (scripts/install-tools.sh installs it)")
	}
	// A short socket path: sun_path holds about 100 bytes.
	sockDir, err := os.MkdirTemp("", "unpack-tmux-")
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, sock: filepath.Join(sockDir, "s")}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", tm.sock, "kill-server").Run()
		os.RemoveAll(sockDir)
	})
	// The shell outlives a Ctrl-C sent to the command (trap), to report.
	shell := "trap : INT; " + cmdline + "; echo UNPACK-EXIT=$?; exec sleep 600"
	out, err := exec.Command("tmux", "-S", tm.sock, "-f", "/dev/null", "new-session", "-d",
		"-x", "100", "-y", "20", "-c", dir, "sh", "-c", shell).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	return tm
}

// screen is what the terminal shows; with escapes, its colours too.
func (tm *term) screen(escapes bool) string {
	args := []string{"-S", tm.sock, "capture-pane", "-p"}
	if escapes {
		args = append(args, "-e")
	}
	out, err := exec.Command("tmux", args...).Output()
	if err != nil {
		tm.t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}

// waitFor polls the screen until ok holds for it, and returns that screen.
func (tm *term) waitFor(what string, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(tmuxWait)
	for {
		s := tm.screen(false)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the terminal never showed %s; it shows:\n%s", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exit waits for the command line to end and returns its exit status.
func (tm *term) exit() (int, string) {
	tm.t.Helper()
	s := tm.waitFor("the exit status", func(s string) bool { return strings.Contains(s, "UNPACK-EXIT=") })
	var code int
	fmt.Sscanf(s[strings.Index(s, "UNPACK-EXIT=")+len("UNPACK-EXIT="):], "%d", &code)
	return code, s
}

// echo reports whether the terminal echoes typed characters (stty).
func (tm *term) echo() bool {
	tm.t.Helper()
	tty, err := exec.Command("tmux", "-S", tm.sock, "display-message", "-p", "#{pane_tty}").Output()
	if err != nil {
		tm.t.Fatalf("pane_tty: %v", err)
	}
	out, err := exec.Command("stty", "-a", "-F", strings.TrimSpace(string(tty))).Output()
	if err != nil {
		tm.t.Fatalf("stty: %v", err)
	}
	return slices.Contains(strings.Fields(string(out)), "echo")
}

func (tm *term) send(keys ...string) {
	if out, err := exec.Command("tmux", append([]string{"-S", tm.sock, "send-keys"}, keys...)...).CombinedOutput(); err != nil {
		tm.t.Fatalf("send-keys: %v: %s", err, out)
	}
}

// unpackBin is the unpack command testscript put on $PATH, or a fresh build.
func unpackBin(t *testing.T) string {
	if p, err := exec.LookPath("unpack"); err == nil {
		return p
	}
	return buildUnpack(t)
}

// TestTerminalPasswordPrompt types the password at unpack's prompt in a
// real terminal: it is not echoed, the right one verifies (exit 0), a
// wrong one is exit 4, Ctrl-C is exit 130; echo is back afterwards.
func TestTerminalPasswordPrompt(t *testing.T) {
	bin := unpackBin(t)
	enc, err := filepath.Abs("../internal/cli/testdata/pw-zipcrypto.zip") // password "secret"
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		typed string
		code  int
	}{
		{"secret", 0},
		{"not-it", 4},
		{"", 130}, // Ctrl-C at the prompt
	} {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			tm := startTerm(t, t.TempDir(), fmt.Sprintf("%q t %q -p", bin, enc))
			tm.waitFor("the password prompt", func(s string) bool { return strings.Contains(s, "Password:") })
			// Typed at once: echo is off before the prompt shows.
			if tc.typed == "" {
				tm.send("C-c")
			} else {
				tm.send("-l", tc.typed)
				tm.send("Enter")
			}
			code, s := tm.exit()
			if !tm.echo() {
				t.Errorf("the terminal was left without echo")
			}
			t.Logf("terminal:\n%s", strings.TrimRight(s, "\n"))
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, s)
			}
			if tc.typed != "" && strings.Contains(s, tc.typed) {
				t.Errorf("the password was echoed:\n%s", s)
			}
			if tc.code == 0 && !strings.Contains(s, "all OK") {
				t.Errorf("no verdict:\n%s", s)
			}
		})
	}
}

// TestTerminalProgress extracts a zip to a FIFO that the test reads in
// steps: while unpack waits for the reader, the terminal must show the bar
// naming the entry being written, with its rate; at the end the bar is
// cleared. NO_COLOR is set, so no colour codes may appear.
func TestTerminalProgress(t *testing.T) {
	bin := unpackBin(t)
	dir := t.TempDir()
	const size = 4 << 20
	names := []string{"first.bin", "dir/second.bin"}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	rng := rand.New(rand.NewSource(7))
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		io.CopyN(w, rng, size)
	}
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "big.zip"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tm := startTerm(t, dir, fmt.Sprintf("NO_COLOR=1 %q x -c big.zip > out.fifo", bin))
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the shell opens it for writing
		if err != nil {
			t.Error(err)
		}
		opened <- f
	}()
	var out *os.File
	select {
	case out = <-opened:
	case <-time.After(tmuxWait):
		t.Fatalf("unpack never opened its output:\n%s", tm.screen(false))
	}
	defer out.Close()
	read := int64(0)
	readTo := func(n int64) {
		m, err := io.CopyN(io.Discard, out, n-read)
		read += m
		if err != nil {
			t.Fatalf("output ended after %d bytes: %v\n%s", read, err, tm.screen(false))
		}
	}
	for i, name := range names {
		readTo(int64(i)*size + 64<<10) // into the entry, then stall
		// Past the first entry, half the input is read: the bar is filling.
		s := tm.waitFor("a bar naming "+name, func(s string) bool {
			return strings.Contains(s, name) && strings.Contains(s, "%") && strings.Contains(s, "iB/s") &&
				(i == 0 || strings.Contains(s, "[=="))
		})
		t.Logf("while %s is written:\n%s", name, strings.TrimRight(s, "\n"))
		if e := tm.screen(true); strings.Contains(e, "\x1b[3") {
			t.Errorf("colour codes with NO_COLOR set: %q", e)
		}
	}
	rest, err := io.Copy(io.Discard, out)
	if err != nil || read+rest != int64(len(names))*size {
		t.Fatalf("output: %d bytes, %v", read+rest, err)
	}
	code, s := tm.exit()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, s)
	}
	if strings.Contains(s, "iB/s") || strings.Contains(s, "second.bin") {
		t.Errorf("the bar was not cleared:\n%s", s)
	}
}
