package ppmd

import (
	"bufio"
	"io"
)

// Range coder constants.
const (
	rcTop = 1 << 24
	rcBot = 1 << 15
)

// RangeDecoder is the arithmetic decoder under a PPMd model. Two variants
// exist: 7-Zip's (Init7z) and RAR's carry-less coder (InitRAR); both read
// bytes from an io.ByteReader. A read error is kept and returned by the
// model's next DecodeSymbol.
//
// Init7z and InitI read a *bufio.Reader through its buffer (Peek, and
// Discard of what was consumed), one slice index a byte instead of a
// ReadByte call; the models' Decode and DecodeSymbol discard what the
// coder consumed before they return, so that the reader is where the
// coder is whenever the caller could read it (a zip entry's data
// descriptor follows its PPMd data). InitRAR reads byte by byte.
//
// Both variants keep code as the distance of the code from the bottom of
// the range (RAR's code-low), so that threshold and decode are the same
// branch-free arithmetic for both; only RAR's normalisation needs low.
type RangeDecoder struct {
	code    uint32 // code value minus low
	rng     uint32
	low     uint32 // RAR's range bottom; kept but unused by 7-Zip's coder
	bitMask uint32 // what of the range a binary decision splits: all for 7z, whole 2^-14 units for RAR
	isRAR   bool
	br      io.ByteReader
	bb      *bufio.Reader // br, when Init7z or InitI read it through buf
	buf     []byte        // bb's buffered bytes, consumed up to pos
	pos     int
	err     error
}

// Init7z starts a 7-Zip PPMd (variant H) stream: 5 bytes, the first zero.
func (rc *RangeDecoder) Init7z(br io.ByteReader) error {
	*rc = RangeDecoder{br: br, rng: 0xffffffff, bitMask: 0xffffffff}
	rc.bb, _ = br.(*bufio.Reader)
	first := rc.next()
	for i := 0; i < 4; i++ {
		rc.code = rc.code<<8 | uint32(rc.next())
	}
	if rc.err == nil && (first != 0 || rc.code == 0xffffffff) {
		rc.err = ErrCorrupt
	}
	return rc.err
}

// InitRAR starts a RAR 3.x PPMd stream: 4 bytes.
func (rc *RangeDecoder) InitRAR(br io.ByteReader) error {
	*rc = RangeDecoder{br: br, rng: 0xffffffff, bitMask: ^uint32(1<<14 - 1), isRAR: true}
	for i := 0; i < 4; i++ {
		rc.code = rc.code<<8 | uint32(rc.next())
	}
	return rc.err
}

// InitI starts a PPMd variant I stream (7-Zip's Ppmd8, zip method 98):
// RAR's carry-less coder, 4 bytes, which may not be all ones.
func (rc *RangeDecoder) InitI(br io.ByteReader) error {
	*rc = RangeDecoder{br: br, rng: 0xffffffff, bitMask: ^uint32(1<<14 - 1), isRAR: true}
	rc.bb, _ = br.(*bufio.Reader)
	for i := 0; i < 4; i++ {
		rc.code = rc.code<<8 | uint32(rc.next())
	}
	if rc.err != nil {
		return rc.err
	}
	if rc.code == 0xFFFFFFFF {
		rc.err = ErrCorrupt
	}
	return rc.err
}

// next returns the next input byte, 0 after a read error.
func (rc *RangeDecoder) next() byte {
	if rc.pos < len(rc.buf) {
		c := rc.buf[rc.pos]
		rc.pos++
		return c
	}
	return rc.refill()
}

// sync discards of bb what the coder consumed of its buffer and lets the
// buffer go (the caller may read bb before the next decode).
func (rc *RangeDecoder) sync() {
	if rc.buf != nil {
		rc.bb.Discard(rc.pos)
		rc.buf, rc.pos = nil, 0
	}
}

// refill reads the next byte when buf is used up: through bb's buffer
// when there is one, else by ReadByte.
func (rc *RangeDecoder) refill() byte {
	if rc.bb == nil {
		c, err := rc.br.ReadByte()
		if err != nil {
			rc.fail(err)
			return 0
		}
		return c
	}
	rc.bb.Discard(rc.pos)
	rc.buf, rc.pos = nil, 0
	if _, err := rc.bb.Peek(1); err != nil {
		rc.fail(err)
		return 0
	}
	rc.buf, _ = rc.bb.Peek(rc.bb.Buffered())
	rc.pos = 1
	return rc.buf[0]
}

// fail keeps the first read error, EOF as io.ErrUnexpectedEOF.
func (rc *RangeDecoder) fail(err error) {
	if rc.err == nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		rc.err = err
	}
}

