package brotli

import (
	"encoding/binary"
	"io"
)

// inBufSize is the size of the input buffer: the bit reader reads from
// it, refilled from the underlying reader as it runs low.
const inBufSize = 32 << 10

// bitReader reads RFC 7932's bit stream: bits are taken from the least
// significant end of each byte first. It holds up to 64 bits in val, fed
// from buf[ip:end], which is refilled from r.
//
// Past the end of r it feeds zero bytes, counting them in pad, so that a
// refill always gives at least 56 bits; using one of those bits (pad*8 >
// nbits once consumed) is a truncated stream, found at the next slow
// refill or by overrun. The error is sticky: the decoder checks err at
// least once per command and per meta-block header.
type bitReader struct {
	val   uint64
	nbits uint
	ip    int
	end   int
	pad   int
	eof   bool
	r     io.Reader
	err   error
	buf   [inBufSize]byte
}

func (br *bitReader) reset(r io.Reader) {
	br.val, br.nbits, br.ip, br.end, br.pad = 0, 0, 0, 0, 0
	br.eof, br.r, br.err = false, r, nil
}

// refill makes at least 56 bits available (unless an error stops it).
func (br *bitReader) refill() {
	if br.ip+8 <= br.end {
		br.val |= binary.LittleEndian.Uint64(br.buf[br.ip:]) << br.nbits
		br.ip += int(63-br.nbits) >> 3
		br.nbits |= 56
		return
	}
	br.refillSlow()
}

// refillSlow is refill near the end of the buffered input.
func (br *bitReader) refillSlow() {
	for br.nbits <= 56 {
		if br.ip < br.end {
			br.val |= uint64(br.buf[br.ip]) << br.nbits
			br.ip++
			br.nbits += 8
			continue
		}
		if !br.eof {
			br.fill()
			if br.ip+8 <= br.end {
				br.refill()
				return
			}
			continue
		}
		if br.overrun() && br.err == nil {
			br.err = ErrTruncated
		}
		br.pad++
		br.nbits += 8
	}
}

// overrun reports whether bits past the end of the input were consumed.
func (br *bitReader) overrun() bool {
	return br.pad*8 > int(br.nbits)
}

// fill moves the unread input to the front of buf and reads more from r.
func (br *bitReader) fill() {
	n := copy(br.buf[:], br.buf[br.ip:br.end])
	br.ip, br.end = 0, n
	for empty := 0; br.end < len(br.buf); {
		m, err := br.r.Read(br.buf[br.end:])
		br.end += m
		if err != nil {
			br.eof = true
			if err != io.EOF && br.err == nil {
				br.err = err
			}
			return
		}
		if m > 0 {
			if br.end-br.ip >= 8 {
				return
			}
			continue
		}
		if empty++; empty >= 100 {
			br.eof = true
			if br.err == nil {
				br.err = io.ErrNoProgress
			}
			return
		}
	}
}

// skip drops n bits; n must not exceed nbits.
func (br *bitReader) skip(n uint) {
	br.val >>= n
	br.nbits -= n
}

// bits reads n <= 24 bits.
func (br *bitReader) bits(n uint) uint32 {
	if br.nbits < n {
		br.refill()
	}
	v := uint32(br.val & (1<<n - 1))
	br.val >>= n
	br.nbits -= n
	return v
}

// alignZero drops the bits up to the next byte boundary, which must be zero.
func (br *bitReader) alignZero() error {
	n := br.nbits & 7
	if br.val&(1<<n-1) != 0 {
		return ErrPadding
	}
	br.skip(n)
	return nil
}

// readBytes copies the next len(p) bytes of a byte-aligned stream into p,
// first from the bits held, then from the buffer, then from r.
func (br *bitReader) readBytes(p []byte) error {
	for len(p) > 0 && int(br.nbits)-br.pad*8 >= 8 {
		p[0] = byte(br.val)
		br.skip(8)
		p = p[1:]
	}
	if len(p) == 0 {
		return nil
	}
	if br.pad > 0 {
		return ErrTruncated // val holds only the zeros fed past the end
	}
	// Aligned and no whole byte held: val is empty.
	br.val, br.nbits = 0, 0
	for len(p) > 0 {
		if br.ip == br.end {
			if br.eof {
				if br.err != nil {
					return br.err
				}
				return ErrTruncated
			}
			br.fill()
			continue
		}
		n := copy(p, br.buf[br.ip:br.end])
		br.ip += n
		p = p[n:]
	}
	return nil
}

// skipBytes drops the next n bytes of a byte-aligned stream.
func (br *bitReader) skipBytes(n int) error {
	var tmp [256]byte
	for n > 0 {
		m := min(n, len(tmp))
		if err := br.readBytes(tmp[:m]); err != nil {
			return err
		}
		n -= m
	}
	return nil
}

// trailing reports whether input follows the end of the stream: any
// whole byte held in val, buffered, or readable from r.
func (br *bitReader) trailing() bool {
	if int(br.nbits)-br.pad*8 >= 8 {
		return true
	}
	if br.ip < br.end {
		return true
	}
	if br.eof {
		return false
	}
	br.fill()
	return br.ip < br.end
}
