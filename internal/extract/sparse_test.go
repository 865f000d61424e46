package extract

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

var _ archive.HoleWriter = (*sparseWriter)(nil)

// TestSparseWriterHoles: holes handed to WriteHole cost a seek, whatever
// their size (1 TiB here), and read back as zeros; a trailing hole gives
// the file its size.
func TestSparseWriterHoles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const hole = 1 << 40
	start := time.Now()
	s := &sparseWriter{f: f}
	if _, err := s.Write([]byte("head")); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteHole(hole); err != nil {
		t.Skipf("a 1 TiB hole: %v", err) // a file system without sparse files this large
	}
	s.Write([]byte("tail"))
	if err := s.WriteHole(10); err != nil {
		t.Fatal(err)
	}
	if err := s.finish(); err != nil {
		t.Skipf("a file of 1 TiB: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
	fi, _ := f.Stat()
	if fi.Size() != 4+hole+4+10 {
		t.Errorf("size %d", fi.Size())
	}
	for _, c := range []struct {
		off  int64
		want string
	}{{0, "head"}, {4, "\x00\x00\x00\x00"}, {hole, "\x00\x00\x00\x00"}, {4 + hole, "tail"}, {8 + hole, "\x00\x00"}} {
		b := make([]byte, len(c.want))
		if _, err := f.ReadAt(b, c.off); err != nil && err != io.EOF || string(b) != c.want {
			t.Errorf("at %d: %q, want %q (%v)", c.off, b, c.want, err)
		}
	}
	// A hole past the largest size there can be is refused, not wrapped.
	s2 := &sparseWriter{f: f, off: math.MaxInt64 - 5}
	if err := s2.WriteHole(10); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("a hole past 2^63: %v", err)
	}
}

// holeSource is an entry's data as a sparse-aware reader gives it: its
// WriteTo hands the hole to a HoleWriter; Read would expand it.
type holeSource struct {
	head, tail string
	hole       int64
}

func (s *holeSource) Read([]byte) (int, error) {
	return 0, errors.New("Read: the hole would be written out as zeros")
}

func (s *holeSource) WriteTo(w io.Writer) (int64, error) {
	hw, ok := w.(archive.HoleWriter)
	if !ok {
		return 0, errors.New("the sink's writer is no HoleWriter")
	}
	io.WriteString(w, s.head)
	if err := hw.WriteHole(s.hole); err != nil {
		return 0, err
	}
	io.WriteString(w, s.tail)
	return int64(len(s.head)+len(s.tail)) + s.hole, nil
}

// TestDirSparseHoles: a sparse entry of 1 TiB extracts in well under a
// second when its reader hands the holes over.
func TestDirSparseHoles(t *testing.T) {
	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	const hole = 1 << 40
	e := &archive.Entry{Name: "huge", Type: archive.TypeFile, Size: hole + 8, Sparse: []archive.Region{{Offset: 0, Length: 4}, {Offset: hole + 4, Length: 4}}}
	start := time.Now()
	if err := d.Put(e, &holeSource{"head", "tail", hole}); err != nil {
		t.Skipf("a 1 TiB sparse file: %v", err)
	}
	d.Close()
	if el := time.Since(start); el > time.Second {
		t.Errorf("took %v", el)
	}
	f, err := os.Open(filepath.Join(dest, "huge"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	b := make([]byte, 4)
	f.ReadAt(b, hole+4)
	if fi.Size() != hole+8 || string(b) != "tail" {
		t.Errorf("size %d, %q at the end", fi.Size(), b)
	}
}
