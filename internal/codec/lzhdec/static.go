package lzhdec

// The static-Huffman methods (LHA -lh4- to -lh7-, -lhx-, ARJ 1 to 3):
// blocks of a 16-bit command count, then three code tables — the
// "temporary" table that codes the literal/length table's lengths, the
// literal/length table (NC codes: 256 literals, then match lengths from 3),
// the offset table (codes giving the bit length of the match distance) —
// then the commands.

import "encoding/binary"

const (
	numCodes    = 256 + 256 - 3 + 1 + 1 // NC: literals and lengths 3..256 (510)
	numTemp     = 19                    // NT
	maxTemp     = 31                    // what a 5-bit count can name
	copyMin     = 3
	cTableBits  = 12
	ptTableBits = 8
)

type static struct {
	offBits  uint // bits of the offset table's count: 4 or 5
	winBits  int  // log2 of the window: offset codes up to it need no wrapping
	blockCmd int  // commands left in the block
	c, p, t  *huffman
	lens     [numCodes]uint8
}

func newStatic(offBits uint) *static {
	return &static{offBits: offBits, c: newHuffman(cTableBits), p: newHuffman(ptTableBits), t: newHuffman(ptTableBits)}
}

func (s *static) reset() { s.blockCmd = 0 }

// readLen reads a length of the temporary or offset table: 3 bits, and
// from 7 one more for every 1 bit that follows.
func readLen(b *bitReader) (uint8, bool) {
	b.refill()
	l := b.peek(3)
	b.skip(3)
	if l == 7 {
		for {
			if b.n == 0 {
				b.refill()
			}
			bit := b.peek(1)
			b.skip(1)
			if bit == 0 {
				break
			}
			l++
			if l > maxCodeLen {
				return 0, false
			}
		}
	}
	return uint8(l), true
}

// readPT reads the temporary table (special: after the third length a
// 2-bit count of zero lengths follows) or the offset table.
func (s *static) readPT(b *bitReader, h *huffman, countBits uint, limit int, special bool) bool {
	n := int(b.read(countBits))
	if n == 0 {
		h.single(int(b.read(countBits)))
		return true
	}
	n = min(n, limit)
	lens := s.lens[:n]
	clear(lens)
	for i := 0; i < n; i++ {
		l, ok := readLen(b)
		if !ok {
			return false
		}
		lens[i] = l
		if special && i == 2 {
			for z := int(b.read(2)); z > 0 && i+1 < n; z-- {
				i++
				lens[i] = 0
			}
		}
	}
	return h.build(lens)
}

// readC reads the literal/length table, its lengths coded with the
// temporary table: 0 one zero, 1 3 to 18 zeros, 2 20 to 531 zeros,
// otherwise a length of code-2.
func (s *static) readC(b *bitReader) bool {
	n := int(b.read(9))
	if n == 0 {
		s.c.single(int(b.read(9)))
		return true
	}
	n = min(n, numCodes)
	lens := s.lens[:n]
	for i := 0; i < n; {
		b.refill()
		code, ok := s.t.decode(b)
		if !ok {
			return false
		}
		if code > 2 {
			lens[i] = uint8(code - 2)
			i++
			continue
		}
		z := 1
		switch code {
		case 1:
			z = int(b.read(4)) + 3
		case 2:
			z = int(b.read(9)) + 20
		}
		for ; z > 0 && i < n; z-- {
			lens[i] = 0
			i++
		}
	}
	return s.c.build(lens)
}

func (s *static) startBlock(b *bitReader) bool {
	s.blockCmd = int(b.read(16))
	return s.readPT(b, s.t, 5, maxTemp, true) && s.readC(b) && s.readPT(b, s.p, s.offBits, 1<<s.offBits-1, false)
}

// decode fills the window until it is full, the output complete, or the
// input bad (false): fast while there is room for it, one command at a
// time by step near the ends of the input, the ring and the output, and
// at the start of a block.
func (s *static) decode(b *bitReader, win *window) bool {
	if win.mlen > 0 {
		win.copyMatch()
	}
	for win.room() && win.mlen == 0 {
		if !s.fast(b, win) || !s.step(b, win) {
			return false
		}
	}
	return !b.overrun()
}

