//go:build !amd64 || !gc || purego

package verify

// useSum32 is always the generic path without assembly.
var useSum32 = sumGeneric

// sum32Asm is never called: useSum32 is generic.
func sum32Asm(p []byte) uint64 { return uint64(updateSum32Generic(0, p)) }
