package lzma

import (
	"encoding/binary"
	"errors"
	"io"
)

// AloneReader decompresses a .lzma file (the LZMA-alone format of LZMA
// Utils and xz --format=lzma): a 13-byte header with the properties byte,
// the dictionary size and the uncompressed size (all ones: unknown, the
// stream ends with an end marker), followed by the LZMA data.
type AloneReader struct {
	Reader1
	hdr  [13]byte
	size int64
}

// NewAloneReader reads the .lzma header from r and returns a reader of the
// decompressed data. A dictionary that needs more than memLimit bytes
// (memLimit <= 0: no limit) is refused with an archive.ErrLimit error
// before anything is allocated.
func NewAloneReader(r io.Reader, memLimit int64) (*AloneReader, error) {
	z := new(AloneReader)
	if err := z.Reset(r, memLimit); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z read a new .lzma stream from r, reusing its buffers.
func (z *AloneReader) Reset(r io.Reader, memLimit int64) error {
	if _, err := io.ReadFull(r, z.hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return ErrTruncated
		}
		return err
	}
	props, err := ParseProps(z.hdr[:5])
	if err != nil {
		return ErrHeader
	}
	size := int64(binary.LittleEndian.Uint64(z.hdr[5:]))
	if size < -1 {
		return ErrHeader // sizes of 2^63 and more, other than "unknown"
	}
	need := int64(props.DictSize)
	if size >= 0 && size < need {
		need = size
	}
	if err := DictLimit(dictCap(need), memLimit); err != nil {
		return err
	}
	z.size = size
	return z.Reader1.Reset(r, props, size)
}

// Size returns the uncompressed size the header declares, or -1.
func (z *AloneReader) Size() int64 { return z.size }
