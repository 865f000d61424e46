//go:build amd64 && gc && !purego

package ppmd

import "strconv"

// The escape helpers' loops in assembly (escape_amd64.s): a state costs
// one instruction less than in Go, which loads its frequency byte on its
// own before the AND, and the search subtracts from count instead of
// comparing a sum with it. They read what their Go twins read: the
// states of the view up to the last (and, for sumUnmasked's last group,
// up to two past it, which the view holds) and mask at a state's symbol.

// sumUnmasked is sumUnmaskedGeneric in assembly.
//
//go:noescape
func sumUnmasked(arr *[maxStatesBytes]byte, last byte, mask *[256]byte) uint32

// findUnmasked is findUnmaskedGeneric in assembly.
//
//go:noescape
func findUnmasked(arr *[maxStatesBytes]byte, last byte, mask *[256]byte, count uint32) (off uint, acc uint32)

// FastPaths names the assembly paths in use: the escape loops of both
// variants and their masked-frequency sum and search, createSuccessors
// and updateModel (succ_amd64.s).
func FastPaths() []string {
	return []string{"PPMd escape loops amd64", "PPMd createSuccessors and updateModel amd64"}
}

// useEscapeAsm selects escapeH (variant H with 7-Zip's coder) and
// escapeI for the escapes, and createSuccessorsH, createSuccessorsI,
// updateModelH and updateModelI (which read it themselves); the tests
// toggle it to compare them with the Go code.
var useEscapeAsm = true

// escNormalize is escapeH's result when the coder needs normalize: the
// range is below 2^24 at the top of its loop and the buffer is used up.
const escNormalize = -3

// escapeH is decodeEscapedGeneric's loop, up to the symbol's Update2
// (without its rescale and updateModel): it returns the symbol and its
// new frequency, -1 at the end marker, -2 for invalid data, or
// escNormalize, after which the caller normalises the coder and calls it
// again (the loop's state between escapes is minCtx and first). With
// 7-Zip's coder it normalises from the coder's buffer itself; RAR's it
// hands every normalisation back. A RAR range below the total (invalid
// data) sets m.rangeFail where threshold would fail the coder. heap is
// &m.heap[0] and hm len(m.heap)-heapPad; it reads and writes the heap
// only at offsets masked with hm (views of up to heapPad bytes), the
// coder's buffer only below its length.
//
//go:noescape
func escapeH(m *ModelH, rc *RangeDecoder, heap *byte, hm uint, first uint32) (sym int, f uint32)

// decodeEscaped is decodeEscapedGeneric, with its loop in assembly.
func (m *ModelH) decodeEscaped(rc *RangeDecoder) int {
	heap := m.heap
	if !useEscapeAsm || len(heap) < heapPad {
		return m.decodeEscapedGeneric(rc)
	}
	hm, first := uint(len(heap))-heapPad, m.minCtx
	for {
		sym, f := escapeH(m, rc, &heap[0], hm, first)
		if m.rangeFail {
			m.rangeFail = false
			if rc.err == nil {
				rc.err = ErrCorrupt
			}
		}
		if sym >= 0 {
			if f > maxFreq {
				m.rescale()
			}
			m.runLength = m.initRL
			if c := updateModelH(m); c != updDone {
				m.updateModelRest(c)
			}
			return sym
		}
		if sym != escNormalize {
			return sym
		}
		if rc.normalize(); rc.err != nil {
			// A failed RAR coder may stay unnormal: the Go loop, which
			// does not ask again, finishes the symbol.
			return m.escapeFrom(rc, first)
		}
	}
}

// escSEERow and escZeroRange are escapeI's results for a SEE row past
// the table and for a range of 0 at the threshold, where
// decodeEscapedGeneric's index and division panic (the caller panics
// the same way; no test or fuzzer has reached either: the first needs a
// context of one state below one of more, the second a range normalize
// does not leave).
const (
	escSEERow    = -4
	escZeroRange = -5
)

// escapeI is ModelI.decodeEscapedGeneric's loop up to the symbol's
// Update2, as escapeH for variant H; normalized skips the coder's
// normalisation at the top of the loop once (the caller has just called
// normalize, which may leave the range unnormal after invalid data), and
// without it the loop starts with the mask of the context escaped from.
//
//go:noescape
func escapeI(m *ModelI, rc *RangeDecoder, heap *byte, hm uint, normalized bool) (sym int, f uint32)

// decodeEscaped is decodeEscapedGeneric, with its loop in assembly.
func (m *ModelI) decodeEscaped(rc *RangeDecoder) int {
	heap := m.heap
	if !useEscapeAsm || len(heap) < heapPad {
		return m.decodeEscapedGeneric(rc)
	}
	hm, normalized := uint(len(heap))-heapPad, false
	for {
		sym, f := escapeI(m, rc, &heap[0], hm, normalized)
		if sym >= 0 {
			if f > maxFreq {
				m.rescale()
			}
			m.runLength = m.initRL
			if c := updateModelI(m); c != updDone {
				m.updateModelRest(c)
			}
			return sym
		}
		switch sym {
		case escNormalize:
			rc.normalize()
			normalized = true
		case escSEERow:
			ns := heap[uint(m.minCtx)&hm]
			_ = m.see[ns2IndxI[ns+2]-3] // the index decodeEscapedGeneric panics on
			panic("ppmd: escapeI: SEE row out of range")
		case escZeroRange:
			q := rc.code / rc.rng // the division decodeEscapedGeneric panics on
			panic("ppmd: escapeI: range of 0 at " + strconv.Itoa(int(q)))
		default:
			return sym
		}
	}
}
