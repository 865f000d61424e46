package xz

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	uxz "github.com/ulikunitz/xz"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// FuzzXZ, seeded with the small fixtures (big seeds make the fuzzer spend
// its time minimizing), decodes arbitrary input single- and multi-threaded,
// through Read and through WriteTo: no panics, no hangs, bounded memory,
// and every error of an archive category; all modes must agree, and
// with ulikunitz/xz.
func FuzzXZ(f *testing.F) {
	for _, fx := range fixtures(f) {
		if b := testutil.Fixture(f, fx.name); len(b) < 4<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var sums [4]uint32
		var errs [4]error
		for i := range sums {
			threads := 1 + 2*(i%2)
			cfg := Config{Threads: threads, MemLimit: 8 << 20}
			z, err := NewReader(bytes.NewReader(data), cfg)
			if err != nil {
				if !isCategorized(err) {
					t.Fatalf("NewReader: uncategorized %v", err)
				}
				return
			}
			out := crc32.NewIEEE()
			if i < 2 {
				_, err = io.Copy(out, io.LimitReader(onlyReader{z}, 1<<20))
			} else {
				_, err = z.WriteTo(&cappedWriter{w: out, n: 1 << 20})
				if err == errCapped {
					err = nil
				}
			}
			z.Close()
			if err != nil && !isCategorized(err) {
				t.Fatalf("threads %d: uncategorized %v", threads, err)
			}
			sums[i], errs[i] = out.Sum32(), err
		}
		for i := 1; i < len(sums); i++ {
			if (errs[0] == nil) != (errs[i] == nil) || (errs[0] == nil && sums[0] != sums[i]) {
				t.Fatalf("mode %d (%v) and mode 0 (%v) disagree", i, errs[i], errs[0])
			}
		}
		if errs[0] == nil {
			crossCheck(t, data)
		}
	})
}

// crossCheck decodes data, which this package reads without an error
// (and so with dictionaries within its memory limit), with ulikunitz/xz
// too: the first MiB of output is the same as far as both go, and
// where ulikunitz/xz reads it without an error (it has no BCJ or delta
// filters), all of it.
func crossCheck(t *testing.T, data []byte) {
	z, err := NewReader(bytes.NewReader(data), Config{Threads: 1, MemLimit: 8 << 20})
	if err != nil {
		t.Fatalf("NewReader again: %v", err)
	}
	defer z.Close()
	got, err := io.ReadAll(io.LimitReader(z, 1<<20))
	if err != nil {
		t.Fatalf("read again: %v", err)
	}
	var want []byte
	u, uerr := uxz.NewReader(bytes.NewReader(data))
	if uerr == nil {
		want, uerr = io.ReadAll(io.LimitReader(u, 1<<20))
	}
	n := min(len(got), len(want))
	if !bytes.Equal(got[:n], want[:n]) || uerr == nil && len(got) != len(want) {
		t.Fatalf("%d bytes, ulikunitz/xz %d bytes (%v): they differ", len(got), len(want), uerr)
	}
}

// cappedWriter passes on the first n bytes written to it, then fails with
// errCapped.
type cappedWriter struct {
	w io.Writer
	n int
}

var errCapped = errors.New("output cap reached")

func (c *cappedWriter) Write(p []byte) (int, error) {
	if len(p) > c.n {
		k, _ := c.w.Write(p[:c.n])
		c.n = 0
		return k, errCapped
	}
	c.n -= len(p)
	return c.w.Write(p)
}
