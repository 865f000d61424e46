// Package xz reads the .xz container format (file format version 1.2.1,
// https://tukaani.org/xz/xz-file-format.txt): concatenated streams with
// stream padding, blocks with every header field, filter chains of up to
// four filters (LZMA2 last; delta and the BCJ filters of internal/bcj
// before it), the None, CRC32, CRC64 and SHA-256 checks, and the index,
// which is compared with the blocks actually read.
//
// Blocks whose headers carry both sizes (what xz -T and pixz write) are
// decoded on several goroutines with the output kept in order.
//
// # Security concerns
//
// A file names its own dictionary size (up to 4 GiB) and block sizes (up to
// 2^63 bytes). Dictionaries beyond Config.MemLimit are refused before any
// allocation with a *LimitError; parallel decoding keeps the buffers of the
// blocks in flight within the same limit and falls back to streaming for a
// block that would not fit. Every size a header declares is checked against
// what the data produces.
package xz

import (
	"fmt"
	"io"
	"runtime"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Config tunes a Reader. The zero value is usable.
type Config struct {
	// MemLimit bounds the dictionary of a block and the buffers of the
	// blocks decoded in parallel (0: archive.DefaultMemLimit).
	MemLimit int64
	// Threads is how many blocks may be decoded at once (0: GOMAXPROCS).
	Threads int
	// Warn receives non-fatal warnings, such as a check type this decoder
	// cannot verify. Nil discards them.
	Warn func(string)
}

func (c Config) limit() int64 {
	if c.MemLimit <= 0 {
		return archive.DefaultMemLimit
	}
	return c.MemLimit
}

func (c Config) threads() int {
	if c.Threads <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return c.Threads
}

// Reader decompresses an xz file: the concatenation of all its streams,
// each block's check and each stream's index verified. Errors are of the
// archive categories (ErrCorrupt, ErrUnsupported, ErrLimit) or a
// *verify.MismatchError for a check that does not match.
type Reader struct {
	cfg     Config
	in      input
	chk     checker
	flags   [2]byte
	streams int64   // streams started
	blocks  int64   // blocks started in the file, for messages
	read    records // blocks of the current stream
	blk     blockReader
	inBlock bool
	par     parallel
	pending item        // what was read ahead of the parallel decoder
	hdr     blockHeader // the block header of a pending item
	buf     [maxHeader]byte
	err     error

	out, verified int64 // bytes given out; of those, covered by block checks passed
}

// Verified is how many decompressed bytes, from the start of the file,
// are covered by block checks that passed: a reader of the data may trust
// those before the file ends. (A block of check type None counts as
// checked at its end.)
func (z *Reader) Verified() int64 { return z.verified }

// NewReader returns a Reader of the xz file r. It reads and checks the
// first stream header before returning.
func NewReader(r io.Reader, cfg Config) (*Reader, error) {
	z := &Reader{}
	if err := z.Reset(r, cfg); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z read a new xz file from r, keeping its buffers.
func (z *Reader) Reset(r io.Reader, cfg Config) error {
	z.par.drain()
	z.cfg = cfg
	z.in.reset(r)
	z.streams, z.blocks, z.inBlock, z.pending, z.err = 0, 0, false, itemNone, nil
	z.out, z.verified = 0, 0
	z.par.init(cfg.threads(), cfg.limit())
	h := z.buf[:headerLen]
	if err := z.in.readFull(h); err != nil {
		if err == io.EOF {
			err = errTruncated
		}
		z.err = err
		return err
	}
	if err := z.startStream(h); err != nil {
		z.err = err
		return err
	}
	return nil
}

// Close releases the Reader's buffers. Blocks still being decoded in the
// background finish on their own. The underlying reader is not closed.
func (z *Reader) Close() error {
	z.par.drain()
	z.par.free = nil
	z.blk.close()
	if z.err == nil {
		z.err = errClosed
	}
	return nil
}

var errClosed = fmt.Errorf("xz: read after Close")

func (z *Reader) startStream(h []byte) error {
	flags, err := parseStreamHeader(h)
	if err != nil {
		if err == ErrHeaderMagic && z.streams > 0 {
			return ErrTrailing
		}
		return err
	}
	z.flags = flags
	z.streams++
	z.read = records{}
	z.chk.setID(flags[1])
	if !z.chk.known && z.cfg.Warn != nil {
		z.cfg.Warn(fmt.Sprintf("xz: stream %d: check type %d is not supported; its data is not verified", z.streams, flags[1]))
	}
	return nil
}

// item is what comes next in a stream.
type item uint8

const (
	itemNone   item = iota // nothing read ahead
	itemHeader             // a block header, in z.hdr
	itemIndex              // the index indicator
)

// Read implements io.Reader.
func (z *Reader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := z.step(p)
		if err != nil {
			z.err = err
			return n, err
		}
		if n > 0 {
			return n, nil
		}
	}
}

// WriteTo implements io.WriterTo: it writes the rest of the decompressed
// data to w straight from the decoders' buffers (the LZMA2 window, the
// filter buffer, a parallel block's output) instead of copying it into a
// caller's buffer first, and returns the bytes written. Errors are those
// Read returns, or w's; after WriteTo, Read returns the same error (or
// io.EOF).
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for z.err == nil {
		b, err := z.next()
		if len(b) > 0 {
			n, werr := w.Write(b)
			total += int64(n)
			if werr == nil && n < len(b) {
				werr = io.ErrShortWrite
			}
			if werr != nil {
				z.err = werr
				return total, werr
			}
		}
		if err != nil {
			z.err = err
		}
	}
	if z.err == io.EOF {
		return total, nil
	}
	return total, z.err
}

