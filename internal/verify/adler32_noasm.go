//go:build !amd64 || !gc || purego

package verify

// adlerAsm reports whether UpdateAdler32 has an assembly path: not here.
func adlerAsm() bool { return false }

// adler32Asm is never called: adlerAsm is false.
func adler32Asm(s1, s2 uint32, p []byte) (uint32, uint32) { return adler32Generic(s1, s2, p) }
