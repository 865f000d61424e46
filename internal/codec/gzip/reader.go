// Package gzip reads gzip files (RFC 1952): every member of a multi-member
// file in turn, each member's CRC32 and ISIZE verified at its end, the
// deflate data decoded by the shared buffered inflater of
// internal/codec/inflate, and a large member's on several goroutines when
// Config.Threads allows (parallel.go).
//
// # Security concerns
//
// Memory is fixed: the inflater's window and buffers, a 40 KiB input
// buffer, and the first header's name, comment (each at most MaxField
// bytes) and extra field (at most 64 KiB); decoding in parallel adds the
// pieces in flight, at most MemoryUse(Threads), which Config.MemLimit
// bounds. The output length is not bounded here: callers limit it as they
// consume it. Work per piece is bounded too (a few candidate block starts,
// a bounded search), so no input makes the parallel decoder loop; its
// output is used only where it joins the sequential truth exactly.
package gzip

import (
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"runtime"

	"github.com/unpack-dev/unpack/internal/codec/inflate"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Config tunes a Reader.
type Config struct {
	// Threads is how many goroutines decode a member at once (0:
	// GOMAXPROCS). With 1, all work happens in the goroutine calling
	// Read; with more, a member past 256 KiB of input goes parallel.
	Threads int
	// MemLimit, when positive, bounds the memory decoding in parallel
	// adds: Threads is lowered until MemoryUse fits, down to 1.
	MemLimit int64
	// After is how many compressed bytes of a member are decoded on one
	// goroutine before the rest goes parallel (0: 256 KiB): a caller that
	// did not ask for threads sets it higher, so that only members long
	// enough to pay for the parallel decode's memory take it.
	After int64
}

// errClosed is returned by Read after Close.
var errClosed = errors.New("gzip: reader closed")

// Reader decompresses a gzip file. Its Header is the first member's.
type Reader struct {
	Header

	threads int
	after   int64     // compressed bytes of a member decoded before it goes parallel
	par     *parallel // the member decoding in parallel, if any
	rest    []byte    // input the parallel decoder read past a member
	wbuf    []byte    // WriteTo's buffer
	slab    *slab     // the parallel decode's memory, kept for the next member
	stats   parStats

	in      input
	inf     *inflate.Inflater
	crc     hash.Hash32
	size    uint32 // decompressed length of the member, mod 2^32
	err     error
	next    Header // headers of later members, read and dropped
	scratch []byte // a name or comment being read
	hdr     [10]byte

	trailOff, trailLen int64 // bytes after the last member that are no member
	out, verified      int64 // bytes given out; of those, covered by checks passed
}

// Verified is how many decompressed bytes, from the start of the stream,
// are covered by member checks (CRC32 and ISIZE) that passed: a reader of
// the data may trust those before the stream ends.
func (z *Reader) Verified() int64 { return z.verified }

// Trailing reports the bytes that followed the last member and were
// neither a member nor zero padding: where they start in the input and how
// many there were (0 when none). gzip(1) ignores them with a warning; so
// does the Reader, which ends with io.EOF after the last member's checks.
func (z *Reader) Trailing() (offset, size int64) { return z.trailOff, z.trailLen }

// NewReader reads the first member header from r and returns a Reader of
// the decompressed data, decoded in the goroutine calling Read.
func NewReader(r io.Reader) (*Reader, error) {
	return NewReaderConfig(r, Config{Threads: 1})
}

// NewReaderConfig is NewReader with a Config.
func NewReaderConfig(r io.Reader, cfg Config) (*Reader, error) {
	z := &Reader{threads: cfg.Threads, after: cfg.After}
	if z.after <= 0 {
		z.after = switchAt
	}
	if z.threads <= 0 {
		z.threads = runtime.GOMAXPROCS(0)
	}
	if cfg.MemLimit > 0 {
		for z.threads > 1 && MemoryUse(z.threads) > cfg.MemLimit {
			z.threads--
		}
	}
	if err := z.Reset(r); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z read a new gzip file from r, keeping its buffers, and
// reads the first member header. Empty input is ErrTruncated.
func (z *Reader) Reset(r io.Reader) error {
	z.stopParallel()
	z.in.reset(r)
	z.trailOff, z.trailLen = 0, 0
	z.out, z.verified = 0, 0
	err := z.readHeader(&z.Header)
	if err == io.EOF {
		err = ErrTruncated
	}
	z.err = err
	if err == nil {
		z.startMember()
	}
	return err
}

// startMember readies the inflater and the checks for a member's data.
func (z *Reader) startMember() {
	if z.inf == nil {
		z.inf = inflate.NewInflater(&z.in, false)
		z.crc = verify.NewCRC32()
	}
	if z.threads > 1 {
		z.inf.ResetAt(&z.in, 0, nil, z.after*8, unbounded)
	} else {
		z.inf.Reset(&z.in)
	}
	z.crc.Reset()
	z.size = 0
}

// goParallel continues the member, its first z.after bytes decoded, in
// parallel; or sequentially when its output is still shorter than the
// window.
func (z *Reader) goParallel() {
	rest, skip := z.inf.Unread()
	z.in.unread(rest)
	win := z.inf.Window()
	if len(win) < inflate.MarkerWindow || z.threads <= 1 {
		z.inf.ResetAt(&z.in, skip, win, -1, 0)
		return
	}
	if z.slab == nil {
		z.slab = new(slab)
	}
	z.par = newParallel(&z.in, z.threads, skip, win, z.crc.Sum32(), z.size, z.inf, z.slab, &z.stats)
}

// Sequential makes z decode on the goroutine calling Read from now on:
// the member being read and the next ones that have not gone parallel
// yet stay sequential (a member already decoding in parallel goes on).
// A caller that finds the data is a tar to extract calls it, leaving the
// cores to the writers.
func (z *Reader) Sequential() { z.threads = 1 }

// stopParallel stops a parallel decode, if any.
func (z *Reader) stopParallel() {
	if z.par != nil {
		z.par.shutdown()
		z.par = nil
	}
}

// Read decompresses into p. At the end of each member it checks the CRC32
// (a *verify.MismatchError) and ISIZE (ErrSize); io.EOF comes after the
// last member has been checked.
func (z *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, z.err
	}
	out, err := z.produce(p)
	if len(out) > 0 && &out[0] != &p[0] {
		copy(p, out)
	}
	return len(out), err
}

// WriteTo writes the decompressed data to w, checking every member as
// Read does. Output decoded in parallel goes to w from the pieces' own
// buffers, without a copy on the goroutine that chains them.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	if z.wbuf == nil {
		z.wbuf = make([]byte, 256<<10)
	}
	var total int64
	for {
		out, err := z.produce(z.wbuf)
		if len(out) > 0 {
			n, werr := w.Write(out)
			total += int64(n)
			if werr == nil && n < len(out) {
				werr = io.ErrShortWrite
			}
			if werr != nil {
				return total, werr
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// produce decompresses the next output, at most len(b) bytes: into b, or
// from the parallel decoder's buffers (valid until the next call).
func (z *Reader) produce(b []byte) ([]byte, error) {
	for z.err == nil {
		if z.par != nil {
			out, err := z.par.give(b)
			if len(out) > 0 {
				z.out += int64(len(out))
				return out, nil
			}
			if err == io.EOF {
				var crc, size uint32
				crc, size, z.rest = z.par.finish(z.rest[:0])
				z.par = nil
				z.in.unread(z.rest)
				z.err = z.endMember(crc, size)
			} else {
				z.stopParallel()
				z.err = z.inputErr(err)
			}
			continue
		}
		n, err := z.inf.Read(b)
		if n > 0 {
			z.crc.Write(b[:n])
			z.size += uint32(n)
			z.out += int64(n)
			return b[:n], nil
		}
		switch {
		case err == nil:
		case err == io.EOF && z.inf.Stopped():
			z.goParallel()
		case err == io.EOF:
			z.in.unread(z.inf.Rest())
			z.err = z.endMember(z.crc.Sum32(), z.size)
		default:
			z.err = z.inputErr(err)
		}
	}
	if z.par == nil && z.slab != nil {
		// The stream ended (or failed): the parallel decode's memory goes
		// back to the kernel; a Reset maps it again when needed.
		z.slab.free()
	}
	return nil, z.err
}

// Close stops the goroutines of a parallel decode, if any, and makes
// further reads fail; it makes Reader an io.ReadCloser like
// compress/gzip's.
func (z *Reader) Close() error {
	z.stopParallel()
	if z.slab != nil {
		z.slab.free()
	}
	if z.err == nil || z.err == io.EOF {
		z.err = errClosed
	}
	return nil
}

// endMember checks the trailer of the member just decoded, whose data had
// CRC-32 crc and length size (mod 2^32), and starts the next member. It
// returns io.EOF after the last one; zero bytes after it (tape padding)
// are skipped.
func (z *Reader) endMember(crc, size uint32) error {
	trailer := z.hdr[:8]
	if err := z.readFull(trailer, nil); err != nil {
		return err
	}
	if want, got := binary.LittleEndian.Uint32(trailer), crc; want != got {
		return &verify.MismatchError{Kind: verify.CRC32,
			Want: binary.BigEndian.AppendUint32(nil, want), Got: binary.BigEndian.AppendUint32(nil, got)}
	}
	if binary.LittleEndian.Uint32(trailer[4:]) != size {
		return ErrSize
	}
	z.verified = z.out
	end := z.in.offset()
	b, err := z.in.readByte()
	switch {
	case err != nil:
		return err // io.EOF: the end
	case b == 0:
		return z.skipZeros(end)
	case b != 0x1f:
		return z.trailing(end)
	}
	if b, err := z.in.readByte(); err != nil || b != 0x8b {
		if err != nil {
			return z.inputErr(err) // a magic cut short, as gzip(1) sees it
		}
		return z.trailing(end)
	}
	z.in.unread([]byte{0x1f, 0x8b}) // the magic, back for readHeader
	if err := z.readHeader(&z.next); err != nil {
		return err
	}
	z.startMember()
	return nil
}

// skipZeros consumes zero padding up to the end of the input; anything
// else after the member at end is trailing data.
func (z *Reader) skipZeros(end int64) error {
	for {
		b, err := z.in.readByte()
		if err != nil {
			return err
		}
		if b != 0 {
			return z.trailing(end)
		}
	}
}

// trailing reads the rest of the input, recording it as trailing data from
// offset end, and ends the stream.
func (z *Reader) trailing(end int64) error {
	if _, err := z.in.drain(); err != nil {
		return z.inputErr(err)
	}
	z.trailOff, z.trailLen = end, z.in.n-end
	return io.EOF
}
