package rar4

import (
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/codec/rar/rarshared"
)

// bitReader reads the MSB-first bit stream of the RAR 1.5–4.x decoders from
// a reused byte buffer. Past the end of its input it feeds zero bytes and
// counts them, so that decoders never block or panic on truncated data; the
// caller checks overrun to tell a clean end from a truncation.
type bitReader struct {
	r    io.Reader
	buf  []byte
	pos  int
	end  int
	v    uint64 // bit container, MSB aligned
	n    uint   // valid bits in v
	eof  bool   // r returned io.EOF (or an error, kept in err)
	pad  int    // zero bytes fed past the end of the input
	err  error  // read error other than io.EOF
	read int64  // bytes taken from r
}

const bitBufSize = 4 << 10

// reset makes b read a new input, keeping its buffer.
func (b *bitReader) reset(r io.Reader) {
	if b.buf == nil {
		b.buf = rarshared.GetBuf(bitBufSize)
	}
	b.r, b.pos, b.end, b.v, b.n, b.eof, b.pad, b.err, b.read = r, 0, 0, 0, 0, false, 0, nil, 0
}

func (b *bitReader) refill() {
	if b.eof {
		return
	}
	n, err := b.r.Read(b.buf)
	b.pos, b.end = 0, n
	b.read += int64(n)
	if err != nil {
		b.eof = true
		if err != io.EOF {
			b.err = err
		}
	} else if n == 0 {
		// A reader returning 0, nil repeatedly is treated as the end.
		n2, err2 := io.ReadAtLeast(b.r, b.buf, 1)
		b.end = n2
		b.read += int64(n2)
		if err2 != nil {
			b.eof = true
			if err2 != io.EOF && err2 != io.ErrUnexpectedEOF {
				b.err = err2
			}
		}
	}
}

// fill tops the container up to at least 57 bits.
func (b *bitReader) fill() {
	if b.pos+8 <= b.end && b.n <= 56 {
		// The whole bytes that fit, from one load.
		k := (64 - b.n) >> 3
		x := binary.BigEndian.Uint64(b.buf[b.pos:])
		x = x >> (64 - 8*k) << (64 - 8*k)
		b.v |= x >> b.n
		b.pos += int(k)
		b.n += 8 * k
		return
	}
	for b.n <= 56 {
		if b.pos < b.end {
			b.v |= uint64(b.buf[b.pos]) << (56 - b.n)
			b.pos++
			b.n += 8
			continue
		}
		if !b.eof {
			b.refill()
			continue
		}
		b.pad++
		b.n += 8
	}
}

// peek returns the next k (≤ 32) bits without consuming them.
func (b *bitReader) peek(k uint) uint32 {
	if b.n < k {
		b.fill()
	}
	return uint32(b.v >> (64 - k))
}

// skip consumes k bits already peeked.
func (b *bitReader) skip(k uint) {
	b.v <<= k
	b.n -= k
}

// bits reads k (1..32) bits.
func (b *bitReader) bits(k uint) uint32 {
	x := b.peek(k)
	b.skip(k)
	return x
}

// alignByte drops the bits up to the next byte boundary.
func (b *bitReader) alignByte() {
	k := b.n & 7
	b.v <<= k
	b.n -= k
}

// ReadByte returns the next byte of a byte-aligned stream (PPMd uses it).
// Past the end it returns zeros, then io.ErrUnexpectedEOF after a few.
func (b *bitReader) ReadByte() (byte, error) {
	if b.n >= 8 {
		c := byte(b.v >> 56)
		b.v <<= 8
		b.n -= 8
		return c, nil
	}
	if b.pos >= b.end && !b.eof {
		b.refill()
	}
	if b.pos < b.end {
		c := b.buf[b.pos]
		b.pos++
		return c, nil
	}
	b.pad++
	if b.pad > 16 {
		return 0, io.ErrUnexpectedEOF
	}
	return 0, nil
}

// overrun reports whether bits past the end of the input were consumed.
func (b *bitReader) overrun() bool {
	return b.pad*8 > int(b.n)
}

// exhausted reports whether every input byte has been consumed.
func (b *bitReader) exhausted() bool {
	if b.pos < b.end || !b.eof {
		return false
	}
	return b.pad*8 >= int(b.n)
}

// atLeast reports whether k more input bytes are available.
func (b *bitReader) atLeast(k int) bool {
	if int(b.n)/8-b.pad+b.end-b.pos >= k {
		return true
	}
	if !b.eof && b.pos >= b.end {
		b.refill() // the buffer is used up, so nothing is lost
	}
	return int(b.n)/8-b.pad+b.end-b.pos >= k
}

// resetBytes makes b read p alone (a password probe), in place of its
// buffer.
func (b *bitReader) resetBytes(p []byte) {
	b.r, b.buf, b.pos, b.end, b.v, b.n, b.eof, b.pad, b.err, b.read = nil, p, 0, len(p), 0, 0, true, 0, nil, 0
}
