package lzhdec

import (
	"encoding/binary"
	"math/bits"
)

// ARJ's method 4 ("fastest"): no Huffman tables. A length is a unary
// prefix of up to 7 one bits selecting a range and that many extra bits
// (0: a literal byte follows, else a match of length+2); an offset is a
// unary prefix of up to 4 one bits and 9 to 12 extra bits, from 0 to
// 15871.

func readLen4(b *bitReader) int {
	b.refill()
	ones := bits.LeadingZeros8(^uint8(b.peek(7) << 1)) // leading 1s of the next 7 bits
	width := min(ones, 7)
	b.skip(uint(min(ones+1, 7)))
	return 1<<width - 1 + int(b.read(uint(width)))
}

func readOff4(b *bitReader) int {
	b.refill()
	ones := min(bits.LeadingZeros8(^uint8(b.peek(4)<<4)), 4) // leading 1s of the next 4 bits
	b.skip(uint(min(ones+1, 4)))
	width := 9 + ones
	return 1<<width - 1<<9 + int(b.read(uint(width)))
}

func decodeARJ4(b *bitReader, win *window) bool {
	if win.mlen > 0 {
		win.copyMatch()
	}
	for win.room() && win.mlen == 0 {
		fastARJ4(b, win)
		if !win.room() {
			break
		}
		// Near the ends of the input, ring or output: one command
		// through the general paths.
		c := readLen4(b)
		if c == 0 {
			win.lit(byte(b.read(8)))
		} else {
			win.match(win.w-readOff4(b)-1, c-1+copyMin)
		}
		if b.overrun() {
			return false
		}
	}
	return !b.overrun()
}

// maxMatch4 is method 4's longest match: a length code of 254.
const maxMatch4 = 1<<7 - 1 + 127 - 1 + copyMin

// fastARJ4 decodes while the input has 8 more bytes and the ring and
// output room for the longest match, with the bit buffer and write
// position in locals: a command takes at most 31 bits, so one refill
// of at least 51 serves it.
func fastARJ4(b *bitReader, win *window) {
	ring := len(win.buf)
	end := ring
	if win.left < int64(end-win.w) {
		end = win.w + int(win.left)
	}
	wFast := end - maxMatch4
	buf := win.buf[:cap(win.buf)]
	mask := win.mask
	w := win.w
	bs, nb, pos, in := b.bits, b.n, b.pos, b.buf[:b.end]
	inFast := len(in) - 8
	for w < wFast && pos <= inFast {
		if nb < 51 {
			bs |= binary.BigEndian.Uint64(in[pos:]) >> (nb & 63)
			pos += int((63 - nb) >> 3)
			nb |= 56
		}
		// The length: up to 7 one bits, then that many more bits.
		ones := uint(min(bits.LeadingZeros64(^bs), 7))
		skip := min(ones+1, 7)
		bs <<= skip & 63
		c := 1<<ones - 1 + int(bs>>1>>((63-ones)&63))
		bs <<= ones & 63
		nb -= skip + ones
		if c == 0 {
			buf[w] = byte(bs >> 56)
			bs <<= 8
			nb -= 8
			w++
			continue
		}
		n := c - 1 + copyMin
		// The offset: up to 4 one bits, then 9 to 12 more bits.
		ones = uint(min(bits.LeadingZeros64(^bs), 4))
		skip = min(ones+1, 4)
		bs <<= skip & 63
		width := (9 + ones) & 63
		off := 1<<width - 1<<9 + int(bs>>((64-width)&63))
		bs <<= width
		nb -= skip + width
		d := off + 1
		src := (w - d) & mask
		if d >= slack && src+n <= ring {
			// As in static's fast loop.
			for i := 0; i < n; i += 8 {
				binary.LittleEndian.PutUint64(buf[w+i:], binary.LittleEndian.Uint64(buf[src+i:]))
			}
		} else {
			for i := range n {
				buf[w+i] = buf[(src+i)&mask]
			}
		}
		w += n
	}
	b.bits, b.n, b.pos = bs, nb, pos
	win.left -= int64(w - win.w)
	win.w = w
}
