package verify

import "encoding/binary"

// sum32 is the Sum32 kind: the sum of all bytes, modulo 2^32.
type sum32 uint32

func (s *sum32) Write(p []byte) (int, error) {
	*s = sum32(UpdateSum32(uint32(*s), p))
	return len(p), nil
}

func (s *sum32) Sum(b []byte) []byte { return binary.BigEndian.AppendUint32(b, uint32(*s)) }
func (s *sum32) Reset()              { *s = 0 }
func (s *sum32) Size() int           { return 4 }
func (s *sum32) BlockSize() int      { return 1 }

// UpdateSum32 adds the bytes of p to sum (the Sum32 kind, cpio's "crc"):
// with SSE2 on amd64 (sum32_amd64.s), else updateSum32Generic.
func UpdateSum32(sum uint32, p []byte) uint32 {
	if useSum32 != sumGeneric && len(p) >= sum32AsmMin {
		n := len(p) &^ (sum32AsmMin - 1)
		sum += uint32(sum32Asm(p[:n]))
		p = p[n:]
	}
	return updateSum32Generic(sum, p)
}

// The implementations of UpdateSum32's long runs; useSum32 picks one at
// run time (the tests switch it).
const (
	sumGeneric = iota
	sumSSE2
)

// sum32AsmMin is the step of the assembly loops: they take whole 128-byte
// blocks, the rest goes to updateSum32Generic.
const sum32AsmMin = 128

// updateSum32Generic is UpdateSum32 in Go. Eight bytes are added at a time
// as four 16-bit lanes of a uint64, which cannot overflow within 128 words
// (each adds at most 2·255 per lane).
func updateSum32Generic(sum uint32, p []byte) uint32 {
	const lo = 0x00ff00ff00ff00ff
	for len(p) >= 8 {
		n := min(len(p)/8, 128)
		var lanes uint64
		for i := range n {
			w := binary.LittleEndian.Uint64(p[8*i:])
			lanes += w&lo + w>>8&lo
		}
		p = p[8*n:]
		lanes = lanes&0x0000ffff0000ffff + lanes>>16&0x0000ffff0000ffff
		sum += uint32(lanes) + uint32(lanes>>32)
	}
	for _, c := range p {
		sum += uint32(c)
	}
	return sum
}
