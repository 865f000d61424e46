package extract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/osnames"
)

// TestNamePolicy: with another system's rules, names it cannot hold are
// renamed with a warning (links follow), and names it would store as one
// file fail as the archive contradicting itself, before anything is
// written for them.
func TestNamePolicy(t *testing.T) {
	put := func(d *Dir, e *archive.Entry, data string) error {
		if e.Type == 0 {
			e.Type, e.Mode = archive.TypeFile, 0o644
		}
		return d.Put(e, strings.NewReader(data))
	}
	dest := t.TempDir()
	var warned []string
	d, err := NewDir(dest, DirOptions{Names: osnames.Windows, Warn: func(entry, msg string) { warned = append(warned, entry+": "+msg) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"CON.txt", "ab:stream", "trailing. ", "README"} {
		if err := put(d, &archive.Entry{Name: name}, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := put(d, &archive.Entry{Name: "link", Type: archive.TypeSymlink, Linkname: "ab:stream"}, ""); err != nil {
		t.Errorf("link: %v", err)
	}
	if err := put(d, &archive.Entry{Name: "readme"}, "other"); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("readme after README: %v, want the archive contradicting itself", err)
	}
	d.Close()
	for _, name := range []string{"_CON.txt", "ab_stream", "trailing__", "README"} {
		if _, err := os.Lstat(filepath.Join(dest, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got, _ := os.Readlink(filepath.Join(dest, "link")); filepath.ToSlash(got) != "ab_stream" {
		t.Errorf("link -> %q, want the renamed ab_stream", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "README")); string(b) != "README" {
		t.Errorf("README = %q", b)
	}
	if len(warned) != 3 {
		t.Errorf("warnings %q", warned)
	}

	dest = t.TempDir()
	d, _ = NewDir(dest, DirOptions{Names: osnames.Darwin})
	if err := put(d, &archive.Entry{Name: "caf\u00e9"}, "nfc"); err != nil {
		t.Fatal(err)
	}
	if err := put(d, &archive.Entry{Name: "cafe\u0301"}, "nfd"); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("NFD after NFC: %v", err)
	}
	d.Close()
}
