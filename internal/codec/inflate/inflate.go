// Package inflate decodes deflate (RFC 1951) and Deflate64 ("enhanced
// deflate", zip method 9): deflate with a 64 KiB window, a length code 285
// that carries 16 extra bits, and distance codes 30 and 31. PKWARE never
// published Deflate64; this follows the description in APPNOTE.TXT 6.3.10
// §4.4.5 and the behaviour of zlib's contrib/infback9.
//
// Two decoders share the format tables. Inflater (fast.go, fastloop.go,
// fasttable.go) decodes deflate or Deflate64 fast, from a source it reads
// ahead of: for inputs the caller bounds, such as a zip entry of known
// size, or whose excess it takes back with Rest, as gzip does. Reader
// (this file) decodes deflate or Deflate64 one input byte at a time and
// never reads past the end of the stream, so a container streaming from a
// pipe can find what follows it.
//
// For decoding one deflate stream in parallel pieces (gzip's parallel
// reader), an Inflater can start and stop at block boundaries
// (segment.go), FindBlock finds likely block boundaries in the middle of
// a stream (finder.go), and MarkerDecoder decodes from one without the
// window that precedes it (marker.go).
//
// # Security concerns
//
// Memory is fixed. An Inflater holds a 256 KiB output buffer (the window,
// the output chunk and room for one match), a 32 KiB input buffer and
// 44 KiB of decoding tables; a Reader holds its 64 KiB window and tables.
// A MarkerDecoder holds a 256 KiB ring and tables, and its output, which
// the caller bounds (maxOut). FindBlock's work is bounded by its range and
// a count of candidates it reads whole headers of.
package inflate

import (
	"bufio"
	"io"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Errors. Each is an archive.ErrCorrupt.
var (
	// ErrBlockType: a block with the reserved type 3.
	ErrBlockType = archive.Corruptf("inflate: invalid block type")
	// ErrStoredLength: a stored block whose length and its complement disagree.
	ErrStoredLength = archive.Corruptf("inflate: stored block length check failed")
	// ErrCodeLengths: a dynamic block's code lengths are invalid.
	ErrCodeLengths = archive.Corruptf("inflate: invalid code lengths")
	// ErrSymbol: a bit pattern that is no code, or a symbol out of range.
	ErrSymbol = archive.Corruptf("inflate: invalid symbol")
	// ErrDistance: a match reaching before the start of the data.
	ErrDistance = archive.Corruptf("inflate: distance too far back")
)

const windowSize = 1 << 16

// Decoding states.
const (
	stateHeader = iota
	stateStored
	stateHuffman
	stateEnd
)

// Reader decompresses a deflate or Deflate64 stream without reading past
// its end.
type Reader struct {
	d64  bool // Deflate64, not deflate
	r    io.ByteReader
	rr   io.Reader // the same source, for stored blocks
	b    uint64    // bit buffer, least significant bit first
	nb   uint      // bits in b
	err  error
	last bool // the current block is the final one

	state      int
	storedLeft int
	copyLen    int
	copyDist   int

	lit, dist *huffman
	dynLit    huffman
	dynDist   huffman
	codeLen   huffman
	lengths   codeLengths

	hist [windowSize]byte
	wpos int  // next byte of hist to write
	rpos int  // next byte of hist to hand out
	full bool // hist has wrapped: all of it is history
}

// byteReader is what the decoder reads from.
type byteReader interface {
	io.Reader
	io.ByteReader
}

// NewReader returns a Reader decompressing r, Deflate64 if d64 is set. If
// r is not an io.ByteReader it is buffered, and the decoder may read past
// the end of the stream.
func NewReader(r io.Reader, d64 bool) *Reader {
	f := &Reader{d64: d64}
	f.Reset(r)
	return f
}

// Reset makes f decode a new stream from r, keeping its buffers and its
// variant.
func (f *Reader) Reset(r io.Reader) {
	br, ok := r.(byteReader)
	if !ok {
		br = bufio.NewReader(r)
	}
	f.r, f.rr = br, br
	f.b, f.nb, f.err, f.last = 0, 0, nil, false
	f.state, f.storedLeft, f.copyLen, f.copyDist = stateHeader, 0, 0, 0
	f.wpos, f.rpos, f.full = 0, 0, false
}

// Read decompresses into p.
func (f *Reader) Read(p []byte) (int, error) {
	for {
		if f.rpos < f.wpos {
			n := copy(p, f.hist[f.rpos:f.wpos])
			f.rpos += n
			return n, nil
		}
		if f.wpos == windowSize {
			f.wpos, f.rpos, f.full = 0, 0, true
		}
		if f.err != nil {
			return 0, f.err
		}
		f.step()
	}
}

// step decodes until the window is full, a block ends or an error.
func (f *Reader) step() {
	switch f.state {
	case stateHeader:
		f.header()
	case stateStored:
		f.stored()
	case stateHuffman:
		f.huffmanBlock()
	case stateEnd:
		f.err = io.EOF
	}
}

// fill makes at least n bits available.
func (f *Reader) fill(n uint) bool {
	for f.nb < n {
		c, err := f.r.ReadByte()
		if err != nil {
			f.fail(err)
			return false
		}
		f.b |= uint64(c) << f.nb
		f.nb += 8
	}
	return true
}

// fail records an input error; the end of input inside the stream is
// io.ErrUnexpectedEOF.
func (f *Reader) fail(err error) {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	f.err = err
}

func (f *Reader) bits(n uint) (uint32, bool) {
	if !f.fill(n) {
		return 0, false
	}
	v := uint32(f.b & (1<<n - 1))
	f.b >>= n
	f.nb -= n
	return v, true
}

func (f *Reader) alignToByte() {
	f.b >>= f.nb % 8
	f.nb -= f.nb % 8
}

// header reads a block header.
func (f *Reader) header() {
	if f.last {
		f.state = stateEnd
		f.err = io.EOF
		return
	}
	final, typ, n, err := readBlockHeader(f)
	if err != nil {
		if err != errNoInput {
			f.err = err
		}
		return
	}
	f.last = final
	switch typ {
	case blockStored:
		f.storedLeft = n
		f.state = stateStored
	case blockFixed:
		t := fixedHuffman()
		f.lit, f.dist = &t[0], &t[1]
		f.state = stateHuffman
	case blockDynamic:
		if f.dynamicTables() {
			f.lit, f.dist = &f.dynLit, &f.dynDist
			f.state = stateHuffman
		}
	}
}

// stored copies a stored block's bytes into the window.
func (f *Reader) stored() {
	for f.storedLeft > 0 && f.wpos < windowSize && f.nb >= 8 {
		f.hist[f.wpos] = byte(f.b)
		f.b >>= 8
		f.nb -= 8
		f.wpos++
		f.storedLeft--
	}
	n := min(f.storedLeft, windowSize-f.wpos)
	if n > 0 {
		m, err := io.ReadFull(f.rr, f.hist[f.wpos:f.wpos+n])
		f.wpos += m
		f.storedLeft -= m
		if err != nil {
			f.fail(err)
			return
		}
	}
	if f.storedLeft == 0 {
		f.state = stateHeader
	}
}

func (f *Reader) buildCodeLengthCode(cl []uint8) bool { return f.codeLen.init(cl) }

func (f *Reader) codeLengthSym() (uint32, bool) {
	s, ok := f.sym(&f.codeLen)
	return uint32(s), ok
}

// dynamicTables reads a dynamic block's code lengths and builds its tables.
func (f *Reader) dynamicTables() bool {
	nlit, ndist, err := readCodeLengths(f, &f.lengths, f.d64)
	if err == nil && (!f.dynLit.init(f.lengths.all[:nlit]) || !f.dynDist.init(f.lengths.all[nlit:nlit+ndist])) {
		err = ErrCodeLengths
	}
	if err == ErrCodeLengths {
		f.err = err
	}
	return err == nil
}

// sym decodes one symbol with h, reading only the bytes the code needs.
func (f *Reader) sym(h *huffman) (int, bool) {
	n := h.min
	for {
		if !f.fill(n) {
			return 0, false
		}
		e := h.chunks[f.b&chunkMask]
		if e&entryLong != 0 {
			e = h.links[e>>8+uint32(f.b>>chunkBits)&h.subMask]
		}
		l := uint(e & entryLenMask)
		if l != 0 && l <= f.nb {
			f.b >>= l
			f.nb -= l
			return int(e >> 8), true
		}
		if l == 0 {
			if f.nb >= h.max {
				f.err = ErrSymbol
				return 0, false
			}
			l = f.nb + 1
		}
		n = l
	}
}

// maxDeflateMatch is deflate's length of code 285, its longest match.
const maxDeflateMatch = 258

// Length and distance bases and extra bits. Deflate64 gives code 285 a
// base of 3 with 16 extra bits and adds distance codes 30 and 31.
var (
	lenBase = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
		35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 3}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
		3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 16}
	distBase = [32]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
		257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577, 32769, 49153}
	distExtra = [32]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
		7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14}
)

