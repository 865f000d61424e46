package lzx

import (
	"encoding/binary"
	"math/rand"
)

// A small LZX encoder for the tests: it writes CAB-framed streams with
// every block type (verbatim, aligned, stored, sizes spanning frames),
// repeated offsets, both length-coding runs and E8 translation, from flat
// (complete, fixed) Huffman codes. Its output decoding back to its input
// checks the decoder's CAB paths; the WIM and corpus tests check it
// against real encoders.

type bitWriter struct {
	out  []byte
	acc  uint32 // pending bits, low n bits valid
	n    uint
	cuts []int // byte offsets where frames end
}

func (w *bitWriter) bits(v uint32, n uint) {
	for n > 0 {
		k := min(n, 16-w.n)
		w.acc = w.acc<<k | (v>>(n-k))&(1<<k-1)
		w.n += k
		n -= k
		if w.n == 16 {
			w.out = binary.LittleEndian.AppendUint16(w.out, uint16(w.acc))
			w.acc, w.n = 0, 0
		}
	}
}

// align pads to 16 bits; with skip, an aligned stream gets 16 bits more.
func (w *bitWriter) align(skip bool) {
	if w.n > 0 {
		w.bits(0, 16-w.n)
	} else if skip {
		w.bits(0, 16)
	}
}

// code is a flat complete prefix code over the used symbols.
type code struct {
	lens  []byte
	codes []uint32
}

func flatCode(n int, used func(int) bool) code {
	var syms []int
	for s := 0; s < n; s++ {
		if used(s) {
			syms = append(syms, s)
		}
	}
	c := code{lens: make([]byte, n), codes: make([]uint32, n)}
	if len(syms) == 0 {
		return c
	}
	if len(syms) == 1 {
		panic("one symbol")
	}
	k := 0
	for 1<<k < len(syms) {
		k++
	}
	short := 1<<k - len(syms)
	for i, s := range syms {
		if i < short {
			c.lens[s] = byte(k - 1)
		} else {
			c.lens[s] = byte(k)
		}
	}
	// Canonical codes, as the decoder assigns them.
	var count [17]int
	for _, l := range c.lens {
		count[l]++
	}
	count[0] = 0
	var next [17]uint32
	cd := uint32(0)
	for l := 1; l <= 16; l++ {
		cd = (cd + uint32(count[l-1])) << 1
		next[l] = cd
	}
	for s, l := range c.lens {
		if l != 0 {
			c.codes[s] = next[l]
			next[l]++
		}
	}
	return c
}

func (w *bitWriter) sym(c code, s int) {
	if c.lens[s] == 0 {
		panic("unused symbol")
	}
	w.bits(c.codes[s], uint(c.lens[s]))
}

// writeLens codes lens over prev (both updated), with runs where they fit.
func (w *bitWriter) writeLens(prev, lens []byte, r *rand.Rand) {
	pre := flatCode(numPreSyms, func(int) bool { return true })
	for _, l := range pre.lens {
		w.bits(uint32(l), 4)
	}
	for i := 0; i < len(lens); {
		run := 1
		for i+run < len(lens) && lens[i+run] == lens[i] {
			run++
		}
		switch {
		case lens[i] == 0 && run >= 20:
			k := min(run, 51)
			w.sym(pre, 18)
			w.bits(uint32(k-20), 5)
			i += k
			continue
		case lens[i] == 0 && run >= 4 && r.Intn(2) == 0:
			k := min(run, 19)
			w.sym(pre, 17)
			w.bits(uint32(k-4), 4)
			i += k
			continue
		case run >= 4:
			k := min(run, 5)
			w.sym(pre, 19)
			w.bits(uint32(k-4), 1)
			w.sym(pre, int((prev[i]+17-lens[i])%17))
			i += k
			continue
		}
		w.sym(pre, int((prev[i]+17-lens[i])%17))
		i++
	}
	copy(prev, lens)
}

func slotOf(f uint32) int {
	s := 0
	for s+1 < len(slotBase) && slotBase[s+1] <= f {
		s++
	}
	return s
}

// e8Forward applies the encoder's translation to a copy of one frame.
func e8Forward(b []byte, pos int64, size int32) {
	for i := 0; i < len(b)-10; {
		if b[i] != 0xE8 {
			i++
			continue
		}
		cur := int32(pos + int64(i))
		rel := int32(binary.LittleEndian.Uint32(b[i+1:]))
		if rel >= -cur && rel < size-cur {
			binary.LittleEndian.PutUint32(b[i+1:], uint32(rel+cur))
		} else if rel >= size-cur && rel < size {
			binary.LittleEndian.PutUint32(b[i+1:], uint32(rel-size))
		}
		i += 5
	}
}

