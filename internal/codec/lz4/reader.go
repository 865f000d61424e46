// Package lz4 decodes .lz4 files: LZ4 frames as the LZ4 Frame Format
// Description v1.6.4 (lz4 doc/lz4_Frame_format.md) defines them, with
// blocks in the LZ4 Block Format (doc/lz4_Block_format.md), the legacy
// frames of lz4 -l, and skippable frames, any number of them one after the
// other.
//
// Every checksum a frame carries is verified: the descriptor's header
// checksum, each block's XXH32 when the frame has them (checked before the
// block is decoded) and the XXH32 of the content at the end of the frame,
// whose declared content size is checked as well. Legacy frames carry no
// checksum.
//
// Blocks are decoded into one buffer the Reader owns, 64 KiB of history
// and 1 MiB of room, 128 KiB at a time (the decoder stops and resumes
// between sequences, and copies a sequence longer than the room left in
// pieces): each piece is hashed and handed out while it is still in the
// cache. When the room left is short, the last 64 KiB are moved to the
// front, so the buffer serves blocks of any size, independent or linked
// (matches reach into the history without any per-block copy), and stays
// in the cache. A stored block is handed out from the input buffer (only
// its last 64 KiB are copied when blocks are linked).
//
// # Security concerns
//
// Memory is bounded by the frame's declared block maximum size (at most
// 4 MiB, 8 MiB for legacy frames): the Reader holds one compressed block
// and its 64 KiB + 1 MiB output buffer, never the whole content, and
// Config.MemLimit refuses frames whose buffers exceed it. A block cannot
// decode beyond the block maximum size, and no input makes the decoder
// loop: each step consumes input or ends the stream.
package lz4

import (
	"encoding/binary"
	"errors"
	"hash"
	"io"

	"github.com/unpack-dev/unpack/internal/hugemem"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Config tunes a Reader. The zero value is valid.
type Config struct {
	// MemLimit, when positive, bounds the Reader's block buffers in
	// bytes: a frame whose block maximum size needs more fails with an
	// error that errors.Is ErrLimit (and archive.ErrLimit).
	MemLimit int64
}

// piece is how much a block is decoded at a time: the piece is hashed and
// handed out while it is still in the cache.
const piece = 128 << 10

// span is the room after the history in the output buffer: the history
// moves to the front once per span decoded.
const span = 1 << 20

// errClosed is returned by Read after Close.
var errClosed = errors.New("lz4: reader closed")

// Reader decompresses an .lz4 stream: its frames' contents one after the
// other. Reset makes it read another stream with the same buffers.
type Reader struct {
	r     io.Reader
	limit int64
	err   error // sticky: returned by every Read once set
	off   int64 // input offset of the next byte read from r

	f       frame
	inFrame bool   // reading the blocks of f
	word    uint32 // f's next block size word (or a legacy frame's)
	frames  int    // frames started, skippable ones included

	trailOff, trailLen int64 // bytes after the last frame that are no frame

	in    []byte // one compressed block and the word after it
	out   []byte // window bytes of history, then the room of z.span
	pos   int    // out[:pos] the history of linked blocks
	avail []byte // decoded bytes not yet returned
	// The block being decoded, piece by piece: its data, the positions
	// to go on from, how much more it may produce, its input offset.
	decoding bool
	blk      []byte
	si, di   int
	left     int
	blkOff   int64
	// A sequence too long for the room left, copied piece by piece: lit
	// literal bytes at blk[litSi:], then a match of mlen bytes at moff.
	lit, litSi  int
	mlen, moff  int
	span, piece int    // the room and piece sizes (span and piece; tests make them small)
	produced    uint64 // bytes decoded from the current frame
	content     hash.Hash
	scratch     [4 + maxDescriptor + 4]byte

	given, verified int64 // bytes given out; of those, covered by checksums passed
}

// Verified is how many decompressed bytes, from the start of the stream,
// are covered by checksums that passed: every block's, as it is given out,
// in a frame with block checksums; else the frame's content checksum at
// its end (a frame with neither counts as checked at its end, a legacy
// frame at the end of the stream).
func (z *Reader) Verified() int64 { return z.verified }

// gave counts n bytes given out.
func (z *Reader) gave(n int) {
	z.given += int64(n)
	if z.f.blockChecksum {
		z.verified = z.given
	}
}

// NewReader returns a Reader of the .lz4 stream r, having read the first
// frame's header.
func NewReader(r io.Reader, cfg Config) (*Reader, error) {
	z := &Reader{limit: cfg.MemLimit}
	if err := z.Reset(r); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset discards the Reader's state and makes it read r, reusing its
// buffers; it reads the first frame's header as NewReader does.
func (z *Reader) Reset(r io.Reader) error {
	if z.span == 0 {
		z.span, z.piece = span, piece
	}
	z.r, z.err, z.off = r, nil, 0
	z.given, z.verified = 0, 0
	z.trailOff, z.trailLen = 0, 0
	z.inFrame, z.frames, z.avail, z.pos, z.decoding = false, 0, nil, 0, false
	magic, err := z.readMagic()
	if err == nil {
		err = z.startFrame(magic)
	}
	z.err = err
	return err
}

// Close makes further Reads fail. The buffers stay for a later Reset.
func (z *Reader) Close() error {
	z.err, z.avail, z.r, z.decoding = errClosed, nil, nil, false
	return nil
}

// Read reads decoded bytes: it fills p as far as the block being decoded
// goes, reading no more input once it has some bytes for p. At the end of
// the last frame it returns io.EOF once every check passed.
func (z *Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(z.avail) > 0 {
			c := copy(p[n:], z.avail)
			z.avail = z.avail[c:]
			n += c
			z.gave(c)
			continue
		}
		if z.err != nil || (n > 0 && !z.decoding) {
			break
		}
		if err := z.fill(); err != nil {
			z.err = err
		}
	}
	if n == 0 && len(p) > 0 {
		return 0, z.err
	}
	return n, nil
}

// WriteTo writes the decoded bytes to w straight from the Reader's buffer,
// block by block, until the end of the last frame.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if len(z.avail) > 0 {
			n, err := w.Write(z.avail)
			total += int64(n)
			z.avail = z.avail[n:]
			z.gave(n)
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
		if err := z.fill(); err != nil {
			z.err = err
		}
	}
}

