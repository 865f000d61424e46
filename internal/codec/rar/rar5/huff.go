package rar5

// Alphabet sizes of the RAR 5 Huffman tables.
const (
	symsMain    = 306 // literals, filter, repeats, lengths
	symsDist    = 64  // distance slots (5.0)
	symsDistX   = 80  // distance slots (7.0, distances above 4 GiB)
	symsLowDist = 16  // low distance bits
	symsRep     = 44  // repeat lengths
	symsBitLen  = 20  // the bit-length alphabet
	symsTables  = symsMain + symsDist + symsLowDist + symsRep
	symsTablesX = symsMain + symsDistX + symsLowDist + symsRep
)

// mainQuickBits is how many bits the main table resolves in one lookup; the
// smaller tables use mainQuickBits-3.
const mainQuickBits = 10

// huff is a canonical Huffman decoding table as RAR builds it: codes are
// assigned in order of length, then symbol, and codes are read most
// significant bit first. Lengths up to 15 bits. Codes shorter than or equal
// to quickBits decode with one lookup; longer ones by a search of the
// per-length limits. Malformed length sets decode to something, never out
// of bounds, as unrar's do.
type huff struct {
	decodeLen [16]uint32 // left-aligned (16-bit) upper limit of each length
	decodePos [16]uint32 // first index in num of each length
	quickBits uint32
	maxNum    uint32
	quick     [1 << mainQuickBits]uint32 // symbol | length<<16
	num       [symsMain]uint16
}

// build makes the table from one bit length per symbol.
func (h *huff) build(lengths []byte, quickBits uint32) {
	size := uint32(len(lengths))
	h.maxNum = size
	h.quickBits = quickBits
	var count [16]uint32
	for _, l := range lengths {
		count[l&15]++
	}
	count[0] = 0
	clear(h.num[:size])
	h.decodePos[0], h.decodeLen[0] = 0, 0
	upper := uint32(0)
	for i := 1; i < 16; i++ {
		upper += count[i]
		h.decodeLen[i] = upper << (16 - i)
		upper *= 2
		h.decodePos[i] = h.decodePos[i-1] + count[i-1]
	}
	next := h.decodePos
	for i, l := range lengths {
		if l &= 15; l != 0 {
			h.num[next[l]] = uint16(i)
			next[l]++
		}
	}
	n := uint32(1) << quickBits
	bits := uint32(1)
	for code := uint32(0); code < n; code++ {
		field := code << (16 - quickBits)
		for bits < 16 && field >= h.decodeLen[bits] {
			bits++
		}
		sym := uint32(0)
		if bits < 16 {
			dist := (field - h.decodeLen[bits-1]) >> (16 - bits)
			if pos := h.decodePos[bits] + dist; pos < size {
				sym = uint32(h.num[pos])
			}
		}
		h.quick[code] = sym | bits<<16
	}
}

// slow decodes a code longer than quickBits from a 16-bit left-aligned
// field, returning the symbol and the code length.
func (h *huff) slow(field uint32) (sym, bits uint32) {
	bits = 15
	for i := h.quickBits + 1; i < 15; i++ {
		if field < h.decodeLen[i] {
			bits = i
			break
		}
	}
	dist := (field - h.decodeLen[bits-1]) >> (16 - bits)
	pos := h.decodePos[bits] + dist
	if pos >= h.maxNum {
		pos = 0
	}
	return uint32(h.num[pos]), bits
}

// decode decodes one symbol from v (the next input bits, left-aligned),
// returning it and its code length.
func (h *huff) decode(v uint64) (uint32, int) {
	field := uint32(v>>48) & 0xfffe
	if field < h.decodeLen[h.quickBits] {
		e := h.quick[(field>>(16-h.quickBits))&(1<<mainQuickBits-1)]
		return e & 0xffff, int(e >> 16)
	}
	s, n := h.slow(field)
	return s, int(n)
}
