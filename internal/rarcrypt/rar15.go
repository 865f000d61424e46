package rarcrypt

import (
	"hash/crc32" // not a checksum: the RAR 1.5 cipher's keys come from the CRC32 of the password and the CRC32 table
	"io"
	"math/bits"
)

// Cipher15 is the stream cipher of RAR 1.5 archives (files of unpack
// version 15): four 16-bit keys, set from the password's CRC32 and its
// bytes, step once per byte through the CRC32 table; the high byte of
// the first is XORed with the data. It is its own inverse.
type Cipher15 struct {
	k0, k1, k2, k3 uint16
}

// NewCipher15 sets the cipher up for password (its bytes as given: RAR
// 1.5 used the OEM code page, so non-ASCII passwords may differ).
func NewCipher15(password string) *Cipher15 {
	tab := crc32.IEEETable
	// unrar's CRC32(0xffffffff, …): the register without the final
	// inversion.
	crc := ^crc32.ChecksumIEEE([]byte(password))
	c := &Cipher15{k0: uint16(crc), k1: uint16(crc >> 16)}
	for i := 0; i < len(password); i++ {
		p := password[i]
		c.k2 ^= uint16(p) ^ uint16(tab[p])
		c.k3 += uint16(p) + uint16(tab[p]>>16)
	}
	return c
}

// XORKeyStream en- or decrypts src into dst (which may be src).
func (c *Cipher15) XORKeyStream(dst, src []byte) {
	tab := crc32.IEEETable
	k0, k1, k2, k3 := c.k0, c.k1, c.k2, c.k3
	dst = dst[:len(src)]
	for i, b := range src {
		k0 += 0x1234
		t := tab[(k0>>1)&0xff]
		k1 ^= uint16(t)
		k2 -= uint16(t >> 16)
		k0 ^= k2
		k3 = bits.RotateLeft16(bits.RotateLeft16(k3, -1)^k1, -1)
		k0 ^= k3
		dst[i] = b ^ byte(k0>>8)
	}
	c.k0, c.k1, c.k2, c.k3 = k0, k1, k2, k3
}

// Reader15 decrypts, in the caller's buffer, a stream encrypted with the
// RAR 1.5 cipher.
type Reader15 struct {
	r io.Reader
	c Cipher15
}

// NewReader15 returns a reader of r decrypted with the RAR 1.5 cipher.
func NewReader15(r io.Reader, password string) *Reader15 {
	return &Reader15{r: r, c: *NewCipher15(password)}
}

// Read reads and decrypts in place.
func (s *Reader15) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.c.XORKeyStream(p[:n], p[:n])
	return n, err
}
