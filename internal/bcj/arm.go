package bcj

// ARM decodes the ARM (32-bit, little-endian) BL filter (xz filter ID 0x07,
// 7-Zip ARM): BL instructions whose 24-bit word offsets the encoder made
// absolute. Start offsets should be multiples of 4.
type ARM struct{ pos uint32 }

// NewARM returns an ARM decoder whose stream starts at offset start.
func NewARM(start uint32) *ARM { return &ARM{pos: start} }

// Reset restarts c at stream offset start.
func (c *ARM) Reset(start uint32) { c.pos = start }

// Convert implements Converter.
func (c *ARM) Convert(buf []byte) int {
	n := len(buf) &^ 3
	for i := 0; i < n; i += 4 {
		b := buf[i : i+4 : i+4]
		if b[3] != 0xEB {
			continue
		}
		src := (uint32(b[2])<<16 | uint32(b[1])<<8 | uint32(b[0])) << 2
		dest := (src - (c.pos + uint32(i) + 8)) >> 2
		b[0], b[1], b[2] = byte(dest), byte(dest>>8), byte(dest>>16)
	}
	c.pos += uint32(n)
	return n
}
