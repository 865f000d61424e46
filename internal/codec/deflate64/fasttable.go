package deflate64

import "math/bits"

// Decoding tables of the buffered inflater. An entry is a uint32:
//
//	bits 0-4   code length in bits (for a link: the link's index bits)
//	bits 5-9   extra bits that follow the code
//	bits 10-12 kind
//	bits 16-31 value: literal byte, length or distance base, link start
const (
	kindLiteral = iota
	kindLength
	kindEnd
	kindLink
	kindInvalid
)

const (
	litPrimary  = 10
	distPrimary = 8
)

func entry(codeLen, extra, kind, value uint32) uint32 {
	return codeLen | extra<<5 | kind<<10 | value<<16
}

// table is a two-level lookup table: prim is indexed by the first primary
// bits (a fixed array, so masked lookups need no bounds check), links
// holds the second-level tables.
type table struct {
	primary uint
	prim    [1 << litPrimary]uint32
	links   []uint32
}

// build fills t for code lengths lengths (a canonical Huffman code), with
// syms giving each symbol's entry without the code length. It fails on an
// over-subscribed code; an incomplete one leaves invalid entries.
func (t *table) build(lengths []uint8, primary uint, syms []uint32) bool {
	var count [maxCodeLen + 1]int
	maxLen := uint(0)
	for _, l := range lengths {
		if l != 0 {
			count[l]++
			maxLen = max(maxLen, uint(l))
		}
	}
	left := 1
	var next [maxCodeLen + 2]uint32
	code := uint32(0)
	for l := 1; l <= maxCodeLen; l++ {
		left <<= 1
		left -= count[l]
		if left < 0 {
			return false
		}
		code = (code + uint32(count[l-1])) << 1
		next[l] = code
	}
	t.primary = primary
	size := 1 << primary
	invalid := entry(0, 0, kindInvalid, 0)
	for i := range t.prim[:size] {
		t.prim[i] = invalid
	}
	t.links = t.links[:0]
	subBits := uint(0)
	if maxLen > primary {
		subBits = maxLen - primary
	}
	for s, l := range lengths {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		rev := uint32(bits.Reverse16(uint16(c))) >> (16 - l)
		e := syms[s] | uint32(l)
		if uint(l) <= primary {
			for j := rev; j < uint32(size); j += 1 << l {
				t.prim[j] = e
			}
			continue
		}
		prefix := rev & (1<<primary - 1)
		link := t.prim[prefix]
		if link>>10&7 != kindLink {
			start := uint32(len(t.links))
			for range 1 << subBits {
				t.links = append(t.links, invalid)
			}
			link = entry(uint32(subBits), 0, kindLink, start)
			t.prim[prefix] = link
		}
		start := link >> 16
		for j := rev >> primary; j < 1<<subBits; j += 1 << (uint(l) - primary) {
			t.links[start+j] = e
		}
	}
	return true
}

// symEntries holds, per mode (deflate, Deflate64), the entries of the
// literal/length symbols and of the distance symbols; clenEntries those of
// the code length code.
var symEntries, clenEntries = func() (t [2][2][]uint32, c []uint32) {
	for m, d64 := range []bool{false, true} {
		lit := make([]uint32, 288)
		for s := range lit {
			switch {
			case s < 256:
				lit[s] = entry(0, 0, kindLiteral, uint32(s))
			case s == 256:
				lit[s] = entry(0, 0, kindEnd, 0)
			case s <= 285:
				i := s - 257
				base, extra := uint32(lenBase[i]), uint32(lenExtra[i])
				if i == 28 && !d64 {
					base, extra = 258, 0
				}
				lit[s] = entry(0, extra, kindLength, base)
			default:
				lit[s] = entry(0, 0, kindInvalid, 0)
			}
		}
		dist := make([]uint32, 32)
		for s := range dist {
			if s >= 30 && !d64 {
				dist[s] = entry(0, 0, kindInvalid, 0)
			} else {
				dist[s] = entry(0, uint32(distExtra[s]), kindLength, distBase[s])
			}
		}
		t[m] = [2][]uint32{lit, dist}
	}
	c = make([]uint32, 19)
	for s := range c {
		c[s] = entry(0, 0, kindLiteral, uint32(s))
	}
	return t, c
}()
