package verify

import (
	"hash/adler32"
	"math/rand"
	"testing"
)

// TestAdler32 holds the eight-bytes-a-step Adler-32 and the AVX2 one to
// hash/adler32 on lengths around their steps and reductions, on random and
// all-0xff bytes.
func TestAdler32(t *testing.T) { forEachImpl(t, testAdler32) }

func testAdler32(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	buf := make([]byte, 3*adlerNMax+100)
	for _, fill := range []string{"random", "ff"} {
		for i := range buf {
			buf[i] = 0xff
			if fill == "random" {
				buf[i] = byte(r.Intn(256))
			}
		}
		for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, adlerNMax - 33, adlerNMax - 1, adlerNMax, adlerNMax + 1,
			2 * adlerNMax, 2*adlerNMax + 7, len(buf)} {
			for _, off := range []int{0, 3} {
				p := buf[off : off+n-min(n, off)]
				if got, want := SumAdler32(p), adler32.Checksum(p); got != want {
					t.Errorf("%s %d+%d: %08x, want %08x", fill, off, len(p), got, want)
				}
			}
		}
	}
}

func BenchmarkAdler32(b *testing.B) {
	buf := make([]byte, 1<<20)
	b.Run("verify", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			SumAdler32(buf)
		}
	})
	b.Run("hash/adler32", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			adler32.Checksum(buf)
		}
	})
}
