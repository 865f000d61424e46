package bzip2

// The scanner finds every bit position where a block magic or an
// end-of-stream magic starts, so blocks can be handed to workers before
// the blocks in front of them are decoded. A magic can also occur by
// chance inside compressed data; the reader accepts a block only where the
// previous block ended, so a false match costs time, never correctness.

// scanTab1[b] and scanTab2[b] have bit s set when byte b is what the
// second (third) byte would be for a magic starting s bits into the first.
var scanTab1, scanTab2 = func() (t1, t2 [256]uint8) {
	for _, m := range []uint64{blockMagic, eosMagic} {
		for s := range 8 {
			t1[byte(m>>(32+s))] |= 1 << s
			t2[byte(m>>(24+s))] |= 1 << s
		}
	}
	return
}()

// scanMagics appends to cands the positions of the magics that start in
// the bytes buf[from:] and end within buf, and returns how far it got
// (where the next scan starts). Positions are absolute bit positions,
// buf[0] being byte base, times 2, plus 1 for end-of-stream.
func scanMagics(cands []int64, buf []byte, base int64, from int) ([]int64, int) {
	to := len(buf) - 6
	for i := from; i < to; i++ {
		m := scanTab1[buf[i+1]] & scanTab2[buf[i+2]]
		if m == 0 {
			continue
		}
		w := uint64(buf[i])<<48 | uint64(buf[i+1])<<40 | uint64(buf[i+2])<<32 |
			uint64(buf[i+3])<<24 | uint64(buf[i+4])<<16 | uint64(buf[i+5])<<8 | uint64(buf[i+6])
		for s := range 8 {
			if m&(1<<s) == 0 {
				continue
			}
			switch (w >> (8 - s)) & (1<<48 - 1) {
			case blockMagic:
				cands = append(cands, ((base+int64(i))*8+int64(s))*2)
			case eosMagic:
				cands = append(cands, ((base+int64(i))*8+int64(s))*2+1)
			}
		}
	}
	return cands, max(from, to)
}
