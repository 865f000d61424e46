package lzma

import (
	"errors"
	"io"
)

// peeker is what a *bufio.Reader offers: Reader1 decodes straight out of
// its buffer and discards exactly what it consumed, so nothing past the end
// of the LZMA data is taken from it. Peekers with a buffer smaller than
// minPeekSize are read like any reader.
type peeker interface {
	io.Reader
	Peek(n int) ([]byte, error)
	Discard(n int) (int, error)
	Size() int
}

const (
	// inBufSize is the read-ahead buffer of an input that is no peeker.
	inBufSize = 64 << 10
	// tailSize is how much unread input is copied into the padded tail
	// buffer once a peeker reports EOF.
	tailSize = 4 * maxSymbolBytes
	// minPeekSize is the smallest peeker buffer decoded from directly.
	minPeekSize = 4 * tailSize
)

// input feeds the decoder of a Reader1 from an io.Reader.
type input struct {
	r    io.Reader
	pk   peeker // non-nil when r is a peeker
	eof  bool   // r has returned io.EOF
	base int64  // bytes consumed before d.in[0]
	buf  []byte // read-ahead buffer (inBufSize+maxSymbolBytes) or peeker tail (tailSize+maxSymbolBytes)
}

func (in *input) reset(r io.Reader) {
	in.r = r
	in.pk, _ = r.(peeker)
	if in.pk != nil && in.pk.Size() < minPeekSize {
		in.pk = nil
	}
	in.eof = false
	in.base = 0
	n := inBufSize + maxSymbolBytes
	if in.pk != nil {
		n = tailSize + maxSymbolBytes
	}
	if cap(in.buf) >= n {
		in.buf = in.buf[:n]
	} else {
		in.buf = make([]byte, n)
	}
}

// errNoProgress is returned when a reader keeps returning 0, nil.
var errNoProgress = io.ErrNoProgress

// fill makes more input available to d: afterwards either at least
// maxSymbolBytes+1 unread bytes are in d.in and inFinal is clear, or all the
// remaining input is there, padded, and inFinal is set.
func (in *input) fill(d *decoder) error {
	if d.inFinal {
		return nil
	}
	if in.pk != nil {
		return in.fillPeek(d)
	}
	n := copy(in.buf, d.in[d.ip:d.inEnd])
	in.base += int64(d.ip)
	zero := 0
	for n <= maxSymbolBytes && !in.eof {
		m, err := in.r.Read(in.buf[n:inBufSize])
		n += m
		switch {
		case errors.Is(err, io.EOF):
			in.eof = true
		case err != nil:
			return err
		case m == 0:
			if zero++; zero >= 100 {
				return errNoProgress
			}
		}
	}
	d.in, d.ip, d.inEnd = in.buf, 0, n
	if in.eof {
		clear(in.buf[n : n+maxSymbolBytes])
		d.inFinal = true
	}
	return nil
}

func (in *input) fillPeek(d *decoder) error {
	if _, err := in.pk.Discard(d.ip); err != nil {
		return err
	}
	in.base += int64(d.ip)
	size := in.pk.Size()
	b, err := in.pk.Peek(size)
	if len(b) < size {
		switch {
		case err == nil:
			return errNoProgress
		case !errors.Is(err, io.EOF):
			return err
		}
		if len(b) <= tailSize {
			n := copy(in.buf, b)
			clear(in.buf[n : n+maxSymbolBytes])
			d.in, d.ip, d.inEnd, d.inFinal = in.buf, 0, n, true
			return nil
		}
	}
	d.in, d.ip, d.inEnd = b, 0, len(b)
	return nil
}

// done gives a peeker back the bytes the decoder consumed at the end of the
// stream.
func (in *input) done(d *decoder) error {
	if in.pk != nil {
		_, err := in.pk.Discard(d.ip)
		in.base += int64(d.ip)
		d.in, d.ip, d.inEnd = nil, 0, 0
		return err
	}
	return nil
}
