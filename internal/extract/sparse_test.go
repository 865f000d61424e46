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
