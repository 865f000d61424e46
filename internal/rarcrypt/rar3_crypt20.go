package rarcrypt

import (
	"encoding/binary"
	"hash/crc32" // not a checksum: the RAR 2.0 cipher builds its key tables from the CRC32 table
	"io"
	"math/bits"
)

// initSubst20 is the RAR 2.0 cipher's initial substitution table.
var initSubst20 = [256]byte{
	215, 19, 149, 35, 73, 197, 192, 205, 249, 28, 16, 119, 48, 221, 2, 42,
	232, 1, 177, 233, 14, 88, 219, 25, 223, 195, 244, 90, 87, 239, 153, 137,
	255, 199, 147, 70, 92, 66, 246, 13, 216, 40, 62, 29, 217, 230, 86, 6,
	71, 24, 171, 196, 101, 113, 218, 123, 93, 91, 163, 178, 202, 67, 44, 235,
	107, 250, 75, 234, 49, 167, 125, 211, 83, 114, 157, 144, 32, 193, 143, 36,
	158, 124, 247, 187, 89, 214, 141, 47, 121, 228, 61, 130, 213, 194, 174, 251,
	97, 110, 54, 229, 115, 57, 152, 94, 105, 243, 212, 55, 209, 245, 63, 11,
	164, 200, 31, 156, 81, 176, 227, 21, 76, 99, 139, 188, 127, 17, 248, 51,
	207, 120, 189, 210, 8, 226, 41, 72, 183, 203, 135, 165, 166, 60, 98, 7,
	122, 38, 155, 170, 69, 172, 252, 238, 39, 134, 59, 128, 236, 27, 240, 80,
	131, 3, 85, 206, 145, 79, 154, 142, 159, 220, 201, 133, 74, 64, 20, 129,
	224, 185, 138, 103, 173, 182, 43, 34, 254, 82, 198, 151, 231, 180, 58, 10,
	118, 26, 102, 12, 50, 132, 22, 191, 136, 111, 162, 179, 45, 4, 148, 108,
	161, 56, 78, 126, 242, 222, 15, 175, 146, 23, 33, 241, 181, 190, 77, 225,
	0, 46, 169, 186, 68, 95, 237, 65, 53, 208, 253, 168, 9, 18, 100, 52,
	116, 184, 160, 96, 109, 37, 30, 106, 140, 104, 150, 5, 204, 117, 112, 84,
}

// Cipher20 is the block cipher of RAR 2.0 archives (unpack version 20 and
// 26): 32 rounds over 16-byte blocks, with a key that changes after every
// block.
type Cipher20 struct {
	key   [4]uint32
	subst [256]byte
}

// NewCipher20 sets up the RAR 2.0 cipher for password (its bytes as given;
// RAR 2.0 used the OEM code page, so non-ASCII passwords may differ).
func NewCipher20(password string) *Cipher20 {
	c := &Cipher20{key: [4]uint32{0xD3A3B879, 0x3F6D12F7, 0x7515A235, 0xA4E7F123}, subst: initSubst20}
	pw := []byte(password)
	tab := crc32.IEEETable
	at := func(i int) byte {
		if i < len(pw) {
			return pw[i]
		}
		return 0
	}
	for j := 0; j < 256; j++ {
		for i := 0; i < len(pw); i += 2 {
			n1 := uint32(byte(tab[(at(i)-byte(j))&0xff]))
			n2 := uint32(byte(tab[(at(i+1)+byte(j))&0xff]))
			for k := 1; n1 != n2; n1, k = (n1+1)&0xff, k+1 {
				a, b := n1, (n1+uint32(i)+uint32(k))&0xff
				c.subst[a], c.subst[b] = c.subst[b], c.subst[a]
			}
		}
	}
	n := (len(pw) + 15) &^ 15
	buf := make([]byte, n)
	copy(buf, pw)
	for i := 0; i < len(pw); i += 16 {
		c.encryptBlock(buf[i : i+16])
	}
	return c
}

