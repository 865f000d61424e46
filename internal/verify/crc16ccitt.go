package verify

import "sync"

// crcITUTable is the table of CRC-16/XMODEM: polynomial 0x1021, initial
// value 0, not reflected, as ECMA-167 (UDF) descriptor tags use. Built on
// first use, not at process start.
var crcITUTable = sync.OnceValue(func() *[256]uint16 {
	t := new([256]uint16)
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
})

// SumCRC16ITU returns the CRC-16 of p with polynomial 0x1021 and initial
// value 0 (CRC-16/XMODEM), the descriptor CRC of UDF.
func SumCRC16ITU(p []byte) uint16 {
	var c uint16
	t := crcITUTable()
	for _, b := range p {
		c = c<<8 ^ t[byte(c>>8)^b]
	}
	return c
}
