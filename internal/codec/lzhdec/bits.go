package lzhdec

import (
	"encoding/binary"
	"io"
)

// bitReader reads bits most significant first from an io.Reader through
// its own buffer. Past the end of the input it supplies zero bits, so that
// a code table may peek further than the last code needs; reading them is
// caught by overrun.
type bitReader struct {
	r    io.Reader
	buf  []byte
	pos  int // next unread byte of buf
	end  int // end of the bytes read into buf
	eof  bool
	err  error  // a read error other than io.EOF
	pad  int    // zero bytes supplied past the end of the input
	bits uint64 // the next n bits, left-aligned
	n    uint
}

func (b *bitReader) reset(r io.Reader) {
	if b.buf == nil {
		b.buf = make([]byte, 32<<10)
	}
	b.r, b.pos, b.end, b.eof, b.err, b.pad, b.bits, b.n = r, 0, 0, false, nil, 0, 0, 0
}

// fill reads more input into buf, keeping the unread bytes.
func (b *bitReader) fill() {
	if b.eof {
		return
	}
	copy(b.buf, b.buf[b.pos:b.end])
	b.end -= b.pos
	b.pos = 0
	for b.end < len(b.buf) && !b.eof {
		m, err := b.r.Read(b.buf[b.end:])
		b.end += m
		if err == io.EOF {
			b.eof = true
		} else if err != nil {
			b.err, b.eof = err, true
		} else if m == 0 {
			break
		}
		if b.end >= 8 {
			break
		}
	}
}

// refill makes at least 57 bits available.
func (b *bitReader) refill() {
	if b.n > 56 {
		return
	}
	if b.end-b.pos < 8 {
		b.fill()
	}
	if b.end-b.pos >= 8 {
		v := binary.BigEndian.Uint64(b.buf[b.pos:])
		b.bits |= v >> b.n
		k := (63 - b.n) >> 3
		b.pos += int(k)
		b.n += k << 3
		return
	}
	for b.n <= 56 {
		var c byte
		if b.pos < b.end {
			c = b.buf[b.pos]
			b.pos++
		} else {
			b.pad++
		}
		b.bits |= uint64(c) << (56 - b.n)
		b.n += 8
	}
}

// peek returns the next k bits (k ≤ 32) without consuming them; the
// caller has refilled.
func (b *bitReader) peek(k uint) uint32 { return uint32(b.bits >> (64 - k)) }

func (b *bitReader) skip(k uint) {
	b.bits <<= k
	b.n -= k
}

// read returns the next k bits (k ≤ 32).
func (b *bitReader) read(k uint) uint32 {
	if k == 0 {
		return 0
	}
	if b.n < k {
		b.refill()
	}
	v := b.peek(k)
	b.skip(k)
	return v
}

// overrun reports whether more bits were consumed than the input held.
func (b *bitReader) overrun() bool { return uint(b.pad)*8 > b.n }

// readByte reads a whole byte from the input, for the byte-oriented
// methods (no bits buffered).
func (b *bitReader) readByte() (byte, bool) {
	if b.pos >= b.end {
		b.fill()
		if b.pos >= b.end {
			return 0, false
		}
	}
	c := b.buf[b.pos]
	b.pos++
	return c, true
}
