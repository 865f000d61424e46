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
	"errors"
	"fmt"
	"io"
	"strings"

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
	threads  int
	serial   int64 // blocks decoded here before the parallel decode starts
	// Header is the member header read last: with blocks decoded in
	// parallel, the reading may be a few blocks ahead of the output.
	Header Header

	off    int64 // input offset of the next byte read
	blocks int64 // blocks read from the stream

	in, dec []byte // the buffers of blocks decoded on the caller's goroutine
	out     []byte // the current block's output
	op      int    // out[op:] is unread
	err     error
	par     parallel
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

// SetThreads sets how many blocks are decoded at once once a stream is
// past its first few blocks (1, the default, or less: all on the
// caller's goroutine).
func (z *Reader) SetThreads(n int) {
	z.threads, z.serial = n, serialBlocks
	z.par.init(n)
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
	z.err, z.off, z.blocks = nil, 0, 0
	z.out, z.op = nil, 0
	z.par.drain()
	if err := z.readHeader(); err != nil {
		z.err = err
		return err
	}
	return nil
}

// errClosed is returned by Read after Close.
var errClosed = errors.New("lzop: reader closed")

// Close waits for the blocks being decoded in parallel and releases their
// memory; Reads fail afterwards. Reset makes the Reader usable again.
func (z *Reader) Close() error {
	z.par.release()
	z.out, z.op, z.err = nil, 0, errClosed
	return nil
}

// full reads len(p) bytes, a short read being ErrTruncated.
func (z *Reader) full(p []byte) error {
	n, err := io.ReadFull(z.br, p)
	z.off += int64(n)
	if err != nil {
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
	n, err := io.ReadFull(z.br, m)
	z.off += int64(n)
	if err != nil {
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
		z.err = z.advance()
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
		z.err = z.advance()
	}
}

// advance makes z.out the next block's output: decoded here, or by the
// parallel decode once the stream has had z.serial blocks.
func (z *Reader) advance() error {
	z.out, z.op = nil, 0
	if z.par.cur != nil {
		z.par.retire()
	}
	if z.threads < 2 || z.blocks < z.serial {
		return z.block()
	}
	return z.parallelBlock()
}

// blockHead is what a block's header says, and where it is.
type blockHead struct {
	n, off     int64 // the block's number in the stream (from 1), its offset
	flags      uint32
	dlen, clen int
	dAdler     uint32
	dCRC       uint32
	cAdler     uint32
	cCRC       uint32
}

// A BlockError is a block that failed: its number in the stream (from 1,
// counting the blocks of every member), the input offset of its header,
// and what failed (an error of this package, a limit, or a
// *verify.MismatchError).
type BlockError struct {
	Block, Offset int64
	Err           error
}

func (e *BlockError) Error() string {
	return fmt.Sprintf("lzop: block %d at byte %d: %s", e.Block, e.Offset,
		strings.TrimPrefix(e.Err.Error(), "lzop: "))
}

// Unwrap returns what failed.
func (e *BlockError) Unwrap() error { return e.Err }

func (h *blockHead) fail(err error) error {
	return &BlockError{Block: h.n, Offset: h.off, Err: err}
}

// readHead reads the next block's header into h; end is true at the end
// of the member instead.
func (z *Reader) readHead(h *blockHead) (end bool, err error) {
	*h = blockHead{n: z.blocks + 1, off: z.off, flags: z.Header.Flags}
	var dlen, clen uint32
	if err := z.u32(&dlen); err != nil {
		return false, h.fail(err)
	}
	if dlen == 0 {
		return true, nil
	}
	z.blocks++
	if err := z.u32(&clen); err != nil {
		return false, h.fail(err)
	}
	if dlen > maxBlock || clen > dlen || clen == 0 {
		return false, h.fail(ErrBlock)
	}
	if z.memLimit > 0 && int64(dlen) > z.memLimit {
		return false, h.fail(archive.Limitf("lzop: a block of %d bytes is above the memory limit", dlen))
	}
	h.dlen, h.clen = int(dlen), int(clen)
	f := h.flags
	for _, c := range []struct {
		on  bool
		sum *uint32
	}{
		{f&fAdler32D != 0, &h.dAdler},
		{f&fCRC32D != 0, &h.dCRC},
		{clen < dlen && f&fAdler32C != 0, &h.cAdler},
		{clen < dlen && f&fCRC32C != 0, &h.cCRC},
	} {
		if c.on {
			if err := z.u32(c.sum); err != nil {
				return false, h.fail(err)
			}
		}
	}
	return false, nil
}

// stored reports whether the block's data is stored as it is.
func (h *blockHead) stored() bool { return h.clen == h.dlen }

// check verifies the compressed data in, decompresses it into out (of the
// block's length) and verifies out. A stored block's data is read straight
// into out, and in is out.
func (h *blockHead) check(in, out []byte) error {
	f := h.flags
	if !h.stored() {
		if f&fAdler32C != 0 {
			if err := mismatch(verify.Adler32, h.cAdler, verify.SumAdler32(in)); err != nil {
				return h.fail(err)
			}
		}
		if f&fCRC32C != 0 {
			if err := mismatch(verify.CRC32, h.cCRC, verify.SumCRC32(in)); err != nil {
				return h.fail(err)
			}
		}
		if n, ok := lzo.Decompress1X(out, in); !ok || n != len(out) {
			return h.fail(ErrData)
		}
	}
	if f&fAdler32D != 0 {
		if err := mismatch(verify.Adler32, h.dAdler, verify.SumAdler32(out)); err != nil {
			return h.fail(err)
		}
	}
	if f&fCRC32D != 0 {
		if err := mismatch(verify.CRC32, h.dCRC, verify.SumCRC32(out)); err != nil {
			return h.fail(err)
		}
	}
	return nil
}

// block decodes the next block into z.out here, or ends the member.
func (z *Reader) block() error {
	var h blockHead
	end, err := z.readHead(&h)
	if err != nil {
		return err
	}
	if end {
		return z.nextMember()
	}
	// None of a block cut short or failing its checks goes out: z.out
	// is set only once it passed.
	z.dec = grow(z.dec, h.dlen)
	in := z.dec
	if !h.stored() {
		// Room for any compressed size of blocks this long: the sizes
		// vary from block to block.
		if cap(z.in) < h.clen {
			z.in = make([]byte, h.dlen)
		}
		in = z.in[:h.clen]
	}
	if err := z.full(in); err != nil {
		return h.fail(err)
	}
	if err := h.check(in, z.dec); err != nil {
		return err
	}
	z.out = z.dec
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
