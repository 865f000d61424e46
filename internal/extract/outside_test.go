package extract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

func TestStripAbsolute(t *testing.T) {
	for in, want := range map[string]string{
		"/etc/passwd": "etc/passwd", "//srv/x": "srv/x", "C:/x": "x", "c:x": "x", "C:\\x": `\x`,
		"rel/a": "rel/a", "/": "", "/../x": "../x",
	} {
		got, stripped := StripAbsolute(in)
		if got != want || stripped != (got != in) {
			t.Errorf("StripAbsolute(%q) = %q, %v; want %q", in, got, stripped, want)
		}
	}
}

// TestAbsoluteNamesStripped: a leading "/" or drive letter is removed (and
// counted, for the caller's warning); ".." after it stays refused.
func TestAbsoluteNamesStripped(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "dest")
	d, err := NewDir(dest, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"/abs.txt", "C:/drive.txt", "//two/slashes.txt"} {
		if err := d.Put(&archive.Entry{Name: name, Type: archive.TypeFile, Mode: 0o644}, strings.NewReader("x")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := d.Put(&archive.Entry{Name: "/../up.txt", Type: archive.TypeFile}, strings.NewReader("x")); !errors.Is(err, ErrInsecurePath) {
		t.Errorf("/../up.txt: %v", err)
	}
	if n := d.Stripped(); n != 4 {
		t.Errorf("Stripped() = %d, want 4", n)
	}
	d.Close()
	for _, p := range []string{"abs.txt", "drive.txt", "two/slashes.txt"} {
		if _, err := os.Stat(filepath.Join(dest, p)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "up.txt")); err == nil {
		t.Error("up.txt written outside")
	}
}

// TestAllowOutsideLinks: with the option, links leaving the destination
// are made as stored; entries through them are still refused and nothing
// is written outside.
func TestAllowOutsideLinks(t *testing.T) {
	dir := t.TempDir()
	dest, outside := filepath.Join(dir, "dest"), filepath.Join(dir, "outside")
	os.Mkdir(outside, 0o755)
	d, err := NewDir(dest, DirOptions{AllowOutsideLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"etc/localtime": "/usr/share/zoneinfo/UTC", "up": "../outside", "chain": "up/.."}
	for _, name := range []string{"etc/localtime", "up", "chain"} {
		if err := d.Put(&archive.Entry{Name: name, Type: archive.TypeSymlink, Linkname: links[name]}, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := d.Put(&archive.Entry{Name: "up/planted", Type: archive.TypeFile}, strings.NewReader("x")); !errors.Is(err, ErrInsecurePath) {
		t.Errorf("up/planted: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for name, want := range links {
		if got, err := os.Readlink(filepath.Join(dest, name)); err != nil || got != want {
			t.Errorf("%s -> %q, %v; want %q", name, got, err, want)
		}
	}
	if list, _ := os.ReadDir(outside); len(list) != 0 {
		t.Errorf("written outside: %v", list)
	}

	// Without the option the same links are refused.
	d, _ = NewDir(filepath.Join(dir, "strict"), DirOptions{})
	if err := d.Put(&archive.Entry{Name: "up", Type: archive.TypeSymlink, Linkname: "../outside"}, nil); !errors.Is(err, ErrInsecurePath) {
		t.Errorf("without the option: %v", err)
	}
	d.Close()
}
