//go:build !amd64 || !gc || purego

package ppmd

// sumUnmasked is sumUnmaskedGeneric where no assembly is available (or
// purego).
func sumUnmasked(arr *[maxStatesBytes]byte, last byte, mask *[256]byte) uint32 {
	return sumUnmaskedGeneric(arr, last, mask)
}

// findUnmasked is findUnmaskedGeneric where no assembly is available (or
// purego).
func findUnmasked(arr *[maxStatesBytes]byte, last byte, mask *[256]byte, count uint32) (uint, uint32) {
	return findUnmaskedGeneric(arr, last, mask, count)
}

// FastPaths names the assembly paths in use: none here.
func FastPaths() []string { return nil }

// useEscapeAsm selects the escape loops in assembly on amd64; the tests
// toggle it. Here there is none.
var useEscapeAsm = false

// decodeEscaped is decodeEscapedGeneric where no assembly is available
// (or purego).
func (m *ModelH) decodeEscaped(rc *RangeDecoder) int { return m.decodeEscapedGeneric(rc) }

// decodeEscaped is decodeEscapedGeneric where no assembly is available
// (or purego).
func (m *ModelI) decodeEscaped(rc *RangeDecoder) int { return m.decodeEscapedGeneric(rc) }
