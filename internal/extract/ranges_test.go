package extract

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// ranged is an entry's data as a stored range of an image file: WriteTo
// hands it to a RangeWriter whole.
type ranged struct {
	f      *os.File
	off, n int64
	ranges *int
}

func (r ranged) Read([]byte) (int, error) { return 0, errors.New("read, not a range") }
func (r ranged) WriteTo(w io.Writer) (int64, error) {
	rw, ok := w.(archive.RangeWriter)
	if !ok {
		return 0, errors.New("the sink's writer is no RangeWriter")
	}
	*r.ranges++
	k, err := rw.WriteRange(r.f, r.off, r.n)
	if err == nil && k < r.n {
		err = io.ErrUnexpectedEOF
	}
	return k, err
}

func image(t *testing.T) (*os.File, []byte) {
	b := make([]byte, 700<<10)
	for i := range b {
		b[i] = byte(i ^ i>>8)
	}
	return testutil.TempFile(t, "image", b), b
}

// TestStdoutRanges: a stored range reaches standard output whether it is a
// file the kernel copies to, a file opened O_APPEND (the kernel refuses:
// EINVAL, and the sink copies through a buffer) or no file at all, and a
// range past the image's end stops short.
func TestStdoutRanges(t *testing.T) {
	img, b := image(t)
	e := &archive.Entry{Name: "f", Type: archive.TypeFile}
	dir := t.TempDir()
	plain, err := os.Create(filepath.Join(dir, "plain"))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	appended, err := os.OpenFile(filepath.Join(dir, "append"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer appended.Close()
	var buf bytes.Buffer
	for _, c := range []struct {
		name string
		w    io.Writer
		got  func() []byte
	}{
		{"file", plain, func() []byte { d, _ := os.ReadFile(plain.Name()); return d }},
		{"O_APPEND file", appended, func() []byte { d, _ := os.ReadFile(appended.Name()); return d }},
		{"buffer", &buf, buf.Bytes},
	} {
		n := 0
		if err := (Stdout{W: c.w}).Put(e, ranged{img, 1234, 600 << 10, &n}); err != nil || n != 1 {
			t.Fatalf("%s: %v (%d ranges)", c.name, err, n)
		}
		if err := (Stdout{W: c.w}).Put(e, ranged{img, int64(len(b)) - 100, 200, &n}); err != io.ErrUnexpectedEOF {
			t.Fatalf("%s: past the end: %v", c.name, err)
		}
		want := append(append([]byte{}, b[1234:1234+600<<10]...), b[len(b)-100:]...)
		if !bytes.Equal(c.got(), want) {
			t.Errorf("%s: %d bytes written, want %d", c.name, len(c.got()), len(want))
		}
	}
}

// TestDiscardRanges: verifying reads every byte of a range (through
// /dev/null) and finds a range past the image's end short.
func TestDiscardRanges(t *testing.T) {
	img, b := image(t)
	e := &archive.Entry{Name: "f", Type: archive.TypeFile}
	n := 0
	if err := (Discard{}).Put(e, ranged{img, 0, int64(len(b)), &n}); err != nil || n != 1 {
		t.Fatalf("%v (%d ranges)", err, n)
	}
	if err := (Discard{}).Put(e, ranged{img, 10, int64(len(b)), &n}); err != io.ErrUnexpectedEOF {
		t.Fatalf("past the end: %v", err)
	}
}

// TestDirRanges: a stored range goes into the extracted file (through the
// kernel on Linux), at its offset after other data; a range past the
// image's end fails the file and leaves nothing.
func TestDirRanges(t *testing.T) {
	img, b := image(t)
	dest := t.TempDir()
	d, err := NewDir(dest, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	e := &archive.Entry{Name: "f.bin", Type: archive.TypeFile, Mode: 0o640, Size: 600 << 10, ModTime: mtime}
	if err := d.Put(e, io.MultiReader(strings.NewReader("head"), ranged{img, 1234, 600 << 10, &n})); err != nil {
		t.Fatal(err)
	}
	cut := &archive.Entry{Name: "cut.bin", Type: archive.TypeFile, Mode: 0o644, Size: 200}
	if err := d.Put(cut, ranged{img, int64(len(b)) - 100, 200, &n}); err != io.ErrUnexpectedEOF {
		t.Fatalf("past the end: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dest, "f.bin"))
	if err != nil || !bytes.Equal(got, append([]byte("head"), b[1234:1234+600<<10]...)) {
		t.Fatalf("f.bin: %d bytes, %v", len(got), err)
	}
	if fi, err := os.Stat(filepath.Join(dest, "f.bin")); err != nil || !fi.ModTime().Equal(mtime) || fi.Mode().Perm() != 0o640 {
		t.Errorf("f.bin: %v", fi)
	}
	if _, err := os.Lstat(filepath.Join(dest, "cut.bin")); !os.IsNotExist(err) {
		t.Errorf("cut.bin left behind: %v", err)
	}
}
