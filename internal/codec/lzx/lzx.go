// Package lzx decodes LZX, Microsoft's LZ77 + Huffman format, in the three
// framings that carry it: cabinet folders (MS-CAB, "Microsoft LZX Data
// Compression Format", 1997, as libmspack and 7-Zip read it), CHM content
// sections (the same stream, its state reset every reset interval) and
// WIM resources (each chunk an independent stream, as wimlib documents in
// lzx_decompress.c).
//
// # API
//
// A Decoder owns a window of 2^15..2^21 bytes and decodes one frame per
// call: Decode(dst, src) fills all of dst from the compressed bytes at the
// start of src and returns how many of them the frame used.
//
//   - CAB: NewDecoder(bits, CAB), then one Decode per CFDATA block of a
//     folder, dst its uncompressed size (32 KiB, the last one shorter),
//     src its data. State (window, repeated offsets, code lengths, the E8
//     translation header read from the first frame) carries across the
//     calls; Reset starts the next folder.
//   - CHM: NewDecoder(bits, CAB) too; Decode per 32 KiB frame with src the
//     rest of the section's compressed data (advance it by the returned
//     count), and Reset before each frame that starts a reset interval
//     (the reset table's points): each interval is a stream of its own, as
//     7-Zip and chmlib decode it (no match reaches before it, E8
//     translation counts from it).
//   - WIM: NewDecoder(bits, WIM) where 1<<bits is the chunk size (2^15 for
//     WIMGAPI's chunks); each Decode is one chunk, decoded on its own with
//     E8 translation always on and the translation size 12000000, and
//     block sizes coded as WIM writes them (a default-size bit). A chunk
//     that did not shrink is stored raw in the resource: the WIM reader
//     copies it instead of calling Decode. WIM streams are strict: a
//     match may not run past the chunk's end (wimlib).
//
// In the CAB/CHM framing a match may run past a frame's end: its rest
// starts the next frame, and is dropped after a stream's last frame
// (Microsoft's CHM compiler ends streams so; 7-Zip and chmlib read them).
//
// E8 translation (the x86 CALL filter) is undone in dst as libmspack does:
// for CAB frames starting in the first GiB of output, positions counted
// from the start of the stream; for WIM chunks, from the chunk's start.
//
// # Security concerns
//
// Memory is the window (at most 2 MiB) and, for CAB/CHM streams, as much
// again or 128 KiB, whichever is more (where frames are decoded before the
// window slides), plus fixed tables, allocated by NewDecoder. Every match
// is checked against the data decoded so far and against the frame's end,
// every code against the canonical limits; input
// that ends early gives ErrTruncated, never a read past src. Work per call
// is bounded by len(dst).
package lzx

