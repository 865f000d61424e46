package inflate

// Canonical Huffman decoding tables. A code is looked up by its first
// chunkBits bits (stored least-significant bit first, as deflate sends
// them); longer codes continue in a second-level table.
const (
	chunkBits  = 9
	numChunks  = 1 << chunkBits
	chunkMask  = numChunks - 1
	maxCodeLen = 15

	// An entry is value<<8 | flags | length. A zero length marks an
	// unassigned code.
	entryLong    = 0x80 // a link: value is the second-level table's start
	entryLenMask = 0x1f
)

// huffman is one decoding table.
type huffman struct {
	min     uint // shortest code length
	max     uint // longest code length
	subMask uint32
	chunks  [numChunks]uint32
	links   []uint32 // second-level tables, reused between blocks
}

// init builds h from the code lengths of symbols 0..len(lengths)-1. It
// fails on an over-subscribed set of lengths; an incomplete set is
// accepted (its unused codes decode as errors), as zlib does for the
// single-distance-code case.
func (h *huffman) init(lengths []uint8) bool {
	var count [maxCodeLen + 1]int
	h.min, h.max = 0, 0
	for _, l := range lengths {
		if l == 0 {
			continue
		}
		count[l]++
		if h.min == 0 || uint(l) < h.min {
			h.min = uint(l)
		}
		if uint(l) > h.max {
			h.max = uint(l)
		}
	}
	if h.max == 0 {
		// No codes at all: every lookup fails.
		h.min = 1
		h.chunks = [numChunks]uint32{}
		h.links = h.links[:0]
		return true
	}
	var next [maxCodeLen + 2]uint32
	code := uint32(0)
	left := 1
	for l := 1; l <= maxCodeLen; l++ {
		left <<= 1
		left -= count[l]
		if left < 0 {
			return false
		}
		code = (code + uint32(count[l-1])) << 1
		next[l] = code
	}
	h.chunks = [numChunks]uint32{}
	h.links = h.links[:0]
	subBits := uint(0)
	if h.max > chunkBits {
		subBits = h.max - chunkBits
	}
	h.subMask = 1<<subBits - 1
	for sym, l := range lengths {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		rev := reverse(c, uint(l))
		if uint(l) <= chunkBits {
			e := uint32(sym)<<8 | uint32(l)
			for j := rev; j < numChunks; j += 1 << l {
				h.chunks[j] = e
			}
			continue
		}
		prefix := rev & chunkMask
		link := h.chunks[prefix]
		if link&entryLong == 0 {
			base := uint32(len(h.links))
			for range 1 << subBits {
				h.links = append(h.links, 0)
			}
			link = base<<8 | entryLong
			h.chunks[prefix] = link
		}
		base := link >> 8
		e := uint32(sym)<<8 | uint32(l)
		for j := rev >> chunkBits; j <= h.subMask; j += 1 << (uint(l) - chunkBits) {
			h.links[base+j] = e
		}
	}
	return true
}

// reverse reverses the low n bits of c.
func reverse(c uint32, n uint) uint32 {
	var r uint32
	for range n {
		r = r<<1 | c&1
		c >>= 1
	}
	return r
}
