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

// useEscapeAsm selects the escape loops, createSuccessors and
// updateModel's loop in assembly on amd64; the tests toggle it. Here
// there is none.
var useEscapeAsm = false

// decodeEscaped is decodeEscapedGeneric where no assembly is available
// (or purego).
func (m *ModelH) decodeEscaped(rc *RangeDecoder) int { return m.decodeEscapedGeneric(rc) }

// decodeEscaped is decodeEscapedGeneric where no assembly is available
// (or purego).
func (m *ModelI) decodeEscaped(rc *RangeDecoder) int { return m.decodeEscapedGeneric(rc) }

// createSuccessorsI hands all of createSuccessors to the Go loop here.
func createSuccessorsI(m *ModelI, skip bool, s1, c uint32) (r uint32, num uint, head, upSucc uint32) {
	return 0, succGeneric, 0, 0
}

// createSuccessorsH hands all of createSuccessors to the Go loop here.
func createSuccessorsH(m *ModelH, skip bool) (r uint32, num uint, head, upSucc uint32) {
	return 0, succGeneric, 0, 0
}

// createSuccessors is createSuccessorsGeneric where no assembly is
// available (or purego).
func (m *ModelI) createSuccessors(skip bool, s1, c uint32) uint32 {
	return m.createSuccessorsGeneric(skip, s1, c)
}

// updState is empty here: updateModel is all Go.
type updState struct{}

// updateModel is updateModelGeneric where no assembly is available (or
// purego).
func (m *ModelI) updateModel() { m.updateModelGeneric() }

// updateModel is updateModelGeneric where no assembly is available (or
// purego).
func (m *ModelH) updateModel() { m.updateModelGeneric() }

// updateModelI leaves all of updateModel to updateModelRest here.
func updateModelI(m *ModelI) uint32 { return updGeneric }

// updateModelH leaves all of updateModel to updateModelRest here.
func updateModelH(m *ModelH) uint32 { return updGeneric }

// updateModelRest is updateModelGeneric here, and minCtx set to maxCtx
// as updateModelI's callers expect.
func (m *ModelI) updateModelRest(code uint32) {
	m.updateModelGeneric()
	m.minCtx = m.maxCtx
}

// updateModelRest is updateModelGeneric here.
func (m *ModelH) updateModelRest(code uint32) { m.updateModelGeneric() }
