//go:build !amd64 || !gc || purego

package verify

// hasAVX2 and hasAVX512 report whether the assembly BLAKE2sp paths exist;
// never without asm.
const (
	hasAVX2   = false
	hasAVX512 = false
)

// useAVX2 and useAVX512 are the run-time switches of the assembly paths;
// tests toggle them.
var (
	useAVX2   = false
	useAVX512 = false
)

// blake2spBlocks compresses whole stripes; see blake2spBlocksGeneric.
func blake2spBlocks(h *[8][blake2spDegree]uint32, p []byte, t uint64) {
	blake2spBlocksGeneric(h, p, t)
}
