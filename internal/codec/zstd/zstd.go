// Package zstd decodes one Zstandard frame (RFC 8878) at a time.
//
// Each compressed block is decoded in two passes: its sequences are first
// decoded and checked into an array (decodeSeqs), then executed into a flat
// window buffer (execute). The execution loads each match source ahead of
// its copy (on amd64 with PREFETCHT0, several sequences ahead), which pays
// where matches reach far back into a large window; literals are decoded by
// klauspost's huff0.
//
// # Security concerns
//
// The window is bounded by Options.MaxWindow; the buffer is a ring of the
// window plus two blocks (or the frame's content, when declared smaller). Every
// length, offset and table read from the input is checked before use:
// blocks are at most min(Window_Size, 128 KiB) in and out, matches never
// reach before the frame's start or further back than the window, and the
// sequences' bitstream must be used exactly.
package zstd

import (
	"encoding/binary"
	"hash"
	"io"

	"github.com/klauspost/compress/huff0"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/hugemem"
	"github.com/unpack-dev/unpack/internal/verify"
)

const (
	frameMagic   = 0xFD2FB528
	maxBlockSize = 128 << 10
	minWindow    = 1 << 10
	// DefaultMaxWindow is the window limit when Options.MaxWindow is 0.
	DefaultMaxWindow = 1 << 29
	// slack is how far past the end of the output and of the literals
	// the execution may write or read (its copies move 16 bytes at once).
	slack = 64
	// pad is the room before a block in its buffer: the sequences'
	// bitstream is read 8 bytes at a time backwards.
	pad = 8
)

// Errors of the decoder.
var (
	// ErrCorrupt: the frame breaks the format (the message says where).
	errMagic     = archive.Corruptf("zstd: unknown frame magic")
	errHeader    = archive.Corruptf("zstd: bad frame header")
	errBlock     = archive.Corruptf("zstd: bad block header")
	errLiterals  = archive.Corruptf("zstd: bad literals section")
	errSeqHeader = archive.Corruptf("zstd: bad sequences section header")
	errTable     = archive.Corruptf("zstd: bad FSE table description")
	errRepeat    = archive.Corruptf("zstd: repeated table or Huffman tree with none before")
	errBitstream = archive.Corruptf("zstd: sequences bitstream not used exactly")
	errOffset    = archive.Corruptf("zstd: match offset beyond the window or the frame's start")
	errLitLen    = archive.Corruptf("zstd: sequences use more literals than the block has")
	errBlockSize = archive.Corruptf("zstd: block decodes to more than its maximum size")
	errSize      = archive.Corruptf("zstd: frame content differs from its declared size")
	errChecksum  = archive.Corruptf("zstd: content checksum mismatch")
	errTruncated = archive.Truncated("zstd")
	// ErrWindow: the frame's window exceeds Options.MaxWindow; it is
	// archive.ErrLimit.
	ErrWindow = archive.Limitf("zstd: window larger than the limit")
)

// Options set up a Decoder.
type Options struct {
	// MaxWindow is the largest Window_Size accepted (DefaultMaxWindow
	// when 0); larger frames fail with ErrWindow.
	MaxWindow uint64
	// IgnoreChecksum skips the Content_Checksum (the caller checks it).
	IgnoreChecksum bool
}

// Decoder decodes the single zstd frame its reader holds.
type Decoder struct {
	opt Options
	r   io.Reader
	err error // sticky; io.EOF after the frame's end

	window   int   // Window_Size
	content  int64 // Frame_Content_Size, -1 when absent
	blockMax int   // min(window, maxBlockSize)
	hasSum   bool
	last     bool  // the frame's last block has been decoded
	total    int64 // bytes decoded in the frame
	h        hash.Hash64

	buf  []byte // history and output, a ring: buf[rd:pos] not yet given out
	pos  int
	rd   int
	wrap int // where the ring's last lap ended; 0 before the first

	blk    []byte // the block read: pad bytes, then up to maxBlockSize, then slack
	lits   []byte // decoded literals, with slack
	huff   *huff0.Scratch
	hdec   huff0.Decoder // huff's decoder
	huffOK bool          // huff holds this frame's last Huffman tree

	seqs   []seq
	rep    [3]uint32
	tables fseTables
	hdr    [18]byte
}

// NewDecoder returns a Decoder; Reset points it at a frame.
func NewDecoder(opt Options) *Decoder {
	if opt.MaxWindow == 0 {
		opt.MaxWindow = DefaultMaxWindow
	}
	return &Decoder{opt: opt, err: io.EOF, blk: make([]byte, pad+maxBlockSize+slack),
		lits: make([]byte, maxBlockSize+slack), h: verify.New(verify.XXH64).(hash.Hash64)}
}

