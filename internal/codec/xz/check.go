package xz

import (
	"bytes"
	"encoding/binary"
	"hash"

	"github.com/unpack-dev/unpack/internal/verify"
)

// checker computes a block's check. Hashes are kept per kind and reused.
type checker struct {
	kind  verify.Kind
	known bool // the check ID is one xz defines
	size  int  // bytes of the check field
	h     hash.Hash
	cache [verify.SHA256 + 1]hash.Hash
	sum   [64]byte
}

// setID selects the check of a stream's flags.
func (c *checker) setID(id byte) {
	c.kind, c.known = checkKind(id)
	c.size = checkSize[id&0x0F]
	c.h = nil
	if c.known && c.kind != verify.None {
		if c.cache[c.kind] == nil {
			c.cache[c.kind] = verify.New(c.kind)
		}
		c.h = c.cache[c.kind]
	}
}

func (c *checker) reset() {
	if c.h != nil {
		c.h.Reset()
	}
}

func (c *checker) write(p []byte) {
	if c.h != nil {
		c.h.Write(p)
	}
}

// verify compares the computed check with the stored field (little-endian
// for CRC32 and CRC64, as xz stores them).
func (c *checker) verify(stored []byte) error {
	if c.h == nil {
		return nil
	}
	got := c.h.Sum(c.sum[:0])
	var want []byte
	switch c.kind {
	case verify.CRC32:
		v := binary.LittleEndian.Uint32(stored)
		if binary.BigEndian.Uint32(got) == v {
			return nil
		}
		want = binary.BigEndian.AppendUint32(nil, v)
	case verify.CRC64:
		v := binary.LittleEndian.Uint64(stored)
		if binary.BigEndian.Uint64(got) == v {
			return nil
		}
		want = binary.BigEndian.AppendUint64(nil, v)
	default:
		if bytes.Equal(got, stored) {
			return nil
		}
		want = append([]byte(nil), stored...)
	}
	return &verify.MismatchError{Kind: c.kind, Want: want, Got: append([]byte(nil), got...)}
}

// records sums up block sizes, from the blocks read or from an index, so
// the two can be compared without keeping a list.
type records struct {
	count, unpadded, uncomp uint64
	crc                     uint64 // CRC64 of the (unpadded, uncompressed) pairs
}

// add records one block; it fails when a sum leaves the allowed range.
func (r *records) add(unpadded, uncomp uint64) error {
	if unpadded < minUnpadded || unpadded > maxUnpadded || uncomp > maxVLI {
		return ErrIndex
	}
	r.count++
	r.unpadded += (unpadded + 3) &^ 3
	r.uncomp += uncomp
	if r.unpadded > maxVLI || r.uncomp > maxVLI {
		return ErrIndex
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], unpadded)
	binary.LittleEndian.PutUint64(b[8:], uncomp)
	r.crc = verify.UpdateCRC64(r.crc, b[:])
	return nil
}
