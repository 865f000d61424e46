// Package lzop reads .lzo files, the format of lzop 1.0x: a header (whose
// Adler-32 or CRC-32 is verified) and blocks of LZO1X data, each checked
// by the checksums the header's flags ask for: Adler-32 and/or CRC-32 of
// the uncompressed and of the compressed bytes. Concatenated files are
// read one after the other.
//
// # Security concerns
//
// A block's sizes are checked against lzop's own maximum (64 MiB) and the
// memory limit before its buffers grow; LZO1X decoding checks every bound.
package lzop

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/lzo"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Errors. Each errors.Is its archive category.
var (
	ErrMagic     = archive.Corruptf("lzop: not an lzop file")
	ErrHeader    = archive.Corruptf("lzop: header checksum mismatch")
	ErrTruncated = archive.Corruptf("lzop: truncated file")
	ErrBlock     = archive.Corruptf("lzop: invalid block sizes")
	ErrData      = archive.Corruptf("lzop: invalid LZO1X data")
	ErrTrailing  = archive.Corruptf("lzop: garbage after the data")
	ErrVersion   = archive.Unsupportedf("lzop: file version needs a newer lzop")
	ErrMethod    = archive.Unsupportedf("lzop: unknown compression method")
	ErrFilter    = archive.Unsupportedf("lzop: filters are not supported")
)

var magic = []byte{0x89, 'L', 'Z', 'O', 0, '\r', '\n', 0x1a, '\n'}

// Header flags.
const (
	fAdler32D    = 0x00000001
	fAdler32C    = 0x00000002
	fExtraField  = 0x00000040
	fCRC32D      = 0x00000100
	fCRC32C      = 0x00000200
	fFilter      = 0x00000800
	fHeaderCRC32 = 0x00001000
)

const (
	maxBlock = 64 << 20 // lzop's MAX_BLOCK_SIZE
	// versionNeeded is the newest "version needed to extract" this reader
	// knows the format of (lzop 1.04 writes 0x0940).
	versionNeeded = 0x1040
)

// Header is what a file's header says.
type Header struct {
	Method byte   // 1, 2: LZO1X-1; 3: LZO1X-999
	Level  byte   // 0 in files before version 0.94
	Flags  uint32 // which checksums the blocks carry, and more
	Mode   uint32 // the original file's mode
	MTime  int64  // seconds since 1970
	Name   string // the original file name
}

// Reader decompresses an lzop stream.
type Reader struct {
	br       *bufio.Reader // the input: own, or the caller's when it is buffered
	own      *bufio.Reader
	memLimit int64
	Header   Header // of the current member

	in, out []byte
	op      int // out[op:] is unread
	err     error
	scratch [16]byte
}

// NewReader reads the first header from r. memLimit bounds the block
// buffers (<= 0: lzop's 64 MiB maximum only).
func NewReader(r io.Reader, memLimit int64) (*Reader, error) {
	z := new(Reader)
	if err := z.Reset(r, memLimit); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z read a new stream from r, reusing its buffers.
func (z *Reader) Reset(r io.Reader, memLimit int64) error {
	// A buffered input is read as it is (no second buffer between).
	if br, ok := r.(*bufio.Reader); ok {
		z.br = br
	} else {
		if z.own == nil {
			z.own = bufio.NewReaderSize(r, 64<<10)
		} else {
			z.own.Reset(r)
		}
		z.br = z.own
	}
	z.memLimit = memLimit
	z.err = nil
	z.out, z.op = z.out[:0], 0
	if err := z.readHeader(); err != nil {
		z.err = err
		return err
	}
	return nil
}

// full reads len(p) bytes, a short read being ErrTruncated.
func (z *Reader) full(p []byte) error {
	if _, err := io.ReadFull(z.br, p); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return ErrTruncated
		}
		return err
	}
	return nil
}

// hdrReader reads header fields and keeps their checksum.
type hdrReader struct {
	z   *Reader
	sum []byte // the header bytes read so far
	err error
}

func (h *hdrReader) bytes(n int) []byte {
	if h.err != nil {
		return make([]byte, n)
	}
	start := len(h.sum)
	h.sum = append(h.sum, make([]byte, n)...)
	h.err = h.z.full(h.sum[start:])
	return h.sum[start:]
}

func (h *hdrReader) u8() byte    { return h.bytes(1)[0] }
func (h *hdrReader) u16() uint16 { return binary.BigEndian.Uint16(h.bytes(2)) }
func (h *hdrReader) u32() uint32 { return binary.BigEndian.Uint32(h.bytes(4)) }

func (z *Reader) readHeader() error {
	m := z.scratch[:len(magic)]
	if _, err := io.ReadFull(z.br, m); err != nil {
		if err == io.ErrUnexpectedEOF && bytes.HasPrefix(magic, m) {
			return ErrTruncated
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return ErrMagic
		}
		return err
	}
	if !bytes.Equal(m, magic) {
		return ErrMagic
	}
	h := hdrReader{z: z}
	var hd Header
	version := h.u16()
	h.u16() // library version
	if version >= 0x0940 {
		if need := h.u16(); need > versionNeeded && h.err == nil {
			return ErrVersion
		}
	}
	hd.Method = h.u8()
	if version >= 0x0940 {
		hd.Level = h.u8()
	}
	hd.Flags = h.u32()
	if hd.Flags&fFilter != 0 {
		h.u32()
	}
	hd.Mode = h.u32()
	hd.MTime = int64(h.u32())
	if version >= 0x0940 {
		hd.MTime |= int64(h.u32()) << 32
	}
	hd.Name = string(h.bytes(int(h.u8())))
	if h.err != nil {
		return h.err
	}
	if err := z.checkHeader(hd.Flags, h.sum); err != nil {
		return err
	}
	if hd.Flags&fExtraField != 0 {
		h.sum = h.sum[:0]
		n := h.u32()
		if h.err == nil && n > 1<<20 {
			return ErrBlock
		}
		h.bytes(int(n))
		if h.err != nil {
			return h.err
		}
		if err := z.checkHeader(hd.Flags, h.sum); err != nil {
			return err
		}
	}
	switch {
	case hd.Method < 1 || hd.Method > 3:
		return ErrMethod
	case hd.Flags&fFilter != 0:
		return ErrFilter
	}
	z.Header = hd
	return nil
}