// huffmanBlock decodes literals and matches until the block ends or the
// window is full.
func (f *Reader) huffmanBlock() {
	for {
		if f.copyLen > 0 {
			f.copyMatch()
		}
		if f.wpos == windowSize {
			return
		}
		sym, ok := f.sym(f.lit)
		if !ok {
			return
		}
		switch {
		case sym < 256:
			f.hist[f.wpos] = byte(sym)
			f.wpos++
			continue
		case sym == 256:
			f.state = stateHeader
			return
		case sym > 285:
			f.err = ErrSymbol
			return
		}
		i := sym - 257
		length := maxDeflateMatch // code 285 in deflate
		if i != len(lenBase)-1 || f.d64 {
			v, ok := f.bits(uint(lenExtra[i]))
			if !ok {
				return
			}
			length = int(lenBase[i]) + int(v)
		}
		d, ok := f.sym(f.dist)
		if !ok {
			return
		}
		if d >= 32 || d >= 30 && !f.d64 {
			f.err = ErrSymbol
			return
		}
		v, ok := f.bits(uint(distExtra[d]))
		if !ok {
			return
		}
		dist := int(distBase[d]) + int(v)
		if dist > windowSize || (!f.full && dist > f.wpos) {
			f.err = ErrDistance
			return
		}
		f.copyLen, f.copyDist = length, dist
	}
}

// copyMatch copies as much of the pending match as fits in the window.
func (f *Reader) copyMatch() {
	for f.copyLen > 0 && f.wpos < windowSize {
		src := f.wpos - f.copyDist
		if src < 0 {
			src += windowSize
		}
		n := min(f.copyLen, windowSize-f.wpos, windowSize-src)
		if f.copyDist >= n {
			copy(f.hist[f.wpos:f.wpos+n], f.hist[src:src+n])
		} else {
			// Overlapping: repeat the last copyDist bytes.
			for i := range n {
				f.hist[f.wpos+i] = f.hist[src+i]
			}
		}
		f.wpos += n
		f.copyLen -= n
	}
}

// fixedHuffman returns the fixed tables of block type 1 (literal/length,
// distance), built on first use, not at process start.
var fixedHuffman = sync.OnceValue(func() *[2]huffman {
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	var d [32]uint8
	for i := range d {
		d[i] = 5
	}
	t := new([2]huffman)
	t[0].init(l[:])
	t[1].init(d[:])
	return t
})
