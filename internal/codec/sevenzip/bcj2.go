package sevenzip

import (
	"bufio"
	"encoding/binary"
	"io"
)

// BCJ2 undoes 7-Zip's four-stream x86 branch converter. The main stream
// holds the code with the 32-bit targets of CALL (E8) and JMP (E9, and the
// 0F 8x conditional jumps) taken out; the call and jump streams hold those
// targets as absolute big-endian addresses; the fourth stream is a range
// coder telling, for each candidate opcode, whether it was converted.

const (
	bcj2NumTopBits   = 24
	bcj2NumModelBits = 11
	bcj2NumMoveBits  = 5
	bcj2BufSize      = 64 << 10
)

// bcj2Reader decodes BCJ2 as a stream. It owns a buffer for the main
// stream and scans it directly; the other three are small byte readers.
type bcj2Reader struct {
	main       io.Reader
	buf        []byte
	pos, end   int
	call, jump *bufio.Reader
	rc         *bufio.Reader

	rng, code uint32
	probs     [2 + 256]uint16

	prev   byte
	outPos uint32 // position in the output, for the relative targets
	left   uint64 // output bytes still to produce
	pend   [4]byte
	npend  int // pend[4-npend:] still to return
	err    error
}

// newBCJ2 returns a reader of the BCJ2 output of in (main, call, jump,
// range coder) of the given size.
func newBCJ2(in []io.Reader, size uint64) (io.Reader, error) {
	b := &bcj2Reader{
		main: in[0],
		buf:  make([]byte, bcj2BufSize),
		call: bufio.NewReaderSize(in[1], 4096),
		jump: bufio.NewReaderSize(in[2], 4096),
		rc:   bufio.NewReaderSize(in[3], 4096),
		rng:  0xFFFFFFFF,
		left: size,
	}
	for i := range b.probs {
		b.probs[i] = 1 << bcj2NumModelBits >> 1
	}
	for i := 0; i < 5; i++ {
		c, err := b.rc.ReadByte()
		if err != nil {
			return nil, ErrTruncated
		}
		b.code = b.code<<8 | uint32(c)
	}
	return b, nil
}

// bit decodes one flag with probability model p.
func (b *bcj2Reader) bit(p *uint16) (uint32, error) {
	ttt := uint32(*p)
	bound := (b.rng >> bcj2NumModelBits) * ttt
	var bit uint32
	if b.code < bound {
		b.rng = bound
		*p = uint16(ttt + (1<<bcj2NumModelBits-ttt)>>bcj2NumMoveBits)
	} else {
		b.rng -= bound
		b.code -= bound
		*p = uint16(ttt - ttt>>bcj2NumMoveBits)
		bit = 1
	}
	if b.rng < 1<<bcj2NumTopBits {
		c, err := b.rc.ReadByte()
		if err != nil {
			return 0, ErrTruncated
		}
		b.rng <<= 8
		b.code = b.code<<8 | uint32(c)
	}
	return bit, nil
}

func (b *bcj2Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && b.left > 0 {
		if b.npend > 0 {
			k := copy(p[n:], b.pend[4-b.npend:])
			k = int(min(uint64(k), b.left))
			n += k
			b.npend -= k
			b.left -= uint64(k)
			continue
		}
		if b.pos == b.end {
			if b.err != nil {
				break
			}
			m, err := b.main.Read(b.buf)
			b.pos, b.end = 0, m
			if err != nil {
				b.err = err
			}
			continue
		}
		// Copy main-stream bytes up to and including the next opcode
		// that may have had its target converted.
		lim := min(len(p)-n, b.end-b.pos)
		lim = int(min(uint64(lim), b.left))
		src := b.buf[b.pos : b.pos+lim]
		dst := p[n : n+lim]
		prev := b.prev
		k, found := 0, false
		for k < len(src) {
			c := src[k]
			dst[k] = c
			k++
			if c&0xFE == 0xE8 || prev == 0x0F && c&0xF0 == 0x80 {
				found = true
				break
			}
			prev = c
		}
		n += k
		b.pos += k
		b.outPos += uint32(k)
		b.left -= uint64(k)
		if !found {
			b.prev = prev
			continue
		}
		c := src[k-1]
		if b.left == 0 {
			b.prev = c
			break // the output ends at the opcode: no flag was coded
		}
		var prob *uint16
		switch c {
		case 0xE8:
			prob = &b.probs[prev]
		case 0xE9:
			prob = &b.probs[256]
		default:
			prob = &b.probs[257]
		}
		bit, err := b.bit(prob)
		if err != nil {
			return n, err
		}
		if bit == 0 {
			b.prev = c
			continue
		}
		src4 := b.jump
		if c == 0xE8 {
			src4 = b.call
		}
		var v uint32
		for i := 0; i < 4; i++ {
			c, err := src4.ReadByte()
			if err != nil {
				return n, ErrTruncated
			}
			v = v<<8 | uint32(c)
		}
		dest := v - (b.outPos + 4)
		binary.LittleEndian.PutUint32(b.pend[:], dest)
		b.npend = 4
		b.outPos += 4
		b.prev = byte(dest >> 24)
	}
	if n == 0 {
		if b.left == 0 {
			return 0, io.EOF
		}
		if b.err == io.EOF {
			return 0, ErrTruncated
		}
		if b.err != nil {
			return 0, corrupt(b.err)
		}
	}
	return n, nil
}
