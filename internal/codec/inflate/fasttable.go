package inflate

import "math/bits"

// Decoding tables of the buffered inflater, in the manner of libdeflate: a
// root table indexed by the next rootBits input bits and, for longer
// codes, subtables that a root entry points to. An entry is a uint32 that
// holds everything the fast loop needs, so one lookup decodes a symbol:
//
//	bits 0-5   bits to consume: the code's bits in this table level plus
//	           the extra bits that follow (a length or distance); for a
//	           subtable pointer, the root bits
//	bits 8-11  the code's bits in this table level, where the extra bits
//	           start; for a subtable pointer, the subtable's index bits
//	bits 12-15 flags
//	bits 16-31 literal byte, length or distance base, or subtable start
//
// A length's extra bits are therefore (saved & (1<<consume - 1)) >> shift,
// where saved is the bit buffer before the entry's bits were consumed.
const (
	flagSub     = 1 << 12 // a pointer to a subtable
	flagEnd     = 1 << 13 // end of block
	flagInvalid = 1 << 14 // no symbol: an unused code or a reserved one
	flagLit     = 1 << 15 // a literal byte
	flagExc     = flagSub | flagEnd | flagInvalid
)

// Root bits and table sizes. Codes longer than the root bits continue in
// subtables of maxLen-rootBits index bits each, one per root prefix; there
// are at most as many as there are symbols.
const (
	litRootBits  = 11
	distRootBits = 8
	clenRootBits = 7

	litTableSize  = 1<<litRootBits + 288<<(maxCodeLen-litRootBits)
	distTableSize = 1<<distRootBits + 32<<(maxCodeLen-distRootBits)
	clenTableSize = 1 << clenRootBits
)

type (
	litTable  [litTableSize]uint32
	distTable [distTableSize]uint32
)

// consumeOf and shiftOf read an entry's bit counts.
func consumeOf(e uint32) uint { return uint(e & 63) }
func shiftOf(e uint32) uint   { return uint(e >> 8 & 15) }

// extraOf is the number of extra bits that follow an entry's code.
func extraOf(e uint32) uint { return consumeOf(e) - shiftOf(e) }

var invalidEntry = uint32(flagInvalid)

// buildTable fills t (root table of rootBits, then subtables) for code
// lengths lengths (a canonical Huffman code); syms gives each symbol's
// entry without its code length (value, flags and extra-bit count). It
// fails on an over-subscribed code. An incomplete code is accepted: its
// unused codes decode as invalid entries.
//
// Symbols are taken in canonical order (by code length, then symbol), in
// which the codes sharing a root prefix come one after another, so each
// prefix's subtable is allocated when its first code comes.
//
// The tables must have room for 1<<rootBits entries plus a subtable per
// code longer than rootBits.
func buildTable(t []uint32, lengths []uint8, rootBits uint, syms []uint32) bool {
	var count [maxCodeLen + 1]int
	for _, l := range lengths {
		count[l]++
	}
	count[0] = 0
	left := 1
	var offs [maxCodeLen + 2]int
	maxLen := uint(0)
	for l := 1; l <= maxCodeLen; l++ {
		left <<= 1
		left -= count[l]
		if left < 0 {
			return false
		}
		offs[l+1] = offs[l] + count[l]
		if count[l] != 0 {
			maxLen = uint(l)
		}
	}
	var sorted [288]uint16
	for s, l := range lengths {
		if l != 0 {
			sorted[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	// The root table grows by doubling: once the codes up to length l
	// are in its first 1<<l slots, a copy makes them cover 1<<(l+1)
	// (bit l is not part of those codes), and the codes of length l+1
	// are written once each. Slots no code reaches keep the invalid
	// entry the table starts from.
	t[0] = invalidEntry
	code := uint32(0) // the next code, left-aligned to 16 bits
	i := 0
	for l := uint(1); l <= rootBits; l++ {
		copy(t[1<<(l-1):1<<l], t[:1<<(l-1)])
		e := uint32(l) + uint32(l)<<8
		for _, s := range sorted[i : i+count[l]] {
			t[bits.Reverse16(uint16(code))] = syms[s] + e
			code += 1 << (16 - l)
		}
		i += count[l]
	}
	size := 1 << rootBits
	subBits := uint(0)
	if maxLen > rootBits {
		subBits = maxLen - rootBits
	}
	subEnd, prefix := size, -1
	for _, s := range sorted[i:offs[maxCodeLen+1]] {
		l := uint(lengths[s])
		rev := uint32(bits.Reverse16(uint16(code)))
		code += 1 << (16 - l)
		if p := int(rev) & (size - 1); p != prefix {
			prefix = p
			t[p] = uint32(subEnd)<<16 | flagSub | uint32(subBits)<<8 | uint32(rootBits)
			if left != 0 {
				for i := range t[subEnd : subEnd+1<<subBits] {
					t[subEnd+i] = invalidEntry
				}
			}
			subEnd += 1 << subBits
		}
		ls := l - rootBits
		e := syms[s] + uint32(ls) + uint32(ls)<<8
		start := subEnd - 1<<subBits
		for j := int(rev >> rootBits); j < 1<<subBits; j += 1 << ls {
			t[start+j] = e
		}
	}
	return true
}

// symEntries holds, per mode (deflate, Deflate64), the entries of the
// literal/length symbols and of the distance symbols without their code
// lengths; clenEntries those of the code length code.
var symEntries, clenEntries = func() (t [2][2][]uint32, c []uint32) {
	for m, d64 := range []bool{false, true} {
		lit := make([]uint32, 288)
		for s := range lit {
			switch {
			case s < 256:
				lit[s] = flagLit | uint32(s)<<16
			case s == 256:
				lit[s] = flagEnd
			case s <= 285:
				i := s - 257
				base, extra := uint32(lenBase[i]), uint32(lenExtra[i])
				if i == len(lenBase)-1 && !d64 {
					base, extra = maxDeflateMatch, 0
				}
				lit[s] = base<<16 | extra
			default:
				lit[s] = flagInvalid
			}
		}
		dist := make([]uint32, 32)
		for s := range dist {
			if s >= 30 && !d64 {
				dist[s] = flagInvalid
			} else {
				dist[s] = distBase[s]<<16 | uint32(distExtra[s])
			}
		}
		t[m] = [2][]uint32{lit, dist}
	}
	c = make([]uint32, 19)
	for s := range c {
		c[s] = flagLit | uint32(s)<<16
	}
	return t, c
}()
