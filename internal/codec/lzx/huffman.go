package lzx

// Canonical Huffman decoding for the four LZX codes (pretree, main, length,
// aligned offset). Codes are at most 16 bits. A table of 1<<bits entries
// resolves every code up to bits long in one look-up; the rare longer codes
// are resolved by walking the canonical code ranges of lengths bits+1..16.

const maxCodeLen = 16

// table is one decoding table. Entries are sym<<5 | len; len 0 marks a
// prefix only longer codes (or none, for an empty code) start with.
type table struct {
	bits   uint
	nsyms  int
	empty  bool
	fast   []uint32
	count  [maxCodeLen + 1]uint16 // codes per length
	first  [maxCodeLen + 1]uint32 // first canonical code of each length
	index  [maxCodeLen + 1]uint16 // index in sorted of each length's first symbol
	sorted []uint16               // symbols ordered by (length, symbol)
}

func newTable(bits uint, nsyms int) *table {
	return &table{bits: bits, nsyms: nsyms, fast: make([]uint32, 1<<bits), sorted: make([]uint16, nsyms)}
}

// build makes the table from code lengths lens[:t.nsyms]. The code must be
// complete or empty (all lengths zero): LZX encoders write nothing else,
// and libmspack and wimlib refuse the rest.
func (t *table) build(lens []byte) error {
	t.count = [maxCodeLen + 1]uint16{}
	for _, l := range lens[:t.nsyms] {
		if l > maxCodeLen {
			return ErrCode
		}
		t.count[l]++
	}
	t.count[0] = 0
	left := 1
	for l := 1; l <= maxCodeLen; l++ {
		left = left<<1 - int(t.count[l])
		if left < 0 {
			return ErrCode
		}
	}
	if left == 1<<maxCodeLen {
		t.empty = true
		clear(t.fast)
		return nil
	}
	if left != 0 {
		return ErrCode
	}
	t.empty = false
	code := uint32(0)
	idx := uint16(0)
	for l := 1; l <= maxCodeLen; l++ {
		t.first[l] = code
		t.index[l] = idx
		code = (code + uint32(t.count[l])) << 1
		idx += t.count[l]
	}
	next := t.index
	for s, l := range lens[:t.nsyms] {
		if l != 0 {
			t.sorted[next[l]] = uint16(s)
			next[l]++
		}
	}
	clear(t.fast)
	// Fill the fast table from the canonical codes, shortest first.
	for l := uint(1); l <= t.bits; l++ {
		c := t.first[l]
		for i := t.index[l]; i < t.index[l]+t.count[l]; i++ {
			e := uint32(t.sorted[i])<<5 | uint32(l)
			lo := c << (t.bits - l)
			f := t.fast[lo : lo+1<<(t.bits-l)]
			for j := range f {
				f[j] = e
			}
			c++
		}
	}
	return nil
}

// slow decodes a code longer than t.bits from the 16 bits at the top of
// v, returning the symbol and its length, or length 0 if there is none.
func (t *table) slow(v uint32) (sym int, n uint) {
	if t.empty {
		return 0, 0
	}
	for l := t.bits + 1; l <= maxCodeLen; l++ {
		c := v >> (maxCodeLen - l)
		if d := c - t.first[l]; c >= t.first[l] && d < uint32(t.count[l]) {
			return int(t.sorted[uint32(t.index[l])+d]), l
		}
	}
	return 0, 0
}
