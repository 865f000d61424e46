package verify

import (
	"encoding/binary"
	"hash"
	"math/bits"
)

// XXH32 and XXH64 as specified in the xxHash specification
// (github.com/Cyan4973/xxHash doc/xxhash_spec.md), with seed 0: XXH32 is the
// LZ4 frame content and block checksum, XXH64 the zstd frame content checksum
// (of which zstd stores the low 32 bits). Sum appends the canonical
// big-endian form, as xxhsum prints it.

const (
	xxh32P1 uint32 = 2654435761
	xxh32P2 uint32 = 2246822519
	xxh32P3 uint32 = 3266489917
	xxh32P4 uint32 = 668265263
	xxh32P5 uint32 = 374761393

	xxh64P1 uint64 = 11400714785074694791
	xxh64P2 uint64 = 14029467366897019727
	xxh64P3 uint64 = 1609587929392839161
	xxh64P4 uint64 = 9650029242287828579
	xxh64P5 uint64 = 2870177450012600261
)

// xxh32 is the streaming XXH32 state (seed 0).
type xxh32 struct {
	v     [4]uint32
	total uint64
	n     int
	buf   [16]byte
}

func newXXH32() hash.Hash { d := &xxh32{}; d.Reset(); return d }

func (d *xxh32) Size() int      { return 4 }
func (d *xxh32) BlockSize() int { return 16 }

func (d *xxh32) Reset() {
	var seed uint32 // the formats use seed 0
	d.v = [4]uint32{seed + xxh32P1 + xxh32P2, seed + xxh32P2, seed, seed - xxh32P1}
	d.total, d.n = 0, 0
}

func xxh32Round(acc, in uint32) uint32 {
	return bits.RotateLeft32(acc+in*xxh32P2, 13) * xxh32P1
}

// stripes consumes whole 16-byte stripes of p and returns what is left.
func (d *xxh32) stripes(p []byte) []byte {
	v0, v1, v2, v3 := d.v[0], d.v[1], d.v[2], d.v[3]
	for ; len(p) >= 16; p = p[16:] {
		v0 = xxh32Round(v0, binary.LittleEndian.Uint32(p[0:]))
		v1 = xxh32Round(v1, binary.LittleEndian.Uint32(p[4:]))
		v2 = xxh32Round(v2, binary.LittleEndian.Uint32(p[8:]))
		v3 = xxh32Round(v3, binary.LittleEndian.Uint32(p[12:]))
	}
	d.v = [4]uint32{v0, v1, v2, v3}
	return p
}

func (d *xxh32) Write(p []byte) (int, error) {
	n := len(p)
	d.total += uint64(n)
	if d.n > 0 {
		c := copy(d.buf[d.n:], p)
		d.n += c
		p = p[c:]
		if d.n < len(d.buf) {
			return n, nil
		}
		d.stripes(d.buf[:])
		d.n = 0
	}
	p = d.stripes(p)
	d.n = copy(d.buf[:], p)
	return n, nil
}

// XXH32Sum returns the XXH32 (seed 0) of p in one call, without
// allocating: LZ4's header and block checksums.
func XXH32Sum(p []byte) uint32 {
	var d xxh32
	d.Reset()
	d.Write(p)
	return d.Sum32()
}

// Sum32 returns the XXH32 of what was written so far.
func (d *xxh32) Sum32() uint32 {
	var h uint32
	if d.total >= 16 {
		h = bits.RotateLeft32(d.v[0], 1) + bits.RotateLeft32(d.v[1], 7) +
			bits.RotateLeft32(d.v[2], 12) + bits.RotateLeft32(d.v[3], 18)
	} else {
		h = xxh32P5
	}
	h += uint32(d.total)
	p := d.buf[:d.n]
	for ; len(p) >= 4; p = p[4:] {
		h += binary.LittleEndian.Uint32(p) * xxh32P3
		h = bits.RotateLeft32(h, 17) * xxh32P4
	}
	for _, c := range p {
		h += uint32(c) * xxh32P5
		h = bits.RotateLeft32(h, 11) * xxh32P1
	}
	h ^= h >> 15
	h *= xxh32P2
	h ^= h >> 13
	h *= xxh32P3
	h ^= h >> 16
	return h
}

