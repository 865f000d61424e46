// Package bzip2 decodes bzip2 streams (the format of bzip2 0.9.5 to 1.0.8,
// also written by lbzip2, pbzip2 and 7-Zip), in parallel across blocks.
//
// The format has no written specification beyond the reference
// implementation (bzip2 1.0.8, decompress.c); this decoder follows its
// semantics: concatenated streams are one output, every block CRC and
// every stream's combined CRC is checked, randomised blocks (bzip2 0.9.0)
// are supported, and selectors beyond 18002 are read and ignored.
//
// Blocks are found by scanning for the 48-bit block magic at every bit
// position and decoded by Config.Threads workers; a block's output is used
// only when the block starts exactly where the previous one ended, so a
// magic occurring by chance inside compressed data is harmless. The
// inverse BWT of each block walks several segments of the block at once,
// overlapping their chains of cache misses (see lanesWalk).
//
// # Security concerns
//
// Memory is bounded and sized by the streams' declared block size: each
// worker holds the BWT arrays of a block (5 bytes per block symbol, 5 MB
// at level 9 with the link table rounded to whole huge pages), and each of
// the 2*Threads+2 blocks in flight (1 with one thread) its compressed
// window (at most about 2.3 MB, usually under 1 MB), its BWT output (up to
// 900 kB) and up to 2 MiB of expanded output; a block that expands further
// (long runs: up to 46 MB) is expanded again as it is read instead of
// being held. Config.MemLimit lowers the thread count to fit (MemoryUse
// gives the estimate). Work per block is bounded by the format's limits
// (18002 selectors of 50 symbols, an inverse BWT of at most two walks of
// the block), so no input makes the decoder loop.
package bzip2

