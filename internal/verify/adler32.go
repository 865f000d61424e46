package verify

import "hash/adler32"

// SumAdler32 returns the Adler-32 of p (lzop's header and block checks).
func SumAdler32(p []byte) uint32 { return adler32.Checksum(p) }
