package xz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// TestWriteToAfterRead reads the start of every fixture with Read and
// writes the rest with WriteTo, single-threaded and in parallel.
func TestWriteToAfterRead(t *testing.T) {
	for _, fx := range fixtures(t) {
		data := testutil.Fixture(t, fx.name)
		for _, threads := range []int{1, 2} {
			for _, head := range []int64{1, 1000, 100 << 10} {
				z, err := NewReader(bytes.NewReader(data), Config{Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				h := sha256.New()
				n1, err := io.CopyN(h, onlyReader{z}, head)
				if err != nil && err != io.EOF {
					t.Fatalf("%s: %v", fx.name, err)
				}
				n2, err := z.WriteTo(h)
				if err != nil || n1+n2 != fx.size || hex.EncodeToString(h.Sum(nil)) != fx.sum {
					t.Fatalf("%s threads %d head %d: %d+%d bytes, %v", fx.name, threads, head, n1, n2, err)
				}
				if n, err := z.Read(make([]byte, 10)); n != 0 || err != io.EOF {
					t.Fatalf("%s: Read after WriteTo: %d, %v", fx.name, n, err)
				}
				if n, err := z.WriteTo(h); n != 0 || err != nil {
					t.Fatalf("%s: WriteTo again: %d, %v", fx.name, n, err)
				}
				z.Close()
			}
		}
	}
}

var errWrite = errors.New("write failed")

// TestWriteToWriterError: a failing or short writer ends WriteTo with its
// error (io.ErrShortWrite for a short one), which Read then returns too.
func TestWriteToWriterError(t *testing.T) {
	for _, fx := range fixtures(t) {
		if fx.size < 2 {
			continue
		}
		data := testutil.Fixture(t, fx.name)
		for _, threads := range []int{1, 2} {
			for _, short := range []bool{false, true} {
				want := errWrite
				if short {
					want = io.ErrShortWrite
				}
				z, err := NewReader(bytes.NewReader(data), Config{Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				w := &testutil.FailWriter{N: int(fx.size / 2), Err: errWrite}
				if short {
					w.Err = nil
				}
				n, err := z.WriteTo(w)
				if !errors.Is(err, want) || n != fx.size/2 {
					t.Fatalf("%s threads %d short %v: %d bytes, %v", fx.name, threads, short, n, err)
				}
				if _, err := z.Read(make([]byte, 10)); !errors.Is(err, want) {
					t.Fatalf("%s: Read after a failed WriteTo: %v", fx.name, err)
				}
				z.Close()
			}
		}
	}
}

// TestWriteToAllocs: WriteTo on a reused Reader allocates nothing, single-
// threaded, filters included.
func TestWriteToAllocs(t *testing.T) {
	data := testutil.Fixture(t, "x86-lzma2.xz")
	z, err := NewReader(bytes.NewReader(data), Config{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	var br bytes.Reader
	allocs := testing.AllocsPerRun(3, func() {
		br.Reset(data)
		if err := z.Reset(&br, Config{Threads: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := z.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("%v allocations per WriteTo", allocs)
	}
}
