package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
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
	return &rangeFile{File: testutil.TempFile(t, "in", b)}
}

// TestFileSeqSend: runs of every length around the buffer, the direct and
// the parallel thresholds, from every kind of input, to every kind of
// writer and with 0 to 3 readers, give the input's bytes in order, the
// reads through R before and after each run included; each sees them all.
func TestFileSeqSend(t *testing.T) {
	data := seqData(16<<20 + 12345)
	f := seqFile(t, data)
	const buf = 16 << 10
	lengths := []int64{0, 1, 100, buf - 1, buf, buf + 1, directMin - 1, directMin, directMin + 1,
		directMin + buf, directSize - 1, directSize + 7, 1 << 20, 1<<20 + 3,
		parallelMin - 1, parallelMin, parallelMin + 3*directSize + 5}
	inputs := map[string]func() *FileSeq{
		"file":    func() *FileSeq { return NewFileSeq(&Input{RA: f, Size: int64(len(data))}, buf) },
		"readat":  func() *FileSeq { return NewFileSeq(&Input{RA: f.File, Size: int64(len(data))}, buf) },
		"reader":  func() *FileSeq { return NewSeq(bytes.NewReader(data), buf) },
		"bufread": func() *FileSeq { return NewFileSeq(&Input{R: bytes.NewReader(data), Size: -1}, buf) },
	}
	for name, open := range inputs {
		for _, ranged := range []bool{false, true} {
			for _, sum := range []bool{false, true} {
				for readers := range 4 {
					name := fmt.Sprintf("%s/ranged=%v/sum=%v/readers=%d", name, ranged, sum, readers)
					s := open()
					s.Readers = readers
					sendAll(t, name, s, data, lengths, ranged, sum)
				}
			}
		}
	}
	if f.sent == 0 {
		t.Errorf("no run went through SendRange")
	}
}

// sendAll reads a 7-byte header through s.R, then a run of each length
// with Send, then the rest, checking what they give against data.
func sendAll(t *testing.T, name string, s *FileSeq, data []byte, lengths []int64, ranged, sum bool) {
	t.Helper()
	var out rangeBuf
	var w io.Writer = &out.Buffer
	if ranged {
		w = &out
	}
	// each may see a run's chunks in any order and at once: it adds up the
	// bytes and their count.
	var seenSum, seenN atomic.Uint64
	var each func([]byte)
	if sum {
		each = func(p []byte) {
			var t uint64
			for _, c := range p {
				t += uint64(c)
			}
			seenSum.Add(t)
			seenN.Add(uint64(len(p)))
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
		seenSum.Store(0)
		seenN.Store(0)
		out.Reset()
		k, rerr, werr := s.Send(w, n, each)
		if k != n || rerr != nil || werr != nil {
			t.Fatalf("%s: Send(%d) at %d = %d, %v, %v", name, n, off, k, rerr, werr)
		}
		if !bytes.Equal(out.Bytes(), data[off:off+n]) {
			t.Fatalf("%s: Send(%d) at %d: other bytes", name, n, off)
		}
		var want uint64
		for _, c := range data[off : off+n] {
			want += uint64(c)
		}
		if sum && (seenN.Load() != uint64(n) || seenSum.Load() != want) {
			t.Fatalf("%s: each saw %d bytes of %d, sum %d of %d", name, seenN.Load(), n, seenSum.Load(), want)
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
	data := seqData(8 << 20)
	for _, buf := range []int{4 << 10, 64 << 10} {
		for readers := range 4 {
			for _, at := range []int64{500_000, 5_000_000} {
				s := NewFileSeq(&Input{RA: seqFailAt{bytes.NewReader(data), at}, Size: int64(len(data))}, buf)
				s.Readers = readers
				k, rerr, werr := s.Send(io.Discard, 6_000_000, func([]byte) {})
				if k != at || !errors.Is(rerr, errSeqRead) || werr != nil {
					t.Errorf("buf %d readers %d: read error at %d: %d, %v, %v", buf, readers, at, k, rerr, werr)
				}
				s = NewFileSeq(&Input{RA: bytes.NewReader(data), Size: int64(len(data))}, buf)
				s.Readers = readers
				k, rerr, werr = s.Send(&seqFailWriter{after: int(at)}, 6_000_000, func([]byte) {})
				if k != at || rerr != nil || werr == nil {
					t.Errorf("buf %d readers %d: write error at %d: %d, %v, %v", buf, readers, at, k, rerr, werr)
				}
			}
		}
	}
}
