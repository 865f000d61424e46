package lzhdec

// ARJ's method 4 ("fastest"): no Huffman tables. A length is a unary
// prefix of up to 7 one bits selecting a range and that many extra bits
// (0: a literal byte follows, else a match of length+2); an offset is a
// unary prefix of up to 4 one bits and 9 to 12 extra bits, from 0 to
// 15871.

func readLen4(b *bitReader) int {
	b.refill()
	plus, width := 0, 0
	for ; width < 7; width++ {
		bit := b.peek(1)
		b.skip(1)
		if bit == 0 {
			break
		}
		plus += 1 << width
	}
	return plus + int(b.read(uint(width)))
}

func readOff4(b *bitReader) int {
	b.refill()
	plus, width := 0, 9
	for ; width < 13; width++ {
		bit := b.peek(1)
		b.skip(1)
		if bit == 0 {
			break
		}
		plus += 1 << width
	}
	return plus + int(b.read(uint(width)))
}

func decodeARJ4(b *bitReader, win *window) bool {
	if win.mlen > 0 {
		win.copyMatch()
	}
	for win.room() {
		c := readLen4(b)
		if c == 0 {
			win.lit(byte(b.read(8)))
			continue
		}
		n := c - 1 + copyMin
		off := readOff4(b)
		win.match(win.w-off-1, n)
	}
	return !b.overrun()
}
