//go:build arm64 && gc && !purego

package bcj

import "golang.org/x/sys/cpu"

// useNEON selects findE8NEON over findE8Generic and convertARM64NEON over
// convertARM64Generic; tests toggle it.
var useNEON = cpu.ARM64.HasASIMD

// findE8 returns the index of the first E8 or E9 byte of b, or len(b),
// like findE8Generic, with NEON compares of 32 bytes a step and the generic
// search over the last len(b)%32 bytes.
func findE8(b []byte) int {
	if !useNEON {
		return findE8Generic(b)
	}
	n := len(b) &^ 31
	if i := findE8NEON(b[:n]); i < n {
		return i
	}
	return n + findE8Generic(b[n:])
}

// findE8NEON is implemented in x86_arm64.s (ASIMD). len(b) must be a
// multiple of 32; it mirrors findE8Generic.
//
//go:noescape
func findE8NEON(b []byte) int

// FastPaths names the assembly paths the BCJ filters use on this CPU.
func FastPaths() []string {
	if useNEON {
		return []string{"BCJ x86 NEON", "BCJ ARM64 NEON"}
	}
	return nil
}
