// Package brotli decodes the Brotli compressed data format of RFC 7932
// (July 2016).
//
// A Reader decodes one stream into a window buffer sized by the stream's
// window (or, for a stream whose first data meta-block is its last, by
// that meta-block's length) and serves the output from there: Read
// copies it out, WriteTo writes it straight from the buffer. The
// large-window variant (window bits above 24, not RFC 7932) is refused
// with ErrLargeWindow; bytes after the end of the stream are ErrTrailing,
// as `brotli -d` has it.
//
// # Security concerns
//
// The window buffer is the one allocation that grows with the input: at
// most 16 MiB plus a few hundred bytes (and up to 2 MiB of address space,
// never touched, to align it on huge pages), refused with ErrLimit when it
// would exceed Config.MemLimit. The prefix code tables and context maps
// are bounded by the format (the tables under 3 MiB, in a buffer grown by
// doubling: at most 6 MiB) and reused across meta-blocks and Reset. Every loop is bounded by a meta-block's length or consumes input,
// and input past the end is an error, so no stream makes the decoder hang.
package brotli

import (
	"io"

	"github.com/unpack-dev/unpack/internal/hugemem"
)

// Config tunes a Reader. The zero value is ready to use.
type Config struct {
	// MemLimit bounds the window buffer in bytes (0: no limit beyond
	// the format's 16 MiB).
	MemLimit int64
}

// Decoder states between calls.
const (
	stMetaHeader   = iota // next: a meta-block header
	stCompressed          // inside a compressed meta-block
	stUncompressed        // inside an uncompressed meta-block
	stDone                // the stream ended
)

// Command states inside a compressed meta-block, where decoding stopped
// because the window buffer was full.
const (
	cmdNext   = iota // next: an insert-and-copy command
	cmdInsert        // inserting literals, then the distance
	cmdCopy          // copying from the window
	cmdWord          // writing a transformed dictionary word
)

// ringSlack is how far past the end of the window buffer copies may
// write: 16-byte copies overrun their end by up to 15 bytes.
const ringSlack = 32

// A Reader decodes a brotli stream. Create it with NewReader, or use the
// zero value after Reset.
type Reader struct {
	cfg   Config
	br    bitReader
	err   error
	state int
	wbits uint

	// The window buffer: ring[:rsize] holds the last rsize bytes of
	// output, ring[rpos:pos] those not yet delivered. Decoding stops when
	// pos reaches rsize; once that is delivered, writing starts over at 0.
	ring    []byte
	rsize   int
	pos     int
	rpos    int
	wrapped bool // writing started over at least once
	window  int  // the largest distance: (1 << wbits) - 16

	// The current meta-block.
	last      bool
	remaining int // bytes still to produce

	// Command state, where decoding stopped.
	cmd      int
	insert   int  // literals still to insert
	copyLen  int  // the command's copy length, then bytes still to copy
	distZero bool // the command uses the last distance implicitly
	dist     int  // the distance being copied
	dists    [4]int
	distIdx  int // dists[distIdx&3] is the last distance
	word     [maxWord]byte
	wordPos  int
	wordEnd  int

	// Block switching for literals, commands and distances.
	nbl    [3]int
	btype  [3]int
	btPrev [3]int
	bcount [3]int
	btTab  [3]int // offsets in tabs of the block type codes
	bcTab  [3]int // and of the block count codes

	npostfix uint
	ndirect  int
	modes    [256]uint8
	cmapL    []uint8
	cmapD    []uint8

	// Prefix code tables, as offsets in tabs.
	tabs     []uint32
	used     int
	litTrees [256]int32
	// litTrivial[t] is the literal code's offset when literal block
	// type t uses one code in every context, else -1.
	litTrivial [256]int32
	// ctxOff[c] is the literal code's offset for context c of literal
	// block type ctxOffType (-1: not computed in this meta-block).
	ctxOff     [64]int32
	ctxOffType int
	cmdTrees   [256]int32
	distTrees  [256]int32
	clTab      [1 << rootBits]uint32
	lens       [maxAlphabet]uint8

	// Commands the fast loop holds back (see seq).
	seqs    [seqCap]seq
	litBuf  [litBufSize + 16]byte // and their literals, with room to copy 16 at a time
	touched byte                  // keeps runSeqs' early loads

	cmapLBuf [64 * 256]uint8
	cmapDBuf [4 * 256]uint8
}

