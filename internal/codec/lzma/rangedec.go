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
// long distances). It returns the bit as 0 or 1. The subtraction is chosen
// with a conditional move: code then depends on the previous bit through a
// compare and a move only.
func rcDirect(rng, code uint32, in []byte, ip int) (uint32, uint32, int, uint32) {
	rng >>= 1
	c1 := code - rng
	b := uint32(0)
	if code >= rng {
		code, b = c1, 1
	}
	if rng < topValue {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	return rng, code, ip, b
}

// rcBitBL is rcBit without a branch on the decoded bit, for bits that are
// hard to predict (literals, bit trees): the compiler turns the selection
// into conditional moves. It does not normalise; call rcNorm after it.
func rcBitBL(rng, code uint32, p *uint16) (uint32, uint32, uint32) {
	v := uint32(*p)
	bound := (rng >> probBits) * v
	r1, c1 := rng-bound, code-bound
	v0, v1 := v+(probTotal-v)>>moveBits, v-v>>moveBits
	b := uint32(1)
	if code < bound {
		r1, c1, v1, b = bound, code, v0, 0
	}
	*p = uint16(v1)
	return r1, c1, b
}

// rcBitNext is rcBitBL for bit trees with the probability v already loaded
// and both candidates for the next bit's probability, n0 after a 0 and n1
// after a 1, loaded in parallel: the tree's next load is then off the
// chain of dependent operations from one bit to the next. It returns the
// range decoder state, the bit, the updated probability for the caller to
// store, and the next bit's probability. Probabilities and bits are uint,
// not uint32: as indexes and shift operands a uint32 costs arm64 a
// zero-extending move each time, where amd64's 32-bit operations extend
// for free.
func rcBitNext(rng, code uint32, v, n0, n1 uint) (uint32, uint32, uint, uint, uint) {
	bound := (rng >> probBits) * uint32(v)
	r1, c1 := rng-bound, code-bound
	v0, v1 := v+(probTotal-v)>>moveBits, v-v>>moveBits
	b := uint(1)
	if code < bound {
		r1, c1, v1, n1, b = bound, code, v0, n0, 0
	}
	return r1, c1, b, v1, n1
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

// rcNorm8 is rcNorm for the bit trees of at most eight bits, which read the
// input through w, a view of its next eight bytes, with k counting the
// bytes read: each bit normalises at most once (the range stays above 2^16
// after a bit, as probabilities stay within 31..2017), so k&7 is k and
// the view needs no bounds check. The test is rng < topValue written as a
// mask, which arm64 encodes as an immediate (the constant 1<<24 needs a
// register there). At a symbol's start at least
// maxSymbolBytes bytes are in d.in beyond the position (padded at the end of
// the input), and no symbol reads more, so the view is always there.
func rcNorm8(rng, code uint32, w *[8]byte, k int) (uint32, uint32, int) {
	if rng&^(topValue-1) == 0 {
		rng <<= 8
		code = code<<8 | uint32(w[k&7])
		k++
	}
	return rng, code, k
}