// Reset makes d decode the frame r starts with; it reads the frame header.
// Reset(nil) drops the reader.
func (d *Decoder) Reset(r io.Reader) error {
	d.r = r
	d.err = io.EOF
	if r == nil {
		return nil
	}
	d.err = d.readHeader()
	return d.err
}

// readFull reads len(p) bytes; a short input is errTruncated.
func (d *Decoder) readFull(p []byte) error {
	_, err := io.ReadFull(d.r, p)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errTruncated
	}
	return err
}

// readHeader reads and checks the frame header (RFC 8878 §3.1.1) and sets
// up the frame's state.
func (d *Decoder) readHeader() error {
	h := d.hdr[:]
	if err := d.readFull(h[:5]); err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(h) != frameMagic {
		return errMagic
	}
	fhd := h[4]
	if fhd&0x08 != 0 {
		return errHeader
	}
	single := fhd&0x20 != 0
	n := 0
	if !single {
		n++
	}
	dictLen := [4]int{0, 1, 2, 4}[fhd&3]
	n += dictLen
	fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
	if fcsLen == 0 && single {
		fcsLen = 1
	}
	n += fcsLen
	if err := d.readFull(h[5 : 5+n]); err != nil {
		return err
	}
	p := h[5 : 5+n]
	var wd byte
	if !single {
		wd, p = p[0], p[1:]
	}
	var dict uint32
	for i := dictLen - 1; i >= 0; i-- {
		dict = dict<<8 | uint32(p[i])
	}
	p = p[dictLen:]
	if dict != 0 {
		return archive.Unsupportedf("zstd: frame needs dictionary %d, which is not given", dict)
	}
	d.content = -1
	switch fcsLen {
	case 1:
		d.content = int64(p[0])
	case 2:
		d.content = int64(binary.LittleEndian.Uint16(p)) + 256
	case 4:
		d.content = int64(binary.LittleEndian.Uint32(p))
	case 8:
		v := binary.LittleEndian.Uint64(p)
		if v > 1<<62 {
			return ErrWindow
		}
		d.content = int64(v)
	}
	var w uint64
	if single {
		w = max(uint64(d.content), minWindow)
	} else {
		base := uint64(1) << (10 + wd>>3)
		w = base + base/8*uint64(wd&7)
	}
	if w > d.opt.MaxWindow || w > 1<<40 {
		return ErrWindow
	}
	d.window = int(w)
	d.blockMax = min(d.window, maxBlockSize)
	d.hasSum = fhd&0x04 != 0
	d.last = false
	d.total = 0
	d.h.Reset()
	d.rep = [3]uint32{1, 4, 8}
	d.tables.n = [3]int{}
	d.huffOK = false
	d.pos, d.rd, d.wrap = 0, 0, 0
	return nil
}

// bufSize is the buffer a frame needs: its content when that is known
// and fits the window, else a ring of the window plus two blocks.
func (d *Decoder) bufSize() int {
	if d.content >= 0 && d.content <= int64(d.window)+int64(maxBlockSize) {
		return int(d.content) + slack
	}
	return d.window + 2*(d.blockMax+slack)
}

// room makes sure a block of lim bytes fits at d.pos. When the ring's end
// is near, the block goes to its start instead: the last lap then ends at
// d.wrap, and the window's oldest bytes stay out of reach of the new
// block's writes (the ring holds the window plus two blocks).
func (d *Decoder) room(lim int) {
	need := d.pos + lim + slack
	if need <= len(d.buf) {
		return
	}
	size := d.bufSize()
	if need <= size {
		if cap(d.buf) >= size {
			d.buf = d.buf[:size]
		} else {
			nb := hugemem.Aligned(size)
			copy(nb, d.buf[:d.pos])
			d.buf = nb
		}
		return
	}
	d.wrap = d.pos
	d.pos, d.rd = 0, 0
}

