package verify

import "encoding/binary"

// Adler-32 (RFC 1950), lzop's header and block check. hash/adler32 adds
// one byte at a time, each sum depending on the last; here eight bytes
// are added at a time: with S their sum and W the sum of each weighted by
// its distance from the end (8 for the first … 1 for the last),
// s2 += 8·s1 + W and s1 += S. S and W come from the bytes spread into
// 16-bit lanes, the lanes summed (weighted) by one multiplication each,
// the result landing in the top lane with no carry from the others.

const (
	adlerMod  = 65521
	adlerNMax = 5552 // the most bytes before s2 could pass 2^32; a multiple of 8
	lanes     = 0x00ff00ff00ff00ff
	laneSum   = 1<<48 | 1<<32 | 1<<16 | 1
	evenW     = 8<<48 | 6<<32 | 4<<16 | 2 // bytes 0, 2, 4, 6 of a word
	oddW      = 7<<48 | 5<<32 | 3<<16 | 1 // bytes 1, 3, 5, 7
)

// SumAdler32 returns the Adler-32 of p.
func SumAdler32(p []byte) uint32 { return UpdateAdler32(1, p) }

// UpdateAdler32 continues the Adler-32 adler (1 for a fresh one) over p.
func UpdateAdler32(adler uint32, p []byte) uint32 {
	s1, s2 := adler&0xffff, adler>>16
	for len(p) > 0 {
		n := min(len(p), adlerNMax)
		q := p[:n]
		p = p[n:]
		if adlerAsm() && len(q) >= 32 {
			m := len(q) &^ 31
			s1, s2 = adler32Asm(s1, s2, q[:m])
			q = q[m:]
		}
		s1, s2 = adler32Generic(s1, s2, q)
		s1 %= adlerMod
		s2 %= adlerMod
	}
	return s2<<16 | s1
}

// adler32Generic adds p (at most adlerNMax bytes) to the sums s1 and s2,
// without reducing them.
func adler32Generic(s1, s2 uint32, q []byte) (uint32, uint32) {
	for len(q) >= 16 {
		// Two words: the first one's weights are 16 … 9, its W plus
		// 8·S.
		w1, w2 := binary.LittleEndian.Uint64(q), binary.LittleEndian.Uint64(q[8:])
		e1, o1 := w1&lanes, w1>>8&lanes
		e2, o2 := w2&lanes, w2>>8&lanes
		sum1 := uint32(((e1 + o1) * laneSum) >> 48)
		sum2 := uint32(((e2 + o2) * laneSum) >> 48)
		wsum := uint32((e1*evenW)>>48) + uint32((o1*oddW)>>48) + 8*sum1 +
			uint32((e2*evenW)>>48) + uint32((o2*oddW)>>48)
		s2 += 16*s1 + wsum
		s1 += sum1 + sum2
		q = q[16:]
	}
	if len(q) >= 8 {
		w := binary.LittleEndian.Uint64(q)
		even, odd := w&lanes, w>>8&lanes
		s2 += 8*s1 + uint32((even*evenW)>>48) + uint32((odd*oddW)>>48)
		s1 += uint32(((even + odd) * laneSum) >> 48)
		q = q[8:]
	}
	for _, c := range q {
		s1 += uint32(c)
		s2 += s1
	}
	return s1, s2
}
