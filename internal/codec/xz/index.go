package xz

import (
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// errIndexCRC: the index's CRC32 does not match.
var errIndexCRC = archive.Corruptf("xz: index CRC32 mismatch")

// indexReader reads index fields from the input, hashing and counting them.
type indexReader struct {
	in   *input
	crc  uint32
	size int64
}

func (r *indexReader) byte() (byte, error) {
	c, err := r.in.ReadByte()
	if err != nil {
		if err == io.EOF {
			err = errTruncated
		}
		return 0, err
	}
	r.crc = verify.UpdateCRC32Byte(r.crc, c)
	r.size++
	return c, nil
}

func (r *indexReader) vli() (uint64, error) {
	var x uint64
	for i := 0; i < 9; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		x |= uint64(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, ErrVLI
			}
			return x, nil
		}
	}
	return 0, ErrVLI
}

// readIndex reads a stream's index (its indicator byte already read),
// compares it with the blocks read and returns its size in bytes.
func (z *Reader) readIndex() (int64, error) {
	r := indexReader{in: &z.in}
	r.crc = 0xD202EF8D // the CRC32 of the indicator byte, 0x00
	r.size = 1
	count, err := r.vli()
	if err != nil {
		return 0, err
	}
	if count != z.read.count {
		return 0, ErrIndex
	}
	var listed records
	for i := uint64(0); i < count; i++ {
		unpadded, err := r.vli()
		if err != nil {
			return 0, err
		}
		uncomp, err := r.vli()
		if err != nil {
			return 0, err
		}
		if err := listed.add(unpadded, uncomp); err != nil {
			return 0, err
		}
	}
	for r.size%4 != 0 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		if c != 0 {
			return 0, ErrPadding
		}
	}
	crc := z.buf[:4]
	if err := z.in.readFull(crc); err != nil {
		return 0, errTruncated
	}
	if binary.LittleEndian.Uint32(crc) != r.crc {
		return 0, errIndexCRC
	}
	if listed != z.read {
		return 0, ErrIndex
	}
	return r.size + 4, nil
}
