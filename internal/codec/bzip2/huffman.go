package bzip2

const (
	maxCodeLen = 20  // longest Huffman code the format allows
	maxAlpha   = 258 // RUNA, RUNB, 255 MTF positions, EOB
	fastBits   = 10  // bits resolved by one table lookup
)

// huffTable decodes one of a block's Huffman codes. It reproduces the
// reference decoder's limit/base/perm scheme exactly, so that malformed
// (incomplete or over-subscribed) code lengths decode as bzip2 decodes
// them, and front-ends it with a table: fast[peek] = sym<<5 | length for
// every code of at most fastBits bits; 0 sends the decoder to slow.
type huffTable struct {
	fast   [1 << fastBits]uint16
	limit  [maxCodeLen + 3]int32
	base   [maxCodeLen + 3]int32
	perm   [maxAlpha]uint16
	minLen uint
	alpha  int32
}

// build makes the table for code lengths lens (each 1..20).
func (h *huffTable) build(lens []uint8) {
	minLen, maxLen := uint8(32), uint8(0)
	for _, l := range lens {
		minLen = min(minLen, l)
		maxLen = max(maxLen, l)
	}
	pp := 0
	for l := minLen; l <= maxLen; l++ {
		for j, lj := range lens {
			if lj == l {
				h.perm[pp] = uint16(j)
				pp++
			}
		}
	}
	h.base = [maxCodeLen + 3]int32{}
	h.limit = [maxCodeLen + 3]int32{}
	for _, l := range lens {
		h.base[l+1]++
	}
	for i := 1; i < len(h.base); i++ {
		h.base[i] += h.base[i-1]
	}
	vec := int32(0)
	for i := minLen; i <= maxLen; i++ {
		vec += h.base[i+1] - h.base[i]
		h.limit[i] = vec - 1
		vec <<= 1
	}
	for i := minLen + 1; i <= maxLen; i++ {
		h.base[i] = (h.limit[i-1]+1)<<1 - h.base[i]
	}
	h.minLen = uint(minLen)
	h.alpha = int32(len(lens))

	for p := range h.fast {
		h.fast[p] = 0
		for zn := h.minLen; zn <= fastBits; zn++ {
			zvec := int32(p >> (fastBits - zn))
			if zvec <= h.limit[zn] {
				if i := zvec - h.base[zn]; i >= 0 && i < h.alpha {
					h.fast[p] = h.perm[i]<<5 | uint16(zn)
				}
				break
			}
		}
	}
}

// slow decodes the symbol at the top of peek (the next 32 bits) the way
// the reference decoder does, bit by bit. It returns the symbol and the
// code length, or length 0 for an invalid code.
func (h *huffTable) slow(peek uint32) (sym uint16, n uint) {
	zn := h.minLen
	for ; zn <= maxCodeLen; zn++ {
		zvec := int32(peek >> (32 - zn))
		if zvec <= h.limit[zn] {
			if i := zvec - h.base[zn]; i >= 0 && i < h.alpha {
				return h.perm[i], zn
			}
			return 0, 0
		}
	}
	return 0, 0
}