// step makes progress: it delivers data into p or moves to the next part
// of the file.
func (z *Reader) step(p []byte) (int, error) {
	if z.inBlock {
		n, err := z.blk.read(p)
		z.chk.write(p[:n])
		z.out += int64(n)
		if err == io.EOF {
			z.inBlock = false
			if err = z.endBlock(); err == nil {
				z.verified = z.out
			}
		}
		return n, err
	}
	if z.par.busy() {
		if err := z.feed(); err != nil {
			return 0, err
		}
		n, err := z.par.read(p)
		z.out += int64(n)
		if err == nil {
			z.verified = z.out // a parallel block is checked before it is read
		}
		return n, err
	}
	return 0, z.advance()
}

// next is step for WriteTo: it returns data from a decoder's buffer, valid
// until the next call, or moves to the next part of the file.
func (z *Reader) next() ([]byte, error) {
	if z.inBlock {
		b, err := z.blk.next()
		z.chk.write(b)
		z.out += int64(len(b))
		if err == io.EOF {
			z.inBlock = false
			if err = z.endBlock(); err == nil {
				z.verified = z.out
			}
		}
		return b, err
	}
	if z.par.busy() {
		if err := z.feed(); err != nil {
			return nil, err
		}
		b, err := z.par.next()
		z.out += int64(len(b))
		if err == nil {
			z.verified = z.out
		}
		return b, err
	}
	return nil, z.advance()
}

// advance moves past what comes next between blocks: it starts a block,
// streamed or in parallel, or ends the stream.
func (z *Reader) advance() error {
	if z.pending == itemNone {
		it, err := z.readItem()
		if err != nil {
			return err
		}
		z.pending = it
	}
	it := z.pending
	z.pending = itemNone
	if it == itemIndex {
		return z.endStream()
	}
	if z.par.take(&z.hdr) {
		return z.dispatch()
	}
	return z.startBlock()
}

// feed reads blocks ahead for the parallel decoder while it has room.
func (z *Reader) feed() error {
	for z.pending == itemNone && z.par.room() {
		it, err := z.readItem()
		if err != nil {
			return err
		}
		z.pending = it
		if it == itemHeader && z.par.take(&z.hdr) {
			z.pending = itemNone
			if err := z.dispatch(); err != nil {
				return err
			}
		}
	}
	return nil
}

