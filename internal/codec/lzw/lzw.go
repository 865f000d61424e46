// Package lzw reads .Z files, the format of Unix compress (ncompress 4.2):
// a three-byte header (1F 9D, then the maximum code width 9 to 16 and the
// block-mode flag) followed by LZW codes, least significant bit first,
// starting 9 bits wide. In block mode code 256 clears the table.
//
// Codes are read as ncompress and gzip read them: in groups of eight codes
// (as many bytes as the code width), and when the width grows or the table
// is cleared the rest of the current group is skipped. Any decoder that
// reads the codes back to back instead goes wrong at the first width change
// of most real files; the tests hold the decoder to ncompress's output.
//
// The format carries no checksum and no length: a truncated file decodes to
// a prefix of its data, as with the other tools. Corruption is found only
// where it makes a code impossible (a code beyond the next free one, or a
// first code that is no literal).
package lzw

import (
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Errors. Each errors.Is its archive category.
var (
	// ErrMagic reports data that does not start with 1F 9D.
	ErrMagic = archive.Corruptf("compress: not a .Z file")
	// ErrBits reports a maximum code width above 16 bits.
	ErrBits = archive.Unsupportedf("compress: codes wider than 16 bits")
	// ErrFewBits reports a maximum code width below 9 bits, which no
	// compress writes.
	ErrFewBits = archive.Corruptf("compress: maximum code width below 9 bits")
	// ErrCode reports a code that cannot occur in a valid stream.
	ErrCode = archive.Corruptf("compress: invalid code")
	// ErrTruncated reports a stream shorter than its header.
	ErrTruncated = archive.Corruptf("compress: truncated header")
)

const (
	clearCode = 256
	maxCodes  = 1 << 16
	inSize    = 64 << 10
	outSize   = 1 << 20
	// outReserve is the room kept free in the output buffer before each
	// group of eight codes: eight of the longest string a code can stand
	// for, plus the three bytes a 4-byte store may write past its end.
	outReserve = 8*(maxCodes+1) + 3
)

// Reader decompresses a .Z stream.
type Reader struct {
	r   io.Reader
	in  []byte
	ip  int // next unread byte of in
	ie  int // end of the bytes read into in
	eof bool

	maxBits    uint
	block      bool
	nBits      uint
	maxCode    int // widen when the next free code goes past it
	maxMaxCode int // 1 << maxBits: no entries at or beyond it
	freeEnt    int
	oldCode    int // -1 before the first code
	finChar    byte

	grp    [24]byte  // the last group of codes, plus slack for 8-byte loads
	codes  [8]uint16 // the current group's codes
	gCodes int       // codes in the group

	// ent describes each code's string in chunks of four bytes counted
	// from its start: bits 0-31 hold the string's last chunk (one to four
	// bytes, the first in the low byte), bits 32-47 the code whose string
	// is everything before that chunk, bits 48-63 the string's length
	// (at most 65,280: one more than the longest chain a 16-bit table
	// holds). A string is spelled out backwards one chunk, not one byte,
	// per table load.
	ent [maxCodes]uint64

	out    []byte
	op, oe int // unread output is out[op:oe]
	err    error
}

// NewReader reads the header of a .Z stream from r.
func NewReader(r io.Reader) (*Reader, error) {
	z := new(Reader)
	if err := z.Reset(r); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z read a new .Z stream from r, reusing its buffers.
func (z *Reader) Reset(r io.Reader) error {
	if z.in == nil {
		z.in = make([]byte, inSize)
		z.out = make([]byte, outSize)
		for i := range 256 {
			z.ent[i] = uint64(i) | 1<<48
		}
	}
	z.r, z.ip, z.ie, z.eof = r, 0, 0, false
	z.op, z.oe, z.err = 0, 0, nil
	z.gCodes = 0
	hdr := z.grp[:3]
	n, err := io.ReadFull(r, hdr)
	if err != nil {
		if n == 0 && err == io.EOF {
			z.err = ErrMagic
		} else if err == io.ErrUnexpectedEOF {
			z.err = ErrTruncated
			if hdr[0] != 0x1f || (n > 1 && hdr[1] != 0x9d) {
				z.err = ErrMagic
			}
		} else {
			z.err = err
		}
		return z.err
	}
	if hdr[0] != 0x1f || hdr[1] != 0x9d {
		z.err = ErrMagic
		return z.err
	}
	z.maxBits = uint(hdr[2] & 0x1f)
	z.block = hdr[2]&0x80 != 0
	if z.maxBits > 16 {
		z.err = ErrBits
		return z.err
	}
	if z.maxBits < 9 {
		z.err = ErrFewBits
		return z.err
	}
	z.maxMaxCode = 1 << z.maxBits
	z.nBits = 9
	z.maxCode = 1<<9 - 1
	z.freeEnt = 256
	if z.block {
		z.freeEnt = 257
	}
	z.oldCode = -1
	return nil
}

// MaxBits is the maximum code width the header declares.
func (z *Reader) MaxBits() int { return int(z.maxBits) }

// Read implements io.Reader.
func (z *Reader) Read(p []byte) (int, error) {
	for z.op == z.oe {
		if z.err != nil {
			return 0, z.err
		}
		z.op, z.oe = 0, 0
		z.decode()
	}
	n := copy(p, z.out[z.op:z.oe])
	z.op += n
	return n, nil
}

// WriteTo writes the rest of the decompressed data to w.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if z.op < z.oe {
			n, err := w.Write(z.out[z.op:z.oe])
			total += int64(n)
			z.op += n
			if err != nil {
				return total, err
			}
		}
		if z.err != nil {
			if z.err == io.EOF {
				return total, nil
			}
			return total, z.err
		}
		z.op, z.oe = 0, 0
		z.decode()
	}
}