// threshold returns the count within total of the next symbol.
func (rc *RangeDecoder) threshold(total uint32) uint32 {
	r := rc.rng / total
	if r == 0 {
		// RAR's range may be narrower than the total: data no encoder
		// writes. 7-Zip's is at least 2^24 here, above any total.
		if rc.err == nil {
			rc.err = ErrCorrupt
		}
		r = 1
	}
	rc.rng = r
	return rc.code / r
}

// thresholdI is threshold for variant I, whose decoder, as 7-Zip's since
// 20.01, cuts a total above the range down to the range (it decodes
// streams that older 7-Zip, and RAR's coder, reject). The total is at
// least 1 and the range too (after a failed normalisation as well), so
// that neither quotient divides by zero.
func (rc *RangeDecoder) thresholdI(total uint32) uint32 {
	rc.rng /= total
	return rc.code / rc.rng
}

// decode consumes the symbol occupying [start, start+size) of the total
// passed to threshold.
func (rc *RangeDecoder) decode(start, size uint32) {
	d := start * rc.rng
	rc.code -= d
	rc.low += d
	rc.rng *= size
}

// The models normalise the range after decode or bit late: nothing
// reads the coder between a decode and the next threshold or bit, so
// they do it before the next threshold of an escape and once a symbol is
// decoded, which keeps the call, and the register spills around it, off
// the paths of the symbol decoders. Both coders call normalize only when
// the range is below 2^24: 7-Zip's normalises exactly then, RAR's (and
// variant I's) at most then (when the range's ends share their top byte,
// or it is below 2^15), which normalize checks itself; one test of the
// range instead of RAR's exact condition, or of which coder it is.

// normalize refills the range after decode. Both coders are refilled
// here, reading the input without further calls: it runs for about
// every fourth symbol.
func (rc *RangeDecoder) normalize() {
	if rc.isRAR {
		// RAR's carry-less coder.
		for {
			if rc.low^(rc.low+rc.rng) >= rcTop {
				if rc.rng >= rcBot {
					return
				}
				rc.rng = -rc.low & (rcBot - 1)
			}
			if rc.rng == 0 || rc.err != nil {
				// Only invalid data gets here; stop rather than spin,
				// leaving a range that thresholdI can divide by (the
				// decoders finish their symbol before they see err).
				if rc.err == nil {
					rc.err = ErrCorrupt
				}
				rc.rng |= 1
				return
			}
			// next, inline.
			var c byte
			if rc.pos < len(rc.buf) {
				c = rc.buf[rc.pos]
				rc.pos++
			} else {
				c = rc.refill()
			}
			rc.code = rc.code<<8 | uint32(c)
			rc.rng <<= 8
			rc.low <<= 8
		}
	}
	if rc.rng == 0 {
		if rc.err == nil {
			rc.err = ErrCorrupt // only invalid data gets here
		}
		rc.rng = 1 << 31
		return
	}
	for rc.rng < rcTop {
		var c byte
		if rc.pos < len(rc.buf) {
			c = rc.buf[rc.pos]
			rc.pos++
		} else {
			c = rc.refill()
		}
		rc.code = rc.code<<8 | uint32(c)
		rc.rng <<= 8
	}
}

// unnormalRAR reports whether RAR's coder normalises a range below 2^24:
// when its ends share their top byte, or it is below 2^15.
func (rc *RangeDecoder) unnormalRAR() bool {
	return rc.low^(rc.low+rc.rng) < rcTop || rc.rng < rcBot
}

// shift7z and shiftRAR are one step of normalize's loop for 7-Zip's and
// RAR's coder, for the models to inline where the range needs one byte
// and the buffer holds it (uint(rc.pos) < uint(len(rc.buf)), unsigned so
// that it proves the index in range); they call normalize for the rest. RAR's coder shifts when its range is at least 2^15 and
// its ends share their top byte.
func (rc *RangeDecoder) shift7z() {
	rc.code = rc.code<<8 | uint32(rc.buf[rc.pos])
	rc.pos++
	rc.rng <<= 8
}

func (rc *RangeDecoder) shiftRAR() {
	rc.code = rc.code<<8 | uint32(rc.buf[rc.pos])
	rc.pos++
	rc.rng <<= 8
	rc.low <<= 8
}

// bit decodes a binary choice with probability size0/2^14 for 0. 7-Zip
// splits the whole range; RAR decodes the choice as a symbol of total
// 2^14, which leaves out the range's remainder below 2^14 units.
func (rc *RangeDecoder) bit(size0 uint32) uint32 {
	bound := (rc.rng >> 14) * size0
	b := uint32(0)
	if rc.code < bound {
		rc.rng = bound
	} else {
		rc.code -= bound
		rc.low += bound
		rc.rng = rc.rng&rc.bitMask - bound
		b = 1
	}
	return b
}
