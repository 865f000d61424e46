//go:build arm64 && gc && !purego

package verify

import "golang.org/x/sys/cpu"

// hasNEON reports whether the CPU has Advanced SIMD, which the NEON BLAKE2sp
// path needs (every arm64 Go supports has it; the check keeps the switch
// honest).
var hasNEON = cpu.ARM64.HasASIMD

// useNEON switches the NEON path at run time; tests toggle it.
var useNEON = hasNEON

// hasAVX2 and hasAVX512 belong to the amd64 paths (blake2sp_amd64.go).
const (
	hasAVX2   = false
	hasAVX512 = false
)

var (
	useAVX2   = false
	useAVX512 = false
)

// blake2spBlocksNEON is implemented in blake2sp_arm64.s (ASIMD), generated
// by _asm/arm64.go. It mirrors blake2spBlocksGeneric: len(p)/512 stripes,
// each compressed in two passes of four leaves, one 32-bit lane per leaf.
//
//go:noescape
func blake2spBlocksNEON(h *[8][blake2spDegree]uint32, p []byte, t uint64)

// blake2spBlocks compresses whole stripes; see blake2spBlocksGeneric.
func blake2spBlocks(h *[8][blake2spDegree]uint32, p []byte, t uint64) {
	if useNEON {
		blake2spBlocksNEON(h, p, t)
		return
	}
	blake2spBlocksGeneric(h, p, t)
}