// encodeCAB compresses data as a CAB-framed LZX stream and returns the
// compressed bytes of each 32 KiB frame.
func encodeCAB(data []byte, bits int, e8 int32, seed int64) [][]byte {
	r := rand.New(rand.NewSource(seed))
	wsize := 1 << bits
	ns := numSlots(uint(bits))
	nmain := numChars + 8*ns
	// The input as the decoder's output before E8 is undone.
	in := append([]byte(nil), data...)
	if e8 != 0 {
		for p := 0; p < len(in) && p < e8Limit; p += FrameSize {
			e8Forward(in[p:min(p+FrameSize, len(in))], int64(p), e8)
		}
	}
	w := &bitWriter{}
	if e8 != 0 {
		w.bits(1, 1)
		w.bits(uint32(e8)>>16, 16)
		w.bits(uint32(e8)&0xFFFF, 16)
	} else {
		w.bits(0, 1)
	}
	mainPrev := make([]byte, nmain)
	lenPrev := make([]byte, numLenSyms)
	R := [3]uint32{1, 1, 1}
	head := map[uint32]int{}
	pos := 0
	frameEnd := func(p int) int { return (p/FrameSize + 1) * FrameSize }
	for pos < len(in) {
		btype := 1 + r.Intn(3)
		size := 1 + r.Intn(3*FrameSize)
		if r.Intn(4) == 0 {
			size = 1 + r.Intn(40)
		}
		size = min(size, len(in)-pos)
		w.bits(uint32(btype), 3)
		w.bits(uint32(size), 24)
		end := pos + size
		if btype == blockUncompressed {
			w.align(true)
			for _, v := range R {
				w.out = binary.LittleEndian.AppendUint32(w.out, v)
			}
			for pos < end {
				fe := min(frameEnd(pos), end)
				w.out = append(w.out, in[pos:fe]...)
				pos = fe
				if pos%FrameSize == 0 || pos == len(in) {
					if pos == end && size&1 != 0 && r.Intn(2) == 0 {
						w.out = append(w.out, 0)
						size++ // pad written
					}
					w.cuts = append(w.cuts, len(w.out))
				}
			}
			if size&1 != 0 {
				w.out = append(w.out, 0)
			}
			continue
		}
		// Sparse blocks leave the far offset slots and some literals
		// unused, so zero runs appear in the lengths.
		maxSlot := ns - 1
		sparse := r.Intn(2) == 0
		if sparse {
			maxSlot = 3 + r.Intn(ns-3)
		}
		main := flatCode(nmain, func(s int) bool {
			return s < numChars || (s-numChars)/8 <= maxSlot
		})
		lenc := flatCode(numLenSyms, func(s int) bool { return !sparse || s < 100 })
		maxLen := 257
		if sparse {
			maxLen = 9 + 99
		}
		var al code
		if btype == blockAligned {
			al = flatCode(numAlignedSyms, func(int) bool { return true })
			for _, l := range al.lens {
				w.bits(uint32(l), 3)
			}
		}
		w.writeLens(mainPrev[:numChars], main.lens[:numChars], r)
		w.writeLens(mainPrev[numChars:], main.lens[numChars:], r)
		w.writeLens(lenPrev, lenc.lens, r)
		maxOff := min(int(slotBase[maxSlot]+(1<<extraBits[maxSlot])-3), wsize-3)
		// Some blocks let matches run on over a frame's end, as
		// Microsoft's encoders do.
		cross := r.Intn(3) == 0
		for pos < end {
			fe := min(frameEnd(pos), end)
			for pos < fe {
				limit := min(fe-pos, maxLen)
				if cross {
					limit = min(end-pos, maxLen)
				}
				off, ml := 0, 0
				// Repeated offsets first, then the hash candidate.
				for i, ro := range R {
					if int(ro) <= pos && int(ro) <= maxOff {
						n := 0
						for n < limit && in[pos+n] == in[pos+n-int(ro)] {
							n++
						}
						if n >= 2 && n > ml {
							off, ml = -(i + 1), n
						}
					}
				}
				if pos+3 <= len(in) {
					h := uint32(in[pos]) | uint32(in[pos+1])<<8 | uint32(in[pos+2])<<16
					if c, ok := head[h]; ok && pos-c <= maxOff {
						n := 0
						for n < limit && in[pos+n] == in[c+n] {
							n++
						}
						if n >= 3 && n > ml+1 {
							off, ml = pos-c, n
						}
					}
					head[h] = pos
				}
				if ml < 2 {
					w.sym(main, int(in[pos]))
					pos++
					continue
				}
				var slot int
				var f uint32
				if off < 0 {
					slot = -off - 1
					o := R[slot]
					R[slot] = R[0]
					R[0] = o
				} else {
					f = uint32(off) + 2
					slot = slotOf(f)
					R[2], R[1], R[0] = R[1], R[0], uint32(off)
				}
				lh := min(ml-2, 7)
				w.sym(main, numChars+slot*8+lh)
				if lh == 7 {
					w.sym(lenc, ml-9)
				}
				if slot >= 3 {
					eb := uint(extraBits[slot])
					v := f - slotBase[slot]
					if btype == blockAligned && eb >= 3 {
						w.bits(v>>3, eb-3)
						w.sym(al, int(v&7))
					} else {
						w.bits(v, eb)
					}
				}
				pos += ml
			}
			if pos == fe && (pos%FrameSize == 0 || pos == len(in)) || pos > fe {
				w.align(false)
				w.cuts = append(w.cuts, len(w.out))
			}
		}
	}
	w.align(false)
	var frames [][]byte
	prev := 0
	for _, c := range w.cuts {
		frames = append(frames, w.out[prev:c])
		prev = c
	}
	return frames
}