// checkHeader reads the checksum after the header bytes b and compares.
func (z *Reader) checkHeader(flags uint32, b []byte) error {
	var want uint32
	if err := z.u32(&want); err != nil {
		return err
	}
	got := verify.SumAdler32(b)
	if flags&fHeaderCRC32 != 0 {
		got = verify.SumCRC32(b)
	}
	if got != want {
		return ErrHeader
	}
	return nil
}

func (z *Reader) u32(v *uint32) error {
	b := z.scratch[:4]
	if err := z.full(b); err != nil {
		return err
	}
	*v = binary.BigEndian.Uint32(b)
	return nil
}

// Read implements io.Reader.
func (z *Reader) Read(p []byte) (int, error) {
	for z.op == len(z.out) {
		if z.err != nil {
			return 0, z.err
		}
		z.err = z.block()
	}
	n := copy(p, z.out[z.op:])
	z.op += n
	return n, nil
}

// WriteTo writes the rest of the decompressed data to w.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if z.op < len(z.out) {
			n, err := w.Write(z.out[z.op:])
			total += int64(n)
			z.op += n
			if err != nil {
				return total, err
			}
		}
		if z.err != nil {
			if z.err == io.EOF {
				return total, nil
			}
			return total, z.err
		}
		z.err = z.block()
	}
}

// block decodes the next block into z.out, or ends the member.
func (z *Reader) block() error {
	z.out, z.op = z.out[:0], 0
	var dlen, clen uint32
	if err := z.u32(&dlen); err != nil {
		return err
	}
	if dlen == 0 {
		return z.nextMember()
	}
	if err := z.u32(&clen); err != nil {
		return err
	}
	if dlen > maxBlock || clen > dlen || clen == 0 {
		return ErrBlock
	}
	if z.memLimit > 0 && int64(dlen) > z.memLimit {
		return archive.Limitf("lzop: a block of %d bytes is above the memory limit", dlen)
	}
	f := z.Header.Flags
	var dAdler, dCRC, cAdler, cCRC uint32
	if f&fAdler32D != 0 {
		if err := z.u32(&dAdler); err != nil {
			return err
		}
	}
	if f&fCRC32D != 0 {
		if err := z.u32(&dCRC); err != nil {
			return err
		}
	}
	compressed := clen < dlen
	if compressed && f&fAdler32C != 0 {
		if err := z.u32(&cAdler); err != nil {
			return err
		}
	}
	if compressed && f&fCRC32C != 0 {
		if err := z.u32(&cCRC); err != nil {
			return err
		}
	}
	if !compressed {
		z.out = grow(z.out, int(dlen))
		if err := z.full(z.out); err != nil {
			// None of a block cut short goes out: its unread rest is
			// not data.
			z.out = z.out[:0]
			return err
		}
	} else {
		z.in = grow(z.in, int(clen))
		if err := z.full(z.in); err != nil {
			return err
		}
		if f&fAdler32C != 0 {
			if err := mismatch(verify.Adler32, cAdler, verify.SumAdler32(z.in)); err != nil {
				return err
			}
		}
		if f&fCRC32C != 0 {
			if err := mismatch(verify.CRC32, cCRC, verify.SumCRC32(z.in)); err != nil {
				return err
			}
		}
		z.out = grow(z.out, int(dlen))
		if n, ok := lzo.Decompress1X(z.out, z.in); !ok || n != len(z.out) {
			z.out = z.out[:0]
			return ErrData
		}
	}
	if f&fAdler32D != 0 {
		if err := mismatch(verify.Adler32, dAdler, verify.SumAdler32(z.out)); err != nil {
			z.out = z.out[:0]
			return err
		}
	}
	if f&fCRC32D != 0 {
		if err := mismatch(verify.CRC32, dCRC, verify.SumCRC32(z.out)); err != nil {
			z.out = z.out[:0]
			return err
		}
	}
	return nil
}

// nextMember starts the next concatenated file, or ends the stream.
func (z *Reader) nextMember() error {
	if _, err := z.br.Peek(1); err == io.EOF {
		return io.EOF
	} else if err != nil {
		return err
	}
	if b, _ := z.br.Peek(len(magic)); !bytes.Equal(b, magic) {
		return ErrTrailing
	}
	if err := z.readHeader(); err != nil {
		return err
	}
	return nil
}

func mismatch(k verify.Kind, want, got uint32) error {
	if want == got {
		return nil
	}
	return &verify.MismatchError{Kind: k, Want: binary.BigEndian.AppendUint32(nil, want),
		Got: binary.BigEndian.AppendUint32(nil, got)}
}

// grow returns b with length n, reallocating only when it is too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}
