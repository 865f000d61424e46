package lzma

import (
	"errors"
	"io"
)

// Reader2 decompresses a raw LZMA2 stream, as xz blocks and 7z coders hold
// it, up to and including its end marker (a 0x00 control byte), after which
// Read returns io.EOF.
//
// Reader2 reads exactly the bytes of the LZMA2 stream from r (each chunk
// header and chunk is read with io.ReadFull), never a byte past the end
// marker, so r can be any io.Reader and the bytes that follow stay unread.
type Reader2 struct {
	d     decoder
	r     io.Reader
	chunk []byte // compressed chunk data plus maxSymbolBytes zero padding
	hdr   [6]byte

	left      int  // uncompressed bytes left in the current chunk
	lzmaChunk bool // the current chunk is LZMA (else uncompressed)
	needDict  bool // the next chunk must reset the dictionary
	needProps bool // the next LZMA chunk must set properties
	flat      bool // DecodeAll is decoding into its caller's buffer
	rd        int  // read position in d.win
	err       error
}

// maxChunkPacked is the largest compressed size an LZMA2 chunk can have.
const maxChunkPacked = 1 << 16

// NewReader2 returns a Reader2 decoding the LZMA2 stream in r with a
// dictionary of dictSize bytes (from the xz filter or 7z coder properties).
// Check dictSize against a memory limit first with DictLimit.
func NewReader2(r io.Reader, dictSize int64) (*Reader2, error) {
	z := new(Reader2)
	if err := z.Reset(r, dictSize); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z decode a new stream, reusing its buffers.
func (z *Reader2) Reset(r io.Reader, dictSize int64) error {
	if dictSize < 0 {
		return ErrProps
	}
	if err := z.d.initWindow(dictSize); err != nil {
		return err
	}
	z.start(r)
	return nil
}

// start prepares decoding a new stream from r into the window in z.d.win.
func (z *Reader2) start(r io.Reader) {
	z.r = r
	z.d.resetDict()
	if z.chunk == nil {
		z.chunk = make([]byte, maxChunkPacked+maxSymbolBytes)
	}
	if z.d.lit == nil {
		z.d.setProps(0, 0, 0) // replaced by the first LZMA chunk's properties
	}
	z.left = 0
	z.needDict, z.needProps = true, true
	z.rd = 0
	z.err = nil
}

// DecodeAll decodes a whole LZMA2 stream from r, through its end marker,
// into dst, which serves as the dictionary itself: no window is allocated
// and nothing is copied out of one, so a caller that knows the
// decompressed size (an xz block header, a 7z folder) decodes straight
// into its output buffer. dictSize bounds the match distances as in
// streaming. DecodeAll returns how many bytes the stream produced; bytes
// of dst after them may have been written. A stream producing more than
// len(dst) bytes is ErrOutputFull; one resetting its dictionary after its
// start is ErrNotFlat (Reset and Read decode it). The zero Reader2 is
// ready for DecodeAll; after it, Reset z before reading with it.
func (z *Reader2) DecodeAll(dst []byte, r io.Reader, dictSize int64) (int, error) {
	if dictSize < 0 {
		return 0, ErrProps
	}
	own := z.d.win
	z.d.win = dst
	z.d.dictCap = int(min(dictCap(dictSize), int64(len(dst))))
	z.flat = true
	z.start(r)
	var err error
	for err == nil {
		err = z.decode()
	}
	n := z.d.pos
	z.d.resetDict()
	z.d.win, z.flat = own, false
	z.err = errNeedReset
	if err == io.EOF {
		return n, nil
	}
	return n, err
}

// errNeedReset is what Read returns after DecodeAll until Reset.
var errNeedReset = errors.New("lzma2: Read after DecodeAll without Reset")

// Read implements io.Reader.
func (z *Reader2) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if z.rd < z.d.pos {
			k := copy(p[n:], z.d.win[z.rd:z.d.pos])
			z.rd += k
			n += k
			continue
		}
		if z.err != nil {
			break
		}
		z.err = z.decode()
	}
	if n > 0 {
		return n, nil
	}
	return 0, z.err
}

