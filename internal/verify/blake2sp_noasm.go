//go:build !amd64 || !gc || purego

package verify

// hasAVX2 reports whether the AVX2 BLAKE2sp path exists; never without asm.
const hasAVX2 = false

// useAVX2 is the run-time switch of the AVX2 path; tests toggle it.
var useAVX2 = false

// blake2spBlocks compresses whole stripes; see blake2spBlocksGeneric.
func blake2spBlocks(h *[8][blake2spDegree]uint32, p []byte, t uint64) {
	blake2spBlocksGeneric(h, p, t)
}
