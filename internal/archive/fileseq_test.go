package archive

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// rangeFile is an input that is one open file and a RangeSource, as
// formats.Open makes it.
type rangeFile struct {
	*os.File
	sent int64 // bytes given through WriteRange
}

func (r *rangeFile) SendRange(w RangeWriter, off, n int64) (int64, error) {
	k, err := w.WriteRange(r.File, off, n)
	r.sent += k
	return k, err
}

// rangeBuf is a RangeWriter into a buffer.
type rangeBuf struct {
	bytes.Buffer
	ranges int
}

func (b *rangeBuf) WriteRange(f *os.File, off, n int64) (int64, error) {
	b.ranges++
	return CopyRange(&b.Buffer, f, off, n)
}

func seqData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + i>>11)
	}
	return b
}

func seqFile(t *testing.T, b []byte) *rangeFile {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &rangeFile{File: f}
}

// TestFileSeqSend: runs of every length around the buffer and the direct
// threshold, from every kind of input and to every kind of writer, give
// the input's bytes in order, the reads through R before and after each
// run included; each sees them all.
func TestFileSeqSend(t *testing.T) {
	data := seqData(3<<20 + 12345)
	f := seqFile(t, data)
	const buf = 16 << 10
	lengths := []int64{0, 1, 100, buf - 1, buf, buf + 1, directMin - 1, directMin, directMin + 1,
		directMin + buf, directSize - 1, directSize + 7, 1 << 20, 1<<20 + 3}
	inputs := map[string]func() *FileSeq{
		"file":    func() *FileSeq { return NewFileSeq(&Input{RA: f, Size: int64(len(data))}, buf) },
		"readat":  func() *FileSeq { return NewFileSeq(&Input{RA: f.File, Size: int64(len(data))}, buf) },
		"reader":  func() *FileSeq { return NewSeq(bytes.NewReader(data), buf) },
		"bufread": func() *FileSeq { return NewFileSeq(&Input{R: bytes.NewReader(data), Size: -1}, buf) },
	}
	for name, open := range inputs {
		for _, ranged := range []bool{false, true} {
			for _, sum := range []bool{false, true} {
				s := open()
				var out rangeBuf
				var w io.Writer = &out.Buffer
				if ranged {
					w = &out
				}
				var seen int64
				var each func([]byte)
				if sum {
					each = func(p []byte) {
						if !bytes.Equal(p, data[seen:seen+int64(len(p))]) {
							t.Fatalf("%s: each saw other bytes at %d", name, seen)
						}
						seen += int64(len(p))
					}
				}
				var off int64
				var head [7]byte
				for _, n := range lengths {
					if _, err := io.ReadFull(s.R, head[:]); err != nil {
						t.Fatalf("%s: header read at %d: %v", name, off, err)
					}
					if !bytes.Equal(head[:], data[off:off+7]) {
						t.Fatalf("%s: header at %d: other bytes", name, off)
					}
					off += 7
					seen = off
					out.Reset()
					k, rerr, werr := s.Send(w, n, each)
					if k != n || rerr != nil || werr != nil {
						t.Fatalf("%s ranged=%v: Send(%d) at %d = %d, %v, %v", name, ranged, n, off, k, rerr, werr)
					}
					if !bytes.Equal(out.Bytes(), data[off:off+n]) {
						t.Fatalf("%s ranged=%v: Send(%d) at %d: other bytes", name, ranged, n, off)
					}
					if sum && seen != off+n {
						t.Fatalf("%s: each saw %d bytes of %d", name, seen-off, n)
					}
					off += n
				}
				// Past the end: short, no error, and R at the end.
				n := int64(len(data)) - off
				k, rerr, werr := s.Send(w, n+100, each)
				if k != n || rerr != nil || werr != nil {
					t.Fatalf("%s: Send past the end = %d, %v, %v; want %d", name, k, rerr, werr, n)
				}
				if _, err := s.R.ReadByte(); err != io.EOF {
					t.Fatalf("%s: R after the end: %v", name, err)
				}
			}
		}
	}
	if f.sent == 0 {
		t.Errorf("no run went through SendRange")
	}
}

// seqFailAt fails every read that reaches off.
type seqFailAt struct {
	ra  io.ReaderAt
	off int64
}

var errSeqRead = errors.New("read failed")

func (f seqFailAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) <= f.off {
		return f.ra.ReadAt(p, off)
	}
	n, _ := f.ra.ReadAt(p[:max(f.off-off, 0)], off)
	return n, errSeqRead
}

type seqFailWriter struct{ after int }

func (w *seqFailWriter) Write(p []byte) (int, error) {
	if len(p) > w.after {
		n := w.after
		w.after = 0
		return n, errors.New("write failed")
	}
	w.after -= len(p)
	return len(p), nil
}

// TestFileSeqErrors: a read error is rerr, a write error werr, each after
// the bytes that made it.
func TestFileSeqErrors(t *testing.T) {
	data := seqData(1 << 20)
	for _, buf := range []int{4 << 10, 64 << 10} {
		s := NewFileSeq(&Input{RA: seqFailAt{bytes.NewReader(data), 500_000}, Size: int64(len(data))}, buf)
		k, rerr, werr := s.Send(io.Discard, 900_000, nil)
		if k != 500_000 || !errors.Is(rerr, errSeqRead) || werr != nil {
			t.Errorf("buf %d: read error: %d, %v, %v", buf, k, rerr, werr)
		}
		s = NewFileSeq(&Input{RA: bytes.NewReader(data), Size: int64(len(data))}, buf)
		k, rerr, werr = s.Send(&seqFailWriter{after: 300_000}, 900_000, nil)
		if k != 300_000 || rerr != nil || werr == nil {
			t.Errorf("buf %d: write error: %d, %v, %v", buf, k, rerr, werr)
		}
	}
}
