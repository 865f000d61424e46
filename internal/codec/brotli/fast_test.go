package brotli

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
)

// heldStream builds a stream of one compressed meta-block that drives
// the fast loop's holding back of commands through each of its paths,
// and returns it with its content. Two literal block types switch every
// 1 to 368 literals, in the middle of insert runs: type 0 uses one
// prefix code in every context (its literals are put aside), type 1 two
// codes picked by the last byte's low bit (the commands held back must be
// written before its literals are decoded). The code of tree 0 has the
// bytes 0..127, that of tree 1 128..255, so a wrong context decodes
// other bytes. Insert lengths run from 0 to 6000 (past litBuf, and past
// a small window buffer), copies from 2 to 300 bytes, from 1 byte back
// (overlapping) to the whole window back (from its older end once the
// buffer wrapped), with the last distance and static dictionary words
// among them.
func heldStream(seed uint64, wbits uint) ([]byte, []byte) {
	rng := rand.New(rand.NewPCG(seed, 32))
	window := 1<<wbits - 16
	var out []byte
	var body bitWriter

	// Literal block switches: type code symbols 2+type, 2 bits each;
	// count code symbols 0, 4, 9, 17 (1-4, 17-24, 65-80, 305-368).
	countSyms := [4]int{0, 4, 9, 17}
	typ, left := 0, 0
	blockCount := func(w *bitWriter) int {
		i := rng.IntN(4)
		s := countSyms[i]
		x := rng.IntN(1 << blockCountExtra[s])
		w.putCode(uint32(i), 2) // a simple code of four 2-bit symbols
		w.put(uint32(x), uint(blockCountExtra[s]))
		return int(blockCountBase[s]) + x
	}
	var head bitWriter
	left = blockCount(&head)

	literal := func() {
		if left == 0 {
			typ = rng.IntN(2)
			body.putCode(uint32(2+typ), 2)
			left = blockCount(&body)
		}
		left--
		tree := 0
		if typ == 1 && len(out) > 0 && out[len(out)-1]&1 == 1 {
			tree = 1
		}
		c := litSyms[tree][rng.IntN(len(litSyms[tree]))]
		body.putCode(litCodes[tree][c], litLens[tree][c])
		out = append(out, byte(c))
	}
	// Insert and copy lengths to their codes and extra bits.
	lenCode := func(base []uint32, bits []uint8, n int) (int, uint32, uint) {
		i := len(base) - 1
		for int(base[i]) > n {
			i--
		}
		return i, uint32(n - int(base[i])), uint(bits[i])
	}
	cellIns := [11]int{0, 0, 0, 0, 8, 8, 0, 16, 8, 16, 16}
	cellCopy := [11]int{0, 8, 0, 8, 0, 8, 16, 0, 16, 8, 16}
	dists, di := [4]int{16, 15, 11, 4}, 3 // the last distances, as the decoder keeps them
	for len(out) < 200000 {
		last := dists[di&3]
		var insert int
		switch r := rng.IntN(10); {
		case r < 4:
			insert = 0
		case r < 8:
			insert = 1 + rng.IntN(10)
		case r < 9:
			insert = 50 + rng.IntN(250)
		default:
			insert = 3000 + rng.IntN(3000)
		}
		if len(out)+insert == 0 {
			insert = 1 // a distance needs a byte before it
		}
		copyLen := 2 + rng.IntN(15)
		if rng.IntN(4) == 0 {
			copyLen = 17 + rng.IntN(284)
		}
		maxDist := min(window, len(out)+insert)
		var d int
		word := false
		switch r := rng.IntN(20); {
		case r < 4:
			d = 1 + rng.IntN(15)
		case r < 10:
			d = 16 + rng.IntN(500)
		case r < 15:
			d = max(1, maxDist-rng.IntN(64))
		case r < 16:
			d = last
		case r < 17:
			d = dists[(di-rng.IntN(4))&3] + rng.IntN(7) - 3
		default:
			// A static dictionary word with one of the first 4
			// transforms.
			word = true
			copyLen = 4 + rng.IntN(21)
			d = maxDist + 1 + rng.IntN(4<<ndBits[copyLen])
		}
		d = max(1, min(d, maxDist))
		if word {
			d = maxDist + 1 + rng.IntN(4<<ndBits[copyLen])
		}
		i, ix, ib := lenCode(insBase[:], insBits[:], insert)
		k, kx, kb := lenCode(copyBase[:], copyBits[:], copyLen)
		// Cells 0 and 1 use the last distance without a distance code.
		implicit := !word && d == last && i < 8 && k < 16 && rng.IntN(2) == 0
		c := 2
		if implicit {
			c = 0
		}
		for cellIns[c] > i || i >= cellIns[c]+8 || cellCopy[c] > k || k >= cellCopy[c]+8 {
			c++
		}
		sym := c<<6 | (i-cellIns[c])<<3 | (k - cellCopy[c])
		body.putCode(cmdCodes704[sym], cmdLens704[sym])
		body.put(ix, ib)
		body.put(kx, kb)
		for range insert {
			literal()
		}
		short := -1
		if !word && !implicit && rng.IntN(3) == 0 {
			// A distance code 0..15 (the last distances, one of them
			// plus or minus up to 3), if one gives d.
			for code := range 16 {
				if dists[(di-shortDistIdx[code])&3]+shortDistOff[code] == d {
					short = code
					break
				}
			}
		}
		switch {
		case implicit:
		case short >= 0:
			body.putCode(distCodes[short], distLens[short])
			if short != 0 {
				di++
				dists[di&3] = d
			}
		default:
			// Distance codes 16..63: d-1 = offset + extra bits.
			dc := 0
			for {
				nbits := 1 + uint(dc>>1)
				offset := (2+dc&1)<<nbits - 4
				if d-1 < offset+1<<nbits {
					body.putCode(distCodes[16+dc], distLens[16+dc])
					body.put(uint32(d-1-offset), nbits)
					break
				}
				dc++
			}
			if !word {
				di++
				dists[di&3] = d
			}
		}
		if word {
			id := d - maxDist - 1
			nb := ndBits[copyLen]
			off := dictOffset[copyLen] + id&(1<<nb-1)*copyLen
			var buf [maxWord]byte
			n := transformWord(&buf, dictionary[off:off+copyLen], &transforms[id>>nb])
			out = append(out, buf[:n]...)
			continue
		}
		for range copyLen {
			out = append(out, out[len(out)-d])
		}
	}

	// The meta-block ends after the literals of a last command.
	sym := 2<<6 | 2<<3 // insert 2, copy 2 (not performed)
	body.putCode(cmdCodes704[sym], cmdLens704[sym])
	literal()
	literal()

	var w bitWriter
	switch {
	case wbits == 16:
		w.put(0, 1)
	case wbits < 16:
		w.put(1, 1)
		w.put(0, 3)
		w.put(uint32(wbits-8), 3)
	default:
		w.put(1, 1)
		w.put(uint32(wbits-17), 3)
	}
	mlen := len(out)
	w.put(1, 1) // ISLAST
	w.put(0, 1)
	w.put(1, 2) // MNIBBLES 5
	w.put(uint32(mlen-1), 20)
	w.put(1, 1) // NBLTYPESL 2
	w.put(0, 3)
	w.put(1, 2) // block type code: simple, symbols 0..3 of 2 bits
	w.put(3, 2)
	for s := range 4 {
		w.put(uint32(s), 2)
	}
	w.put(0, 1)
	w.put(1, 2) // block count code: simple, symbols 0, 4, 9, 17 of 2 bits
	w.put(3, 2)
	for _, s := range countSyms {
		w.put(uint32(s), 5)
	}
	w.put(0, 1)
	for i := range head.nbits {
		w.put(uint32(head.buf[i/8]>>(i%8)&1), 1)
	}
	w.put(0, 1) // NBLTYPESI 1
	w.put(0, 1) // NBLTYPESD 1
	w.put(0, 6) // NPOSTFIX 0, NDIRECT 0
	w.put(0, 2) // context modes: LSB6
	w.put(0, 2)
	w.put(1, 1) // NTREESL 2
	w.put(0, 3)
	w.put(0, 1) // no RLEMAX
	w.put(1, 2) // context map code: simple, symbols 0, 1
	w.put(1, 2)
	w.put(0, 1)
	w.put(1, 1)
	for range 64 { // type 0: tree 0 everywhere
		w.put(0, 1)
	}
	for ctx := range 64 { // type 1: tree ctx&1
		w.put(uint32(ctx&1), 1)
	}
	w.put(0, 1) // no IMTF
	w.put(0, 1) // NTREESD 1
	w.complexCode(litLens[0])
	w.complexCode(litLens[1])
	w.complexCode(cmdLens704)
	w.complexCode(distLens)
	for i := range body.nbits {
		w.put(uint32(body.buf[i/8]>>(i%8)&1), 1)
	}
	return w.buf, out
}

