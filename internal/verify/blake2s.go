package verify

import (
	"encoding/binary"
	"math/bits"
)

// BLAKE2s as specified in RFC 7693 and the BLAKE2 paper (§2.10 tree hashing),
// reduced to what BLAKE2sp needs: the compression function and the parameter
// block of a tree node.

// blake2sIV is the BLAKE2s initialisation vector (the SHA-256 IV).
var blake2sIV = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

// blake2sSigma is the message schedule of the ten BLAKE2s rounds.
var blake2sSigma = [10][16]uint8{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
	{11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
	{7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
	{9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
	{2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
	{12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
	{13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
	{6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
	{10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
}

const (
	blake2sBlockSize = 64
	blake2sSize      = 32
)

// blake2sNodeIV returns the chaining value of a fresh BLAKE2s tree node with
// a 32-byte digest, the given key length, fanout 8, depth 2, leaf length 0,
// inner length 32, and the given node offset and node depth: the parameter
// block of RFC 7693 §2.5 / BLAKE2 §2.8 XORed into the IV.
func blake2sNodeIV(keyLen int, nodeOffset uint32, nodeDepth uint8) [8]uint32 {
	h := blake2sIV
	h[0] ^= blake2sSize | uint32(keyLen)<<8 | blake2spDegree<<16 | 2<<24
	// h[1]: leaf length 0.
	h[2] ^= nodeOffset // node offset, low 32 of 48 bits
	h[3] ^= uint32(nodeDepth)<<16 | blake2sSize<<24
	return h
}

// blake2sCompressGeneric runs the BLAKE2s compression function F on one
// 64-byte block: t is the byte counter including this block, f0 and f1 the
// last-block and last-node flags (0 or ^0).
func blake2sCompressGeneric(h *[8]uint32, block []byte, t uint64, f0, f1 uint32) {
	var m [16]uint32
	block = block[:blake2sBlockSize]
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(block[4*i:])
	}
	v0, v1, v2, v3, v4, v5, v6, v7 := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	v8, v9, v10, v11 := blake2sIV[0], blake2sIV[1], blake2sIV[2], blake2sIV[3]
	v12 := blake2sIV[4] ^ uint32(t)
	v13 := blake2sIV[5] ^ uint32(t>>32)
	v14 := blake2sIV[6] ^ f0
	v15 := blake2sIV[7] ^ f1
	for r := range blake2sSigma {
		s := &blake2sSigma[r]
		// Columns.
		v0, v4, v8, v12 = blake2sG(v0, v4, v8, v12, m[s[0]], m[s[1]])
		v1, v5, v9, v13 = blake2sG(v1, v5, v9, v13, m[s[2]], m[s[3]])
		v2, v6, v10, v14 = blake2sG(v2, v6, v10, v14, m[s[4]], m[s[5]])
		v3, v7, v11, v15 = blake2sG(v3, v7, v11, v15, m[s[6]], m[s[7]])
		// Diagonals.
		v0, v5, v10, v15 = blake2sG(v0, v5, v10, v15, m[s[8]], m[s[9]])
		v1, v6, v11, v12 = blake2sG(v1, v6, v11, v12, m[s[10]], m[s[11]])
		v2, v7, v8, v13 = blake2sG(v2, v7, v8, v13, m[s[12]], m[s[13]])
		v3, v4, v9, v14 = blake2sG(v3, v4, v9, v14, m[s[14]], m[s[15]])
	}
	h[0] ^= v0 ^ v8
	h[1] ^= v1 ^ v9
	h[2] ^= v2 ^ v10
	h[3] ^= v3 ^ v11
	h[4] ^= v4 ^ v12
	h[5] ^= v5 ^ v13
	h[6] ^= v6 ^ v14
	h[7] ^= v7 ^ v15
}

// blake2sG is the BLAKE2s mixing function G (RFC 7693 §3.1).
func blake2sG(a, b, c, d, x, y uint32) (uint32, uint32, uint32, uint32) {
	a += b + x
	d = bits.RotateLeft32(d^a, -16)
	c += d
	b = bits.RotateLeft32(b^c, -12)
	a += b + y
	d = bits.RotateLeft32(d^a, -8)
	c += d
	b = bits.RotateLeft32(b^c, -7)
	return a, b, c, d
}
