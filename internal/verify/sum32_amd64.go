//go:build amd64 && gc && !purego

package verify

// useSum32 is the run-time switch of UpdateSum32's path: SSE2, which every
// amd64 CPU has.
var useSum32 = sumSSE2

// sum32SSE2 is implemented in sum32_amd64.s (SSE2): the sum of the bytes
// of p, whose length is a multiple of 128, as PSADBW adds them (eight at a
// time against zero). It mirrors updateSum32Generic.
//
//go:noescape
func sum32SSE2(p []byte) uint64

// sum32Asm is the sum of p (a multiple of 128 bytes long).
func sum32Asm(p []byte) uint64 { return sum32SSE2(p) }