// Next returns the next decoded bytes straight from the dictionary window,
// as many as are ready (up to an LZMA2 chunk's worth), instead of copying
// them as Read does. They stay valid until the next call to Next, Read or
// Reset. At the end of the stream it returns nil and io.EOF; a non-nil
// error comes with no bytes.
func (z *Reader2) Next() ([]byte, error) {
	for z.rd == z.d.pos {
		if z.err != nil {
			return nil, z.err
		}
		z.err = z.decode()
	}
	b := z.d.win[z.rd:z.d.pos]
	z.rd = z.d.pos
	return b, nil
}

// readFull reads len(b) bytes; a short stream is ErrTruncated.
func (z *Reader2) readFull(b []byte) error {
	_, err := io.ReadFull(z.r, b)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ErrTruncated
	}
	return err
}

// decode produces more output into the window (which has been read out
// completely), starting the next chunk when the current one is done.
func (z *Reader2) decode() error {
	d := &z.d
	if z.left == 0 {
		if err := z.nextChunk(); err != nil {
			return err
		}
	}
	if d.pos == len(d.win) {
		if z.flat {
			return ErrOutputFull
		}
		d.pos, z.rd, d.wrapped = 0, 0, true
	}
	limit := min(len(d.win), d.pos+z.left)
	start := d.pos
	if !z.lzmaChunk {
		if err := z.readFull(d.win[d.pos:limit]); err != nil {
			return err
		}
		d.pos = limit
		z.left -= limit - start
		return nil
	}
	st, err := d.run(limit, false)
	z.left -= d.pos - start
	switch {
	case err != nil:
		return err
	case st == runMarker:
		return ErrMarker
	case st != runLimit:
		return ErrChunk // ran past the chunk's compressed data
	}
	if z.left == 0 && (d.pendLen > 0 || !d.finished() || d.ip != d.inEnd) {
		return ErrChunk
	}
	return nil
}

// nextChunk reads the next chunk header (and an LZMA chunk's data) or the
// end marker, for which it returns io.EOF.
func (z *Reader2) nextChunk() error {
	d := &z.d
	if err := z.readFull(z.hdr[:1]); err != nil {
		return err
	}
	c := z.hdr[0]
	switch {
	case c == 0x00:
		return io.EOF
	case c >= 0xE0 || c == 0x01:
		if z.flat && d.pos > 0 {
			return ErrNotFlat
		}
		z.needProps = true
		z.needDict = false
		d.resetDict()
		z.rd = 0
	case z.needDict:
		return ErrChunk
	}
	if c < 0x80 {
		if c > 0x02 {
			return ErrChunk
		}
		if err := z.readFull(z.hdr[1:3]); err != nil {
			return err
		}
		z.left = int(z.hdr[1])<<8 | int(z.hdr[2]) + 1
		z.lzmaChunk = false
		return nil
	}

	hl := 5
	if c >= 0xC0 {
		hl = 6
	}
	if err := z.readFull(z.hdr[1:hl]); err != nil {
		return err
	}
	z.left = (int(c&0x1F)<<16 | int(z.hdr[1])<<8 | int(z.hdr[2])) + 1
	packed := int(z.hdr[3])<<8 | int(z.hdr[4]) + 1
	switch {
	case c >= 0xC0:
		var p Props
		if p.setByte(z.hdr[5]) != nil || p.LC+p.LP > 4 {
			return ErrProps
		}
		z.needProps = false
		d.setProps(p.LC, p.LP, p.PB)
		d.resetState()
	case z.needProps:
		return ErrChunk
	case c >= 0xA0:
		d.resetState()
	}
	z.lzmaChunk = true
	if packed < 5 {
		return ErrChunk
	}
	buf := z.chunk[:packed+maxSymbolBytes]
	if err := z.readFull(buf[:packed]); err != nil {
		return err
	}
	clear(buf[packed:])
	d.in, d.ip, d.inEnd, d.inFinal = buf, 0, packed, true
	return d.initRC()
}