// cmdLens704 is a complete code of the 704 insert-and-copy symbols: 320
// of 9 bits, 384 of 10.
var cmdLens704 = func() []uint8 {
	lens := make([]uint8, 704)
	for s := range lens {
		lens[s] = 10
		if s%11 < 5 {
			lens[s] = 9
		}
	}
	return lens
}()

var cmdCodes704 = canonical(cmdLens704)

// The literal codes of heldStream: tree 0 has the bytes 0..126 in 7 bits
// and 127..130 in 9 (past the root table), tree 1 the bytes 128..255 in
// 7 bits.
var litLens, litSyms = func() (lens [2][]uint8, syms [2][]int) {
	for t := range 2 {
		lens[t] = make([]uint8, 256)
	}
	for s := range 131 {
		lens[0][s] = 7
		if s >= 127 {
			lens[0][s] = 9
		}
		syms[0] = append(syms[0], s)
	}
	for s := 128; s < 256; s++ {
		lens[1][s] = 7
		syms[1] = append(syms[1], s)
	}
	return lens, syms
}()

var litCodes = [2][]uint32{canonical(litLens[0]), canonical(litLens[1])}

// The distance code of heldStream: codes 0..6 of 5 bits, 16..23 (the
// distances up to 60) of 9, the others of 6.
var distLens = func() []uint8 {
	lens := make([]uint8, 64)
	for s := range lens {
		switch {
		case s < 7:
			lens[s] = 5
		case s >= 16 && s < 24:
			lens[s] = 9
		default:
			lens[s] = 6
		}
	}
	return lens
}()

