package extract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
