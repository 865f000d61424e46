package verify

import (
	"encoding/binary"
	"hash"
)

// crc16 is RAR's header checksum: the low 16 bits of the IEEE CRC32. It
// implements hash.Hash; Sum appends the two bytes big-endian.
type crc16 struct{ crc uint32 }

func newCRC16() hash.Hash { return &crc16{} }

func (d *crc16) Size() int      { return 2 }
func (d *crc16) BlockSize() int { return 1 }
func (d *crc16) Reset()         { d.crc = 0 }

func (d *crc16) Write(p []byte) (int, error) {
	d.crc = UpdateCRC32(d.crc, p)
	return len(p), nil
}

func (d *crc16) Sum(b []byte) []byte { return binary.BigEndian.AppendUint16(b, uint16(d.crc)) }
