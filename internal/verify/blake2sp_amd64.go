//go:build amd64 && gc && !purego

package verify

//go:generate go run _asm/gen.go _asm/arm64.go

import "golang.org/x/sys/cpu"

// hasAVX2 reports whether the CPU (and OS) support the AVX2 BLAKE2sp path.
var hasAVX2 = cpu.X86.HasAVX2

// hasAVX512 reports whether the CPU (and OS) support the AVX-512 BLAKE2sp
// path (AVX512F and AVX512VL, for VPRORD on 256-bit registers and Y16..Y31).
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL

// useAVX2 and useAVX512 switch the assembly paths at run time; tests toggle
// them. AVX-512 wins when both are on.
var (
	useAVX2   = hasAVX2
	useAVX512 = hasAVX512
)

// hasNEON and useNEON belong to the arm64 path (blake2sp_arm64.go).
const hasNEON = false

var useNEON = false

// blake2spBlocksAVX2 is implemented in blake2sp_amd64.s (AVX2). It mirrors
// blake2spBlocksGeneric: len(p)/512 stripes, the eight leaves compressed in
// one pass, one 32-bit lane per leaf.
//
//go:noescape
func blake2spBlocksAVX2(h *[8][blake2spDegree]uint32, p []byte, t uint64)

// blake2spBlocksAVX512 is implemented in blake2sp_avx512_amd64.s (AVX512F,
// AVX512VL). It mirrors blake2spBlocksGeneric like blake2spBlocksAVX2, with
// one-instruction rotations and the message held in registers.
//
//go:noescape
func blake2spBlocksAVX512(h *[8][blake2spDegree]uint32, p []byte, t uint64)

// blake2spBlocks compresses whole stripes; see blake2spBlocksGeneric.
func blake2spBlocks(h *[8][blake2spDegree]uint32, p []byte, t uint64) {
	switch {
	case useAVX512:
		blake2spBlocksAVX512(h, p, t)
	case useAVX2:
		blake2spBlocksAVX2(h, p, t)
	default:
		blake2spBlocksGeneric(h, p, t)
	}
}
