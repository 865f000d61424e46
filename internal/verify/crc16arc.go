package verify

import (
	"encoding/binary"
	"hash"
	"sync"
)

// crcARCTables are slicing-by-8 tables of CRC-16/ARC: polynomial 0x8005
// reflected (0xA001), initial value 0, as LHA and LArc use for file data
// and headers. Built on first use, not at process start.
var crcARCTables = sync.OnceValue(func() *[8][256]uint16 {
	t := new([8][256]uint16)
	for i := range t[0] {
		c := uint16(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ 0xA001
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := range t[0] {
		c := t[0][i]
		for k := 1; k < 8; k++ {
			c = c>>8 ^ t[0][byte(c)]
			t[k][i] = c
		}
	}
	return t
})

// UpdateCRC16ARC returns crc updated with p (CRC-16/ARC).
func UpdateCRC16ARC(crc uint16, p []byte) uint16 {
	t := crcARCTables()
	for len(p) >= 8 {
		c := uint64(crc) ^ binary.LittleEndian.Uint64(p)
		crc = t[7][byte(c)] ^ t[6][byte(c>>8)] ^ t[5][byte(c>>16)] ^ t[4][byte(c>>24)] ^
			t[3][byte(c>>32)] ^ t[2][byte(c>>40)] ^ t[1][byte(c>>48)] ^ t[0][byte(c>>56)]
		p = p[8:]
	}
	for _, b := range p {
		crc = crc>>8 ^ t[0][byte(crc)^b]
	}
	return crc
}

// crc16ARC is CRC-16/ARC as a hash.Hash; Sum appends the two bytes
// big-endian.
type crc16ARC struct{ crc uint16 }

func (d *crc16ARC) Size() int      { return 2 }
func (d *crc16ARC) BlockSize() int { return 4 }
func (d *crc16ARC) Reset()         { d.crc = 0 }
func (d *crc16ARC) Write(p []byte) (int, error) {
	d.crc = UpdateCRC16ARC(d.crc, p)
	return len(p), nil
}
func (d *crc16ARC) Sum(b []byte) []byte { return binary.BigEndian.AppendUint16(b, d.crc) }

var _ hash.Hash = (*crc16ARC)(nil)
