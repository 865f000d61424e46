package verify

import (
	"encoding/binary"
	"sync"
)

// bzip2's CRC is CRC-32 with polynomial 0x04C11DB7 processed MSB first
// (non-reflected), initial value and final XOR 0xFFFFFFFF: the reflected
// hash/crc32 tables do not compute it.
const bzip2Poly = 0x04C11DB7

// bzip2Tab[k][b] is the CRC register contribution of byte b followed by k
// zero bytes (slicing-by-8). Built on first use, not at process start.
var bzip2Tab = sync.OnceValue(func() *[8][256]uint32 {
	t := new([8][256]uint32)
	for b := range 256 {
		c := uint32(b) << 24
		for range 8 {
			if c&0x80000000 != 0 {
				c = c<<1 ^ bzip2Poly
			} else {
				c <<= 1
			}
		}
		t[0][b] = c
	}
	for k := 1; k < 8; k++ {
		for b := range 256 {
			c := t[k-1][b]
			t[k][b] = c<<8 ^ t[0][c>>24]
		}
	}
	return t
})

// UpdateCRC32BZIP2 returns the CRC-32/BZIP2 of p continuing from crc, which
// is 0 for a fresh checksum or the result of an earlier call (like
// crc32.Update): bzip2's block CRCs. bzip2 reports a mismatch as kind CRC32.
func UpdateCRC32BZIP2(crc uint32, p []byte) uint32 { return ^bzip2Raw(^crc, p) }

// bzip2Raw feeds p into the CRC register crc (not inverted).
func bzip2Raw(crc uint32, p []byte) uint32 {
	t := bzip2Tab()
	for len(p) >= 8 {
		crc ^= binary.BigEndian.Uint32(p)
		crc = t[7][crc>>24] ^ t[6][crc>>16&0xff] ^ t[5][crc>>8&0xff] ^ t[4][crc&0xff] ^
			t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]]
		p = p[8:]
	}
	for _, b := range p {
		crc = crc<<8 ^ t[0][byte(crc>>24)^b]
	}
	return crc
}
