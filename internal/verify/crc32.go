package verify

import (
	"hash"
	"hash/crc32"
)

// The IEEE CRC32 (zip, gzip, RAR, 7z, xz headers and data) comes from
// hash/crc32, which already folds with PCLMULQDQ on amd64 and uses the CRC
// instructions on arm64. These helpers are the one door through which the
// formats reach it, for header and structure checks that hash a slice in
// place rather than stream an entry through Reader.

// SumCRC32 returns the IEEE CRC32 of p.
func SumCRC32(p []byte) uint32 { return crc32.ChecksumIEEE(p) }

// UpdateCRC32 returns the IEEE CRC32 of p continuing from crc, which is 0
// for a fresh checksum or the result of an earlier call, like crc32.Update
// with crc32.IEEETable.
func UpdateCRC32(crc uint32, p []byte) uint32 { return crc32.Update(crc, crc32.IEEETable, p) }

// NewCRC32 returns a fresh IEEE CRC32 hash; its Sum appends the CRC
// big-endian. It is New(CRC32) with the hash.Hash32 type.
func NewCRC32() hash.Hash32 { return crc32.NewIEEE() }

// UpdateCRC32Byte is UpdateCRC32 of the one byte c, for fields read a byte
// at a time.
func UpdateCRC32Byte(crc uint32, c byte) uint32 {
	return ^(crc32.IEEETable[byte(^crc)^c] ^ ^crc>>8)
}
