package lzma

// The range decoder lives in the decoder's local variables (rng, code and
// the input position ip); these helpers take and return that state so the
// compiler inlines them into the symbol loop and keeps it in registers.
// Normalisation happens after each bit, so between symbols the decoder is
// always normalised (rng >= 1<<24) and has consumed exactly the bytes the
// encoder wrote so far. One symbol reads at most maxSymbolBytes bytes, so
// the symbol loop checks the input position once per symbol: when the
// input is near its end, it is copied into a buffer padded with
// maxSymbolBytes zero bytes, and a position past the real end afterwards
// means the compressed data ran out (truncated or corrupt).

const (
	probBits  = 11
	moveBits  = 5
	topValue  = 1 << 24
	probTotal = 1 << probBits

	// maxSymbolBytes bounds the input bytes one symbol may consume: at
	// most one per bit, and a match with the end marker's distance
	// decodes 2 + 10 + 6 + 26 + 4 = 48 bits.
	maxSymbolBytes = 64
)

// rcBit decodes one bit with the adaptive probability *p.
func rcBit(rng, code uint32, p *uint16, in []byte, ip int) (uint32, uint32, int, uint32) {
	v := uint32(*p)
	bound := (rng >> probBits) * v
	b := uint32(1)
	if code < bound {
		rng = bound
		v += (probTotal - v) >> moveBits
		b = 0
	} else {
		rng -= bound
		code -= bound
		v -= v >> moveBits
	}
	*p = uint16(v)
	if rng < topValue {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	return rng, code, ip, b
}

// rcDirect decodes one bit with probability one half (the direct bits of
// long distances). It returns the bit as 0 or 1.
func rcDirect(rng, code uint32, in []byte, ip int) (uint32, uint32, int, uint32) {
	rng >>= 1
	code -= rng
	t := 0 - (code >> 31) // all ones when code was below rng: bit 0
	code += rng & t
	if rng < topValue {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	return rng, code, ip, t + 1
}

// rcBitBL is rcBit without a branch on the decoded bit, for bits that are
// hard to predict (literals, bit trees): the bit becomes a mask. It does not
// normalise; call rcNorm after it.
func rcBitBL(rng, code uint32, p *uint16) (uint32, uint32, uint32) {
	v := int32(*p)
	bound := (rng >> probBits) * uint32(v)
	m0 := uint32((int64(code) - int64(bound)) >> 63) // all ones for a 0 bit
	rng = bound&m0 | (rng-bound)&^m0
	code -= bound &^ m0
	// 0: v += (2048-v)>>5, which is v - (v-2017)>>5 with an arithmetic
	// shift; 1: v -= v>>5.
	*p = uint16(v - (v-int32(2017&m0))>>moveBits)
	return rng, code, m0 + 1
}

// rcNorm normalises the range decoder after rcBitBL.
func rcNorm(rng, code uint32, in []byte, ip int) (uint32, uint32, int) {
	if rng < topValue {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	return rng, code, ip
}