func (c *Cipher20) substLong(t uint32) uint32 {
	s := &c.subst
	return uint32(s[t&255]) | uint32(s[t>>8&255])<<8 | uint32(s[t>>16&255])<<16 | uint32(s[t>>24])<<24
}

func (c *Cipher20) rounds(a, b, cc, d uint32, forward bool) (uint32, uint32, uint32, uint32) {
	for r := 0; r < 32; r++ {
		i := r
		if !forward {
			i = 31 - r
		}
		k := c.key[i&3]
		t := (cc + bits.RotateLeft32(d, 11)) ^ k
		ta := a ^ c.substLong(t)
		t = (d ^ bits.RotateLeft32(cc, 17)) + k
		tb := b ^ c.substLong(t)
		a, b, cc, d = cc, d, ta, tb
	}
	return a, b, cc, d
}

func (c *Cipher20) encryptBlock(buf []byte) {
	le := binary.LittleEndian
	a, b, cc, d := c.rounds(le.Uint32(buf)^c.key[0], le.Uint32(buf[4:])^c.key[1],
		le.Uint32(buf[8:])^c.key[2], le.Uint32(buf[12:])^c.key[3], true)
	le.PutUint32(buf, cc^c.key[0])
	le.PutUint32(buf[4:], d^c.key[1])
	le.PutUint32(buf[8:], a^c.key[2])
	le.PutUint32(buf[12:], b^c.key[3])
	c.updateKeys(buf)
}

// DecryptBlock decrypts one 16-byte block in place.
func (c *Cipher20) DecryptBlock(buf []byte) {
	var in [16]byte
	copy(in[:], buf)
	le := binary.LittleEndian
	a, b, cc, d := c.rounds(le.Uint32(buf)^c.key[0], le.Uint32(buf[4:])^c.key[1],
		le.Uint32(buf[8:])^c.key[2], le.Uint32(buf[12:])^c.key[3], false)
	le.PutUint32(buf, cc^c.key[0])
	le.PutUint32(buf[4:], d^c.key[1])
	le.PutUint32(buf[8:], a^c.key[2])
	le.PutUint32(buf[12:], b^c.key[3])
	c.updateKeys(in[:])
}

func (c *Cipher20) updateKeys(buf []byte) {
	tab := crc32.IEEETable
	for i := 0; i < 16; i += 4 {
		c.key[0] ^= tab[buf[i]]
		c.key[1] ^= tab[buf[i+1]]
		c.key[2] ^= tab[buf[i+2]]
		c.key[3] ^= tab[buf[i+3]]
	}
}

// Reader20 decrypts a RAR 2.0 encrypted stream.
type Reader20 struct {
	r    io.Reader
	c    *Cipher20
	buf  [4096]byte
	pos  int
	end  int
	tail int
	err  error
}

// NewReader20 returns a reader decrypting r with the RAR 2.0 cipher.
func NewReader20(r io.Reader, password string) *Reader20 {
	return &Reader20{r: r, c: NewCipher20(password)}
}

// Read returns decrypted bytes.
func (d *Reader20) Read(p []byte) (int, error) {
	for d.pos == d.end {
		if d.err != nil {
			return 0, d.err
		}
		copy(d.buf[:], d.buf[d.end:d.end+d.tail])
		n, err := d.r.Read(d.buf[d.tail:])
		n += d.tail
		whole := n &^ 15
		for i := 0; i < whole; i += 16 {
			d.c.DecryptBlock(d.buf[i : i+16])
		}
		d.pos, d.end, d.tail = 0, whole, n-whole
		if err != nil {
			if err == io.EOF && d.tail != 0 {
				err = errPartial3
			}
			d.err = err
		}
	}
	n := copy(p, d.buf[d.pos:d.end])
	d.pos += n
	return n, nil
}
