package lzhdec

// maxCodeLen is the longest code LHA's make_table accepts.
const maxCodeLen = 16

// A huffman table entry: the symbol in the high 16 bits (badSym for a
// code the table lacks), the code's length in the low 5 bits (bits to
// consume), and for a link to a second-level table entLink, the table's
// offset in the high bits and its index width in bits 6-10.
const (
	entLink  = 1 << 5
	entBits  = 31
	badSym   = 0xFFFF
	badEntry = badSym << 16
)

// huffman decodes canonical codes (shorter codes first, then by symbol,
// as LHA's make_table assigns them) through a primary table indexed by the
// next tb bits and second-level tables for longer codes.
//
// The tables are arrays of fixed size, so that the decoding loops index
// them without bounds checks: the primary one takes up to 12 bits, the
// second-level ones at most subSize entries (510 symbols with codes
// longer than 12 bits need at most 16 entries each, 31 symbols longer than
// 8 bits at most 256 each).
type huffman struct {
	tb    uint
	table [1 << cTableBits]uint32
	sub   [subSize]uint32
}

const subSize = 1 << 13

func newHuffman(tb uint) *huffman {
	return &huffman{tb: tb}
}

// single makes every input decode to sym, consuming no bits.
func (h *huffman) single(sym int) {
	e := uint32(sym) << 16
	t := h.table[:1<<h.tb]
	for i := range t {
		t[i] = e
	}
}

// build makes the table for the code lengths given (0: unused). An
// over-subscribed set is refused; codes an incomplete set leaves out
// decode as badSym.
func (h *huffman) build(lengths []uint8) bool {
	var count [maxCodeLen + 1]int
	maxLen := 0
	for _, l := range lengths {
		if l > maxCodeLen {
			return false
		}
		count[l]++
		maxLen = max(maxLen, int(l))
	}
	count[0] = 0
	left := 1
	for l := 1; l <= maxCodeLen; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false
		}
	}
	var next [maxCodeLen + 2]int
	code := 0
	for l := 1; l <= maxCodeLen; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	table := h.table[:1<<h.tb]
	tb := int(h.tb)
	if left > 0 {
		// Incomplete: the codes left out must decode as errors.
		for i := range table {
			table[i] = badEntry
		}
	} else if maxLen > tb {
		// Complete: every entry is written below, but the ones the long
		// codes link through must not keep a previous table's link.
		nx := next
		for _, l8 := range lengths {
			if l := int(l8); l > tb {
				table[nx[l]>>(l-tb)] = badEntry
				nx[l]++
			}
		}
	}
	nsub := 0
	subBits := uint(max(maxLen-tb, 0))
	for sym, l8 := range lengths {
		l := int(l8)
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		e := uint32(sym)<<16 | uint32(l)
		if l <= tb {
			lo := c << (tb - l)
			hi := (c + 1) << (tb - l)
			for i := lo; i < hi; i++ {
				table[i] = e
			}
			continue
		}
		p := c >> (l - tb)
		link := table[p]
		if link&entLink == 0 {
			if nsub+1<<subBits > subSize {
				return false
			}
			link = uint32(nsub)<<16 | uint32(subBits)<<6 | entLink
			table[p] = link
			for i := range h.sub[nsub : nsub+1<<subBits] {
				h.sub[nsub+i] = badEntry
			}
			nsub += 1 << subBits
		}
		off := int(link >> 16)
		rest := c & (1<<(l-tb) - 1) // the code's bits after the prefix
		lo := rest << (int(subBits) - (l - tb))
		hi := (rest + 1) << (int(subBits) - (l - tb))
		for i := lo; i < hi; i++ {
			h.sub[off+i] = e
		}
	}
	return true
}

// entry returns the entry for the code at the top of bits (at least
// maxCodeLen valid bits).
func (h *huffman) entry(bits uint64) uint32 {
	e := h.table[bits>>(64-h.tb)&(1<<cTableBits-1)]
	if e&entLink != 0 {
		e = h.sub[(int(e>>16)+int(bits<<h.tb>>(64-(e>>6&31))))&(subSize-1)]
	}
	return e
}

// decode reads one symbol; ok is false for a code the table lacks. The
// caller has refilled b (at least maxCodeLen bits).
func (h *huffman) decode(b *bitReader) (sym int, ok bool) {
	e := h.entry(b.bits)
	if e>>16 == badSym {
		return 0, false
	}
	b.skip(uint(e & entBits))
	return int(e >> 16), true
}
