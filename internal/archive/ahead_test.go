package archive

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// checkedSource returns data in short reads of varying size, then err
// (io.EOF when nil); its Verified is every byte returned before the
// current multiple of every.
type checkedSource struct {
	data  []byte
	off   int
	every int
	err   error
	rng   *rand.Rand
	reads int
}

func (c *checkedSource) Read(p []byte) (int, error) {
	c.reads++
	if c.off == len(c.data) {
		if c.err != nil {
			return 0, c.err
		}
		return 0, io.EOF
	}
	n := min(len(p), 1+c.rng.IntN(5000), len(c.data)-c.off)
	copy(p, c.data[c.off:c.off+n])
	c.off += n
	return n, nil
}

func (c *checkedSource) Verified() int64 { return int64(c.off / c.every * c.every) }

func aheadData(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// TestAheadBytesInOrder: before and after Start, through Read of any size
// and through WriteTo, the bytes come in order, then the source's error
// (an I/O error stays what it was); Verified never passes the source's
// figure nor goes back.
func TestAheadBytesInOrder(t *testing.T) {
	data := aheadData(300_000)
	bad := errors.New("read failed")
	for _, srcErr := range []error{nil, bad} {
		for _, startAt := range []int{0, 1, 700, 299_999, 300_000} {
			for _, writeTo := range []bool{false, true} {
				src := &checkedSource{data: data, every: 10_000, err: srcErr, rng: rand.New(rand.NewPCG(1, uint64(startAt)))}
				a := NewAhead(src, 4096, 3)
				var got bytes.Buffer
				if _, err := io.CopyN(&got, iotest.OneByteReader(a), int64(startAt)); err != nil {
					t.Fatal(err)
				}
				a.Start()
				var err error
				if writeTo {
					_, err = a.WriteTo(&got)
				} else {
					var last int64
					buf := make([]byte, 1+startAt%3000)
					for err == nil {
						var n int
						n, err = a.Read(buf)
						got.Write(buf[:n])
						v := a.Verified()
						if v < last || v > int64(got.Len())+4096*3+int64(len(buf)) || v%10_000 != 0 {
							t.Fatalf("Verified %d after %d bytes (was %d)", v, got.Len(), last)
						}
						last = v
					}
					if err == io.EOF {
						err = nil
					}
				}
				if err != srcErr {
					t.Errorf("start at %d, WriteTo %v: error %v, want %v", startAt, writeTo, err, srcErr)
				}
				if !bytes.Equal(got.Bytes(), data) {
					t.Errorf("start at %d, WriteTo %v: %d bytes differ", startAt, writeTo, got.Len())
				}
				if _, err := a.Read(make([]byte, 10)); err != nil && srcErr != nil && err != srcErr {
					t.Errorf("error not sticky: %v", err)
				}
				a.Close()
			}
		}
	}
}

// endless counts its reads, and never ends.
type endless struct{ reads int }

func (e *endless) Read(p []byte) (int, error) {
	e.reads++
	return len(p), nil
}

// TestAheadBounded: the goroutine reads no more than its ring holds ahead
// of the reader, and Close stops it (waiting for it to leave the source),
// started or not, read or not.
func TestAheadBounded(t *testing.T) {
	src := &endless{}
	a := NewAhead(src, 1000, 4)
	a.Start()
	buf := make([]byte, 2500)
	if _, err := io.ReadFull(a, buf); err != nil {
		t.Fatal(err)
	}
	a.Close()
	// 3 buffers taken by the reader at most, 4 in the ring: 7 reads.
	if src.reads > 7 {
		t.Errorf("%d reads of 1000 bytes for 2500 read", src.reads)
	}
	if err := a.Close(); err != nil {
		t.Error(err)
	}
	NewAhead(&endless{}, 1000, 4).Close()
	b := NewAhead(&endless{}, 1000, 4)
	b.Start()
	b.Close()
}
