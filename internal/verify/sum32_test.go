package verify

import (
	"fmt"
	"math/rand"
	"testing"
)

// sum32Impls lists the UpdateSum32 paths this machine and build have.
func sum32Impls() []int {
	if useSum32 == sumGeneric {
		return []int{sumGeneric}
	}
	return []int{sumGeneric, sumSSE2}
}

var sum32Names = map[int]string{sumGeneric: "generic", sumSSE2: "sse2"}

// forEachSum32 runs f with each path switched on.
func forEachSum32(t *testing.T, f func(t *testing.T)) {
	defer func(u int) { useSum32 = u }(useSum32)
	for _, i := range sum32Impls() {
		useSum32 = i
		t.Run(sum32Names[i], f)
	}
}

// TestSum32 holds UpdateSum32 to a byte-at-a-time sum on lengths around
// its 8-byte, 128-byte and 128-word steps, at every alignment, from a
// random start, of random and all-0xff bytes (the largest lanes), on
// every path.
func TestSum32(t *testing.T) {
	forEachSum32(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(1))
		buf := make([]byte, 70000)
		for _, fill := range []string{"random", "ff"} {
			for i := range buf {
				buf[i] = 0xff
				if fill == "random" {
					buf[i] = byte(r.Intn(256))
				}
			}
			for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 127, 128, 129, 255, 256, 383, 1023, 1024, 1025,
				2047, 2048, 2049, 2056, 4096, 5000, 65535, 65536, 69990} {
				for align := range 8 {
					p := buf[align : align+n]
					start := r.Uint32()
					want := start
					for _, c := range p {
						want += uint32(c)
					}
					if got := UpdateSum32(start, p); got != want {
						t.Fatalf("%s %d+%d: %x, want %x", fill, align, n, got, want)
					}
				}
			}
		}
	})
}

// FuzzSum32 compares the paths of this machine with each other.
func FuzzSum32(f *testing.F) {
	f.Add([]byte("0123456789"), uint32(7))
	f.Add(make([]byte, 300), uint32(0))
	f.Fuzz(func(t *testing.T, p []byte, start uint32) {
		defer func(u int) { useSum32 = u }(useSum32)
		useSum32 = sumGeneric
		want := UpdateSum32(start, p)
		for _, i := range sum32Impls() {
			useSum32 = i
			if got := UpdateSum32(start, p); got != want {
				t.Fatalf("%s: %x, generic %x", sum32Names[i], got, want)
			}
		}
	})
}

func BenchmarkUpdateSum32(b *testing.B) {
	defer func(u int) { useSum32 = u }(useSum32)
	p := make([]byte, 256<<10)
	for i := range p {
		p[i] = byte(i * 7)
	}
	for _, i := range sum32Impls() {
		useSum32 = i
		for _, n := range []int{4 << 10, 256 << 10} {
			b.Run(fmt.Sprintf("impl=%s/size=%d", sum32Names[i], n), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				var s uint32
				for b.Loop() {
					s = UpdateSum32(s, p[:n])
				}
				if s == 1 {
					b.Log(s)
				}
			})
		}
	}
}
