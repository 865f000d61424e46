package verify

import (
	"encoding/binary"
	"errors"
	"hash"
)

// BLAKE2sp is the 8-way parallel BLAKE2s tree mode of the BLAKE2 paper
// (§2.10): the input is cut into 64-byte blocks dealt round-robin to eight
// BLAKE2s leaves (block j goes to leaf j mod 8), each leaf a node of depth 0
// with its index as node offset, and the eight 32-byte leaf digests are
// hashed by a root node of depth 1. Leaf 7 and the root carry the last-node
// flag. RAR 5 uses the unkeyed form for its file checksums.
//
// The eight leaves advance in lock-step over 512-byte stripes, which is what
// the SIMD paths (blake2sp_amd64.s, blake2sp_arm64.s) exploit: one 32-bit
// vector lane per leaf. They and blake2spBlocksGeneric keep the leaf states
// transposed, word-major, in a [8][8]uint32 indexed [word][leaf], so that a
// row of four leaves is one 128-bit load.

const (
	blake2spDegree = 8
	blake2spStripe = blake2spDegree * blake2sBlockSize // 512
	// blake2spKeep is how many bytes must follow a stripe before it may be
	// compressed: only then does every leaf have a later block, so that no
	// leaf's last block (which needs the finalisation flag) is compressed
	// early.
	blake2spKeep = (blake2spDegree-1)*blake2sBlockSize + 1 // 449
	// blake2spMaxKey is the longest key BLAKE2s accepts.
	blake2spMaxKey = 32
)

// ErrKeySize is returned by NewBLAKE2sp for a key longer than 32 bytes.
var ErrKeySize = errors.New("verify: BLAKE2sp key longer than 32 bytes")

// blake2sp is the streaming BLAKE2sp state. It implements hash.Hash.
type blake2sp struct {
	h          [8][blake2spDegree]uint32 // leaf chaining values, [word][leaf]
	t          uint64                    // bytes each leaf has compressed
	n          int                       // bytes held in buf
	keyPending bool                      // the key block is not compressed yet
	keyLen     int
	key        [blake2sBlockSize]byte // the key, zero-padded to a block
	buf        [blake2spStripe + blake2spKeep - 1]byte
}

// NewBLAKE2sp returns a BLAKE2sp hash with a 32-byte digest, keyed with key
// (at most 32 bytes; nil or empty for the unkeyed hash). Its Write never
// fails and does not allocate.
func NewBLAKE2sp(key []byte) (hash.Hash, error) {
	if len(key) > blake2spMaxKey {
		return nil, ErrKeySize
	}
	d := &blake2sp{keyLen: len(key)}
	copy(d.key[:], key)
	d.Reset()
	return d, nil
}

func newBLAKE2sp() hash.Hash {
	d := &blake2sp{}
	d.Reset()
	return d
}

// Size returns the digest length, 32.
func (d *blake2sp) Size() int { return blake2sSize }

// BlockSize returns the BLAKE2s block size, 64.
func (d *blake2sp) BlockSize() int { return blake2sBlockSize }

// Reset restores the initial state, keeping the key.
func (d *blake2sp) Reset() {
	for leaf := range blake2spDegree {
		iv := blake2sNodeIV(d.keyLen, uint32(leaf), 0)
		for w := range iv {
			d.h[w][leaf] = iv[w]
		}
	}
	d.t, d.n = 0, 0
	d.keyPending = d.keyLen > 0
}

// Write absorbs p. It always returns len(p), nil.
func (d *blake2sp) Write(p []byte) (int, error) {
	written := len(p)
	// Drain the buffer first: a stripe leaves it once enough bytes follow.
	for d.n > 0 {
		if d.n+len(p) < blake2spStripe+blake2spKeep {
			d.n += copy(d.buf[d.n:], p)
			return written, nil
		}
		if d.n >= blake2spStripe {
			d.stripes(d.buf[:blake2spStripe])
			d.n = copy(d.buf[:], d.buf[blake2spStripe:d.n])
			continue
		}
		c := copy(d.buf[d.n:blake2spStripe], p)
		d.n += c
		p = p[c:]
	}
	if len(p) >= blake2spStripe+blake2spKeep {
		k := (len(p) - blake2spKeep) / blake2spStripe * blake2spStripe
		d.stripes(p[:k])
		p = p[k:]
	}
	d.n = copy(d.buf[:], p)
	return written, nil
}