import (
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Config tunes a Reader. The zero value is valid.
type Config struct {
	// Threads is how many blocks are decoded at once (0: GOMAXPROCS).
	// With 1, all work happens in the goroutine calling Read.
	Threads int
	// MemLimit, when positive, bounds the decoder's memory in bytes:
	// Threads is lowered until MemoryUse fits, and NewReader fails with
	// an error that errors.Is archive.ErrLimit when one thread does not.
	MemLimit int64
}

// MemoryUse estimates the most memory a Reader with the given thread
// count holds, for streams of the largest block size (level 9).
func MemoryUse(threads int) int64 {
	worker := maxBlockSize + walkSlack + linksSize() // last column (and scratch), tt
	const (
		block = maxBlockBits/8 + maxBlockSize + outCap // window, BWT output, expanded output
		input = maxBlockBits/8 + readChunk             // buffered input per block in flight
	)
	jobs := int64(1)
	if threads > 1 {
		jobs = 2*int64(threads) + 2
	}
	return int64(threads)*worker + jobs*(block+input)
}

// errClosed is returned by Read after Close.
var errClosed = errors.New("bzip2: reader closed")

const readChunk = 1 << 18 // input is read in pieces of this size

// Reader decompresses a bzip2 file (one or more concatenated streams).
type Reader struct {
	r       io.Reader
	threads int

	// Input. buf[0] is byte base of the input; dataEnd is set at EOF.
	buf  []byte
	base int64
	eof  bool

	expected  int64  // absolute bit position of the next block or end-of-stream magic
	level     int    // the current stream's block size, in 100 kB
	streamCRC uint32 // combined CRC of the current stream's blocks so far
	given     int64  // bytes given out

	// Scanner and dispatch (Threads > 1).
	cands      []int64 // magic positions (see scanMagics), ascending, from ci on unused
	ci         int
	scanned    int64 // absolute byte offset where scanning resumes
	dispatched int64 // bit position of the last block handed to the workers

	jobs    []*job
	free    []*job
	queue   []*job // handed to workers, in input order
	work    chan *job
	wg      sync.WaitGroup
	decs    []*blockDecoder
	running bool

	cur *job // the block being read out
	err error

	trailOff, trailLen int64 // bytes after the last stream that are no stream
}

// Trailing reports the bytes that followed the last stream and were no
// stream: where they start in the input and how many there were (0 when
// none). bzip2(1) ignores them with a warning; so does the Reader, which
// ends with io.EOF after the last stream's checks.
func (z *Reader) Trailing() (offset, size int64) { return z.trailOff, z.trailLen }

// trailing reads the rest of the input after the stream that ended at
// z.expected, recording it as trailing data, and ends the input; the start
// of a stream header cut short is ErrTruncated instead.
func (z *Reader) trailing() error {
	start := z.expected / 8
	rest := z.buf[start-z.base:]
	if z.eof && len(rest) < 4 && string(rest) == "BZh"[:len(rest)] {
		return ErrTruncated
	}
	n := int64(len(rest))
	if !z.eof {
		m, err := io.Copy(io.Discard, z.r)
		if err != nil {
			return err
		}
		n += m
		z.eof = true
	}
	z.trailOff, z.trailLen = start, n
	return io.EOF
}

// NewReader returns a Reader decompressing r. It reads and checks the
// first stream header. Close stops the decoder's goroutines (they also
// stop by themselves at the end of the input or on an error).
func NewReader(r io.Reader, cfg Config) (*Reader, error) {
	threads := cfg.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if cfg.MemLimit > 0 {
		for threads > 1 && MemoryUse(threads) > cfg.MemLimit {
			threads--
		}
		if need := MemoryUse(1); need > cfg.MemLimit {
			return nil, archive.Limitf("bzip2: decoding needs %d MiB of memory, the limit is %d MiB",
				need>>20, cfg.MemLimit>>20)
		}
	}
	z := &Reader{threads: threads}
	if err := z.Reset(r); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z decompress r, reusing its buffers, and reads the first
// stream header.
func (z *Reader) Reset(r io.Reader) error {
	z.stop()
	z.r = r
	z.buf = z.buf[:0]
	z.base, z.eof = 0, false
	z.cands, z.ci, z.scanned, z.dispatched = z.cands[:0], 0, 0, -1
	z.cur, z.err = nil, nil
	z.trailOff, z.trailLen = 0, 0
	z.given = 0
	if len(z.jobs) == 0 {
		n := 1
		if z.threads > 1 {
			n = 2*z.threads + 2 // the reader's, the workers' and as many queued
		}
		for range n {
			z.jobs = append(z.jobs, newJob())
		}
	}
	z.free = append(z.free[:0], z.jobs...)
	z.queue = z.queue[:0]
	z.expected = 0
	if err := z.streamHeader(); err != nil {
		z.err = err
		return err
	}
	return nil
}

// Close stops the decoder's goroutines and makes further reads fail.
func (z *Reader) Close() error {
	z.stop()
	if z.err == nil || z.err == io.EOF {
		z.err = errClosed
	}
	return nil
}

// Verified is how many decompressed bytes, from the start of the stream,
// are covered by block CRCs that passed: all that were given out, as a
// block is checked before its first byte is.
func (z *Reader) Verified() int64 { return z.given }

// Read implements io.Reader. At the end of the input it returns io.EOF
// after every CRC has been checked.
func (z *Reader) Read(p []byte) (int, error) {
	for {
		if z.cur != nil {
			if n := z.cur.read(p); n > 0 || len(p) == 0 {
				z.given += int64(n)
				return n, nil
			}
			if !z.cur.drained() {
				return 0, nil
			}
			z.free = append(z.free, z.cur)
			z.cur = nil
		}
		if z.err != nil {
			return 0, z.err
		}
		if err := z.advance(); err != nil {
			z.err = err
			z.stop()
		}
	}
}

// WriteTo implements io.WriterTo: it writes the rest of the decompressed
// data to w straight from each block's output buffer, instead of copying
// it into a caller's buffer first, and returns the bytes written. Errors
// are those Read returns, or w's; after WriteTo, Read returns the same
// error (or io.EOF).
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if z.cur != nil {
			if b := z.cur.chunk(); len(b) > 0 {
				n, err := w.Write(b)
				total += int64(n)
				z.given += int64(n)
				if err == nil && n < len(b) {
					err = io.ErrShortWrite
				}
				if err != nil {
					z.free = append(z.free, z.cur)
					z.cur, z.err = nil, err
					z.stop()
					return total, err
				}
				continue
			}
			z.free = append(z.free, z.cur)
			z.cur = nil
		}
		if z.err == io.EOF {
			return total, nil
		}
		if z.err != nil {
			return total, z.err
		}
		if err := z.advance(); err != nil {
			z.err = err
			z.stop()
		}
	}
}

// streamHeader checks "BZh1".."BZh9" at z.expected (byte aligned) and
// starts a stream there.
func (z *Reader) streamHeader() error {
	at := z.expected / 8
	if err := z.ensure(at + 4); err != nil {
		return err
	}
	if z.buffered() < at+4 {
		return ErrHeader
	}
	h := z.buf[at-z.base:]
	if h[0] != 'B' || h[1] != 'Z' || h[2] != 'h' || h[3] < '1' || h[3] > '9' {
		return ErrHeader
	}
	z.level = int(h[3] - '0')
	z.streamCRC = 0
	z.expected += 32
	return nil
}

