package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAtCalls checks the *at calls against what x/sys/unix gives: the
// same files and errors, for names in the stack buffer, too long for it
// and with a NUL.
func TestAtCalls(t *testing.T) {
	dir := t.TempDir()
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dfd)
	const excl = unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL | unix.O_CLOEXEC
	long := strings.Repeat("l", 255) // fits NAME_MAX, not the buffer
	for _, name := range []string{"a", strings.Repeat("m", 200), long} {
		fd, err := openat(dfd, name, excl, 0o640)
		if err != nil {
			t.Fatalf("openat %.10s: %v", name, err)
		}
		unix.Close(fd)
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm()&^0o640 != 0 {
			t.Fatalf("%.10s: %v %v", name, fi, err)
		}
		if _, err := openat(dfd, name, excl, 0o600); err != unix.EEXIST {
			t.Fatalf("openat %.10s again: %v, want EEXIST", name, err)
		}
	}
	if _, err := openat(dfd, "b\x00c", excl, 0o600); err != unix.EINVAL {
		t.Fatalf("openat with a NUL: %v, want EINVAL", err)
	}
	if _, err := openat(dfd, long+"x", excl, 0o600); err != unix.ENAMETOOLONG {
		t.Fatalf("openat of 256 bytes: %v, want ENAMETOOLONG", err)
	}
	if err := renameat2(dfd, "a", "mx", unix.RENAME_NOREPLACE); err != nil {
		t.Fatal(err)
	}
	if err := renameat2(dfd, "mx", strings.Repeat("m", 200), unix.RENAME_NOREPLACE); err != unix.EEXIST {
		t.Fatalf("renameat2 over a name: %v, want EEXIST", err)
	}
	if err := mkdirat(dfd, "d", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mkdirat(dfd, "d", 0o755); err != unix.EEXIST {
		t.Fatalf("mkdirat again: %v, want EEXIST", err)
	}
	fd, err := openat(dfd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		t.Skip("no O_TMPFILE here:", err)
	}
	defer unix.Close(fd)
	if err := linkatFD(fd, dfd, "t"); err != nil {
		t.Fatal(err)
	}
	if err := linkatFD(fd, dfd, "t"); err != unix.EEXIST {
		t.Fatalf("linkatFD again: %v, want EEXIST", err)
	}
	for _, name := range []string{"t", "mx", strings.Repeat("m", 200), long, "d/x"} {
		if err := unlinkat(dfd, name, 0); err != nil && name != "d/x" || err == nil && name == "d/x" {
			t.Fatalf("unlinkat %.10s: %v", name, err)
		}
	}
	if err := unlinkat(dfd, "d", unix.AT_REMOVEDIR); err != nil {
		t.Fatal(err)
	}
}
