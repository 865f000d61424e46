//go:build amd64 && gc && !purego

package verify

import "golang.org/x/sys/cpu"

// hasAVX2 reports whether the CPU (and OS) support the AVX2 BLAKE2sp path.
var hasAVX2 = cpu.X86.HasAVX2

// useAVX2 switches the AVX2 path at run time; tests toggle it.
var useAVX2 = hasAVX2

// blake2spBlocksAVX2 is implemented in blake2sp_amd64.s (AVX2). It mirrors
// blake2spBlocksGeneric: len(p)/512 stripes, the eight leaves compressed in
// one pass, one 32-bit lane per leaf.
//
//go:noescape
func blake2spBlocksAVX2(h *[8][blake2spDegree]uint32, p []byte, t uint64)

// blake2spBlocks compresses whole stripes; see blake2spBlocksGeneric.
func blake2spBlocks(h *[8][blake2spDegree]uint32, p []byte, t uint64) {
	if useAVX2 {
		blake2spBlocksAVX2(h, p, t)
		return
	}
	blake2spBlocksGeneric(h, p, t)
}
