package extract

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

func TestDirFailedEntryLeavesNothing(t *testing.T) {
	dest := t.TempDir()
	d, err := NewDir(dest, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad := errors.New("checksum mismatch")
	e := &archive.Entry{Name: "f", Type: archive.TypeFile}
	err = d.Put(e, io.MultiReader(bytes.NewReader([]byte("partial")), iotest.ErrReader(bad)))
	if !errors.Is(err, bad) {
		t.Fatalf("err = %v", err)
	}
	d.Close()
	if list, _ := os.ReadDir(dest); len(list) != 0 {
		t.Errorf("left: %v", list)
	}
}

func TestDirSparse(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	data := make([]byte, 1<<20)
	copy(data[500000:], "island")
	e := &archive.Entry{Name: "sparse", Type: archive.TypeFile, Sparse: []archive.Region{}, ModTime: time.Unix(1e9, 0)}
	if err := d.Put(e, iotest.HalfReader(bytes.NewReader(data))); err != nil {
		t.Fatal(err)
	}
	d.Close()
	got, _ := os.ReadFile(filepath.Join(dest, "sparse"))
	if !bytes.Equal(got, data) {
		t.Error("sparse content differs")
	}
}

func TestDirSetIDDropped(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	e := &archive.Entry{Name: "s", Type: archive.TypeFile, Mode: 0o755 | os.ModeSetuid}
	if err := d.Put(e, bytes.NewReader(nil)); err != nil {
		t.Fatal(err)
	}
	d.Close()
	fi, _ := os.Stat(filepath.Join(dest, "s"))
	if fi.Mode()&os.ModeSetuid != 0 || fi.Mode().Perm() != 0o755&^processUmask() {
		t.Errorf("mode %v", fi.Mode())
	}
}

func TestDirAbortRemovesTemp(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	pr, pw := io.Pipe()
	done := make(chan error)
	go func() { done <- d.Put(&archive.Entry{Name: "big", Type: archive.TypeFile}, pr) }()
	pw.Write([]byte("some data"))
	d.Abort()
	pw.CloseWithError(errors.New("interrupted"))
	<-done
	d.Close()
	if list, _ := os.ReadDir(dest); len(list) != 0 {
		t.Errorf("left: %v", list)
	}
}

func BenchmarkDirPut(b *testing.B) {
	dest := b.TempDir()
	d, _ := NewDir(dest, DirOptions{Policy: Overwrite})
	data := make([]byte, 8<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Put(&archive.Entry{Name: "f", Type: archive.TypeFile}, bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDirConflictingEntries: an archive whose entries contradict each other
// (a file and a directory of one path, a file where a later entry needs a
// directory) fails the later entry as corrupt, in either order, while a
// second file of the same name replaces the first. A path that existed
// before the extraction is the overwrite policy's (ErrExists).
func TestDirConflictingEntries(t *testing.T) {
	f := func(name string) *archive.Entry { return &archive.Entry{Name: name, Type: archive.TypeFile} }
	dir := func(name string) *archive.Entry { return &archive.Entry{Name: name, Type: archive.TypeDir} }
	link := func(name, to string) *archive.Entry {
		return &archive.Entry{Name: name, Type: archive.TypeSymlink, Linkname: to}
	}
	for _, tc := range []struct {
		name    string
		entries []*archive.Entry
		want    error // of the last entry
	}{
		{"file then file below it", []*archive.Entry{f("a/b"), f("a/b/c")}, archive.ErrCorrupt},
		{"file below then file", []*archive.Entry{f("a/b/c"), f("a/b")}, archive.ErrCorrupt},
		{"dir then file", []*archive.Entry{dir("a"), f("a")}, archive.ErrCorrupt},
		{"file then dir", []*archive.Entry{f("a"), dir("a")}, archive.ErrCorrupt},
		{"dir then symlink", []*archive.Entry{dir("a"), link("a", ".")}, archive.ErrCorrupt},
		{"file then file", []*archive.Entry{f("a"), f("a")}, nil},
		{"dir then dir", []*archive.Entry{dir("a"), dir("a/")}, nil},
	} {
		dest := t.TempDir()
		d, err := NewDir(dest, DirOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range tc.entries {
			err = d.Put(e, bytes.NewReader([]byte("data")))
			if i < len(tc.entries)-1 && err != nil {
				t.Fatalf("%s: entry %d: %v", tc.name, i, err)
			}
		}
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
		d.Close()
	}
	// Already on disk before: not the archive's contradiction.
	dest := t.TempDir()
	os.MkdirAll(filepath.Join(dest, "a"), 0o755)
	os.WriteFile(filepath.Join(dest, "b"), nil, 0o644)
	d, _ := NewDir(dest, DirOptions{})
	defer d.Close()
	if err := d.Put(f("a"), bytes.NewReader(nil)); !errors.Is(err, ErrExists) {
		t.Errorf("existing directory: %v", err)
	}
	if err := d.Put(f("b/c"), bytes.NewReader(nil)); err == nil || errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("existing file as a parent: %v", err)
	}
}
