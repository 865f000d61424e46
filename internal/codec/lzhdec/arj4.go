package lzhdec

import "math/bits"

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
	buf, mask := win.buf, win.mask
	w := win.w
	end := len(buf)
	if win.left < int64(end-w) {
		end = w + int(win.left)
	}
	for w < end {
		c := readLen4(b)
		if c == 0 {
			buf[w] = byte(b.read(8))
			w++
			continue
		}
		n := c - 1 + copyMin
		src := (w - readOff4(b) - 1) & mask
		if n > end-w {
			win.left -= int64(w - win.w)
			win.w = w
			win.match(src, n)
			return !b.overrun()
		}
		if d := w - src; d >= n || (d <= -n && src+n <= len(buf)) {
			copy(buf[w:w+n], buf[src:src+n])
		} else {
			for i := range n {
				buf[w+i] = buf[(src+i)&mask]
			}
		}
		w += n
	}
	win.left -= int64(w - win.w)
	win.w = w
	return !b.overrun()
}
