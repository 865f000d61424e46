//go:build (!amd64 && !arm64) || !gc || purego

package verify

// hasCLMUL reports whether the carry-less-multiply CRC64 path exists; never
// without asm.
const hasCLMUL = false

// useCLMUL is the run-time switch of the CLMUL path; tests toggle it.
var useCLMUL = false

// clmulName is unused without asm: useCLMUL is never set.
const clmulName = ""

// crc64Update returns the CRC-64/XZ of p continuing from crc.
func crc64Update(crc uint64, p []byte) uint64 { return crc64Generic(crc, p) }
