package zstdframe

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/zstd"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// writeToReader reads what a Reader's WriteTo writes, so that the helpers
// that read (decode, io.ReadAll) exercise WriteTo.
type writeToReader struct {
	wt   io.WriterTo
	buf  bytes.Buffer
	done bool
	err  error
}

func viaWriteTo(r io.Reader) io.Reader { return &writeToReader{wt: r.(io.WriterTo)} }

func (w *writeToReader) Read(p []byte) (int, error) {
	if !w.done {
		w.done = true
		_, w.err = w.wt.WriteTo(&w.buf)
	}
	if w.buf.Len() > 0 {
		return w.buf.Read(p)
	}
	if w.err != nil {
		return 0, w.err
	}
	return 0, io.EOF
}

// TestWriteTo decodes every fixture through WriteTo, with one and several
// decoder goroutines, the input whole and one byte at a time, and after a
// first Read.
func TestWriteTo(t *testing.T) {
	for _, f := range fixtures(t) {
		for _, threads := range []int{1, 4} {
			for _, in := range []struct {
				name string
				in   func(io.Reader) io.Reader
			}{{"whole", nil}, {"onebyte-in", iotest.OneByteReader}, {"half-in", iotest.HalfReader}} {
				t.Run(f.name+"/threads="+strconv.Itoa(threads)+"/"+in.name, func(t *testing.T) {
					var src io.Reader = bytes.NewReader(f.data)
					if in.in != nil {
						src = in.in(src)
					}
					out, err := decode(t, src, Config{Threads: threads}, viaWriteTo)
					if err != nil {
						t.Fatal(err)
					}
					if len(out) != f.size || sum(out) != f.sha256 {
						t.Fatalf("got %d bytes sha256 %s, want %d bytes %s", len(out), sum(out), f.size, f.sha256)
					}
				})
			}
		}
		if f.size < 100 {
			continue
		}
		// Read a little first, then WriteTo the rest.
		z, err := NewReader(bytes.NewReader(f.data), Config{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 77)
		if _, err := io.ReadFull(z, head); err != nil {
			t.Fatal(err)
		}
		var rest bytes.Buffer
		if _, err := z.WriteTo(&rest); err != nil {
			t.Fatalf("%s: read then WriteTo: %v", f.name, err)
		}
		if out := append(head, rest.Bytes()...); sum(out) != f.sha256 {
			t.Fatalf("%s: read then WriteTo: wrong content", f.name)
		}
		z.Close()
	}
}

// TestWriteToChecksum: a changed checksum or raw block fails WriteTo with
// the XXH64 mismatch, as it fails Read; a truncated stream with
// ErrTruncated.
func TestWriteToChecksum(t *testing.T) {
	for _, tt := range []struct {
		name string
		flip int
	}{{"text-check", -1}, {"big-check", -3}, {"random-check", 5000}, {"multi", -2}} {
		for _, threads := range []int{1, 4} {
			data := bytes.Clone(fixtureData(t, tt.name))
			i := tt.flip
			if i < 0 {
				i += len(data)
			}
			data[i] ^= 0x10
			_, err := decode(t, bytes.NewReader(data), Config{Threads: threads}, viaWriteTo)
			var me *verify.MismatchError
			if !errors.As(err, &me) || me.Kind != verify.XXH64 || !errors.Is(err, archive.ErrChecksum) {
				t.Errorf("%s threads=%d: error %v, want an XXH64 *verify.MismatchError", tt.name, threads, err)
			}
			whole := fixtureData(t, tt.name)
			if _, err := decode(t, bytes.NewReader(whole[:len(whole)*2/3]), Config{Threads: threads}, viaWriteTo); !errors.Is(err, ErrTruncated) {
				t.Errorf("%s threads=%d: truncated: error %v, want ErrTruncated", tt.name, threads, err)
			}
		}
	}
}

// TestWriteToSinkError: the writer's error comes back unchanged, stays
// sticky, and Close still releases the decoders.
func TestWriteToSinkError(t *testing.T) {
	errSink := errors.New("sink failed")
	for _, threads := range []int{1, 4} {
		z, err := NewReader(bytes.NewReader(fixtureData(t, "big-check")), Config{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		n, err := z.WriteTo(&testutil.FailWriter{N: 300 << 10, Err: errSink})
		if err != errSink || n != 300<<10 {
			t.Errorf("threads=%d: WriteTo = %d, %v; want %d, the sink's error", threads, n, err, 300<<10)
		}
		if _, err := z.Read(make([]byte, 10)); err != errSink {
			t.Errorf("threads=%d: Read after the failure: %v", threads, err)
		}
		z.Close()
	}
}

// TestWriteToAllocs guards WriteTo's steady state: a Reader reused through
// Reset allocates nothing per block written. The single-goroutine decoder
// allocates nothing at all; the concurrent one a fixed few per stream (its
// goroutines' set-up), as many for 16 blocks as for 128.
func TestWriteToAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	small := fixtureData(t, "big-check") // 16 blocks
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	var plain []byte
	for i := 0; len(plain) < 16<<20; i++ {
		plain = strconv.AppendInt(plain, int64(i*i%100003), 10)
		plain = append(plain, ' ')
	}
	large := enc.EncodeAll(plain, nil) // 128 blocks
	enc.Close()
	for _, threads := range []int{1, 2} {
		z, err := NewReader(bytes.NewReader(small), Config{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		src := new(bytes.Reader)
		perStream := func(data []byte) float64 {
			return testing.AllocsPerRun(3, func() {
				src.Reset(data)
				if err := z.Reset(src); err != nil {
					t.Fatal(err)
				}
				if _, err := z.WriteTo(io.Discard); err != nil {
					t.Fatal(err)
				}
			})
		}
		a, b := perStream(small), perStream(large)
		switch {
		case threads == 1 && (a != 0 || b != 0):
			t.Errorf("threads=1: %v and %v allocations per stream, want none", a, b)
		case b > a+2:
			t.Errorf("threads=%d: %v allocations for 16 blocks, %v for 128", threads, a, b)
		}
		z.Close()
	}
}
