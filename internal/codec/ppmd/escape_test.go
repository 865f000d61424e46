package ppmd

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// checkEscapeTwins compares sumUnmasked and findUnmasked (assembly on
// amd64 unless purego) with their Go twins on one state array and mask,
// for count at every boundary of the cumulative frequencies and beyond
// the sum (which no model asks, but the twins answer alike).
func checkEscapeTwins(t *testing.T, st *[maxStatesBytes]byte, last byte, mask *[256]byte, extra uint32) {
	t.Helper()
	sum, want := sumUnmasked(st, last, mask), sumUnmaskedGeneric(st, last, mask)
	if sum != want {
		t.Fatalf("%d states: sumUnmasked %d, generic %d", int(last)+1, sum, want)
	}
	counts := []uint32{0, sum, sum + 1, extra, extra % (sum + 1), ^uint32(0)}
	acc := uint32(0)
	for i := 0; i <= int(last); i++ {
		acc += uint32(st[i*6+1]) & uint32(mask[st[i*6]])
		counts = append(counts, acc-1, acc)
	}
	for _, count := range counts {
		off, acc := findUnmasked(st, last, mask, count)
		wantOff, wantAcc := findUnmaskedGeneric(st, last, mask, count)
		if off != wantOff || acc != wantAcc {
			t.Fatalf("%d states, count %d: findUnmasked %d, %d; generic %d, %d",
				int(last)+1, count, off, acc, wantOff, wantAcc)
		}
	}
}

// TestEscapeTwins checks the escape helpers against their Go twins for
// every state count, on random states (and random bytes past them, which
// must not count), masks of 0/0xFF and of any byte.
func TestEscapeTwins(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var st [maxStatesBytes]byte
	var mask [256]byte
	for n := 1; n <= 256; n++ {
		for trial := 0; trial < 8; trial++ {
			for i := range st {
				st[i] = byte(r.Uint32())
			}
			for i := range mask {
				switch {
				case trial == 7:
					mask[i] = byte(r.Uint32()) // not a model's, but alike
				case trial == 6 || r.IntN(4) == 0:
					mask[i] = 0
				default:
					mask[i] = 0xFF
				}
			}
			if trial == 5 {
				for i := range st[:n*6] {
					st[i] = 0xFF // frequencies of 255: the largest sums
				}
			}
			checkEscapeTwins(t, &st, byte(n-1), &mask, r.Uint32())
		}
	}
}

// FuzzEscapeTwins compares the escape helpers with their Go twins on
// arbitrary states and masks: the first byte is the state count less
// one, the next 32 the mask's bits, the next 4 a count, the rest the
// states' bytes.
func FuzzEscapeTwins(f *testing.F) {
	f.Add([]byte{0})
	f.Add(make([]byte, 37+6*256))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 37 {
			return
		}
		var st [maxStatesBytes]byte
		var mask [256]byte
		for i := range mask {
			if data[1+i/8]>>(i%8)&1 != 0 {
				mask[i] = 0xFF
			}
		}
		copy(st[:], data[37:])
		checkEscapeTwins(t, &st, data[0], &mask, binary.LittleEndian.Uint32(data[33:]))
	})
}
