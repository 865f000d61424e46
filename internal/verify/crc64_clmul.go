//go:build (amd64 || arm64) && gc && !purego

package verify

import (
	"encoding/binary"
	"math/bits"
)

// The carry-less-multiply CRC-64 path shared by amd64 (PCLMULQDQ,
// crc64_amd64.s) and arm64 (PMULL, crc64_arm64.s): both fold with the same
// multipliers, and hand the last 16 folded bytes and the tail to the tables.

// useCLMUL switches the CLMUL path at run time; tests toggle it.
var useCLMUL = hasCLMUL

// crc64CLMULMin is the shortest input worth folding; crc64CLMUL needs 64.
const crc64CLMULMin = 64

// crc64FoldConsts are the folding multipliers of crc64CLMUL, bit-reflected:
// x^575 and x^511 mod P (folding 64 bytes ahead), then x^191 and x^127 mod P
// (16 bytes ahead). The exponents are one less than the fold distance (plus
// 64 for the high-degree half) because a carry-less product of reflected
// operands comes out shifted by one bit.
var crc64FoldConsts = [4]uint64{
	crc64XPowMod(575), crc64XPowMod(511),
	crc64XPowMod(191), crc64XPowMod(127),
}

// crc64XPowMod returns x^n mod P, P the ECMA-182 polynomial, bit-reflected.
func crc64XPowMod(n int) uint64 {
	const poly = 0x42f0e1eba9ea3693 // P without its x^64 term, not reflected
	r := uint64(1)
	for range n {
		carry := r >> 63
		r <<= 1
		if carry != 0 {
			r ^= poly
		}
	}
	return bits.Reverse64(r)
}

// crc64Update returns the CRC-64/XZ of p continuing from crc.
func crc64Update(crc uint64, p []byte) uint64 {
	if !useCLMUL || len(p) < crc64CLMULMin {
		return crc64Generic(crc, p)
	}
	n := len(p) &^ 15
	lo, hi := crc64CLMUL(^crc, p[:n], &crc64FoldConsts)
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], lo)
	binary.LittleEndian.PutUint64(b[8:], hi)
	return ^crc64Raw(crc64Raw(0, b[:]), p[n:])
}
