package bcj

import "encoding/binary"

// ARM64 decodes the ARM64 filter (xz filter ID 0x0A, 7-Zip ARM64): BL
// instructions (full 26-bit range) and ADRP instructions (within ±512 MiB)
// whose targets the encoder made absolute. Start offsets should be
// multiples of 4.
type ARM64 struct{ pos uint32 }

// NewARM64 returns an ARM64 decoder whose stream starts at offset start.
func NewARM64(start uint32) *ARM64 { return &ARM64{pos: start} }

// Reset restarts c at stream offset start.
func (c *ARM64) Reset(start uint32) { c.pos = start }

// Convert implements Converter. On arm64 whole 16-byte groups go through
// NEON (see convertARM64); the rest is convertARM64Generic.
func (c *ARM64) Convert(buf []byte) int {
	n := len(buf) &^ 3
	convertARM64(buf[:n], c.pos)
	c.pos += uint32(n)
	return n
}

// convertARM64Generic converts the instructions of buf, whose length is a
// multiple of 4 and whose first byte is at stream position pos.
func convertARM64Generic(buf []byte, pos uint32) {
	for i := 0; i+4 <= len(buf); i += 4 {
		pc := pos + uint32(i)
		ins := binary.LittleEndian.Uint32(buf[i:])
		switch {
		case ins>>26 == 0x25: // BL
			ins = 0x94000000 | (ins-pc>>2)&0x03FFFFFF
			binary.LittleEndian.PutUint32(buf[i:], ins)
		case ins&0x9F000000 == 0x90000000: // ADRP
			src := ins>>29&3 | ins>>3&0x001FFFFC
			if (src+0x00020000)&0x001C0000 != 0 {
				continue // beyond ±512 MiB: left alone by the encoder
			}
			dest := src - pc>>12
			ins &= 0x9000001F
			ins |= (dest & 3) << 29
			ins |= (dest & 0x0003FFFC) << 3
			ins |= -(dest & 0x00020000) & 0x00E00000
			binary.LittleEndian.PutUint32(buf[i:], ins)
		}
	}
}
