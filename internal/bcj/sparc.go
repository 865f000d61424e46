package bcj

import "encoding/binary"

// SPARC decodes the SPARC filter (xz filter ID 0x09, 7-Zip SPARC): "call"
// instructions with a displacement within ±8 MiB whose targets the encoder
// made absolute. Start offsets should be multiples of 4.
type SPARC struct{ pos uint32 }

// NewSPARC returns a SPARC decoder whose stream starts at offset start.
func NewSPARC(start uint32) *SPARC { return &SPARC{pos: start} }

// Reset restarts c at stream offset start.
func (c *SPARC) Reset(start uint32) { c.pos = start }

// Convert implements Converter.
func (c *SPARC) Convert(buf []byte) int {
	n := len(buf) &^ 3
	for i := 0; i < n; i += 4 {
		b0, b1 := buf[i], buf[i+1]
		if !(b0 == 0x40 && b1&0xC0 == 0) && !(b0 == 0x7F && b1&0xC0 == 0xC0) {
			continue
		}
		src := binary.BigEndian.Uint32(buf[i:]) << 2
		dest := (src - (c.pos + uint32(i))) >> 2
		dest = (-(dest>>22&1)<<22)&0x3FFFFFFF | dest&0x3FFFFF | 0x40000000
		binary.BigEndian.PutUint32(buf[i:], dest)
	}
	c.pos += uint32(n)
	return n
}