// nextGroup loads the next group of codes into z.codes: nBits bytes
// (eight codes), or at the end of the input what is left, holding as many
// whole codes as fit. It returns false at the end of the data.
func (z *Reader) nextGroup() bool {
	const room = len(z.grp) // a group and the slack of its codes' loads
	for z.ie-z.ip < room && !z.eof {
		if z.ip > 0 {
			z.ie = copy(z.in, z.in[z.ip:z.ie])
			z.ip = 0
		}
		n, err := z.r.Read(z.in[z.ie:])
		z.ie += n
		if err == io.EOF {
			z.eof = true
		} else if err != nil {
			z.err = err
			return false
		} else if n == 0 {
			continue
		}
	}
	nb := z.nBits
	n := min(int(nb), z.ie-z.ip)
	var g *[room]byte
	if z.ie-z.ip >= room {
		g = (*[room]byte)(z.in[z.ip:])
	} else {
		// The last bytes of the input: the slack after them is stale,
		// which the masks below cut off.
		copy(z.grp[:], z.in[z.ip:z.ie])
		g = &z.grp
	}
	z.ip += n
	z.gCodes = n * 8 / int(nb)
	if z.gCodes == 0 {
		z.err = io.EOF
		return false
	}
	// One 8-byte load per code (a code spans at most 3 bytes; the bits
	// above it are masked off): fewer instructions than three byte loads.
	mask := uint64(1)<<nb - 1
	for i := range 8 {
		bit := uint(i) * nb
		v := binary.LittleEndian.Uint64(g[(bit>>3)&15:])
		z.codes[i] = uint16(v >> (bit & 7) & mask)
	}
	return true
}

// decode fills z.out with the strings of as many codes as fit, leaving
// z.err set at the end of the stream or on an error.
//
// A string is spelled out backwards through its chain of chunks (see
// Reader.ent): copying it instead from where it last appeared in the
// output was slower on the bench inputs (cache misses on the far copies).
func (z *Reader) decode() {
	out := z.out
	op := z.oe
	freeEnt, oldCode, finChar := z.freeEnt, z.oldCode, z.finChar
	ent := &z.ent
codes:
	for end := len(out) - outReserve; op <= end && z.nextGroup(); {
	group:
		for _, code := range z.codes[:z.gCodes] {
			code := int(code)

			if code < 256 && oldCode >= 0 {
				// A literal: the common case, without the table lookups.
				out[op] = byte(code)
				finChar = byte(code)
				op++
			} else {
				if oldCode < 0 {
					if code >= 256 {
						z.err = ErrCode
						break codes
					}
					out[op] = byte(code)
					op++
					oldCode, finChar = code, byte(code)
					continue
				}
				if code == clearCode && z.block {
					// The table restarts; entry 256 (the clear code itself)
					// gets a dummy string from the next code, as in ncompress,
					// so oldCode stays set.
					freeEnt = 256
					z.nBits = 9
					z.maxCode = 1<<9 - 1
					break group // the rest of the group is skipped
				}
				c := code
				kwk := false
				if code >= freeEnt {
					// The string being defined: the previous one plus its own
					// first byte (KwKwK). With the table full there is no
					// such string (ncompress would read a stale entry).
					if code > freeEnt || code >= z.maxMaxCode {
						z.err = ErrCode
						break codes
					}
					c = oldCode
					kwk = true
				}
				// The last chunk first: four bytes stored at its start, the
				// ones past the string's end landing in the free room after
				// it; every chunk before it is whole.
				e := ent[c]
				m := int(e >> 48)
				i := op + m - ((m-1)&3 + 1)
				binary.LittleEndian.PutUint32(out[i:], uint32(e))
				for i > op {
					e = ent[uint16(e>>32)]
					i -= 4
					binary.LittleEndian.PutUint32(out[i:], uint32(e))
				}
				finChar = byte(e)
				op += m
				if kwk {
					out[op] = finChar
					op++
				}
			}
			if f := freeEnt; f < z.maxMaxCode {
				// The new string: oldCode's and finChar.
				o := ent[oldCode]
				n := o >> 48
				if n&3 == 0 {
					ent[f] = uint64(finChar) | uint64(oldCode)<<32 | (n+1)<<48
				} else {
					ent[f] = (o | uint64(finChar)<<(8*(n&3))) + 1<<48
				}
				freeEnt = f + 1
			}
			oldCode = code
			if freeEnt > z.maxCode {
				z.nBits++
				if z.nBits == z.maxBits {
					z.maxCode = z.maxMaxCode
				} else {
					z.maxCode = 1<<z.nBits - 1
				}
				break group
			}
		}
	}
	z.freeEnt, z.oldCode, z.finChar = freeEnt, oldCode, finChar
	z.oe = op
}
