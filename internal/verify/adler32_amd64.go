//go:build amd64 && gc && !purego

package verify

// adlerAsm reports whether UpdateAdler32 adds 32-byte blocks in assembly:
// with AVX2, under BLAKE2sp's run-time switch (which the tests toggle).
func adlerAsm() bool { return useAVX2 }

// adler32Asm is implemented in adler32_amd64.s (AVX2): p's bytes (a
// multiple of 32, at most adlerNMax) added to the sums s1 and s2 without
// reducing them, as adler32Generic adds them.
//
//go:noescape
func adler32Asm(s1, s2 uint32, p []byte) (uint32, uint32)