// fill decodes the next block into z.avail, going through frame ends and
// frame headers; io.EOF after the last frame.
func (z *Reader) fill() error {
	for {
		if z.decoding {
			return z.step()
		}
		if !z.inFrame {
			magic, err := z.readMagic()
			if err != nil {
				return err
			}
			if err := z.startFrame(magic); err != nil {
				return err
			}
			continue
		}
		if z.f.legacy {
			if z.word > legacyCompressedMax {
				// The magic number of the next frame.
				z.inFrame = false
				if err := z.startFrame(z.word); err != nil {
					return err
				}
				continue
			}
			return z.legacyBlock()
		}
		if z.word == 0 {
			if err := z.endFrame(); err != nil {
				return err
			}
			continue
		}
		if err := z.block(); err != nil {
			return err
		}
		if len(z.avail) > 0 {
			return nil
		}
	}
}

// readMagic reads the 4 bytes that start a frame: io.EOF at a clean end
// after at least one frame, or after trailing data (see Trailing).
func (z *Reader) readMagic() (uint32, error) {
	b := z.scratch[:4]
	n, err := io.ReadFull(z.r, b)
	z.off += int64(n)
	switch {
	case err == io.EOF && z.frames > 0:
		return 0, io.EOF
	case err == io.ErrUnexpectedEOF && z.frames > 0 && !magicPrefix(b[:n]):
		return 0, z.trailing(z.off - int64(n))
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return 0, &FrameError{Offset: z.off, Err: ErrTruncated}
	case err != nil:
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// Trailing reports the bytes that followed the last frame and were no
// frame: where they start in the input and how many there were (0 when
// none). The Reader ends with io.EOF after the last frame's checks.
func (z *Reader) Trailing() (offset, size int64) { return z.trailOff, z.trailLen }

// trailing reads the rest of the input, from offset start on, as trailing
// data, and returns io.EOF: the stream ends there.
func (z *Reader) trailing(start int64) error {
	n, err := io.Copy(io.Discard, z.r)
	z.off += n
	if err != nil {
		return err
	}
	z.trailOff, z.trailLen = start, z.off-start
	return io.EOF
}

// magicPrefix reports whether p, shorter than a magic number, starts one
// (a frame cut short rather than foreign bytes).
func magicPrefix(p []byte) bool {
	var m [4]byte
	for _, magic := range []uint32{frameMagic, legacyMagic, skippableMagicMin} {
		binary.LittleEndian.PutUint32(m[:], magic)
		if len(p) > 0 && magic == skippableMagicMin && p[0]&0xF0 == m[0] && string(p[1:]) == string(m[1:len(p)]) {
			return true
		}
		if string(p) == string(m[:len(p)]) {
			return true
		}
	}
	return false
}

// startFrame reads the rest of the frame header after its magic number:
// a frame's descriptor and first block size word, a legacy frame's first
// block size word, or a skippable frame whole.
func (z *Reader) startFrame(magic uint32) error {
	start := z.off - 4
	switch {
	case magic == frameMagic:
	case magic == legacyMagic:
		z.frames++
		if err := z.setBuffers(legacyCompressedMax+4, window+z.span); err != nil {
			return err
		}
		z.f = frame{legacy: true, independent: true, blockMax: legacyBlockMax}
		w, err := z.legacyWord()
		if err == io.EOF {
			return nil // an empty legacy frame ends the stream
		}
		if err != nil {
			return err
		}
		z.word, z.inFrame = w, true
		return nil
	case magic >= skippableMagicMin && magic <= skippableMagicMax:
		z.frames++
		return z.skipFrame()
	case z.frames > 0:
		return z.trailing(start)
	default:
		return &FrameError{Offset: start, Err: ErrMagic}
	}
	z.frames++
	// FLG and BD, then the rest of the descriptor and the first block
	// size word.
	d := z.scratch[:2]
	if err := z.readFull(d); err != nil {
		return err
	}
	n := descriptorLen(d[0])
	d = z.scratch[:n+4]
	if err := z.readFull(d[2:]); err != nil {
		return err
	}
	if err := z.f.parseDescriptor(d[:n], verify.XXH32Sum, start+4); err != nil {
		return err
	}
	// A block, its checksum, the next size word; the output buffer, which
	// needs no history when blocks are independent and fit in it whole.
	out := window + z.span
	if z.f.independent {
		out = min(out, z.f.blockMax)
	}
	if err := z.setBuffers(z.f.blockMax+8, out); err != nil {
		return err
	}
	z.word = binary.LittleEndian.Uint32(d[n:])
	z.inFrame, z.pos, z.produced = true, 0, 0
	if z.f.contentCheck {
		if z.content == nil {
			z.content = verify.New(verify.XXH32)
		}
		z.content.Reset()
	}
	return nil
}

// setBuffers makes z.in and z.out at least in and out bytes long, within
// the memory limit.
func (z *Reader) setBuffers(in, out int) error {
	if z.limit > 0 && int64(in)+int64(out) > z.limit {
		return &FrameError{Offset: z.off, Err: ErrLimit}
	}
	if cap(z.in) < in {
		z.in = hugemem.Bytes(in) // 4 MiB blocks: two faults for 2 MiB, not 512
	}
	if cap(z.out) < out {
		z.out = make([]byte, out)
	}
	z.in, z.out = z.in[:cap(z.in)], z.out[:cap(z.out)]
	return nil
}

// skipFrame skips a skippable frame's data, after its magic number.
func (z *Reader) skipFrame() error {
	b := z.scratch[:4]
	if err := z.readFull(b); err != nil {
		return err
	}
	n := int64(binary.LittleEndian.Uint32(b))
	if len(z.in) == 0 {
		z.in = make([]byte, 64<<10)
	}
	for n > 0 {
		k := int(min(n, int64(len(z.in))))
		if err := z.readFull(z.in[:k]); err != nil {
			return err
		}
		n -= int64(k)
	}
	return nil
}

// block reads and decodes the block whose size word is z.word, with its
// checksum and the next size word.
func (z *Reader) block() error {
	start := z.off - 4 // the size word
	size := int(z.word & 0x7FFFFFFF)
	stored := z.word>>31 != 0
	if size > z.f.blockMax {
		return &FrameError{Offset: start, Err: ErrBlockSize}
	}
	cs := 0
	if z.f.blockChecksum {
		cs = 4
	}
	buf := z.in[:size+cs+4]
	if err := z.readFull(buf); err != nil {
		return err
	}
	data := buf[:size]
	if cs != 0 {
		want := binary.LittleEndian.Uint32(buf[size:])
		if got := verify.XXH32Sum(data); got != want {
			return checksumError(BlockChecksum, start+4+int64(size), want, got)
		}
	}
	z.word = binary.LittleEndian.Uint32(buf[size+cs:])

	switch {
	case z.f.independent && stored:
		z.avail = data
		return z.count(start)
	case z.f.independent:
		z.decodeFrom(data, 0, start)
		return z.step()
	case stored && size == 0:
		return nil
	case stored && size >= window:
		// Handed out from the input buffer; its last 64 KiB are the
		// history of the next block.
		copy(z.out, data[size-window:])
		z.pos = window
		z.avail = data
		return z.count(start)
	case stored:
		// One run of literals after the history.
		z.decodeFrom(nil, z.pos, start)
		z.blk, z.si, z.lit, z.litSi = data, size, size, 0
		return z.step()
	}
	z.decodeFrom(data, z.pos, start)
	return z.step()
}

// decodeFrom starts decoding the compressed block data into z.out from di
// on.
func (z *Reader) decodeFrom(data []byte, di int, offset int64) {
	z.decoding, z.blk, z.si, z.di, z.left, z.blkOff = true, data, 0, di, z.f.blockMax, offset
	z.lit, z.mlen = 0, 0
}

// step decodes the next piece of the block being decoded into z.avail,
// first moving the last 64 KiB of output to the front of z.out when the
// room after it is short of a piece and the block may need more.
func (z *Reader) step() error {
	if room := len(z.out) - z.di; room < z.piece && room < z.left {
		copy(z.out, z.out[z.di-window:z.di])
		z.di = window
	}
	from := z.di
	var err error
	switch {
	case z.lit > 0:
		n := min(z.lit, z.piece)
		copy(z.out[z.di:z.di+n], z.blk[z.litSi:z.litSi+n])
		z.di += n
		z.lit -= n
		z.litSi += n
	case z.mlen > 0:
		m := z.di - z.moff
		if m < 0 {
			err = ErrOffset
			break
		}
		n := min(z.mlen, z.piece)
		z.di = copyMatch(z.out, z.di, m, z.moff, n)
		z.mlen -= n
	default:
		lim := min(len(z.out), z.di+z.left)
		z.si, z.di, err = decodeSteps(z.out[:lim], z.di, z.blk, z.si, z.di+z.piece)
		if err == errRoom {
			err = z.longSeq(z.left - (z.di - from))
		}
	}
	if err != nil {
		z.decoding = false
		return &FrameError{Offset: z.blkOff, Err: err}
	}
	z.left -= z.di - from
	if z.si == len(z.blk) && z.lit == 0 && z.mlen == 0 {
		z.decoding = false
		z.pos = z.di // the history of a linked block's successor
	}
	z.avail = z.out[from:z.di]
	return z.count(z.blkOff)
}

// longSeq takes up the sequence at z.si that did not fit in the room
// left: its literals and match are copied in pieces by the next steps.
// The block may still produce left bytes.
func (z *Reader) longSeq(left int) error {
	lit, ll, off, ml, next, err := parseSeq(z.blk, z.si)
	switch {
	case err != nil:
		return err
	case ll+ml > left:
		return ErrOverflow
	case ml > 0 && next == len(z.blk):
		return ErrShortBlock // the last sequence must be literals only
	}
	z.lit, z.litSi, z.mlen, z.moff, z.si = ll, lit, ml, off, next
	return nil
}

// count adds the decoded block to the frame's size and content checksum.
func (z *Reader) count(start int64) error {
	z.produced += uint64(len(z.avail))
	if z.f.hasSize && z.produced > z.f.contentSize {
		// Only the declared bytes go out, with the error.
		z.avail = z.avail[:uint64(len(z.avail))-(z.produced-z.f.contentSize)]
		z.produced = z.f.contentSize
		return &FrameError{Offset: start, Err: ErrContentSize}
	}
	if z.f.contentCheck {
		z.content.Write(z.avail)
	}
	return nil
}

// endFrame checks the content checksum and size at a frame's EndMark.
func (z *Reader) endFrame() error {
	z.inFrame = false
	if z.f.contentCheck {
		b := z.scratch[:4]
		if err := z.readFull(b); err != nil {
			return err
		}
		want := binary.LittleEndian.Uint32(b)
		got := binary.BigEndian.Uint32(z.content.Sum(z.scratch[4:4]))
		if got != want {
			return checksumError(ContentChecksum, z.off-4, want, got)
		}
	}
	if z.f.hasSize && z.produced != z.f.contentSize {
		return &FrameError{Offset: z.off, Err: ErrContentSize}
	}
	z.verified = z.given
	return nil
}

// legacyBlock reads and decodes a legacy frame's block, whose size word is
// z.word, and the next size word.
func (z *Reader) legacyBlock() error {
	start := z.off - 4
	size := int(z.word)
	if err := z.readFull(z.in[:size]); err != nil {
		return err
	}
	w, err := z.legacyWord()
	switch {
	case err == io.EOF:
		// The end of the input ends the legacy frame (and the stream).
		z.inFrame = false
	case err != nil:
		return err
	}
	z.word = w
	z.decodeFrom(z.in[:size], 0, start)
	return z.step()
}

// legacyWord reads the size word of a legacy frame's next block (or the
// magic number of the next frame): io.EOF at a clean end of the input.
func (z *Reader) legacyWord() (uint32, error) {
	b := z.scratch[:4]
	n, err := io.ReadFull(z.r, b)
	z.off += int64(n)
	switch {
	case err == io.EOF:
		return 0, io.EOF
	case err == io.ErrUnexpectedEOF && magicPrefix(b[:n]):
		return 0, &FrameError{Offset: z.off, Err: ErrTruncated}
	case err == io.ErrUnexpectedEOF:
		return 0, z.trailing(z.off - int64(n))
	case err != nil:
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// readFull fills p from the input; the input ending first is ErrTruncated.
func (z *Reader) readFull(p []byte) error {
	n, err := io.ReadFull(z.r, p)
	z.off += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &FrameError{Offset: z.off, Err: ErrTruncated}
	}
	return err
}
