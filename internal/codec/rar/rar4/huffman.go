package rar4

// huffQuickBits is the width of the direct lookup table.
const huffQuickBits = 10

// huffMaxSyms is the largest alphabet of the RAR 1.5–4.x decoders
// (RAR 2.0's main table has 298 symbols, RAR 2.9's 299).
const huffMaxSyms = 306

// huffman is a canonical Huffman decoder built as unrar's MakeDecodeTables
// builds it: codes are assigned by length, then symbol order; lengths above
// 15 bits do not exist. Over-subscribed or incomplete tables still decode
// (to some symbol) without panicking, as unrar's do.
type huffman struct {
	limit [17]uint32 // left-aligned (16-bit) upper bound of each length
	pos   [17]uint16 // first index in syms of each length
	syms  [huffMaxSyms]uint16
	nsyms int
	quick [1 << huffQuickBits]uint16 // sym | len<<12; len 0 = slow path
}

// init builds the decoder from code lengths (low 4 bits of each).
func (h *huffman) init(lengths []byte) {
	var count [16]uint16
	for _, l := range lengths {
		count[l&15]++
	}
	count[0] = 0
	h.nsyms = len(lengths)
	var upper uint32
	h.limit[0], h.pos[0] = 0, 0
	for i := 1; i < 16; i++ {
		upper += uint32(count[i])
		h.limit[i] = upper << (16 - i)
		upper *= 2
		h.pos[i] = h.pos[i-1] + count[i-1]
	}
	h.limit[16] = 1 << 16
	h.pos[16] = h.pos[15] + count[15]
	h.syms[0] = 0
	next := h.pos
	for i, l := range lengths {
		if l &= 15; l != 0 {
			h.syms[next[l]] = uint16(i)
			next[l]++
		}
	}
	for i := range h.quick {
		code := uint32(i) << (16 - huffQuickBits)
		bits := 1
		for bits <= huffQuickBits && code >= h.limit[bits] {
			bits++
		}
		if bits > huffQuickBits {
			h.quick[i] = 0
			continue
		}
		h.quick[i] = h.symAt(code, bits) | uint16(bits)<<12
	}
}

func (h *huffman) symAt(code uint32, bits int) uint16 {
	dist := (code - h.limit[bits-1]) >> (16 - bits)
	p := uint32(h.pos[bits]) + dist
	if p >= uint32(h.nsyms) {
		p = 0
	}
	return h.syms[p]
}

// decode reads one symbol.
func (h *huffman) decode(b *bitReader) int {
	code := b.peek(16)
	if q := h.quick[code>>(16-huffQuickBits)]; q != 0 {
		b.skip(uint(q >> 12))
		return int(q & 0xfff)
	}
	bits := huffQuickBits + 1
	for bits < 15 && code >= h.limit[bits] {
		bits++
	}
	b.skip(uint(bits))
	return int(h.symAt(code, bits))
}
