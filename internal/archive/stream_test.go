package archive

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// holeSource is an entry reader whose WriteTo writes a hole of n bytes,
// then data; Read has no holes to give and fails the test when used.
type holeSource struct {
	t     *testing.T
	hole  int64
	data  []byte
	wrote bool
}

func (h *holeSource) Read(p []byte) (int, error) {
	h.t.Error("Read called: a stage hid WriteTo")
	return 0, io.EOF
}

func (h *holeSource) WriteTo(w io.Writer) (int64, error) {
	h.wrote = true
	if err := WriteHole(w, h.hole); err != nil {
		return 0, err
	}
	n, err := w.Write(h.data)
	return h.hole + int64(n), err
}

// holeSink records holes and data.
type holeSink struct {
	bytes.Buffer
	holes []int64
}

func (s *holeSink) WriteHole(n int64) error {
	s.holes = append(s.holes, n)
	return nil
}

func chain(src io.Reader, counted *int64, sum *[]byte) io.Reader {
	d := &Decoding{R: src, Format: "test"}
	m := &Meter{R: d, Fn: func(n int64) error { *counted += n; return nil }}
	return &Hashed{R: m, H: sha256.New(), Done: func(s []byte) { *sum = s }}
}

func TestStagesForwardWriteToAndHoles(t *testing.T) {
	const hole = 3<<20 + 5
	src := &holeSource{t: t, hole: hole, data: []byte("tail")}
	var counted int64
	var sum []byte
	var sink holeSink
	n, err := Copy(&sink, chain(src, &counted, &sum))
	if err != nil || n != hole+4 {
		t.Fatalf("Copy = %d, %v", n, err)
	}
	if !src.wrote {
		t.Fatal("the source's WriteTo was not used")
	}
	if len(sink.holes) != 1 || sink.holes[0] != hole || sink.String() != "tail" {
		t.Errorf("sink got holes %v and %q; want one hole of %d and the tail", sink.holes, sink.String(), hole)
	}
	if counted != hole+4 {
		t.Errorf("Meter counted %d, want %d", counted, hole+4)
	}
	want := sha256.Sum256(append(make([]byte, hole), "tail"...))
	if !bytes.Equal(sum, want[:]) {
		t.Errorf("the digest does not cover the hole's zeros")
	}
}

func TestHoleToPlainWriterIsZeros(t *testing.T) {
	src := &holeSource{t: t, hole: 70000, data: []byte("x")}
	var counted int64
	var sum []byte
	var out bytes.Buffer
	if _, err := Copy(&out, chain(src, &counted, &sum)); err != nil {
		t.Fatal(err)
	}
	if want := append(make([]byte, 70000), 'x'); !bytes.Equal(out.Bytes(), want) {
		t.Errorf("a writer without WriteHole got %d bytes, not the hole's zeros and the data", out.Len())
	}
}

func TestMeterLimitStopsBeforeWrite(t *testing.T) {
	errStop := Limitf("stop")
	src := &holeSource{t: t, data: bytes.Repeat([]byte{1}, 100)}
	m := &Meter{R: src, Fn: func(n int64) error { return errStop }}
	var out bytes.Buffer
	_, err := Copy(&out, m)
	if !errors.Is(err, errStop) || out.Len() != 0 {
		t.Errorf("Copy = %v with %d bytes written; want the limit, nothing written", err, out.Len())
	}
	r := &Meter{R: bytes.NewReader(make([]byte, 10)), Fn: func(n int64) error { return errStop }}
	if _, err := io.ReadAll(r); !errors.Is(err, errStop) {
		t.Errorf("Read past the limit: %v", err)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

func TestDecodingErrors(t *testing.T) {
	// A decoder error gets a category, through Read and through WriteTo.
	bad := errors.New("bad tree")
	r := &Decoding{R: iotest.ErrReader(bad), Format: "xz"}
	if _, err := io.ReadAll(r); Classify(err) != Corrupt || !errors.Is(err, bad) {
		t.Errorf("Read: %v", err)
	}
	// A sink's error passes unchanged: it is not the decoder's.
	errDisk := errors.New("no space left")
	d := &Decoding{R: &holeSource{t: t, data: []byte("abc")}, Format: "xz"}
	if _, err := Copy(failWriter{errDisk}, d); err != errDisk {
		t.Errorf("sink error came back as %v", err)
	}
	// A decoder without WriteTo is copied through the pool, errors classified.
	d = &Decoding{R: io.MultiReader(bytes.NewReader([]byte("ab")), iotest.ErrReader(io.ErrUnexpectedEOF)), Format: "gzip"}
	var out bytes.Buffer
	if _, err := Copy(&out, d); !errors.Is(err, ErrCorrupt) || out.String() != "ab" {
		t.Errorf("Copy = %q, %v", out.String(), err)
	}
}
