package verify

import (
	"hash"
	"hash/crc64"
)

// newCRC64 returns the CRC64-ECMA hash xz uses.
func newCRC64() hash.Hash64 { return crc64.New(crc64Table) }