// step decodes one command, or starts a block, through the general
// paths.
func (s *static) step(b *bitReader, win *window) bool {
	if s.blockCmd == 0 {
		return s.startBlock(b) && !b.overrun()
	}
	s.blockCmd--
	b.refill()
	code, ok := s.c.decode(b)
	if !ok {
		return false
	}
	if code < 256 {
		win.lit(byte(code))
		return true
	}
	n := code - 256 + copyMin
	off, ok := s.p.decode(b)
	if !ok || off > 32 {
		return false
	}
	if off > 1 {
		off = int(b.read(uint(off-1))) | 1<<(off-1)
	}
	// The distance wraps to the window, as the original decoders'
	// window-sized rings wrap it.
	win.match(win.w-off&win.dmask-1, n)
	return true
}

// maxMatch is the longest match: code 511.
const maxMatch = 511 - 256 + copyMin

// fast decodes commands while the block has more, the input at least 16
// more bytes and the ring and output room for the longest match, with the
// bit buffer and write position in locals and no calls: every command
// starts with at least 51 bits buffered, enough for a literal/length
// code, an offset code and up to 19 offset bits. It returns false for bad
// input.
func (s *static) fast(b *bitReader, win *window) bool {
	ring := len(win.buf)
	end := ring
	if win.left < int64(end-win.w) {
		end = win.w + int(win.left)
	}
	wFast := end - maxMatch
	buf := win.buf[:cap(win.buf)]
	mask := win.mask
	w := win.w
	bits, nb, pos, in := b.bits, b.n, b.pos, b.buf[:b.end]
	inFast := len(in) - 16
	cmd := s.blockCmd
	winBits := s.winBits
	ch, ph := s.c, s.p
	ok := true
	for cmd > 0 && w < wFast && pos <= inFast {
		if nb < 51 {
			bits |= binary.BigEndian.Uint64(in[pos:]) >> (nb & 63)
			pos += int((63 - nb) >> 3)
			nb |= 56
		}
		cmd--
		e := ch.table[bits>>(64-cTableBits)]
		if e&entLink != 0 {
			e = ch.sub[(int(e>>16)+int(bits<<cTableBits>>(64-(e>>6&31))))&(subSize-1)]
		}
		bits <<= e & entBits
		nb -= uint(e & entBits)
		code := int(e >> 16)
		if code < 256 {
			buf[w] = byte(code)
			w++
			continue
		}
		if code >= 512 {
			ok = false
			break
		}
		n := code - 256 + copyMin
		e = ph.table[bits>>(64-ptTableBits)]
		if e&entLink != 0 {
			e = ph.sub[(int(e>>16)+int(bits<<ptTableBits>>(64-(e>>6&31))))&(subSize-1)]
		}
		bits <<= e & entBits
		nb -= uint(e & entBits)
		off := int(e >> 16)
		if off > 1 {
			k := uint(off-1) & 63
			if off > winBits {
				// Past the window: the distance wraps to it (see step).
				if off > 32 {
					ok = false
					break
				}
				if nb < k {
					bits |= binary.BigEndian.Uint64(in[pos:]) >> (nb & 63)
					pos += int((63 - nb) >> 3)
					nb |= 56
				}
				off = (int(bits>>((64-k)&63)) | 1<<k) & win.dmask
			} else {
				// k < winBits ≤ 20: still buffered.
				off = int(bits>>((64-k)&63)) | 1<<k
			}
			bits <<= k
			nb -= k
		}
		d := off + 1
		src := (w - d) & mask
		if d >= slack && src+n <= ring {
			// Eight bytes at a time: each load is of bytes already final
			// (d ≥ 8), and what lands past the match's end is overwritten
			// by what follows before anything reads it.
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
	s.blockCmd = cmd
	b.bits, b.n, b.pos = bits, nb, pos
	win.left -= int64(w - win.w)
	win.w = w
	return ok
}
