package brotli

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// putCode writes a canonical prefix code, most significant bit first (as
// RFC 7932 packs prefix codes).
func (w *bitWriter) putCode(code uint32, n uint8) {
	for i := int(n) - 1; i >= 0; i-- {
		w.put(code>>uint(i)&1, 1)
	}
}

// canonical returns the canonical codes of the code lengths lens.
func canonical(lens []uint8) []uint32 {
	var count, next [16]uint32
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	for l, code := 1, uint32(0); l < 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	codes := make([]uint32, len(lens))
	for s, l := range lens {
		if l > 0 {
			codes[s] = next[l]
			next[l]++
		}
	}
	return codes
}

// complexCode writes a complex prefix code of the code lengths lens,
// which must form a complete code: its code length code gives 4 bits to
// each code length 0..15.
func (w *bitWriter) complexCode(lens []uint8) {
	w.put(0, 2) // HSKIP 0
	for _, s := range codeLenOrder {
		if s <= 15 {
			w.put(1, 2) // length 4 ("01")
		} else {
			w.put(0, 2)
		}
	}
	last := 0
	for s, l := range lens {
		if l > 0 {
			last = s
		}
	}
	for _, l := range lens[:last+1] {
		w.putCode(uint32(l), 4)
	}
}

// longLens gives symbols 0..13 the lengths 1..14 and symbols a and b 15:
// a complete code with codes of up to 15 bits.
func longLens(n, a, b int) []uint8 {
	lens := make([]uint8, n)
	for s := range 14 {
		lens[s] = uint8(s + 1)
	}
	lens[a], lens[b] = 15, 15
	return lens
}

// switchStream builds a stream of commands with 15-bit insert-and-copy
// codes that switch between two command block types, the last switch
// with a 15-bit block count code and 24 extra bits: after it, the bit
// reader may hold fewer bits than the next command needs. It returns the
// stream and its content.
func switchStream(seed uint64) ([]byte, []byte) {
	rng := rand.New(rand.NewPCG(seed, 7932))
	var w bitWriter
	w.put(0, 1) // WBITS 16
	// An uncompressed meta-block "abab", for the last distance, 4.
	w.put(0, 1)
	w.put(0, 2)
	w.put(3, 16)
	w.put(1, 1)
	w.nbits = (w.nbits + 7) &^ 7
	for _, c := range []byte("abab") {
		w.put(uint32(c), 8)
	}
	out := []byte("abab")

	// The commands: symbols 0..15, in the cell of the implicit last
	// distance: insert s>>3 literals, copy 2+s&7.
	cmdLens := longLens(704, 14, 15)
	cmdCodes := canonical(cmdLens)
	countLens := longLens(26, 14, 25)
	countCodes := canonical(countLens)
	typeCodes := canonical([]uint8{1, 2, 3, 3})
	var body bitWriter
	var typ, left int
	count := func(long bool) {
		if long {
			x := rng.IntN(1 << 24)
			body.putCode(countCodes[25], 15)
			body.put(uint32(x), 24)
			left = 16625 + x
		} else {
			x := rng.IntN(4)
			body.putCode(countCodes[0], 1)
			body.put(uint32(x), 2)
			left = 1 + x
		}
	}
	var head bitWriter
	head.putCode(countCodes[0], 1) // the first block count: 1
	head.put(0, 2)
	left = 1
	switches := 0
	for n := 0; n < 120; n++ {
		long := false
		if left == 0 {
			typ ^= 1
			body.putCode(typeCodes[2+typ], 3) // block type typ
			switches++
			long = switches == 8
			count(long)
		}
		left--
		s := rng.IntN(16)
		if long {
			s = 14 + rng.IntN(2)
		}
		body.putCode(cmdCodes[s], cmdLens[s])
		for range s >> 3 {
			c := rng.IntN(2)
			body.put(uint32(c), 1)
			out = append(out, "ab"[c])
		}
		for range 2 + s&7 {
			out = append(out, out[len(out)-4])
		}
		if switches == 8 && !long {
			break
		}
	}
	mlen := len(out) - 4
	w.put(1, 1) // ISLAST
	w.put(0, 1)
	w.put(0, 2) // MNIBBLES 4
	w.put(uint32(mlen-1), 16)
	w.put(0, 1) // NBLTYPESL 1
	w.put(1, 1) // NBLTYPESI 2
	w.put(0, 3)
	w.put(1, 2) // block type code: simple, symbols 0, 1, 2, 3 of 1, 2, 3, 3 bits
	w.put(3, 2)
	for s := range 4 {
		w.put(uint32(s), 2)
	}
	w.put(1, 1)
	w.complexCode(countLens)
	for i := range head.nbits {
		w.put(uint32(head.buf[i/8]>>(i%8)&1), 1)
	}
	w.put(0, 1) // NBLTYPESD 1
	w.put(0, 6) // NPOSTFIX, NDIRECT
	w.put(0, 2) // context mode
	w.put(0, 1) // NTREESL 1
	w.put(0, 1) // NTREESD 1
	w.put(1, 2) // literal code: simple, 'a' and 'b'
	w.put(1, 2)
	w.put('a', 8)
	w.put('b', 8)
	w.complexCode(cmdLens)
	w.complexCode(cmdLens)
	w.simple1(0, 6) // distance code (unused)
	for i := range body.nbits {
		w.put(uint32(body.buf[i/8]>>(i%8)&1), 1)
	}
	return w.buf, out
}

// TestBlockSwitches decodes streams whose command block switches can
// leave the bit reader with fewer bits than the next command's code (a
// regression: the fast loop once refilled before a switch, not after).
func TestBlockSwitches(t *testing.T) {
	z := new(Reader)
	for seed := range uint64(64) {
		data, want := switchStream(seed)
		if err := z.Reset(bytes.NewReader(data)); err != nil {
			t.Fatal(seed, err)
		}
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("seed %d: %d bytes, %v; want %d bytes", seed, len(got), err, len(want))
		}
	}
}
