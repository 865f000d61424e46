package extract

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// holey is a sparse entry's reader: data, a hole, data. Its WriteTo hands
// the hole to a HoleWriter as one call, as the format readers do.
type holey struct {
	head, tail []byte
	hole       int64
	holes      *int // how many holes went as WriteHole
}

func (h holey) expanded() []byte {
	return append(append(append([]byte{}, h.head...), make([]byte, h.hole)...), h.tail...)
}

func (h holey) Read([]byte) (int, error) { panic("Read: WriteTo expected") }

func (h holey) WriteTo(w io.Writer) (int64, error) {
	if _, err := w.Write(h.head); err != nil {
		return 0, err
	}
	if hw, ok := w.(archive.HoleWriter); ok {
		*h.holes++
		if err := hw.WriteHole(h.hole); err != nil {
			return 0, err
		}
	} else if _, err := w.Write(make([]byte, h.hole)); err != nil {
		return 0, err
	}
	_, err := w.Write(h.tail)
	return int64(len(h.head)) + h.hole + int64(len(h.tail)), err
}

func TestSinksHoles(t *testing.T) {
	e := &archive.Entry{Name: "s", Type: archive.TypeFile, Sparse: []archive.Region{{Offset: 0, Length: 1}, {Offset: 1<<20 + 1, Length: 1}}}
	n := 0
	h := holey{head: []byte("a"), tail: []byte("b"), hole: 1 << 20, holes: &n}

	dest := t.TempDir()
	d, _ := NewDir(dest, DirOptions{})
	if err := d.Put(e, h); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if got, _ := os.ReadFile(filepath.Join(dest, "s")); !bytes.Equal(got, h.expanded()) || n != 1 {
		t.Errorf("dir: %d bytes, %d holes passed", len(got), n)
	}

	n = 0
	if err := (Discard{}).Put(e, h); err != nil || n != 1 {
		t.Errorf("discard: %v, %d holes passed", err, n)
	}

	n = 0
	var out bytes.Buffer
	if err := (Stdout{W: &out}).Put(e, h); err != nil || n != 0 || !bytes.Equal(out.Bytes(), h.expanded()) {
		t.Errorf("stdout: %v, %d holes passed, %d bytes", err, n, out.Len())
	}

	// A hole no file can hold fails as corrupt data.
	sw := &sparseWriter{off: 10}
	if err := sw.WriteHole(-1); err == nil {
		t.Error("negative hole accepted")
	}
}
