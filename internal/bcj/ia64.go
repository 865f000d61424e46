package bcj

import "encoding/binary"

// IA64 decodes the IA-64 (Itanium) filter (xz filter ID 0x06, 7-Zip
// IA64): br.call instructions in 16-byte bundles whose 21-bit bundle
// offsets the encoder made absolute. Start offsets should be multiples of 16.
type IA64 struct{ pos uint32 }

// NewIA64 returns an IA-64 decoder whose stream starts at offset start.
func NewIA64(start uint32) *IA64 { return &IA64{pos: start} }

// Reset restarts c at stream offset start.
func (c *IA64) Reset(start uint32) { c.pos = start }

// ia64Slots maps a bundle's template to a bit mask of the slots that may
// hold a branch.
var ia64Slots = [32]uint8{
	0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
	4, 4, 6, 6, 0, 0, 7, 7,
	4, 4, 0, 0, 4, 4, 0, 0,
}

// Convert implements Converter.
func (c *IA64) Convert(buf []byte) int {
	n := len(buf) &^ 15
	for i := 0; i < n; i += 16 {
		mask := ia64Slots[buf[i]&0x1F]
		for slot, bitPos := 0, uint(5); slot < 3; slot, bitPos = slot+1, bitPos+41 {
			if mask>>slot&1 == 0 {
				continue
			}
			at := i + int(bitPos>>3)
			shift := bitPos & 7
			// Six bytes hold the 41-bit slot from bit `shift` on.
			var raw [8]byte
			copy(raw[:6], buf[at:at+6])
			ins := binary.LittleEndian.Uint64(raw[:])
			norm := ins >> shift
			if norm>>37&0xF != 0x5 || norm>>9&0x7 != 0 {
				continue
			}
			src := uint32(norm>>13&0xFFFFF) | uint32(norm>>36&1)<<20
			src <<= 4
			dest := (src - (c.pos + uint32(i))) >> 4
			norm &^= uint64(0x8FFFFF) << 13
			norm |= uint64(dest&0xFFFFF) << 13
			norm |= uint64(dest&0x100000) << (36 - 20)
			ins &= 1<<shift - 1
			ins |= norm << shift
			binary.LittleEndian.PutUint64(raw[:], ins)
			copy(buf[at:at+6], raw[:6])
		}
	}
	c.pos += uint32(n)
	return n
}
