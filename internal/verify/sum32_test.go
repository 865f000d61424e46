package verify

import (
	"math/rand"
	"testing"
)

// TestSum32 holds UpdateSum32 to a byte-at-a-time sum on lengths around
// its 8-byte and 256-word steps, of all-0xff bytes (the largest lanes).
func TestSum32(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	buf := make([]byte, 5000)
	for _, fill := range []string{"random", "ff"} {
		for i := range buf {
			buf[i] = 0xff
			if fill == "random" {
				buf[i] = byte(r.Intn(256))
			}
		}
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 2047, 2048, 2049, 2056, 4096, 5000} {
			var want uint32 = 12345
			for _, c := range buf[:n] {
				want += uint32(c)
			}
			if got := UpdateSum32(12345, buf[:n]); got != want {
				t.Errorf("%s %d: %x, want %x", fill, n, got, want)
			}
		}
	}
}