// next decodes the frame's next block into the buffer; at the frame's end
// it checks the size and checksum and returns io.EOF.
func (d *Decoder) next() error {
	if d.last {
		return d.finish()
	}
	bh := d.hdr[:3]
	if err := d.readFull(bh); err != nil {
		return err
	}
	h := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
	d.last = h&1 != 0
	typ, size := h>>1&3, int(h>>3)
	if typ == 3 || size > d.blockMax {
		return errBlock
	}
	lim := d.blockMax
	if d.content >= 0 {
		lim = int(min(int64(lim), d.content-d.total))
		if typ < 2 && size > lim {
			return errSize
		}
	}
	d.room(lim)
	start := d.pos
	switch typ {
	case 0: // raw
		if err := d.readFull(d.buf[d.pos : d.pos+size]); err != nil {
			return err
		}
		d.pos += size
	case 1: // RLE
		b := d.hdr[:1]
		if err := d.readFull(b); err != nil {
			return err
		}
		out := d.buf[d.pos : d.pos+size]
		for i := range out {
			out[i] = b[0]
		}
		d.pos += size
	case 2:
		b := d.blk[:pad+size]
		if err := d.readFull(b[pad:]); err != nil {
			return err
		}
		if err := d.decodeBlock(size, lim); err != nil {
			return err
		}
	}
	d.total += int64(d.pos - start)
	if d.hasSum && !d.opt.IgnoreChecksum {
		d.h.Write(d.buf[start:d.pos])
	}
	return nil
}

// finish checks the frame's end: its declared size, its checksum.
func (d *Decoder) finish() error {
	if d.content >= 0 && d.total != d.content {
		return errSize
	}
	if d.hasSum {
		s := d.hdr[:4]
		if err := d.readFull(s); err != nil {
			return err
		}
		if !d.opt.IgnoreChecksum && binary.LittleEndian.Uint32(s) != uint32(d.h.Sum64()) {
			return errChecksum
		}
	}
	return io.EOF
}

// Read gives out the frame's decoded bytes; io.EOF after its last, once
// its checks passed.
func (d *Decoder) Read(p []byte) (int, error) {
	for d.rd == d.pos {
		if d.err != nil {
			return 0, d.err
		}
		d.err = d.next()
	}
	n := copy(p, d.buf[d.rd:d.pos])
	d.rd += n
	return n, nil
}

// WriteTo writes the frame's decoded bytes to w, block by block straight
// from the window buffer. An error of w is returned as it is.
func (d *Decoder) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if d.rd < d.pos {
			n, err := w.Write(d.buf[d.rd:d.pos])
			d.rd += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			if d.rd < d.pos {
				return total, io.ErrShortWrite
			}
		}
		if d.err != nil {
			if d.err == io.EOF {
				return total, nil
			}
			return total, d.err
		}
		d.err = d.next()
	}
}

// decodeBlock decodes the compressed block d.blk[pad:pad+size] to d.pos,
// at most lim bytes.
func (d *Decoder) decodeBlock(size, lim int) error {
	in := d.blk[pad : pad+size]
	lits, used, err := d.literals(in)
	if err != nil {
		return err
	}
	in = in[used:]
	nseq, used, err := d.seqHeader(in)
	if err != nil {
		return err
	}
	if nseq == 0 {
		if used != len(in) {
			return errSeqHeader
		}
		if len(lits) > lim {
			return errBlockSize
		}
		d.pos += copy(d.buf[d.pos:], lits)
		return nil
	}
	if nseq > lim/3 {
		return errBlockSize // every match is 3 bytes or more
	}
	s := seqState{
		in:     d.blk[:pad+size],
		start:  pad + (size - len(in)) + used,
		tabs:   &d.tables,
		rep:    d.rep,
		lits:   len(lits),
		hist:   int(min(d.total, int64(d.window))),
		window: d.window,
		maxOut: lim,
	}
	lits = lits[: len(lits) : len(lits)+slack]
	if d.tables.far*256 < fusedMaxFar*d.tables.n[fieldOF] {
		if err := fusedSeqs(&s, nseq, d.buf, d.pos, lits, d.wrap); err != nil {
			return err
		}
	} else {
		if cap(d.seqs) < nseq {
			// once, at its largest: a new array each time a block has
			// more sequences costs its fresh pages' faults again
			d.seqs = make([]seq, maxBlockSize/3)
		}
		s.seqs = d.seqs[:nseq]
		if err := decodeSeqs(&s); err != nil {
			return err
		}
		execute(d.buf, d.pos, s.seqs, lits, d.wrap, s.out)
	}
	d.rep = s.rep
	d.pos += s.out
	return nil
}

// fusedMaxFar is the share (of 256) of far offset codes in a block's
// offset table below which the block is decoded by fusedSeqs: its match
// sources are near, and loading them ahead would not pay for the
// two passes of decodeSeqs and execute.
var fusedMaxFar = 8