func (d *xxh32) Sum(b []byte) []byte { return binary.BigEndian.AppendUint32(b, d.Sum32()) }

// xxh64 is the streaming XXH64 state (seed 0).
type xxh64 struct {
	v     [4]uint64
	total uint64
	n     int
	buf   [32]byte
}

func newXXH64() hash.Hash { d := &xxh64{}; d.Reset(); return d }

func (d *xxh64) Size() int      { return 8 }
func (d *xxh64) BlockSize() int { return 32 }

func (d *xxh64) Reset() {
	var seed uint64 // the formats use seed 0
	d.v = [4]uint64{seed + xxh64P1 + xxh64P2, seed + xxh64P2, seed, seed - xxh64P1}
	d.total, d.n = 0, 0
}

func xxh64Round(acc, in uint64) uint64 {
	return bits.RotateLeft64(acc+in*xxh64P2, 31) * xxh64P1
}

func xxh64Merge(h, v uint64) uint64 {
	return (h^xxh64Round(0, v))*xxh64P1 + xxh64P4
}

// stripes consumes whole 32-byte stripes of p and returns what is left.
func (d *xxh64) stripes(p []byte) []byte {
	v0, v1, v2, v3 := d.v[0], d.v[1], d.v[2], d.v[3]
	for ; len(p) >= 32; p = p[32:] {
		v0 = xxh64Round(v0, binary.LittleEndian.Uint64(p[0:]))
		v1 = xxh64Round(v1, binary.LittleEndian.Uint64(p[8:]))
		v2 = xxh64Round(v2, binary.LittleEndian.Uint64(p[16:]))
		v3 = xxh64Round(v3, binary.LittleEndian.Uint64(p[24:]))
	}
	d.v = [4]uint64{v0, v1, v2, v3}
	return p
}

func (d *xxh64) Write(p []byte) (int, error) {
	n := len(p)
	d.total += uint64(n)
	if d.n > 0 {
		c := copy(d.buf[d.n:], p)
		d.n += c
		p = p[c:]
		if d.n < len(d.buf) {
			return n, nil
		}
		d.stripes(d.buf[:])
		d.n = 0
	}
	p = d.stripes(p)
	d.n = copy(d.buf[:], p)
	return n, nil
}

// Sum64 returns the XXH64 of what was written so far.
func (d *xxh64) Sum64() uint64 {
	var h uint64
	if d.total >= 32 {
		v := &d.v
		h = bits.RotateLeft64(v[0], 1) + bits.RotateLeft64(v[1], 7) +
			bits.RotateLeft64(v[2], 12) + bits.RotateLeft64(v[3], 18)
		h = xxh64Merge(h, v[0])
		h = xxh64Merge(h, v[1])
		h = xxh64Merge(h, v[2])
		h = xxh64Merge(h, v[3])
	} else {
		h = xxh64P5
	}
	h += d.total
	p := d.buf[:d.n]
	for ; len(p) >= 8; p = p[8:] {
		h ^= xxh64Round(0, binary.LittleEndian.Uint64(p))
		h = bits.RotateLeft64(h, 27)*xxh64P1 + xxh64P4
	}
	if len(p) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(p)) * xxh64P1
		h = bits.RotateLeft64(h, 23)*xxh64P2 + xxh64P3
		p = p[4:]
	}
	for _, c := range p {
		h ^= uint64(c) * xxh64P5
		h = bits.RotateLeft64(h, 11) * xxh64P1
	}
	h ^= h >> 33
	h *= xxh64P2
	h ^= h >> 29
	h *= xxh64P3
	h ^= h >> 32
	return h
}

func (d *xxh64) Sum(b []byte) []byte { return binary.BigEndian.AppendUint64(b, d.Sum64()) }
