package rarcrypt

import (
	"encoding/binary"
	"math/bits"
)

// sha1rar is SHA-1 with the quirk of RAR 3.x's key derivation: unrar's
// sha1_process_rar29 hashes whole 64-byte blocks straight from the
// caller's buffer and then writes its 16-word workspace (the last expanded
// message words) back over them, so that the password buffer, hashed again
// on every round, changes. Only inputs of 65 bytes or more reach that path
// (passwords of 29 or more characters with a salt), and only the KDF's
// password part is hashed this way; everything else is plain SHA-1.
type sha1rar struct {
	h   [5]uint32
	buf [64]byte
	n   uint64
}

func (d *sha1rar) reset() {
	d.h = [5]uint32{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}
	d.n = 0
}

// block hashes one 64-byte block; with writeBack it stores the final
// workspace over p, little-endian, as unrar does.
func (d *sha1rar) block(p []byte, writeBack bool) {
	var w [16]uint32
	for i := range w {
		w[i] = binary.BigEndian.Uint32(p[4*i:])
	}
	a, b, c, dd, e := d.h[0], d.h[1], d.h[2], d.h[3], d.h[4]
	for i := 0; i < 80; i++ {
		if i >= 16 {
			w[i&15] = bits.RotateLeft32(w[(i+13)&15]^w[(i+8)&15]^w[(i+2)&15]^w[i&15], 1)
		}
		var f, k uint32
		switch {
		case i < 20:
			f, k = (b&c)|(^b&dd), 0x5A827999
		case i < 40:
			f, k = b^c^dd, 0x6ED9EBA1
		case i < 60:
			f, k = (b&c)|(b&dd)|(c&dd), 0x8F1BBCDC
		default:
			f, k = b^c^dd, 0xCA62C1D6
		}
		t := bits.RotateLeft32(a, 5) + f + e + k + w[i&15]
		a, b, c, dd, e = t, a, bits.RotateLeft32(b, 30), c, dd
	}
	d.h[0] += a
	d.h[1] += b
	d.h[2] += c
	d.h[3] += dd
	d.h[4] += e
	if writeBack {
		for i, v := range w {
			binary.LittleEndian.PutUint32(p[4*i:], v)
		}
	}
}

// write hashes data; quirk selects sha1_process_rar29's behaviour.
func (d *sha1rar) write(data []byte, quirk bool) {
	j := int(d.n & 63)
	d.n += uint64(len(data))
	i := 0
	if j+len(data) > 63 {
		i = copy(d.buf[j:], data)
		d.block(d.buf[:], false)
		for ; i+63 < len(data); i += 64 {
			d.block(data[i:i+64], quirk)
		}
		j = 0
	}
	copy(d.buf[j:], data[i:])
}

// sum returns the digest without changing d.
func (d *sha1rar) sum() [20]byte {
	x := *d
	var pad [72]byte
	pad[0] = 0x80
	n := x.n
	padLen := 56 - int(n&63)
	if padLen <= 0 {
		padLen += 64
	}
	x.write(pad[:padLen], false)
	var l [8]byte
	binary.BigEndian.PutUint64(l[:], n*8)
	x.write(l[:], false)
	var out [20]byte
	for i, v := range x.h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}
