//go:build !linux

package lzma

// newWindow allocates a dictionary window of n bytes.
func newWindow(n int) []byte { return make([]byte, n) }
