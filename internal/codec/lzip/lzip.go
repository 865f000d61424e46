// Package lzip reads .lz files: the lzip format, version 0 and 1 members,
// concatenated, each holding LZMA data (lc=3, lp=0, pb=2, ended by an end
// marker) and a trailer whose CRC32, data size and (version 1) member size
// are all verified. The format is specified in the lzip manual, section
// "File format" (lzip 1.24); version 0 members (lzip 1.3 to 1.17) have no
// member size.
//
// Data after the last member is ignored unless it starts with the four
// magic bytes, in which case it must be a complete member, as xz does it.
//
// # Security concerns
//
// A member's dictionary (4 KiB to 512 MiB) is allocated only after it has
// been checked against the memory limit given to NewReader; a larger one is
// refused with an archive.ErrLimit error.
package lzip

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzma"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Errors specific to lzip. Each errors.Is its archive category.
var (
	// ErrMagic reports a file that does not start with the lzip magic.
	ErrMagic = archive.Corruptf("lzip: not an lzip file")
	// ErrVersion reports a member version other than 0 or 1.
	ErrVersion = archive.Unsupportedf("lzip: unsupported version")
	// ErrDictSize reports a dictionary size outside 4 KiB to 512 MiB.
	ErrDictSize = archive.Corruptf("lzip: invalid dictionary size")
	// ErrDataSize reports a trailer whose data size differs from the
	// decompressed size.
	ErrDataSize = archive.Corruptf("lzip: data size mismatch")
	// ErrMemberSize reports a trailer whose member size differs from the
	// member's length.
	ErrMemberSize = archive.Corruptf("lzip: member size mismatch")
)

var magic = []byte("LZIP")

const (
	headerSize = 6
	bufSize    = 64 << 10
)

// Reader decompresses a .lz stream.
type Reader struct {
	br       *bufio.Reader
	dec      lzma.Reader1
	crc      hash.Hash32
	memLimit int64

	hdr     [headerSize]byte
	trl     [20]byte
	version byte
	out     int64 // bytes produced by the current member
	err     error // sticky; io.EOF after the last member

	given, verified int64 // bytes given out; of those, covered by member checks passed
}

// Verified is how many decompressed bytes, from the start of the stream,
// are covered by member checks (CRC32 and sizes) that passed: a reader of
// the data may trust those before the stream ends.
func (z *Reader) Verified() int64 { return z.verified }

// NewReader reads the first member header from r and returns a reader of
// the decompressed data of all members. memLimit bounds the dictionary
// (<= 0: no limit).
func NewReader(r io.Reader, memLimit int64) (*Reader, error) {
	z := new(Reader)
	if err := z.Reset(r, memLimit); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z read a new .lz stream from r, reusing its buffers.
func (z *Reader) Reset(r io.Reader, memLimit int64) error {
	if z.br == nil {
		z.br = bufio.NewReaderSize(r, bufSize)
	} else {
		z.br.Reset(r)
	}
	if z.crc == nil {
		z.crc = verify.NewCRC32()
	}
	z.memLimit = memLimit
	z.err = nil
	z.given, z.verified = 0, 0
	if err := z.startMember(); err != nil {
		z.err = err
		return err
	}
	return nil
}

// startMember reads and checks a member header and starts its decoder.
func (z *Reader) startMember() error {
	if _, err := io.ReadFull(z.br, z.hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			if err == io.EOF {
				return ErrMagic
			}
			return lzma.ErrTruncated
		}
		return err
	}
	if !bytes.Equal(z.hdr[:4], magic) {
		return ErrMagic
	}
	z.version = z.hdr[4]
	if z.version > 1 {
		return ErrVersion
	}
	dict, ok := dictSize(z.hdr[5])
	if !ok {
		return ErrDictSize
	}
	if err := lzma.DictLimit(int64(dict), z.memLimit); err != nil {
		return err
	}
	z.crc.Reset()
	z.out = 0
	return z.dec.Reset(z.br, lzma.Props{LC: 3, LP: 0, PB: 2, DictSize: dict}, -1)
}

// dictSize decodes the coded dictionary size: 2^n minus (b>>5)/16 of it.
func dictSize(b byte) (uint32, bool) {
	exp := uint32(b & 0x1F)
	frac := uint32(b >> 5)
	if exp < 12 || exp > 29 || (exp == 12 && frac > 0) {
		return 0, false
	}
	return 1<<exp - frac<<(exp-4), true
}

// Read implements io.Reader.
func (z *Reader) Read(p []byte) (int, error) {
	for z.err == nil {
		n, err := z.dec.Read(p)
		if n > 0 {
			z.crc.Write(p[:n])
			z.out += int64(n)
			z.given += int64(n)
			return n, nil
		}
		if err == io.EOF {
			err = z.endMember()
		}
		if err != nil {
			z.err = err
		}
		if len(p) == 0 {
			break
		}
	}
	return 0, z.err
}

// endMember checks the trailer of the member just decoded and starts the
// next member, if any; io.EOF means there is none.
func (z *Reader) endMember() error {
	n := 12
	if z.version == 1 {
		n = 20
	}
	if _, err := io.ReadFull(z.br, z.trl[:n]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return lzma.ErrTruncated
		}
		return err
	}
	if want, got := binary.LittleEndian.Uint32(z.trl[0:]), z.crc.Sum32(); want != got {
		return &verify.MismatchError{Kind: verify.CRC32,
			Want: binary.BigEndian.AppendUint32(nil, want), Got: binary.BigEndian.AppendUint32(nil, got)}
	}
	if binary.LittleEndian.Uint64(z.trl[4:]) != uint64(z.out) {
		return ErrDataSize
	}
	if n == 20 {
		size := headerSize + z.dec.InputSize() + int64(n)
		if binary.LittleEndian.Uint64(z.trl[12:]) != uint64(size) {
			return ErrMemberSize
		}
	}
	z.verified = z.given
	if next, _ := z.br.Peek(len(magic)); !bytes.Equal(next, magic) {
		return io.EOF // end, or trailing data that is no member
	}
	return z.startMember()
}
