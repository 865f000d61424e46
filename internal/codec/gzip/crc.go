package gzip

// CRC-32 (IEEE) of a concatenation from the CRCs of its parts, for the
// pieces of a member decoded in parallel. A CRC register is a polynomial
// over GF(2) held bit-reflected (x^0 in the top bit); appending n zero
// bytes to a message multiplies its register by x^(8n) modulo the CRC
// polynomial, and the CRC of a concatenation is that of the first part so
// shifted, plus the CRC of the second (the pre- and post-inversions of
// both cancel out).

const crcPoly = 0xedb88320 // the IEEE polynomial, reflected

// multModP returns a*b modulo the CRC polynomial, both reflected.
func multModP(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 {
			b = b>>1 ^ crcPoly
		} else {
			b >>= 1
		}
	}
	return p
}

// x2n[k] is x^(2^k) modulo the CRC polynomial, reflected.
var x2n = func() (t [64]uint32) {
	t[0] = 1 << 30 // x^1
	for k := 1; k < len(t); k++ {
		t[k] = multModP(t[k-1], t[k-1])
	}
	return t
}()

// xPow8n returns x^(8n) modulo the CRC polynomial, reflected.
func xPow8n(n uint64) uint32 {
	p := uint32(1) << 31 // x^0
	for k := 3; n != 0; k++ {
		if n&1 != 0 {
			p = multModP(x2n[k&63], p)
		}
		n >>= 1
	}
	return p
}

// crcCombine returns the CRC-32 of a followed by b, given crcA and crcB,
// their CRCs, and n, the length of b.
func crcCombine(crcA, crcB uint32, n int64) uint32 {
	if n <= 0 {
		return crcA
	}
	return multModP(xPow8n(uint64(n)), crcA) ^ crcB
}
