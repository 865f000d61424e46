//go:build !linux

package hugemem

// Bytes returns a zeroed slice of length and capacity n.
func Bytes(n int) []byte { return make([]byte, n) }

// Aligned returns a zeroed slice of length and capacity n.
func Aligned(n int) []byte { return make([]byte, n) }

// RoundUp returns n: there are no huge pages to fill.
func RoundUp(n int) int { return n }

// Mapped returns a zeroed slice of length and capacity n on the Go heap,
// and a function that does nothing.
func Mapped(n int) ([]byte, func()) { return make([]byte, n), func() {} }

// Heap does nothing: there are no huge pages to put the heap on.
func Heap(n int) {}
