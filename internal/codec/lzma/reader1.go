package lzma

import "io"

// Reader1 decompresses a raw LZMA stream (no header), as 7z and zip store
// it, given its properties and, when known, its uncompressed size.
//
// With a known size the stream may or may not end with an end-of-payload
// marker; with size -1 the marker is required. After the stream ends, Read
// returns io.EOF.
//
// If r is a *bufio.Reader of at least 1 KiB (anything with Peek, Discard
// and Size), Reader1 decodes out of its buffer and consumes exactly the
// bytes of the LZMA stream (do not read from r yourself until Read has
// returned io.EOF); otherwise it reads ahead up to 64 KiB past them, so
// bound r (for example with io.LimitReader) when the bytes after the
// stream matter.
type Reader1 struct {
	d         decoder
	in        input
	remaining int64 // bytes of output still to produce; -1: until the marker
	rd        int   // read position in d.win
	started   bool  // the range decoder is initialised
	err       error // sticky; io.EOF at the end
}

// NewReader1 returns a Reader1 decoding the LZMA stream in r with props,
// producing unpackSize bytes (-1: unknown, an end marker ends the stream).
// It allocates a window of props.DictSize bytes (less when unpackSize is
// smaller); check the size against a memory limit first with DictLimit.
func NewReader1(r io.Reader, props Props, unpackSize int64) (*Reader1, error) {
	z := new(Reader1)
	if err := z.Reset(r, props, unpackSize); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z decode a new stream, reusing its buffers.
func (z *Reader1) Reset(r io.Reader, props Props, unpackSize int64) error {
	if !props.valid() {
		return ErrProps
	}
	size := int64(props.DictSize)
	if unpackSize >= 0 && unpackSize < size {
		size = unpackSize
	}
	if err := z.d.initWindow(size); err != nil {
		return err
	}
	z.d.resetDict()
	z.d.setProps(props.LC, props.LP, props.PB)
	z.d.resetState()
	z.d.in, z.d.ip, z.d.inEnd, z.d.inFinal = nil, 0, 0, false
	z.in.reset(r)
	if unpackSize < 0 {
		unpackSize = -1
	}
	z.remaining = unpackSize
	z.rd = 0
	z.started = false
	z.err = nil
	return nil
}

// InputSize returns how many compressed bytes the decoder has consumed.
func (z *Reader1) InputSize() int64 { return z.in.base + int64(z.d.ip) }

// Read implements io.Reader.
func (z *Reader1) Read(p []byte) (int, error) {
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

// need makes sure the decoder can decode its next symbol (or the range
// coder's start): more than maxSymbolBytes unread bytes, or the final input.
func (z *Reader1) need() error {
	d := &z.d
	if d.inFinal || d.ip+maxSymbolBytes < d.inEnd {
		return nil
	}
	return z.in.fill(d)
}

// decode fills the window with more output, or returns the error or io.EOF
// that ends the stream. The window has been read out completely.
func (z *Reader1) decode() error {
	d := &z.d
	if !z.started {
		if err := z.need(); err != nil {
			return err
		}
		if d.inEnd-d.ip < 5 {
			return ErrTruncated
		}
		if err := d.initRC(); err != nil {
			return err
		}
		z.started = true
	}
	if z.remaining == 0 {
		return z.finishSized()
	}
	if d.pos == len(d.win) {
		d.pos, z.rd, d.wrapped = 0, 0, true
	}
	limit := len(d.win)
	if z.remaining > 0 && int64(limit-d.pos) > z.remaining {
		limit = d.pos + int(z.remaining)
	}
	for {
		if err := z.need(); err != nil {
			return err
		}
		start := d.pos
		st, err := d.run(limit, false)
		if z.remaining > 0 {
			z.remaining -= int64(d.pos - start)
		}
		if err != nil {
			return err
		}
		switch st {
		case runOverrun:
			return ErrTruncated
		case runMarker:
			if z.remaining > 0 {
				return ErrMarker
			}
			return z.finish()
		case runInput:
			if d.pos > start {
				return nil
			}
			continue
		}
		// runLimit: the window is full or the size is reached.
		if z.remaining == 0 && d.pendLen > 0 {
			return ErrSize
		}
		return nil
	}
}

// finishSized ends a stream of known size: either the range coder is
// finished, or an end marker follows.
func (z *Reader1) finishSized() error {
	d := &z.d
	if d.code == 0 {
		return z.finish()
	}
	if err := z.need(); err != nil {
		return err
	}
	st, err := d.run(d.pos, true)
	switch {
	case err != nil:
		return err
	case st == runOverrun:
		return ErrTruncated
	case st != runMarker:
		return ErrSize
	}
	return z.finish()
}

// finish checks the range coder ended cleanly and returns io.EOF.
func (z *Reader1) finish() error {
	d := &z.d
	if !d.finished() {
		return ErrUnfinished
	}
	if err := z.in.done(d); err != nil {
		return err
	}
	return io.EOF
}
