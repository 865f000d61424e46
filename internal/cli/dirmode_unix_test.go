//go:build unix

package cli

import (
	"archive/tar"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDirModesRestored: a 0555 directory entry extracts as 0555 (through
// the umask unless root), with its files in it and its time.
func TestDirModesRestored(t *testing.T) {
	dir := t.TempDir()
	arch := write(t, dir, "ro.tar", makeTar(t, []tarEntry{
		{name: "ro/", typ: tar.TypeDir, mode: 0o555},
		{name: "ro/in/", typ: tar.TypeDir, mode: 0o750},
		{name: "ro/in/f", body: "data"},
	}))
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, nil, "x", arch, "-o", out); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	defer os.Chmod(filepath.Join(out, "ro"), 0o755)
	mask := os.FileMode(0)
	if os.Geteuid() != 0 {
		mask = os.FileMode(syscall.Umask(0o22))
		syscall.Umask(int(mask))
	}
	for name, want := range map[string]os.FileMode{"ro": 0o555, "ro/in": 0o750} {
		fi, err := os.Stat(filepath.Join(out, name))
		if err != nil || fi.Mode().Perm() != want&^mask || !fi.ModTime().Equal(mtime) {
			t.Errorf("%s: %v %v, want %v", name, fi.Mode(), err, want&^mask)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "ro/in/f")); string(b) != "data" {
		t.Errorf("ro/in/f = %q", b)
	}
}
