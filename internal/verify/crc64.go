package verify

import (
	"encoding/binary"
	"hash"
	"sync"
)

// CRC-64/XZ (ECMA-182 polynomial, reflected, initial value and final XOR all
// ones), the xz check type 4. The portable form is slicing-by-8 over eight
// 256-entry tables (crc64Generic); the amd64 and arm64 forms
// (crc64_amd64.s, crc64_arm64.s, crc64_clmul.go) fold 64 bytes at a time
// with carry-less multiplication and hand the last 16 folded bytes and the
// tail to the tables.

// crc64Poly is the ECMA-182 polynomial, bit-reflected.
const crc64Poly = 0xc96c5795d7870f42

// crc64Tables are the slicing-by-8 tables: crc64Tables[0] is the classic
// byte table, crc64Tables[k][b] is the CRC of byte b followed by k zero bytes.
// Built on first use, not at process start.
var crc64Tables = sync.OnceValue(func() *[8][256]uint64 {
	t := new([8][256]uint64)
	for i := range 256 {
		c := uint64(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ crc64Poly
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := range 256 {
		c := t[0][i]
		for k := 1; k < 8; k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][i] = c
		}
	}
	return t
})

// crc64Raw advances the raw (not inverted) CRC register s over p, eight bytes
// at a time.
func crc64Raw(s uint64, p []byte) uint64 {
	t := crc64Tables()
	for ; len(p) >= 8; p = p[8:] {
		s ^= binary.LittleEndian.Uint64(p)
		s = t[7][s&0xff] ^ t[6][s>>8&0xff] ^ t[5][s>>16&0xff] ^ t[4][s>>24&0xff] ^
			t[3][s>>32&0xff] ^ t[2][s>>40&0xff] ^ t[1][s>>48&0xff] ^ t[0][s>>56]
	}
	for _, b := range p {
		s = t[0][byte(s)^b] ^ s>>8
	}
	return s
}

// crc64Generic returns the CRC-64/XZ of p continuing from crc (0 to start).
func crc64Generic(crc uint64, p []byte) uint64 { return ^crc64Raw(^crc, p) }

// crc64Digest is the hash.Hash64 of CRC-64/XZ.
type crc64Digest struct{ crc uint64 }

// newCRC64 returns the CRC64-ECMA hash xz uses.
func newCRC64() hash.Hash64 { return &crc64Digest{} }

func (d *crc64Digest) Size() int      { return 8 }
func (d *crc64Digest) BlockSize() int { return 1 }
func (d *crc64Digest) Reset()         { d.crc = 0 }
func (d *crc64Digest) Sum64() uint64  { return d.crc }

func (d *crc64Digest) Write(p []byte) (int, error) {
	d.crc = crc64Update(d.crc, p)
	return len(p), nil
}

func (d *crc64Digest) Sum(b []byte) []byte { return binary.BigEndian.AppendUint64(b, d.crc) }

// UpdateCRC64 returns the CRC-64/XZ of p continuing from crc, which is 0 for
// a fresh checksum or the result of an earlier call, like crc64.Update.
func UpdateCRC64(crc uint64, p []byte) uint64 { return crc64Update(crc, p) }

// SumCRC64 returns the CRC-64/XZ of p.
func SumCRC64(p []byte) uint64 { return crc64Update(0, p) }
