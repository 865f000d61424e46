package inflate

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// Finding a block boundary in the middle of a deflate stream: the decoder
// of a piece knows roughly where the piece starts, not where a block
// starts. FindBlock tries every bit position for the header of a
// non-final dynamic block whose code length code and literal/length and
// distance codes are all complete canonical Huffman codes (as zlib
// requires of them, and as random bits rarely are), and every byte for a
// non-final stored block whose length matches its complement. A position
// found is a candidate only: the caller decodes from it and uses the
// output only where it joins the output before exactly.

// kraft4 is, for four 3-bit code length code lengths, the share of a
// 7-bit code space their codes take: 2^(7-l) each, 0 for an unused symbol.
// Built on first use, not at process start.
var kraft4 = sync.OnceValue(func() *[1 << 12]uint16 {
	t := new([1 << 12]uint16)
	for i := range t {
		for k := 0; k < 4; k++ {
			if l := i >> (3 * k) & 7; l != 0 {
				t[i] += 1 << (7 - l)
			}
		}
	}
	return t
})

// maxDeepChecks bounds how many candidates one FindBlock reads whole code
// length sections of, so that no input makes the search slow.
const maxDeepChecks = 1 << 12

// FindBlock returns the first bit position in [from, to) of src where a
// non-final dynamic or stored block could start, with stored true for a
// stored block, or -1 when there is none or the search gave up.
func (d *MarkerDecoder) FindBlock(src []byte, from, to int64) (pos int64, stored bool) {
	to = min(to, int64(len(src))*8)
	from = max(from, 0)
	deep := 0
	kraft4 := kraft4()
	// Six bytes at a time: in the word loaded, the positions whose three
	// header bits are 0 (not final), 0 and 1 (dynamic) are found at once,
	// and each has 16 bits or more after it for the code counts; the
	// positions 5 bits into each byte are where a stored block's header
	// ends at a byte boundary.
	for b := from >> 3; b<<3 < to; b += 6 {
		w, w2 := load64(src, int(b)), load64(src, int(b+8))
		cands := ^w & ^(w >> 1) & (w >> 2) & (1<<48 - 1)
		var storedAt uint64
		for m := lengthPairs(load64(src, int(b+1))); m != 0; m &= m - 1 {
			i := int64(bits.TrailingZeros64(m) >> 3)
			if d.storedAt(src, int(b+i+1)) {
				storedAt |= 1 << (8*i + 5)
			}
		}
		cands |= storedAt
		if lo := from - b<<3; lo > 0 {
			cands &^= 1<<lo - 1
		}
		for ; cands != 0; cands &= cands - 1 {
			k := int64(bits.TrailingZeros64(cands))
			o := b<<3 + k
			if o >= to {
				return -1, false
			}
			if storedAt>>k&1 != 0 {
				return o, true
			}
			v := w >> k
			if v>>3&31 > 29 || v>>8&31 > 29 {
				continue
			}
			n := uint(v>>13&15) + 4
			// The code length code lengths: 57 bits or fewer from bit
			// k+17 <= 64 of w, in w and w2 (a shift by 64 gives 0).
			pre := (w>>(k+17) | w2<<(47-k)) & (1<<(3*n) - 1)
			if kraft4[pre&4095]+kraft4[pre>>12&4095]+kraft4[pre>>24&4095]+kraft4[pre>>36&4095]+kraft4[pre>>48&4095] != 128 {
				continue
			}
			if deep++; deep > maxDeepChecks {
				return -1, false
			}
			if d.codesComplete(src, o) {
				return o, false
			}
		}
	}
	return -1, false
}

// load64 returns the 8 bytes of src from i, little-endian, zeros past its
// end.
func load64(src []byte, i int) uint64 {
	if i+8 <= len(src) {
		return binary.LittleEndian.Uint64(src[i:])
	}
	var b [8]byte
	if i < len(src) {
		copy(b[:], src[i:])
	}
	return binary.LittleEndian.Uint64(b[:])
}

// lengthPairs returns, for w the 8 bytes of src from c, a word with bit
// 8i+7 set for each i < 6 where src[c+i] is the complement of src[c+i+2]:
// the bytes where a stored block's length could start (storedAt decides).
// About one in 256 bytes passes, so the exact check runs rarely.
func lengthPairs(w uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	z := ^(w ^ w>>16) | 0xffff<<48 // zero bytes: complements; the top two are unknown
	return ^((z&low7 + low7) | z | low7)
}

// storedAt reports whether byte b of src could start a non-final stored
// block's length: its complement follows, and the three bits before b,
// the header's (zero padding may precede it), are zero.
func (d *MarkerDecoder) storedAt(src []byte, b int) bool {
	return b >= 1 && b+4 <= len(src) && src[b]^src[b+2] == 0xff && src[b+1]^src[b+3] == 0xff && src[b-1]>>5 == 0
}

// codesComplete reads the code lengths of the dynamic block header at bit
// o of src and reports whether they make complete codes: the
// literal/length code, and the distance code unless it has no code or a
// single one.
func (d *MarkerDecoder) codesComplete(src []byte, o int64) bool {
	o += 3
	d.src, d.pos, d.bitbuf, d.bitsleft, d.err = src, int(o>>3), 0, 0, nil
	d.refill()
	d.bitbuf >>= o & 7
	d.bitsleft -= uint(o & 7)
	nlit, ndist, err := readCodeLengths(d, &d.lengths, false)
	if err != nil {
		return false
	}
	return complete(d.lengths.all[:nlit], false) && complete(d.lengths.all[nlit:nlit+ndist], true)
}

// complete reports whether lengths make a complete code, or when sparse
// is set, no code or one.
func complete(lengths []uint8, sparse bool) bool {
	sum, used := 0, 0
	for _, l := range lengths {
		if l != 0 {
			sum += 1 << (maxCodeLen - l)
			used++
		}
	}
	return sum == 1<<maxCodeLen || sparse && used <= 1
}