// NewReader returns a Reader of the brotli stream r. It reads the stream
// header.
func NewReader(r io.Reader, cfg Config) (*Reader, error) {
	z := &Reader{cfg: cfg}
	if err := z.Reset(r); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z read the stream r, keeping its buffers and Config, and
// reads the stream header.
func (z *Reader) Reset(r io.Reader) error {
	z.br.reset(r)
	z.err = nil
	z.state = stMetaHeader
	z.pos, z.rpos, z.rsize, z.wrapped = 0, 0, 0, false
	z.cmd = cmdNext
	z.dists = [4]int{16, 15, 11, 4}
	z.distIdx = 3
	z.br.refill()
	z.wbits, z.err = z.br.readWindowBits()
	if z.err == nil && z.br.overrun() {
		z.err = ErrTruncated
	}
	z.err = z.settle(z.err)
	z.window = 1<<z.wbits - 16
	return z.err
}

// SetConfig changes the Config used from the next Reset on.
func (z *Reader) SetConfig(cfg Config) { z.cfg = cfg }

// Read reads decompressed bytes into p.
func (z *Reader) Read(p []byte) (int, error) {
	for {
		if z.rpos < z.pos {
			n := copy(p, z.ring[z.rpos:z.pos])
			z.rpos += n
			return n, nil
		}
		if z.err != nil {
			return 0, z.err
		}
		if len(p) == 0 {
			return 0, nil
		}
		z.decode()
	}
}

// WriteTo writes the decompressed bytes to w, straight from the window
// buffer.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if z.rpos < z.pos {
			n, err := w.Write(z.ring[z.rpos:z.pos])
			z.rpos += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			continue
		}
		if z.err != nil {
			if z.err == io.EOF {
				return total, nil
			}
			return total, z.err
		}
		z.decode()
	}
}

// decode decodes until the window buffer is full, the stream ends (z.err
// becomes io.EOF) or an error, which it leaves in z.err. All output so far
// must have been delivered.
func (z *Reader) decode() {
	if z.rsize > 0 && z.pos == z.rsize {
		z.pos, z.rpos, z.wrapped = 0, 0, true
	}
	for z.err == nil {
		switch z.state {
		case stMetaHeader:
			z.err = z.metaBlock()
		case stCompressed:
			var full bool
			full, z.err = z.commands()
			if z.err == nil && !full {
				z.endMetaBlock()
			}
			if full {
				return
			}
		case stUncompressed:
			z.err = z.uncompressed()
			if z.err == nil && z.remaining == 0 {
				z.endMetaBlock()
			}
			if z.pos == z.rsize {
				return
			}
		case stDone:
			z.err = z.finish()
		}
	}
	z.err = z.settle(z.err)
}

// settle returns the error to report for err, which ended decoding: an
// error reading the input (the decoder went on with zeros) or, if bits
// past the end of the input were used, ErrTruncated, since those zeros
// can look like any kind of corruption.
func (z *Reader) settle(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	if e := z.br.err; e != nil && e != ErrTruncated {
		return e
	}
	if z.br.overrun() {
		return ErrTruncated
	}
	return err
}

// endMetaBlock moves on after a meta-block.
func (z *Reader) endMetaBlock() {
	if z.last {
		z.state = stDone
	} else {
		z.state = stMetaHeader
	}
}

// metaBlock reads a meta-block header and, for a compressed meta-block,
// the rest of its header; it skips metadata.
func (z *Reader) metaBlock() error {
	kind, err := z.readMetaBlockHeader()
	if err == nil {
		err = z.br.err
	}
	if err != nil {
		return err
	}
	switch kind {
	case mbLastEmpty:
		z.state = stDone
		return nil
	case mbMetadata:
		z.endMetaBlock()
		return z.br.skipBytes(z.remaining)
	}
	if err := z.allocRing(); err != nil {
		return err
	}
	if kind == mbUncompressed {
		z.state = stUncompressed
		return nil
	}
	if err := z.readCompressedHeader(); err != nil {
		return err
	}
	z.state = stCompressed
	z.cmd = cmdNext
	return nil
}

// allocRing sizes the window buffer at the first meta-block with data:
// the window, or less when that meta-block is the last and shorter.
func (z *Reader) allocRing() error {
	if z.rsize != 0 {
		return nil
	}
	size := 1 << z.wbits
	if z.last {
		for size >= 2048 && size/2 >= z.remaining {
			size /= 2
		}
	}
	need := size + ringSlack
	if z.cfg.MemLimit > 0 && int64(need) > z.cfg.MemLimit {
		return ErrLimit
	}
	if cap(z.ring) < need {
		// Copies reach anywhere in a window of up to 16 MiB: huge pages
		// spare most of their TLB misses and page faults. Aligned puts
		// all of it on them (Bytes left up to 2 MiB at each end on base
		// pages: some 500 more page faults for a 16 MiB window); the up
		// to 2 MiB it allocates to align are never touched.
		z.ring = hugemem.Aligned(need)
	}
	z.ring = z.ring[:need]
	z.rsize = size
	return nil
}

// uncompressed copies an uncompressed meta-block's bytes into the window
// buffer, up to its end.
func (z *Reader) uncompressed() error {
	n := min(z.remaining, z.rsize-z.pos)
	if err := z.br.readBytes(z.ring[z.pos : z.pos+n]); err != nil {
		return err
	}
	z.pos += n
	z.remaining -= n
	return nil
}

// finish checks the end of the stream: zero fill bits, no input used
// past the end, no input left.
func (z *Reader) finish() error {
	br := &z.br
	if err := br.alignZero(); err != nil {
		return err
	}
	if br.err != nil {
		return br.err
	}
	if br.overrun() {
		return ErrTruncated
	}
	if br.trailing() {
		return ErrTrailing
	}
	if br.err != nil {
		return br.err
	}
	return io.EOF
}
