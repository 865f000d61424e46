package verify

import "encoding/binary"

// sum32 is the Sum32 kind: the sum of all bytes, modulo 2^32.
type sum32 uint32

func (s *sum32) Write(p []byte) (int, error) {
	var v uint32
	for _, c := range p {
		v += uint32(c)
	}
	*s += sum32(v)
	return len(p), nil
}

func (s *sum32) Sum(b []byte) []byte { return binary.BigEndian.AppendUint32(b, uint32(*s)) }
func (s *sum32) Reset()              { *s = 0 }
func (s *sum32) Size() int           { return 4 }
func (s *sum32) BlockSize() int      { return 1 }
