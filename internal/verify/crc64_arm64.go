//go:build arm64 && gc && !purego

package verify

import "golang.org/x/sys/cpu"

// hasCLMUL reports whether the CPU has what crc64CLMUL needs: the 64-bit
// polynomial multiply PMULL/PMULL2 (the AES extension; ASIMD comes with
// every arm64).
var hasCLMUL = cpu.ARM64.HasPMULL

// clmulName names the CRC-64 folding instruction for FastPaths.
const clmulName = "CRC-64 PMULL"

// crc64CLMUL is implemented in crc64_arm64.s (PMULL). It folds p, whose
// length is a multiple of 16 and at least 64, into 128 bits congruent to it,
// after XORing the raw CRC register s into its first 8 bytes; the CRC
// register after p is then crc64Raw(0, lo‖hi). It mirrors crc64Raw and the
// amd64 PCLMULQDQ path, with the same multipliers.
//
//go:noescape
func crc64CLMUL(s uint64, p []byte, k *[4]uint64) (lo, hi uint64)
