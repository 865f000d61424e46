package archive

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// failAt is a ReaderAt whose bytes past at fail with err.
type failAt struct {
	b   []byte
	at  int64
	err error
}

func (f failAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= f.at {
		return 0, f.err
	}
	n := copy(p[:min(int64(len(p)), f.at-off)], f.b[off:])
	return n, nil
}

func TestCopyRange(t *testing.T) {
	b := bytes.Repeat([]byte("0123456789abcdef"), 40000) // 640000 bytes: three buffers
	var out bytes.Buffer
	if n, err := CopyRange(&out, bytes.NewReader(b), 7, int64(len(b))-7); err != nil || n != int64(len(b))-7 || !bytes.Equal(out.Bytes(), b[7:]) {
		t.Fatalf("whole: %d, %v", n, err)
	}
	// Past the end: short, no error (the caller knows the size it wanted).
	out.Reset()
	if n, err := CopyRange(&out, bytes.NewReader(b), int64(len(b))-5, 100); err != nil || n != 5 {
		t.Fatalf("past the end: %d, %v; want 5, nil", n, err)
	}
	// A read error is the source's I/O error, after the bytes before it.
	out.Reset()
	eio := errors.New("input/output error")
	n, err := CopyRange(&out, failAt{b, 300000, eio}, 0, int64(len(b)))
	var ie *IOError
	if n != 300000 || !errors.As(err, &ie) || ie.Stage != "source" || !errors.Is(err, eio) {
		t.Fatalf("read error: %d, %v", n, err)
	}
	// A write error is the writer's, unchanged.
	werr := errors.New("disk full")
	if _, err := CopyRange(failWriter{werr}, bytes.NewReader(b), 0, 10); err != werr {
		t.Fatalf("write error: %v", err)
	}
}

// rangeRecorder is a RangeWriter that records the ranges it is given.
type rangeRecorder struct {
	bytes.Buffer
	ranges [][2]int64
}

func (r *rangeRecorder) WriteRange(f *os.File, off, n int64) (int64, error) {
	r.ranges = append(r.ranges, [2]int64{off, n})
	return CopyRange(&r.Buffer, f, off, n)
}

// TestMeterRanges: a Meter's writer forwards a range to a RangeWriter,
// copies it to any other writer, counts it first and refuses it whole
// past a limit.
func TestMeterRanges(t *testing.T) {
	f := testutil.TempFile(t, "f", []byte("hello, ranges"))
	var counted int64
	limit := errors.New("limit")
	fn := func(n int64) error {
		if counted+n > 12 {
			return limit
		}
		counted += n
		return nil
	}
	rec := &rangeRecorder{}
	mw := &meterWriter{w: rec, fn: fn}
	if n, err := mw.WriteRange(f, 7, 6); err != nil || n != 6 || rec.String() != "ranges" || len(rec.ranges) != 1 || counted != 6 {
		t.Fatalf("to a RangeWriter: %d, %v, %q, %v, counted %d", n, err, rec.String(), rec.ranges, counted)
	}
	var plain bytes.Buffer
	mw = &meterWriter{w: &plain, fn: fn}
	if n, err := mw.WriteRange(f, 0, 5); err != nil || n != 5 || plain.String() != "hello" || counted != 11 {
		t.Fatalf("to a plain writer: %d, %v, %q, counted %d", n, err, plain.String(), counted)
	}
	if n, err := mw.WriteRange(f, 0, 5); err != limit || n != 0 || plain.Len() != 5 {
		t.Fatalf("past the limit: %d, %v, %d bytes written", n, err, plain.Len())
	}
}

// TestListReaderWriteTo: the current entry's data go through its reader's
// WriteTo, so that a range reaches the sink.
func TestListReaderWriteTo(t *testing.T) {
	var got []string
	r := NewListReader("x", []*Entry{{Name: "a"}, {Name: "d", Type: TypeDir}}, func(i int) (io.ReadCloser, error) {
		return io.NopCloser(writerTo{&got}), nil
	})
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := Copy(io.Discard, r); err != nil || len(got) != 1 {
		t.Fatalf("%v, %v", err, got)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if n, err := r.WriteTo(io.Discard); n != 0 || err != nil {
		t.Fatalf("a directory: %d, %v", n, err)
	}
}

type writerTo struct{ calls *[]string }

func (w writerTo) Read([]byte) (int, error) { return 0, io.EOF }
func (w writerTo) WriteTo(io.Writer) (int64, error) {
	*w.calls = append(*w.calls, "WriteTo")
	return 0, nil
}
