package lzhdec

// LArc's methods. -lzs-: a 2 KiB window; each command is a flag bit, then
// a literal byte (1) or an 11-bit absolute window position and a 4-bit
// length of 2 to 17 (0). -lz5-: a 4 KiB window primed with runs and
// ramps of every byte value; a flag byte governs eight commands, each a
// literal byte (bit set) or two bytes holding a 12-bit absolute position
// and a 4-bit length of 3 to 18.

func decodeLZS(b *bitReader, win *window) bool {
	if win.mlen > 0 {
		win.copyMatch()
	}
	for win.room() {
		b.refill()
		if b.peek(1) == 1 {
			win.lit(byte(b.peek(9)))
			b.skip(9)
			continue
		}
		v := b.peek(16)
		b.skip(16)
		win.match(int(v>>4)&0x7FF, int(v&15)+2)
	}
	return !b.overrun()
}

// lz5Prime is the initial window of -lz5-.
func lz5Prime(buf []byte) {
	p := 0
	for i := range 256 {
		for range 13 {
			buf[p] = byte(i)
			p++
		}
	}
	for i := range 256 {
		buf[p] = byte(i)
		p++
	}
	for i := range 256 {
		buf[p] = byte(255 - i)
		p++
	}
	p += copy(buf[p:], make([]byte, 128))
	for range 110 {
		buf[p] = ' '
		p++
	}
	clear(buf[p:])
}

type lz5 struct {
	flags uint16 // the flag byte's bits still to use, above a marker bit
}

func (z *lz5) decode(b *bitReader, win *window) bool {
	if win.mlen > 0 {
		win.copyMatch()
	}
	for win.room() {
		if z.flags <= 1 {
			c, ok := b.readByte()
			if !ok {
				return false
			}
			z.flags = uint16(c) | 0x100
		}
		lit := z.flags&1 != 0
		z.flags >>= 1
		if lit {
			c, ok := b.readByte()
			if !ok {
				return false
			}
			win.lit(c)
			continue
		}
		lo, ok1 := b.readByte()
		hi, ok2 := b.readByte()
		if !ok1 || !ok2 {
			return false
		}
		win.match(int(hi&0xF0)<<4|int(lo), int(hi&15)+3)
	}
	return true
}