// stripes compresses whole stripes, none of which holds a leaf's last block.
func (d *blake2sp) stripes(p []byte) {
	if d.keyPending {
		d.absorbKey()
	}
	blake2spBlocks(&d.h, p, d.t)
	d.t += uint64(len(p) / blake2spDegree)
}

// absorbKey compresses the key block as the first block of every leaf.
func (d *blake2sp) absorbKey() {
	for leaf := range blake2spDegree {
		h := d.leaf(leaf)
		blake2sCompressGeneric(&h, d.key[:], blake2sBlockSize, 0, 0)
		d.setLeaf(leaf, &h)
	}
	d.t = blake2sBlockSize
	d.keyPending = false
}

func (d *blake2sp) leaf(i int) [8]uint32 {
	var h [8]uint32
	for w := range h {
		h[w] = d.h[w][i]
	}
	return h
}

func (d *blake2sp) setLeaf(i int, h *[8]uint32) {
	for w := range h {
		d.h[w][i] = h[w]
	}
}

// Sum appends the digest of what was written so far to b; d is unchanged.
func (d *blake2sp) Sum(b []byte) []byte {
	var root [blake2spDegree * blake2sSize]byte // the eight leaf digests
	var block [blake2sBlockSize]byte
	for leaf := range blake2spDegree {
		h := d.leaf(leaf)
		t := d.t
		// The leaf's remaining blocks: the key block if still pending, then
		// its blocks among the buffered bytes (at most two, by blake2spKeep).
		var tail [3][]byte
		nt := 0
		if d.keyPending {
			tail[nt] = d.key[:]
			nt++
		}
		for off := leaf * blake2sBlockSize; off < d.n; off += blake2spStripe {
			tail[nt] = d.buf[off:min(off+blake2sBlockSize, d.n)]
			nt++
		}
		if nt == 0 { // an empty leaf still compresses one empty final block
			nt = 1 // tail[0] is nil
		}
		for i, blk := range tail[:nt] {
			t += uint64(len(blk))
			f0, f1 := uint32(0), uint32(0)
			if i == nt-1 {
				f0 = ^uint32(0)
				if leaf == blake2spDegree-1 {
					f1 = ^uint32(0)
				}
			}
			clear(block[len(blk):])
			copy(block[:], blk)
			blake2sCompressGeneric(&h, block[:], t, f0, f1)
		}
		for w, v := range h {
			binary.LittleEndian.PutUint32(root[leaf*blake2sSize+4*w:], v)
		}
	}
	h := blake2sNodeIV(d.keyLen, 0, 1)
	for i := 0; i < len(root); i += blake2sBlockSize {
		f := uint32(0)
		if i+blake2sBlockSize == len(root) {
			f = ^uint32(0)
		}
		blake2sCompressGeneric(&h, root[i:], uint64(i+blake2sBlockSize), f, f)
	}
	for _, v := range h {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// blake2spBlocksGeneric compresses len(p)/512 stripes into the transposed
// leaf states h: block j of each stripe goes to leaf j, with byte counter
// t+64 for the first stripe, t+128 for the second, and so on; no flags.
func blake2spBlocksGeneric(h *[8][blake2spDegree]uint32, p []byte, t uint64) {
	for len(p) >= blake2spStripe {
		t += blake2sBlockSize
		for leaf := range blake2spDegree {
			var v [8]uint32
			for w := range v {
				v[w] = h[w][leaf]
			}
			blake2sCompressGeneric(&v, p[leaf*blake2sBlockSize:], t, 0, 0)
			for w := range v {
				h[w][leaf] = v[w]
			}
		}
		p = p[blake2spStripe:]
	}
}