var distCodes = canonical(distLens)

// TestHeldBack decodes heldStream's streams with several window sizes
// (from a buffer that wraps every 1 KiB to one that holds all), through
// WriteTo, Read and one byte of input at a time.
func TestHeldBack(t *testing.T) {
	z := new(Reader)
	for seed := range uint64(12) {
		wbits := []uint{10, 12, 16, 18}[seed%4]
		data, want := heldStream(seed, wbits)
		for _, how := range []string{"WriteTo", "Read", "OneByteIn"} {
			var in io.Reader = bytes.NewReader(data)
			var r io.Reader = z
			switch how {
			case "Read":
				r = struct{ io.Reader }{z}
			case "OneByteIn":
				in = iotest.OneByteReader(in)
			}
			if err := z.Reset(in); err != nil {
				t.Fatal(seed, how, err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, want) {
				n := 0
				for n < min(len(got), len(want)) && got[n] == want[n] {
					n++
				}
				t.Fatalf("seed %d, window bits %d, %s: %d bytes, %v; want %d bytes; first difference at %d",
					seed, wbits, how, len(got), err, len(want), n)
			}
		}
	}
}

// TestHeldBackDamaged: heldStream's streams cut short fail with
// io.ErrUnexpectedEOF, and with a bit flipped decode or fail with a corrupt
// error (no panic, no hang), whatever commands were held back then.
func TestHeldBackDamaged(t *testing.T) {
	z := new(Reader)
	for seed := range uint64(4) {
		data, _ := heldStream(seed, []uint{10, 16}[seed%2])
		rng := rand.New(rand.NewPCG(seed, 1))
		for range 150 {
			n := rng.IntN(len(data))
			err := z.Reset(bytes.NewReader(data[:n]))
			if err == nil {
				_, err = io.Copy(io.Discard, z)
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("seed %d cut at %d: got %v, want io.ErrUnexpectedEOF", seed, n, err)
			}
			bad := bytes.Clone(data)
			bad[n] ^= 1 << rng.IntN(8)
			err = z.Reset(bytes.NewReader(bad))
			if err == nil {
				_, err = io.Copy(io.Discard, z)
			}
			if err != nil && !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("seed %d, bit flipped at %d: %v is not a corrupt error", seed, n, err)
			}
		}
	}
}

// TestPrefetch: prefetch (PREFETCHT0 where the assembly is built, nothing
// under purego) changes no byte and takes any address in a buffer,
// including its last bytes.
func TestPrefetch(t *testing.T) {
	b := make([]byte, 4096)
	for i := range b {
		b[i] = byte(i)
	}
	for _, i := range []int{0, 1, 63, 64, 4080, 4095} {
		prefetch(&b[i])
	}
	for i := range b {
		if b[i] != byte(i) {
			t.Fatalf("byte %d changed", i)
		}
	}
}
