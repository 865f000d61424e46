package bcj

// ARMThumb decodes the ARM-Thumb BL filter (xz filter ID 0x08, 7-Zip
// ARMT): the two-halfword Thumb BL instructions whose 22-bit halfword
// offsets the encoder made absolute. Start offsets should be multiples of 2.
type ARMThumb struct{ pos uint32 }

// NewARMThumb returns an ARM-Thumb decoder whose stream starts at offset
// start.
func NewARMThumb(start uint32) *ARMThumb { return &ARMThumb{pos: start} }

// Reset restarts c at stream offset start.
func (c *ARMThumb) Reset(start uint32) { c.pos = start }

// Convert implements Converter.
func (c *ARMThumb) Convert(buf []byte) int {
	if len(buf) < 4 {
		return 0
	}
	limit := len(buf) - 4
	i := 0
	for ; i <= limit; i += 2 {
		b := buf[i : i+4 : i+4]
		if b[1]&0xF8 != 0xF0 || b[3]&0xF8 != 0xF8 {
			continue
		}
		src := (uint32(b[1]&7)<<19 | uint32(b[0])<<11 | uint32(b[3]&7)<<8 | uint32(b[2])) << 1
		dest := (src - (c.pos + uint32(i) + 4)) >> 1
		b[1] = 0xF0 | byte(dest>>19)&7
		b[0] = byte(dest >> 11)
		b[3] = 0xF8 | byte(dest>>8)&7
		b[2] = byte(dest)
		i += 2
	}
	c.pos += uint32(i)
	return i
}
