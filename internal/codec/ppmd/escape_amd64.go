//go:build amd64 && gc && !purego

package ppmd

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