// advance moves to the next block, crossing end-of-stream markers and
// stream headers, and makes it z.cur; io.EOF at the end of the input.
func (z *Reader) advance() error {
	for {
		pos := z.expected
		if err := z.ensure((pos + 48 + 7) / 8); err != nil {
			return err
		}
		if z.buffered()*8 < pos+48 {
			return ErrTruncated
		}
		switch z.bitsAt(pos, 48) {
		case blockMagic:
			j, err := z.block(pos)
			if err != nil {
				return err
			}
			if len(j.pre) > z.level*100000 {
				z.free = append(z.free, j)
				return ErrBlock
			}
			z.streamCRC = (z.streamCRC<<1 | z.streamCRC>>31) ^ j.crc
			z.expected = j.end
			z.cur = j
			z.trim()
			return nil
		case eosMagic:
			if err := z.ensure((pos + 80 + 7) / 8); err != nil {
				return err
			}
			if z.buffered()*8 < pos+80 {
				return ErrTruncated
			}
			if stored := uint32(z.bitsAt(pos+48, 32)); stored != z.streamCRC {
				return crcMismatch(true, pos/8, stored, z.streamCRC)
			}
			z.expected = (pos + 80 + 7) &^ 7
			if err := z.ensure(z.expected/8 + 1); err != nil {
				return err
			}
			if z.buffered() == z.expected/8 {
				return io.EOF
			}
			if err := z.streamHeader(); err != nil {
				if err == ErrHeader {
					return z.trailing()
				}
				return err
			}
		default:
			return ErrMagic
		}
	}
}

// block returns the decoded block whose magic is at bit pos.
func (z *Reader) block(pos int64) (*job, error) {
	if z.threads <= 1 {
		return z.blockSeq(pos)
	}
	for {
		if err := z.dispatch(); err != nil {
			return nil, err
		}
		if len(z.queue) == 0 {
			return nil, ErrMagic // unreachable: pos holds a block magic, so it is a candidate
		}
		j := z.queue[0]
		n := copy(z.queue, z.queue[1:]) // a few entries; keeps the backing array
		z.queue = z.queue[:n]
		<-j.done
		switch {
		case j.start < pos:
			z.free = append(z.free, j) // a false match inside an earlier block
			continue
		case j.start > pos:
			z.free = append(z.free, j)
			return nil, ErrMagic
		case j.needMore, j.tooBig && j.maxBlock < z.level*100000:
			// The window ended at a false match, or the block was guessed
			// to be in a stream of smaller blocks: decode again with the
			// largest window the block can need.
			if err := z.window(j, pos, -1, true); err != nil {
				z.free = append(z.free, j)
				return nil, err
			}
			z.work <- j
			<-j.done
		}
		return z.result(j)
	}
}

// blockSeq decodes the block at pos in the calling goroutine.
func (z *Reader) blockSeq(pos int64) (*job, error) {
	if len(z.decs) == 0 {
		z.decs = append(z.decs, new(blockDecoder))
	}
	j := z.free[len(z.free)-1]
	z.free = z.free[:len(z.free)-1]
	if err := z.window(j, pos, -1, false); err != nil {
		z.free = append(z.free, j)
		return nil, err
	}
	j.run(z.decs[0])
	return z.result(j)
}

func (z *Reader) result(j *job) (*job, error) {
	if j.err != nil {
		err := j.err
		z.free = append(z.free, j)
		return nil, err
	}
	return j, nil
}

// window sets j up to decode the block at bit pos, with a window ending at
// bit end, or (end < 0) at the input's end or the longest a block can be.
// copyIn copies the input (for a worker); otherwise j.in aliases z.buf.
func (z *Reader) window(j *job, pos, end int64, copyIn bool) error {
	j.final, j.atEOF = false, false
	if end < 0 {
		end = pos + maxBlockBits
		if err := z.ensure((end + 7) / 8); err != nil {
			return err
		}
		j.final = true
	}
	if avail := z.buffered() * 8; end >= avail && z.eof {
		end, j.atEOF, j.final = avail, true, true
	}
	if end > pos+maxBlockBits {
		end, j.final = pos+maxBlockBits, true
	}
	from, to := pos/8-z.base, (end+7)/8-z.base
	if copyIn {
		j.in = append(j.in[:0], z.buf[from:to]...)
	} else {
		j.in = z.buf[from:to]
	}
	j.shift = uint(pos % 8)
	j.limitBits = end - pos
	j.start = pos
	j.maxBlock = z.level * 100000
	j.err, j.needMore, j.expanded = nil, false, false
	return nil
}

