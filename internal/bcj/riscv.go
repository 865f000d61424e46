package bcj

import "encoding/binary"

// RISCV decodes the RISC-V filter (xz filter ID 0x0B, XZ Utils 5.6+,
// 7-Zip RISCV): JAL instructions with rd x1 or x5, and AUIPC pairs with a
// following 32-bit instruction that uses AUIPC's rd as rs1, which the
// encoder rewrote with absolute addresses (the pairs in a special big-endian
// form). Start offsets should be multiples of 2.
type RISCV struct{ pos uint32 }

// NewRISCV returns a RISC-V decoder whose stream starts at offset start.
func NewRISCV(start uint32) *RISCV { return &RISCV{pos: start} }

// Reset restarts c at stream offset start.
func (c *RISCV) Reset(start uint32) { c.pos = start }

// Convert implements Converter.
func (c *RISCV) Convert(buf []byte) int {
	if len(buf) < 8 {
		return 0
	}
	limit := len(buf) - 8
	i := 0
	for ; i <= limit; i += 2 {
		b0 := buf[i]
		switch {
		case b0 == 0xEF: // JAL
			b1 := uint32(buf[i+1])
			if b1&0x0D != 0 {
				continue // rd is neither x1 nor x5
			}
			b2, b3 := uint32(buf[i+2]), uint32(buf[i+3])
			addr := (b1&0xF0)<<13 | b2<<9 | b3<<1
			addr -= c.pos + uint32(i)
			buf[i+1] = byte(b1&0x0F | addr>>8&0xF0)
			buf[i+2] = byte(addr>>16&0x0F | addr>>7&0x10 | addr<<4&0xE0)
			buf[i+3] = byte(addr>>4&0x7F | addr>>13&0x80)
			i += 4 - 2
		case b0&0x7F == 0x17: // AUIPC
			ins := binary.LittleEndian.Uint32(buf[i:])
			var ins2 uint32
			if ins&0xE80 != 0 {
				// rd is neither x0 nor x2: only a pair the encoder
				// left alone; it re-encodes such "fake" pairs.
				ins2 = binary.LittleEndian.Uint32(buf[i+4:])
				if (ins<<8^(ins2-3))&0xF8003 != 0 {
					i += 6 - 2
					continue
				}
				addr := ins&0xFFFFF000 + ins2>>20
				ins = 0x17 | 2<<7 | ins2<<12
				ins2 = addr
			} else {
				// rd is x0 or x2: the encoder's special form when
				// bits 12-13 are set and rs1 is not x0 or x2.
				rs1 := ins >> 27
				if (ins-0x3117)<<18 >= rs1&0x1D {
					i += 4 - 2
					continue
				}
				addr := binary.BigEndian.Uint32(buf[i+4:])
				addr -= c.pos + uint32(i)
				ins2 = ins>>12 | addr<<20
				ins = 0x17 | rs1<<7 | (addr+0x800)&0xFFFFF000
			}
			binary.LittleEndian.PutUint32(buf[i:], ins)
			binary.LittleEndian.PutUint32(buf[i+4:], ins2)
			i += 8 - 2
		}
	}
	c.pos += uint32(i)
	return i
}
