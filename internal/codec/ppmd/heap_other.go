//go:build !linux

package ppmd

// newHeap allocates a model heap of n bytes.
func newHeap(n int) []byte { return make([]byte, n) }
