package lzhdec

// maxCodeLen is the longest code LHA's make_table accepts.
const maxCodeLen = 16

// A huffman table entry: bit 31 marks it valid, bit 30 a link to a
// second-level table (the low 16 bits its offset, bits 16-20 its index
// width); otherwise bits 16-20 are the code length and the low bits the
// symbol.
const (
	entValid = 1 << 31
	entLink  = 1 << 30
)

// huffman decodes canonical codes (shorter codes first, then by symbol,
// as LHA's make_table assigns them) through a primary table indexed by the
// next tb bits and second-level tables for longer codes.
type huffman struct {
	tb    uint
	table []uint32
	sub   []uint32
}

func newHuffman(tb uint) *huffman {
	return &huffman{tb: tb, table: make([]uint32, 1<<tb)}
}

// single makes every input decode to sym, consuming no bits.
func (h *huffman) single(sym int) {
	e := entValid | uint32(sym)
	for i := range h.table {
		h.table[i] = e
	}
}

// build makes the table for the code lengths given (0: unused). An
// over-subscribed set is refused; codes an incomplete set leaves out
// decode as errors.
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
	clear(h.table)
	h.sub = h.sub[:0]
	tb := int(h.tb)
	subBits := uint(max(maxLen-tb, 0))
	for sym, l8 := range lengths {
		l := int(l8)
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		e := entValid | uint32(l)<<16 | uint32(sym)
		if l <= tb {
			lo := c << (tb - l)
			hi := (c + 1) << (tb - l)
			for i := lo; i < hi; i++ {
				h.table[i] = e
			}
			continue
		}
		p := c >> (l - tb)
		link := h.table[p]
		if link&entLink == 0 {
			link = entValid | entLink | uint32(subBits)<<16 | uint32(len(h.sub))
			h.table[p] = link
			for range 1 << subBits {
				h.sub = append(h.sub, 0)
			}
		}
		off := int(link & 0xFFFF)
		rest := c & (1<<(l-tb) - 1) // the code's bits after the prefix
		lo := rest << (int(subBits) - (l - tb))
		hi := (rest + 1) << (int(subBits) - (l - tb))
		for i := lo; i < hi; i++ {
			h.sub[off+i] = e
		}
	}
	return true
}

// decode reads one symbol; ok is false for a code the table lacks. The
// caller has refilled b (at least maxCodeLen bits).
func (h *huffman) decode(b *bitReader) (sym int, ok bool) {
	e := h.table[b.peek(h.tb)]
	if e&entLink != 0 {
		sb := uint(e>>16) & 31
		e = h.sub[int(e&0xFFFF)+int(uint32(b.bits<<h.tb>>(64-sb)))]
	}
	if e&entValid == 0 {
		return 0, false
	}
	b.skip(uint(e>>16) & 31)
	return int(e & 0xFFFF), true
}
