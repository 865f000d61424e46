package bcj

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// arm64Words returns n bytes of ARM64-like code: BL and ADRP instructions
// (ADRP sources inside and outside ±512 MiB, and on the range's edges)
// among random words.
func arm64Words(n int, r *rand.Rand) []byte {
	b := make([]byte, n)
	for i := 0; i+4 <= n; i += 4 {
		var w uint32
		switch r.IntN(6) {
		case 0:
			w = 0x94000000 | r.Uint32()&0x03FFFFFF // BL
		case 1, 2:
			// ADRP with immlo/immhi random: about 1 in 8 within range.
			w = 0x90000000 | r.Uint32()&0x60FFFFFF
		case 3:
			// ADRP with a source page just inside or outside the range.
			src := []uint32{0x1FFFF, 0x20000, 0x1DFFFF, 0x1E0000, 0, 3, 0x1FFFFC}[r.IntN(7)]
			w = 0x90000000 | src&3<<29 | (src&0x1FFFFC)<<3 | r.Uint32()&0x1F
		default:
			w = r.Uint32()
		}
		binary.LittleEndian.PutUint32(b[i:], w)
	}
	return b
}

// TestARM64CrossCheck compares every ARM64 converter with
// convertARM64Generic at every length around the 16-byte step, misalignment
// 0..15 and start positions that wrap around 2^32.
func TestARM64CrossCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	src := arm64Words(4096+64, r)
	backing := make([]byte, len(src)+16)
	starts := []uint32{0, 4, 0x1000, 0xFFFFFFF0, 0xFFFFF000, 1 << 31, r.Uint32() &^ 3, r.Uint32()}
	for name, sel := range findE8Impls() {
		t.Run(name, func(t *testing.T) {
			defer sel()()
			for n := 0; n <= 4096+64; n++ {
				if n > 300 && n%61 != 0 {
					continue
				}
				for align := range 16 {
					for _, start := range starts {
						want := append([]byte(nil), src[:n]...)
						convertARM64Generic(want[:n&^3], start)
						got := backing[align : align+n]
						copy(got, src)
						c := NewARM64(start)
						if done := c.Convert(got); done != n&^3 {
							t.Fatalf("n %d: Convert returned %d", n, done)
						}
						if !bytes.Equal(got, want) {
							t.Fatalf("n %d align %d start %#x: differs from generic", n, align, start)
						}
						if c.pos != start+uint32(n&^3) {
							t.Fatalf("n %d: pos %#x", n, c.pos)
						}
					}
				}
			}
		})
	}
}
