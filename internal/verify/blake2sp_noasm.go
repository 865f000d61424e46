//go:build (!amd64 && !arm64) || !gc || purego

package verify

// hasAVX2, hasAVX512 and hasNEON report whether the assembly BLAKE2sp paths exist;
// never without asm.
const (
	hasAVX2   = false
	hasAVX512 = false
	hasNEON   = false
)

// useAVX2, useAVX512 and useNEON are the run-time switches of the assembly paths;
// tests toggle them.
var (
	useAVX2   = false
	useAVX512 = false
	useNEON   = false
)

// blake2spBlocks compresses whole stripes; see blake2spBlocksGeneric.
func blake2spBlocks(h *[8][blake2spDegree]uint32, p []byte, t uint64) {
	blake2spBlocksGeneric(h, p, t)
}
