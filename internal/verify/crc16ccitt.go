package verify

import (
	"encoding/binary"
	"sync"
)

// crcITUTables are the tables of CRC-16/XMODEM: polynomial 0x1021, initial
// value 0, not reflected, as ECMA-167 (UDF) descriptor tags use. Table k
// gives the CRC of a byte followed by k zero bytes, so that eight bytes
// are folded in at once (slicing-by-8); table 0 is the bytewise one.
// Built on first use, not at process start.
var crcITUTables = sync.OnceValue(func() *[8][256]uint16 {
	t := new([8][256]uint16)
	for i := range t[0] {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[0][i] = c
	}
	for k := 1; k < 8; k++ {
		for i := range t[k] {
			c := t[k-1][i]
			t[k][i] = c<<8 ^ t[0][c>>8]
		}
	}
	return t
})

// SumCRC16ITU returns the CRC-16 of p with polynomial 0x1021 and initial
// value 0 (CRC-16/XMODEM), the descriptor CRC of UDF.
func SumCRC16ITU(p []byte) uint16 { return updateCRC16ITU(0, crcITUTables(), p) }

// updateCRC16ITU folds p into the CRC c, eight bytes at a time: the CRC
// register enters the first two bytes of each group, and each byte's
// share is its table's entry for its distance from the group's end.
func updateCRC16ITU(c uint16, t *[8][256]uint16, p []byte) uint16 {
	for len(p) >= 8 {
		v := binary.BigEndian.Uint64(p) ^ uint64(c)<<48
		c = t[7][byte(v>>56)] ^ t[6][byte(v>>48)] ^ t[5][byte(v>>40)] ^ t[4][byte(v>>32)] ^
			t[3][byte(v>>24)] ^ t[2][byte(v>>16)] ^ t[1][byte(v>>8)] ^ t[0][byte(v)]
		p = p[8:]
	}
	return updateCRC16ITUBytes(c, &t[0], p)
}

// updateCRC16ITUBytes folds p into c a byte at a time.
func updateCRC16ITUBytes(c uint16, t *[256]uint16, p []byte) uint16 {
	for _, b := range p {
		c = c<<8 ^ t[byte(c>>8)^b]
	}
	return c
}
