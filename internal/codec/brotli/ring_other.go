//go:build !linux

package brotli

// mapping is unused where window buffers come from the Go heap.
type mapping struct{}

// allocRingMem returns n bytes for the window buffer.
func (z *Reader) allocRingMem(n int) []byte { return make([]byte, n) }
