package bcj

import (
	"encoding/binary"
	"math/bits"
)

// X86 decodes the x86 BCJ filter (xz filter ID 0x04, 7-Zip BCJ): the
// relative targets of CALL (E8) and JMP (E9) instructions that the encoder
// made absolute.
type X86 struct {
	pos      uint32 // stream position of the next byte passed to Convert
	prevMask uint32 // which of the last bytes before prevPos were E8/E9 candidates
	prevPos  uint32 // stream position of the last E8/E9 seen
}

// NewX86 returns an x86 decoder whose stream starts at offset start.
func NewX86(start uint32) *X86 {
	c := &X86{}
	c.Reset(start)
	return c
}

// Reset restarts c at stream offset start.
func (c *X86) Reset(start uint32) {
	c.pos, c.prevMask, c.prevPos = start, 0, start-5
}

// Convert implements Converter. On amd64 and arm64 the search for E8/E9
// opcodes is vectorised (see findE8); the rest is convert.
func (c *X86) Convert(buf []byte) int { return c.convert(buf, findE8) }

// convertGeneric is Convert with the pure-Go opcode search.
func (c *X86) convertGeneric(buf []byte) int { return c.convert(buf, findE8Generic) }

// x86InlineScan is how many bytes convert checks itself before calling
// the opcode search.
const x86InlineScan = 16

// x86Allowed[m] tells whether a conversion may happen with prevMask>>1 == m.
var x86Allowed = [8]bool{true, true, true, false, true, false, false, false}

// x86BitNumber maps prevMask>>1 to the byte of the target to test.
var x86BitNumber = [8]uint32{0, 1, 2, 2, 3, 3, 3, 3}

// test86MSByte reports whether b may be the most significant byte of a
// 32-bit relative target (a near call within ±16 MiB).
func test86MSByte(b byte) bool { return b == 0 || b == 0xFF }

func (c *X86) convert(buf []byte, find func([]byte) int) int {
	if len(buf) < 5 {
		return 0
	}
	now, prevMask, prevPos := c.pos, c.prevMask, c.prevPos
	if now-prevPos > 5 {
		prevPos = now - 5
	}
	limit := len(buf) - 5
	i := 0
	for i <= limit {
		if buf[i]&0xFE != 0xE8 {
			// Opcodes are dense in code: look at a few bytes here
			// before handing a long stretch to the (vector) search.
			j, end := i+1, min(i+x86InlineScan, limit+1)
			for j < end && buf[j]&0xFE != 0xE8 {
				j++
			}
			if j == end && j <= limit {
				j += find(buf[j : limit+1])
			}
			if i = j; i > limit {
				break
			}
		}
		off := now + uint32(i) - prevPos
		prevPos = now + uint32(i)
		if off > 5 {
			prevMask = 0
		} else {
			for k := uint32(0); k < off; k++ {
				prevMask = (prevMask & 0x77) << 1
			}
		}
		b := buf[i+4]
		if test86MSByte(b) && x86Allowed[(prevMask>>1)&7] && prevMask>>1 < 0x10 {
			src := binary.LittleEndian.Uint32(buf[i+1:])
			var dest uint32
			for {
				dest = src - (now + uint32(i) + 5)
				if prevMask == 0 {
					break
				}
				n := x86BitNumber[(prevMask>>1)&7] * 8
				if !test86MSByte(byte(dest >> (24 - n))) {
					break
				}
				src = dest ^ (1<<(32-n) - 1)
			}
			dest &= 0x01FFFFFF
			if dest&0x01000000 != 0 {
				dest |= 0xFF000000
			}
			binary.LittleEndian.PutUint32(buf[i+1:], dest)
			i += 5
			prevMask = 0
		} else {
			i++
			prevMask |= 1
			if test86MSByte(b) {
				prevMask |= 0x10
			}
		}
	}
	c.pos = now + uint32(i)
	c.prevMask, c.prevPos = prevMask, prevPos
	return i
}

// findE8Generic returns the index of the first byte of b that is E8 or E9,
// or len(b). It tests eight bytes at a time.
func findE8Generic(b []byte) int {
	const (
		lo  = 0x0101010101010101
		hi  = 0x8080808080808080
		fe  = 0xFEFEFEFEFEFEFEFE
		e8s = 0xE8E8E8E8E8E8E8E8
	)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])&fe ^ e8s
		// A zero byte of w is an E8/E9 in b. The borrow can only
		// produce false hits above the lowest true one.
		if z := (w - lo) &^ w & hi; z != 0 {
			return i + bits.TrailingZeros64(z)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i]&0xFE == 0xE8 {
			return i
		}
	}
	return len(b)
}
