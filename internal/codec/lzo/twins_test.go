package lzo

import (
	"bytes"
	"math/rand"
	"testing"
)

// genBlock writes a random valid LZO1X block of every instruction kind
// (first literal run, runs with extended lengths, M1 after literals and
// after a run, M2, M3 and M4 with extended lengths and distances from 1,
// overlapping ones included, trailing literals) and returns it with the
// output it decodes to.
func genBlock(r *rand.Rand, size int) (block, want []byte) {
	var out []byte
	lit := func(n int) {
		for range n {
			b := byte(r.Intn(256))
			block = append(block, b)
			out = append(out, b)
		}
	}
	copyBack := func(dist, n int) {
		for range n {
			out = append(out, out[len(out)-dist])
		}
	}
	// extended appends a long length's zero bytes and final byte for
	// extra = n - base > 0.
	extended := func(extra int) {
		for extra > 255 {
			block = append(block, 0)
			extra -= 255
		}
		block = append(block, byte(extra))
	}
	state := 0
	if r.Intn(2) == 0 {
		n := 1 + r.Intn(238)
		block = append(block, byte(17+n))
		lit(n)
		state = min(n, 4)
	} else {
		// A literal run of 4 or more first (state 0 at the start).
		block = append(block, 1)
		lit(4)
		state = 4
	}
	for len(out) < size {
		op := len(out)
		trail := r.Intn(4)
		switch k := r.Intn(6); {
		case k == 0 && state == 0: // a literal run
			if r.Intn(4) == 0 {
				extra := 1 + r.Intn(600)
				block = append(block, 0)
				extended(extra)
				lit(15 + extra + 3)
			} else {
				t := 1 + r.Intn(15)
				block = append(block, byte(t))
				lit(t + 3)
			}
			state = 4
			continue
		case k == 1 && state != 0: // M1
			if state == 4 {
				d := 1 + r.Intn(1024)
				if d+0x800 > op {
					continue
				}
				block = append(block, byte((d-1)&3<<2|trail), byte((d-1)>>2))
				copyBack(d+0x800, 3)
			} else {
				d := 1 + r.Intn(1024)
				if d > op {
					continue
				}
				block = append(block, byte((d-1)&3<<2|trail), byte((d-1)>>2))
				copyBack(d, 2)
			}
		case k == 2: // M2
			d := 1 + r.Intn(min(op, 2048))
			n := 3 + r.Intn(6)
			block = append(block, byte((n-1)<<5|(d-1)&7<<2|trail), byte((d-1)>>3))
			copyBack(d, n)
		case k == 3: // M3
			d := 1 + r.Intn(min(op, 16384))
			n := 3 + r.Intn(31)
			if r.Intn(4) == 0 {
				n = 2 + 31 + 1 + r.Intn(700)
				block = append(block, 32)
				extended(n - 2 - 31)
			} else {
				block = append(block, byte(32|(n-2)))
			}
			block = append(block, byte((d-1)&63<<2|trail), byte((d-1)>>6))
			copyBack(d, n)
		case k == 4 && op > 0x4000: // M4
			d := 0x4001 + r.Intn(min(op-0x4000, 0x7fff))
			v := d - 0x4000
			n := 3 + r.Intn(7)
			hi := byte(v >> 14 & 1 << 3)
			if r.Intn(4) == 0 {
				n = 2 + 7 + 1 + r.Intn(700)
				block = append(block, 16|hi)
				extended(n - 2 - 7)
			} else {
				block = append(block, 16|hi|byte(n-2))
			}
			block = append(block, byte(v&63<<2|trail), byte(v>>6&255))
			copyBack(d, n)
		default:
			continue
		}
		lit(trail)
		state = trail
	}
	return append(block, 0x11, 0, 0), out
}

// TestTwins decodes random valid blocks, and cuts and bit flips of them,
// with Decompress1X and its Go twin into outputs of the exact size and
// with room to spare: the same verdicts, the same bytes.
func TestTwins(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := range 3000 {
		block, want := genBlock(r, r.Intn(1<<(4+i%14)))
		for _, room := range []int{0, 1, 7, 64} {
			dst := make([]byte, len(want)+room)
			n, ok := Decompress1X(dst, block)
			if !ok || !bytes.Equal(dst[:n], want) {
				t.Fatalf("block %d (%d bytes), room %d: decoded %d bytes, %v; want %d", i, len(block), room, n, ok, len(want))
			}
		}
		twins(t, block, len(want))
		cut := block[:r.Intn(len(block))]
		twins(t, cut, len(want))
		flip := bytes.Clone(block)
		flip[r.Intn(len(flip))] ^= 1 << r.Intn(8)
		twins(t, flip, len(want))
		twins(t, flip, len(want)-1)
	}
}

// twins holds Decompress1X to decompress1XGeneric on src into size bytes.
func twins(t *testing.T, src []byte, size int) {
	t.Helper()
	size = max(size, 0)
	a, b := make([]byte, size), make([]byte, size)
	n, ok := Decompress1X(a, src)
	m := decompress1XGeneric(b, src)
	if ok != (m >= 0) || ok && (n != m || !bytes.Equal(a[:n], b[:m])) {
		t.Fatalf("%d-byte block: decoded %d bytes, %v; the Go twin %d", len(src), n, ok, m)
	}
}