import (
	"bytes"
	"encoding/binary"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Errors. Each is an archive.ErrCorrupt, except ErrUnsupported.
var (
	// ErrCode: code lengths that form no complete prefix code, or a
	// symbol read from an empty code.
	ErrCode = archive.Corruptf("lzx: invalid Huffman code")
	// ErrBlock: an unknown block type, or a block whose stored repeated
	// offsets are zero.
	ErrBlock = archive.Corruptf("lzx: invalid block header")
	// ErrMatch: a match reaching before the data decoded so far or beyond
	// the window, or running past the end of its block or frame.
	ErrMatch = archive.Corruptf("lzx: invalid match")
	// ErrTruncated: the frame's compressed data ended early.
	ErrTruncated = archive.Corruptf("lzx: truncated data")
	// ErrFrame: a frame larger than the framing allows, or a CAB/CHM frame
	// after a short one.
	ErrFrame = archive.Corruptf("lzx: invalid frame size")
	// ErrWindow: a window size outside 2^15..2^21.
	ErrWindow = archive.Unsupportedf("lzx: window size outside 2^15..2^21")
)

// Variant selects the framing of the stream.
type Variant int

const (
	// CAB is LZX as cabinets and CHM files carry it: a translation header
	// at the start of the stream, 24-bit block sizes, 32 KiB frames.
	CAB Variant = iota
	// WIM is LZX as WIM resources carry it: independent chunks, E8
	// translation always on, a default-size bit before each block size.
	WIM
)

// FrameSize is the output size of every CAB/CHM frame but a stream's last.
const FrameSize = 32768

// MinWindowBits and MaxWindowBits bound the window size, as a power of two.
const (
	MinWindowBits = 15
	MaxWindowBits = 21
)

const (
	numChars       = 256
	numPreSyms     = 20
	numLenSyms     = 249
	numAlignedSyms = 8
	minMatch       = 2
	lensSlack      = 64 // room for a run overrunning the last length
	bufSlack       = 64 // room after a frame for matches copied in words
	wimE8Size      = 12000000
	e8Limit        = 1 << 30 // CAB: frames starting past this are not translated

	blockVerbatim     = 1
	blockAligned      = 2
	blockUncompressed = 3
)

var (
	extraBits [51]uint8
	slotBase  [51]uint32
)

func init() {
	// Offset slot i has extraBits[i] extra bits, 0,0,0,0,1,1,2,2,… capped
	// at 17, and starts where the previous slot's range ends.
	for i := range extraBits {
		e := 0
		if i >= 4 {
			e = min(i/2-1, 17)
		}
		extraBits[i] = uint8(e)
		if i > 0 {
			slotBase[i] = slotBase[i-1] + 1<<extraBits[i-1]
		}
	}
}

// numSlots returns the offset slots of a window of 1<<bits bytes: 30 for
// 2^15 up to 50 for 2^21 (libmspack; the 1997 document's 40/42 are wrong).
func numSlots(bits uint) int {
	switch {
	case bits == 20:
		return 42
	case bits == 21:
		return 50
	}
	return int(bits) * 2
}

// Decoder decodes an LZX stream frame by frame. See the package doc for
// the call sequence of each framing.
type Decoder struct {
	variant Variant
	// buf holds the window linearly: the history a match may reach is
	// the winSize bytes before wpos, and matches never wrap. When a frame
	// no longer fits after wpos, the window slides to buf's start.
	buf          []byte
	winSize      int
	wpos         int   // where the next byte goes in buf
	fstart       int   // where the current frame started in buf
	lo           int   // decodeBlock: where the stream's history starts in buf
	limit        int   // decodeBlock: where a match must end
	alignedBlock bool  // decodeBlock: the block is an aligned one
	total        int64 // bytes decoded since Reset
	numMain      int
	pendPad      bool // an odd uncompressed block's pad byte starts the next src
	pendLen      int  // bytes of a match that ran past the last frame's end
	pendOff      int  // and its offset
	header       bool // the CAB translation header has been read
	e8           bool
	e8size       int32
	btype        int
	bremain      int // bytes left in the current block
	blen         int // the current block's size
	r            [3]uint32
	mainLens     []byte
	lenLens      []byte
	preLens      [numPreSyms]byte
	alLens       [numAlignedSyms]byte
	main         *table
	length       *table
	pre          *table
	aligned      *table

	// Bit reader over the current src: 16-bit little-endian words, each
	// read from its most significant bit.
	src []byte
	pos int    // bytes of src taken into bb (may pass len(src) by zeros)
	bb  uint64 // pending bits, next at the top
	nb  uint   // pending bit count
}

// BufferSize is the size of the window buffer NewDecoder allocates for
// windowBits and v: what a caller checks against its memory limit.
func BufferSize(windowBits int, v Variant) int64 {
	win := int64(1) << windowBits
	size := win + bufSlack
	if v == CAB {
		size += max(win, 4*FrameSize)
	}
	return size
}

// NewDecoder returns a decoder with a window of 1<<windowBits bytes.
func NewDecoder(windowBits int, v Variant) (*Decoder, error) {
	if windowBits < MinWindowBits || windowBits > MaxWindowBits || (v != CAB && v != WIM) {
		return nil, ErrWindow
	}
	ns := numSlots(uint(windowBits))
	win := 1 << windowBits
	size := int(BufferSize(windowBits, v))
	d := &Decoder{
		variant:  v,
		buf:      make([]byte, size),
		winSize:  win,
		numMain:  numChars + 8*ns,
		mainLens: make([]byte, numChars+8*ns+lensSlack),
		lenLens:  make([]byte, numLenSyms+lensSlack),
		main:     newTable(mainBits, numChars+8*ns),
		length:   newTable(lengthBits, numLenSyms),
		pre:      newTable(7, numPreSyms),
		aligned:  newTable(alignedBits, numAlignedSyms),
	}
	d.Reset()
	return d, nil
}

// Reset prepares the decoder for a new stream (the next CAB folder, the
// next CHM reset interval).
func (d *Decoder) Reset() {
	d.wpos = 0
	d.total = 0
	d.header = false
	d.e8 = false
	d.pendPad = false
	d.pendLen = 0
	d.r = [3]uint32{1, 1, 1}
	clear(d.mainLens)
	clear(d.lenLens)
	d.btype = 0
	d.bremain = 0
	d.blen = 0
}

// Decode decodes the next frame into all of dst from the compressed bytes
// at the start of src, and returns how many bytes of src the frame took.
// A CAB/CHM frame is at most FrameSize bytes, a WIM chunk at most the
// window. After an error the stream cannot continue: Reset it.
func (d *Decoder) Decode(dst, src []byte) (int, error) {
	n := len(dst)
	if d.variant == WIM {
		if n > d.winSize {
			return 0, ErrFrame
		}
		d.Reset()
		d.header, d.e8, d.e8size = true, true, wimE8Size
	} else if n > FrameSize || d.wpos%FrameSize != 0 {
		return 0, ErrFrame
	}
	if n == 0 {
		return 0, nil
	}
	d.src, d.pos, d.bb, d.nb = src, 0, 0, 0
	if d.pendPad {
		d.pendPad = false
		d.pos = 1
	}
	if !d.header {
		d.header = true
		if d.bits(1) == 1 {
			hi := d.bits(16)
			d.e8size = int32(hi<<16 | d.bits(16))
			d.e8 = true
		}
	}
	if d.wpos+n > len(d.buf)-bufSlack {
		// Slide: the window's history to the start, room after it.
		d.wpos = copy(d.buf, d.buf[d.wpos-d.winSize:d.wpos])
	}
	start := d.wpos
	end := start + n
	d.fstart = start
	if d.pendLen > 0 {
		k := min(d.pendLen, n)
		copyMatch(d.buf, d.wpos, d.pendOff, k)
		d.wpos += k
		d.pendLen -= k
	}
	for d.wpos < end {
		if d.bremain == 0 {
			if err := d.blockHeader(); err != nil {
				return 0, err
			}
		}
		seg := min(d.bremain, end-d.wpos)
		var err error
		if d.btype == blockUncompressed {
			err = d.copyStored(seg)
		} else {
			over := 0
			if d.variant == CAB {
				over = d.bremain - seg
			}
			var k int
			k, err = d.decodeBlock(d.wpos+seg, d.btype == blockAligned, over)
			seg += k
		}
		if err != nil {
			return 0, err
		}
		d.bremain -= seg
		if d.bremain == 0 && d.btype == blockUncompressed && d.blen&1 != 0 {
			// The pad byte after an odd-sized stored block.
			if d.pos < len(d.src) {
				d.pos++
			} else {
				d.pendPad = true
			}
		}
	}
	// Frames end on a 16-bit boundary; a stored block reads bytes and has
	// nothing to align.
	d.nb -= d.nb & 15
	used := d.pos - int(d.nb/8)
	if used > len(src) {
		return 0, ErrTruncated
	}
	copy(dst, d.buf[start:end])
	if d.e8 && n > 10 && (d.variant == WIM || d.total < e8Limit) {
		undoE8(dst, d.total, d.e8size)
	}
	d.total += int64(n)
	d.wpos = end
	return used, nil
}

// undoE8 reverses the encoder's translation of the 32-bit operand after
// each 0xE8 byte from a relative to an absolute address; pos is the stream
// position of b[0]. The last 10 bytes are never translated.
func undoE8(b []byte, pos int64, size int32) {
	limit := len(b) - 10
	for i := 0; i < limit; {
		k := bytes.IndexByte(b[i:limit], 0xE8)
		if k < 0 {
			return
		}
		i += k
		cur := int32(pos + int64(i))
		abs := int32(binary.LittleEndian.Uint32(b[i+1:]))
		if abs >= -cur && abs < size {
			rel := abs - cur
			if abs < 0 {
				rel = abs + size
			}
			binary.LittleEndian.PutUint32(b[i+1:], uint32(rel))
		}
		i += 5
	}
}

// refill tops the bit buffer up to at least 49 bits, with zeros past the
// end of src (Decode checks at the frame's end that none were used).
func (d *Decoder) refill() {
	for d.nb <= 48 {
		var w uint64
		if p := d.pos; p+1 < len(d.src) {
			w = uint64(d.src[p]) | uint64(d.src[p+1])<<8
		} else if p < len(d.src) {
			w = uint64(d.src[p])
		}
		d.pos += 2
		d.bb |= w << (48 - d.nb)
		d.nb += 16
	}
}

// bits reads n ≤ 32 bits.
func (d *Decoder) bits(n uint) uint32 {
	if n == 0 {
		return 0
	}
	if d.nb < n {
		d.refill()
	}
	v := uint32(d.bb >> (64 - n))
	d.bb <<= n
	d.nb -= n
	return v
}

// sym reads one symbol of t.
func (d *Decoder) sym(t *table) (int, error) {
	if d.nb < maxCodeLen {
		d.refill()
	}
	e := t.fast[d.bb>>(64-t.bits)]
	if l := uint(e & 31); l != 0 {
		d.bb <<= l
		d.nb -= l
		return int(e >> 5), nil
	}
	s, l := t.slow(uint32(d.bb >> (64 - maxCodeLen)))
	if l == 0 {
		return 0, ErrCode
	}
	d.bb <<= l
	d.nb -= l
	return s, nil
}

// overrun reports whether the reader has used bits past the end of src.
func (d *Decoder) overrun() bool {
	return d.pos-int(d.nb/8) > len(d.src)
}

// blockHeader reads the next block's header and, for a compressed block,
// its codes.
func (d *Decoder) blockHeader() error {
	if d.overrun() {
		return ErrTruncated
	}
	d.btype = int(d.bits(3))
	if d.variant == WIM {
		if d.bits(1) == 1 {
			d.blen = FrameSize
		} else {
			d.blen = int(d.bits(16))
			if d.winSize >= 1<<16 {
				d.blen = d.blen<<8 | int(d.bits(8))
			}
		}
	} else {
		d.blen = int(d.bits(24))
	}
	d.bremain = d.blen
	switch d.btype {
	case blockAligned:
		for i := range d.alLens {
			d.alLens[i] = byte(d.bits(3))
		}
		if err := d.aligned.build(d.alLens[:]); err != nil {
			return err
		}
		fallthrough
	case blockVerbatim:
		if err := d.readLens(d.mainLens[:numChars]); err != nil {
			return err
		}
		if err := d.readLens(d.mainLens[numChars:d.numMain]); err != nil {
			return err
		}
		if err := d.main.build(d.mainLens); err != nil {
			return err
		}
		if err := d.readLens(d.lenLens[:numLenSyms]); err != nil {
			return err
		}
		if err := d.length.build(d.lenLens); err != nil {
			return err
		}
	case blockUncompressed:
		// Align to 16 bits; when already aligned, 16 bits of padding
		// follow all the same (libmspack, wimlib).
		// Drop the partly read word; when no word is partly read, skip
		// the next one instead.
		if k := d.nb & 15; k != 0 {
			d.pos -= int((d.nb - k) / 8)
		} else {
			d.pos -= int(d.nb/8) - 2
		}
		d.bb, d.nb = 0, 0
		if d.pos+12 > len(d.src) {
			return ErrTruncated
		}
		for i := range d.r {
			d.r[i] = binary.LittleEndian.Uint32(d.src[d.pos+4*i:])
			if d.r[i] == 0 {
				return ErrBlock
			}
		}
		d.pos += 12
	default:
		return ErrBlock
	}
	if d.overrun() {
		return ErrTruncated
	}
	return nil
}

// readLens reads the pretree and, with it, new code lengths over lens,
// each coded as a difference from its previous value. A run may overrun
// the end of lens into the next range (or the slack), as in libmspack and
// wimlib.
func (d *Decoder) readLens(lens []byte) error {
	for i := range d.preLens {
		d.preLens[i] = byte(d.bits(4))
	}
	if err := d.pre.build(d.preLens[:]); err != nil {
		return err
	}
	full := lens[:cap(lens)]
	for i := 0; i < len(lens); {
		z, err := d.sym(d.pre)
		if err != nil {
			return err
		}
		var run int
		var v byte
		switch z {
		case 17:
			run = 4 + int(d.bits(4))
		case 18:
			run = 20 + int(d.bits(5))
		case 19:
			run = 4 + int(d.bits(1))
			z, err = d.sym(d.pre)
			if err != nil {
				return err
			}
			if z > 17 {
				return ErrCode
			}
			v = byte((int(full[i]) - z + 17) % 17)
		default:
			full[i] = byte((int(full[i]) - z + 17) % 17)
			i++
			continue
		}
		if i+run > len(full) {
			return ErrCode
		}
		for j := 0; j < run; j++ {
			full[i+j] = v
		}
		i += run
		if d.overrun() {
			return ErrTruncated
		}
	}
	return nil
}

// copyStored copies n bytes of a stored block into the window.
func (d *Decoder) copyStored(n int) error {
	if d.pos > len(d.src) || n > len(d.src)-d.pos {
		return ErrTruncated
	}
	copy(d.buf[d.wpos:d.wpos+n], d.src[d.pos:])
	d.pos += n
	d.wpos += n
	return nil
}
