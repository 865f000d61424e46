//go:build amd64 && gc && !purego

package verify

import "golang.org/x/sys/cpu"

// hasCLMUL reports whether the CPU has what crc64CLMUL needs: PCLMULQDQ and
// SSE4.1 (PEXTRQ).
var hasCLMUL = cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSE41

// clmulName names the CRC-64 folding instruction for FastPaths.
const clmulName = "CRC-64 PCLMULQDQ"

// crc64CLMUL is implemented in crc64_amd64.s (PCLMULQDQ, SSE4.1). It folds
// p, whose length is a multiple of 16 and at least 64, into 128 bits
// congruent to it, after XORing the raw CRC register s into its first 8
// bytes; the CRC register after p is then crc64Raw(0, lo‖hi). It mirrors
// crc64Raw.
//
//go:noescape
func crc64CLMUL(s uint64, p []byte, k *[4]uint64) (lo, hi uint64)
