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
	if fi.Mode()&os.ModeSetuid != 0 || fi.Mode().Perm() != 0o755 {
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