// readItem reads the next block header (into z.hdr) or the index indicator.
func (z *Reader) readItem() (item, error) {
	c, err := z.in.ReadByte()
	if err != nil {
		if err == io.EOF {
			err = errTruncated
		}
		return itemNone, err
	}
	if c == 0 {
		return itemIndex, nil
	}
	n := (int(c) + 1) * 4
	h := z.buf[:n]
	h[0] = c
	if err := z.in.readFull(h[1:]); err != nil {
		if err == io.EOF {
			err = errTruncated
		}
		return itemNone, err
	}
	if err := z.hdr.parse(h, z.chk.size); err != nil {
		return itemNone, err
	}
	return itemHeader, nil
}

// checkDict refuses a dictionary beyond the memory limit.
func (z *Reader) checkDict(h *blockHeader) error {
	if d := dictFor(h); d > z.cfg.limit() {
		return &LimitError{Need: d, Limit: z.cfg.limit()}
	}
	return nil
}

// startBlock starts streaming the block in z.hdr.
func (z *Reader) startBlock() error {
	if err := z.checkDict(&z.hdr); err != nil {
		return err
	}
	z.blocks++
	z.chk.reset()
	if err := z.blk.start(&z.in, &z.hdr, z.blocks); err != nil {
		return err
	}
	z.inBlock = true
	return nil
}

// endBlock reads a streamed block's padding and check and records it.
func (z *Reader) endBlock() error {
	unpadded, err := z.blk.finish()
	if err != nil {
		return err
	}
	pad := int(-unpadded & 3)
	tail := z.buf[:pad+z.chk.size]
	if err := z.in.readFull(tail); err != nil {
		if err == io.EOF {
			err = errTruncated
		}
		return err
	}
	for _, c := range tail[:pad] {
		if c != 0 {
			return ErrPadding
		}
	}
	if err := z.chk.verify(tail[pad:]); err != nil {
		return err
	}
	return z.read.add(unpadded+uint64(z.chk.size), uint64(z.blk.out))
}

// dispatch reads the compressed data of the block in z.hdr and hands it to
// the parallel decoder.
func (z *Reader) dispatch() error {
	if err := z.checkDict(&z.hdr); err != nil {
		return err
	}
	z.blocks++
	h := &z.hdr
	unpadded := uint64(h.size) + uint64(h.compSize) + uint64(z.chk.size)
	if err := z.read.add(unpadded, uint64(h.uncompSize)); err != nil {
		return err
	}
	pad := int(-(uint64(h.size) + uint64(h.compSize)) & 3)
	j := z.par.job(h, z.blocks, z.flags[1], z.chk.size, pad)
	if err := j.fill(&z.in); err != nil {
		z.par.release(j)
		return err
	}
	z.par.start(j)
	return nil
}

// endStream reads the index (its indicator already read), the stream
// footer, the stream padding and the next stream's header. It returns
// io.EOF at the end of the file.
func (z *Reader) endStream() error {
	size, err := z.readIndex()
	if err != nil {
		return err
	}
	f := z.buf[:headerLen]
	if err := z.in.readFull(f); err != nil {
		if err == io.EOF {
			err = errTruncated
		}
		return err
	}
	flags, backward, err := parseStreamFooter(f)
	if err != nil {
		return err
	}
	if flags != z.flags {
		return ErrFlagsMismatch
	}
	if backward != size {
		return ErrBackwardSize
	}
	// Stream padding: null bytes in groups of four, then the end of the
	// file or another stream.
	for {
		w := z.buf[:4]
		if err := z.in.readFull(w); err != nil {
			if err == io.EOF {
				return io.EOF
			}
			if err == errTruncated {
				return ErrPadding
			}
			return err
		}
		if w[0]|w[1]|w[2]|w[3] != 0 {
			break
		}
	}
	h := z.buf[:headerLen]
	if err := z.in.readFull(h[4:]); err != nil {
		if err == io.EOF || err == errTruncated {
			return ErrTrailing
		}
		return err
	}
	return z.startStream(h)
}
