package brotli

import "math/bits"

// Prefix codes (RFC 7932 section 3) are decoded with two-level tables of
// uint32 entries value<<16 | n. A root table of 1<<rootBits entries is
// indexed by the next rootBits bits of the stream. In it, n <= rootBits
// means the code is n bits long and value is its symbol; n > rootBits
// means the code is longer, and value is the offset, from the start of
// the root table, of a second-level table of 1<<(n-rootBits) entries
// indexed by the bits after the first rootBits, whose entries hold the
// symbol and the code length minus rootBits.

const (
	rootBits   = 8
	maxCodeLen = 15
)

// tableBound is the most entries a table for n symbols can need: the root
// table and at most one second-level table of at most 1<<(15-rootBits)
// entries for each code longer than rootBits bits.
func tableBound(n int) int {
	return 1<<rootBits + min(n, 1<<rootBits)<<(maxCodeLen-rootBits)
}

// buildTable fills tab with the table for the code lengths lens (0: the
// symbol is unused) and returns how many entries it used. The lengths must
// form a complete prefix code (checked by the caller), tab must hold
// tableBound(len(lens)) entries, and count[l] must be the number of
// symbols of length l.
func buildTable(tab []uint32, lens []uint8, count *[maxCodeLen + 1]uint16) int {
	// Symbols sorted by code length, then by value: canonical order.
	var offs [maxCodeLen + 2]uint16
	for l := 1; l <= maxCodeLen; l++ {
		offs[l+1] = offs[l] + count[l]
	}
	var sorted [maxAlphabet]uint16
	for s, l := range lens {
		if l != 0 {
			sorted[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	left := *count
	const rootSize = 1 << rootBits
	used := rootSize
	code := uint32(0) // the canonical code of the next symbol
	i := 0
	// Codes of at most rootBits bits fill the root table directly.
	for l := uint(1); l <= rootBits; l++ {
		for ; left[l] > 0; left[l]-- {
			e := uint32(sorted[i])<<16 | uint32(l)
			i++
			for k := bits.Reverse32(code) >> (32 - l); k < rootSize; k += 1 << l {
				tab[k] = e
			}
			code++
		}
		code <<= 1
	}
	// Longer codes go to second-level tables, one per rootBits prefix.
	sub, subBits, prefix := 0, uint(0), uint32(1<<32-1)
	for l := uint(rootBits + 1); l <= maxCodeLen; l++ {
		for ; left[l] > 0; left[l]-- {
			rev := bits.Reverse32(code) >> (32 - l)
			if p := rev & (rootSize - 1); p != prefix {
				// A new second-level table, as deep as the codes with
				// this prefix need: grow it until they fill it.
				prefix = p
				subBits = l - rootBits
				room := 1<<subBits - int(left[l])
				for room > 0 && subBits+rootBits < maxCodeLen {
					subBits++
					room = room<<1 - int(left[rootBits+subBits])
				}
				sub = used
				used += 1 << subBits
				tab[p] = uint32(sub)<<16 | uint32(subBits+rootBits)
			}
			e := uint32(sorted[i])<<16 | uint32(l-rootBits)
			i++
			for k := int(rev >> rootBits); k < 1<<subBits; k += 1 << (l - rootBits) {
				tab[sub+k] = e
			}
			code++
		}
		code <<= 1
	}
	return used
}

// singleTable fills tab with the table of a code of one symbol, whose
// code is zero bits long, and returns its size.
func singleTable(tab []uint32, sym int) int {
	e := uint32(sym) << 16
	for k := range tab[:1<<rootBits] {
		tab[k] = e
	}
	return 1 << rootBits
}

// maxAlphabet is the largest alphabet: the 704 insert-and-copy codes.
const maxAlphabet = 704
