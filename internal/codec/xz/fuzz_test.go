package xz

import (
	"bytes"
	"github.com/unpack-dev/unpack/internal/testutil"
	"hash/crc32"
	"io"
	"testing"
)

// FuzzXZ, seeded with the small fixtures (big seeds make the fuzzer spend
// its time minimizing), decodes arbitrary input single- and multi-threaded: no panics, no
// hangs, bounded memory, and every error of an archive category; both
// modes must agree.
func FuzzXZ(f *testing.F) {
	for _, fx := range fixtures(f) {
		if b := testutil.Fixture(f, fx.name); len(b) < 4<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var sums [2]uint32
		var errs [2]error
		for i, threads := range []int{1, 3} {
			cfg := Config{Threads: threads, MemLimit: 8 << 20}
			z, err := NewReader(bytes.NewReader(data), cfg)
			if err != nil {
				if !isCategorized(err) {
					t.Fatalf("NewReader: uncategorized %v", err)
				}
				return
			}
			out := crc32.NewIEEE()
			_, err = io.Copy(out, io.LimitReader(z, 1<<20))
			z.Close()
			if err != nil && !isCategorized(err) {
				t.Fatalf("threads %d: uncategorized %v", threads, err)
			}
			sums[i], errs[i] = out.Sum32(), err
		}
		if (errs[0] == nil) != (errs[1] == nil) || (errs[0] == nil && sums[0] != sums[1]) {
			t.Fatalf("single-threaded (%v) and parallel (%v) decoding disagree", errs[0], errs[1])
		}
	})
}
