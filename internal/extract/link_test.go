package extract

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestLinksResolve: links made before their target exists, and links with
// "/" in their targets, open as what they name once the tree is there (on
// Windows: directory links, "\" separators). Without the privilege to make
// links, Windows skips each with a warning.
func TestLinksResolve(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	for _, e := range [](func() error){
		func() error { return d.Put(symlink("early", "sub"), nil) },
		func() error { return d.Put(symlink("deep/up", "../sub/f"), nil) },
		func() error { return d.Put(dir("sub", 0), nil) },
		func() error { return d.Put(file("sub/f", "data"), strings.NewReader("data")) },
		func() error { return d.Put(symlink("late", "sub"), nil) },
	} {
		if err := e(); errors.Is(err, ErrSkipped) {
			t.Skip(err)
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"early/f", "deep/up", "late/f"} {
		if b, err := os.ReadFile(filepath.Join(dest, filepath.FromSlash(p))); err != nil || string(b) != "data" {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
	if list, err := os.ReadDir(filepath.Join(dest, "early")); err != nil || len(list) != 1 {
		t.Errorf("early is no directory link: %v, %v", list, err)
	}
}

// TestSymlinkTimes: a symbolic link gets its entry's time itself (its
// target's is untouched), held or not; --no-times leaves it. Linux only:
// elsewhere os.Root cannot set a link's own times.
func TestSymlinkTimes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("link times are set on Linux only")
	}
	mt := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, pending := range []bool{false, true} {
		for _, noTimes := range []bool{false, true} {
			dest := t.TempDir()
			d, _ := NewDir(dest, DirOptions{NoTimes: noTimes})
			f := file("f", "data")
			if err := d.Put(f, strings.NewReader("data")); err != nil {
				t.Fatal(err)
			}
			l := symlink("l", "f")
			l.ModTime, l.Pending = mt, pending
			if err := d.Put(l, nil); err != nil {
				t.Fatal(err)
			}
			if pending {
				if err := d.Settle(l, nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			li, err := os.Lstat(filepath.Join(dest, "l"))
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(filepath.Join(dest, "f"))
			if got := li.ModTime().Equal(mt); got == noTimes {
				t.Errorf("pending %v, no-times %v: link time %v", pending, noTimes, li.ModTime())
			}
			if fi.ModTime().Equal(mt) {
				t.Errorf("the target's time was set: %v", fi.ModTime())
			}
		}
	}
}