// dispatch hands blocks to the workers until every job is in use or the
// input is exhausted, reading and scanning input as needed.
func (z *Reader) dispatch() error {
	if !z.running {
		z.start()
	}
	for len(z.free) > 0 {
		for z.ci < len(z.cands) && (z.cands[z.ci]/2 < z.expected || z.cands[z.ci]/2 <= z.dispatched) {
			z.ci++
		}
		k := z.ci
		for k < len(z.cands) && z.cands[k]&1 != 0 {
			k++
		}
		if k == len(z.cands) {
			if z.eof && z.scanned >= z.buffered()-6 {
				return nil
			}
			if err := z.more(); err != nil {
				return err
			}
			continue
		}
		pos, end := z.cands[k]/2, int64(-1)
		if k+1 < len(z.cands) {
			end = z.cands[k+1] / 2
		} else if !z.eof && z.buffered()*8 < pos+maxBlockBits {
			if err := z.more(); err != nil {
				return err
			}
			continue
		}
		j := z.free[len(z.free)-1]
		z.free = z.free[:len(z.free)-1]
		if err := z.window(j, pos, end, true); err != nil {
			return err
		}
		z.dispatched = pos
		z.queue = append(z.queue, j)
		z.work <- j
	}
	return nil
}

// start launches the workers.
func (z *Reader) start() {
	for len(z.decs) < z.threads {
		z.decs = append(z.decs, new(blockDecoder))
	}
	z.work = make(chan *job, len(z.jobs))
	z.running = true
	for i := range z.threads {
		z.wg.Add(1)
		go func(d *blockDecoder, work <-chan *job) {
			defer z.wg.Done()
			for j := range work {
				j.run(d)
				j.done <- struct{}{}
			}
		}(z.decs[i], z.work)
	}
}

// stop ends the workers after they finish what they hold, and takes back
// every job.
func (z *Reader) stop() {
	if !z.running {
		return
	}
	close(z.work)
	z.wg.Wait()
	z.running = false
	for _, j := range z.queue {
		<-j.done
		z.free = append(z.free, j)
	}
	z.queue = z.queue[:0]
}

// buffered returns the absolute offset of the end of the buffered input.
func (z *Reader) buffered() int64 { return z.base + int64(len(z.buf)) }

// ensure reads until the input is buffered up to byte offset end, or to
// its end.
func (z *Reader) ensure(end int64) error {
	for z.buffered() < end && !z.eof {
		if err := z.more(); err != nil {
			return err
		}
	}
	return nil
}

// more reads one more piece of input and scans it for magics when
// blocks are decoded in parallel.
func (z *Reader) more() error {
	if z.eof {
		return nil
	}
	if cap(z.buf)-len(z.buf) < readChunk {
		nb := make([]byte, len(z.buf), 2*cap(z.buf)+readChunk)
		copy(nb, z.buf)
		z.buf = nb
	}
	n, err := io.ReadAtLeast(z.r, z.buf[len(z.buf):cap(z.buf)], 1)
	z.buf = z.buf[:len(z.buf)+n]
	switch err {
	case nil:
	case io.EOF, io.ErrUnexpectedEOF:
		z.eof = true
	default:
		return err
	}
	if z.threads > 1 {
		var next int
		z.cands, next = scanMagics(z.cands, z.buf, z.base, int(z.scanned-z.base))
		z.scanned = z.base + int64(next)
	}
	return nil
}

// trim drops buffered input before the next expected position, keeping
// the buffer from growing.
func (z *Reader) trim() {
	drop := z.expected/8 - z.base
	if drop < int64(len(z.buf))/2 || drop < readChunk {
		return
	}
	n := copy(z.buf, z.buf[drop:])
	z.buf = z.buf[:n]
	z.base += drop
	if z.ci > len(z.cands)/2 {
		n := copy(z.cands, z.cands[z.ci:])
		z.cands, z.ci = z.cands[:n], 0
	}
}

// bitsAt returns the k (<= 56) bits at absolute bit position pos, which
// must be buffered.
func (z *Reader) bitsAt(pos int64, k uint) uint64 {
	var v uint64
	first, last := pos/8, (pos+int64(k)+7)/8
	for i := first; i < last; i++ {
		v = v<<8 | uint64(z.buf[i-z.base])
	}
	v >>= uint(last*8 - pos - int64(k))
	return v & (1<<k - 1)
}
