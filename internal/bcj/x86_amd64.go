//go:build amd64 && gc && !purego

package bcj

import "golang.org/x/sys/cpu"

// useAVX2 selects findE8AVX2 over findE8SSE2; tests toggle it.
var useAVX2 = cpu.X86.HasAVX2

// findE8 returns the index of the first E8 or E9 byte of b, or len(b),
// like findE8Generic, with SSE2 or AVX2 compares of 16 or 64 bytes a step.
func findE8(b []byte) int {
	if useAVX2 {
		return findE8AVX2(b)
	}
	return findE8SSE2(b)
}

// findE8SSE2 is implemented in x86_amd64.s; it needs SSE2 (every amd64)
// and mirrors findE8Generic.
//
//go:noescape
func findE8SSE2(b []byte) int

// findE8AVX2 is implemented in x86_amd64.s; it needs AVX2 and mirrors
// findE8Generic.
//
//go:noescape
func findE8AVX2(b []byte) int

// FastPaths names the assembly path the x86 filter uses on this CPU.
func FastPaths() []string {
	if useAVX2 {
		return []string{"BCJ x86 AVX2"}
	}
	return []string{"BCJ x86 SSE2"}
}
