package e2e

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// buildUnpack builds the command once per test binary.
func buildUnpack(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "unpack")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/unpack").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), ".unpack-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// randomGzip is a gzip stream of 8 MiB of random bytes: half of it keeps
// unpack busy with a file in flight, then the pipe stalls.
func randomGzip() []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	data := make([]byte, 8<<20)
	rand.New(rand.NewSource(1)).Read(data)
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

// TestInterrupt sends SIGINT, then SIGTERM, while an entry is being
// written from a pipe that stalls: unpack exits 130 at once for either (as
// the README documents) and removes the file in flight.
func TestInterrupt(t *testing.T) {
	bin := buildUnpack(t)
	gz := randomGzip()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, "x", "-", "-o", filepath.Join(dir, "out"))
			stdin, _ := cmd.StdinPipe()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdin.Write(gz[:len(gz)/2]) // then stall, pipe open
			deadline := time.Now().Add(20 * time.Second)
			for {
				if inFlight(cmd.Process.Pid, filepath.Join(dir, "out")) {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("no file in flight")
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "interrupted") {
				t.Fatalf("exit %v, stderr %q", err, stderr.String())
			}
			noTemps(t, dir)
			if list, _ := os.ReadDir(filepath.Join(dir, "out")); len(list) != 0 {
				t.Errorf("left in the destination: %v", list)
			}
		})
	}
}

// TestInterruptNothingToUndo sends SIGINT, then SIGTERM, to `x -c` while
// it streams from a pipe that stalls: it has nothing to undo, so it starts
// no signal handler (a thread less at every start) and the signal ends it
// as it ends any program, with no message (the README says so).
func TestInterruptNothingToUndo(t *testing.T) {
	bin := buildUnpack(t)
	gz := randomGzip()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "x", "-c", "-")
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			go stdin.Write(gz[:len(gz)/2]) // then stall, pipe open
			if _, err := stdout.Read(make([]byte, 1)); err != nil {
				cmd.Process.Kill()
				t.Fatalf("no output before the stall: %v", err)
			}
			go io.Copy(io.Discard, stdout)
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("exit %v, stderr %q", err, stderr.String())
			}
			ws := ee.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != sig || stderr.Len() != 0 {
				t.Fatalf("exit %v (status %#x), stderr %q: want the signal's own end", err, ws, stderr.String())
			}
		})
	}
}

// inFlight reports whether the process pid is writing a file in dir: one
// under a temporary name, or (Linux) an unnamed one it holds open there.
func inFlight(pid int, dir string) bool {
	if m, _ := filepath.Glob(filepath.Join(dir, ".unpack-*")); len(m) > 0 {
		return true
	}
	fds, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "fd", "*"))
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, dir+"/") {
			return true
		}
	}
	return false
}

// mountTmpfs mounts a small tmpfs on dir (root only), or skips the test.
func mountTmpfs(t *testing.T, dir, opts string) {
	t.Helper()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
}

// TestNoSpace fills the destination: exit 1 naming the path, no temporary
// file, and the files completed before it intact.
func TestNoSpace(t *testing.T) {
	bin := buildUnpack(t)
	dir := t.TempDir()
	dest := filepath.Join(dir, "small")
	os.Mkdir(dest, 0o755)
	mountTmpfs(t, dest, "size=256k")
	src := filepath.Join(dir, "src")
	os.MkdirAll(filepath.Join(src, "d"), 0o755)
	os.WriteFile(filepath.Join(src, "d", "a.txt"), []byte("first file\n"), 0o644)
	big := make([]byte, 2<<20)
	rand.New(rand.NewSource(2)).Read(big)
	os.WriteFile(filepath.Join(src, "d", "z.bin"), big, 0o644)
	arch := filepath.Join(dir, "a.tar")
	if out, err := exec.Command("tar", "-C", src, "-cf", arch, "d/a.txt", "d/z.bin").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, out)
	}
	cmd := exec.Command(bin, "x", arch, "-o", dest)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "d/z.bin") ||
		!strings.Contains(string(out), "no space left") {
		t.Fatalf("exit %v: %s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "d", "a.txt")); err != nil || string(b) != "first file\n" {
		t.Errorf("completed file: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dest, "d", "z.bin")); err == nil {
		t.Error("the failed file is there")
	}
	noTemps(t, dest)
}

// TestReadOnlyDestination: exit 1 naming the path.
func TestReadOnlyDestination(t *testing.T) {
	bin := buildUnpack(t)
	dir := t.TempDir()
	dest := filepath.Join(dir, "ro")
	os.Mkdir(dest, 0o755)
	mountTmpfs(t, dest, "ro,size=64k")
	arch := filepath.Join(dir, "a.tar")
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x"), 0o644)
	exec.Command("tar", "-C", dir, "-cf", arch, "f.txt").Run()
	out, err := exec.Command(bin, "x", arch, "-o", dest).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "read-only file system") {
		t.Fatalf("exit %v: %s", err, out)
	}
}

// TestStdoutFull: writing to a full device fails with exit 1.
func TestStdoutFull(t *testing.T) {
	bin := buildUnpack(t)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	dir := t.TempDir()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(make([]byte, 1<<20))
	w.Close()
	arch := filepath.Join(dir, "z.gz")
	os.WriteFile(arch, buf.Bytes(), 0o644)
	cmd := exec.Command(bin, "x", "-c", arch)
	cmd.Stdout = full
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "no space left") {
		t.Fatalf("exit %v: %s", err, stderr.String())
	}
}
