package bcj

import "encoding/binary"

// PPC decodes the PowerPC (big-endian) filter (xz filter ID 0x05, 7-Zip
// PPC): "bl" instructions (opcode 18 with AA=0, LK=1) whose 24-bit offsets
// the encoder made absolute. Start offsets should be multiples of 4.
type PPC struct{ pos uint32 }

// NewPPC returns a PowerPC decoder whose stream starts at offset start.
func NewPPC(start uint32) *PPC { return &PPC{pos: start} }

// Reset restarts c at stream offset start.
func (c *PPC) Reset(start uint32) { c.pos = start }

// Convert implements Converter.
func (c *PPC) Convert(buf []byte) int {
	n := len(buf) &^ 3
	for i := 0; i < n; i += 4 {
		ins := binary.BigEndian.Uint32(buf[i:])
		if ins&0xFC000003 != 0x48000001 {
			continue
		}
		dest := ins&0x03FFFFFC - (c.pos + uint32(i))
		binary.BigEndian.PutUint32(buf[i:], 0x48000000|dest&0x03FFFFFF|1)
	}
	c.pos += uint32(n)
	return n
}
