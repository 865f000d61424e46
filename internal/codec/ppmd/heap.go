package ppmd

import (
	"math"
	"math/bits"
)

// A model's heap is addressed by 32-bit offsets taken from the heap
// itself. Its length is a power of two 2^k, enough for the model, plus
// heapPad-1 bytes: every access masks its offset to k bits, so that no
// offset, whatever the data made of it, reaches outside the heap, and a
// view of up to heapPad bytes at a masked offset stays inside it too. The
// compiler proves that from the mask, which leaves the record views
// without bounds checks once a function has checked len(heap) >= heapPad.
// The offsets of a model built by the rules are all below 2^k, where the
// mask changes nothing.
const heapPad = 2048

// maxStatesBytes is the size of a state array view: 256 states and room.
const maxStatesBytes = 2048

// heapLen returns the length of a heap for need bytes of model, or false
// when that does not fit an int.
func heapLen(need uint64) (int, bool) {
	if need > 1<<62 {
		return 0, false
	}
	n := uint64(1) << bits.Len64(need-1)
	if n > math.MaxInt-heapPad {
		return 0, false
	}
	return int(n + heapPad - 1), true
}

// Little-endian fields of heap records, and the records themselves as
// fixed-size views. The fields are spelled out in bytes (the compiler
// merges them into one load or store) rather than calling
// encoding/binary: an inlined call whose code carries no instruction of
// its own line leaves a NOP for its inline mark, and a helper calling
// a helper left two on every field access of the hot paths.
func le16(b []byte) uint32 {
	_ = b[1]
	return uint32(b[0]) | uint32(b[1])<<8
}

func le32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func put16(b []byte, v uint32) {
	_ = b[1]
	b[0] = byte(v)
	b[1] = byte(v >> 8)
}

func put32(b []byte, v uint32) {
	_ = b[3]
	b[0] = byte(v)
	b[1] = byte(v >> 8)
	b[2] = byte(v >> 16)
	b[3] = byte(v >> 24)
}

// unit is the 12-byte record (a context or free block) at p, state the
// 6-byte state at p, at the byte at p, and stateArr the state array at p
// (the first n*6 bytes of which hold n states).
func unit(heap []byte, p uint32) *[12]byte {
	i := uint(p) & (uint(len(heap)) - heapPad)
	return (*[12]byte)(heap[i : i+12])
}

func state(heap []byte, p uint32) *[6]byte {
	i := uint(p) & (uint(len(heap)) - heapPad)
	return (*[6]byte)(heap[i : i+6])
}

func at(heap []byte, p uint32) *byte {
	i := uint(p) & (uint(len(heap)) - heapPad)
	return &heap[i]
}

func stateArr(heap []byte, p uint32) *[maxStatesBytes]byte {
	i := uint(p) & (uint(len(heap)) - heapPad)
	return (*[maxStatesBytes]byte)(heap[i : i+maxStatesBytes])
}

// Footprint is the number of bytes a model of memSize bytes allocates
// (its heap, rounded up to a power of two): what a memory limit counts.
func Footprint(memSize int64) int64 {
	if memSize < 0 {
		return math.MaxInt64
	}
	n, ok := heapLen(4 + uint64(memSize) + unitSize)
	if !ok {
		return math.MaxInt64
	}
	return int64(n)
}

// findSym returns the offset in a state array of last+1 states of the
// first state of symbol sym, or of its last state when none has it. A
// model built by the rules always has it there (a suffix context holds
// every symbol of its longer contexts); the bound keeps a broken one
// from scanning past its states.
func findSym(st *[maxStatesBytes]byte, last, sym byte) uint {
	lim := uint(last) * 6
	// Four states a step: the view holds the states past the last (a
	// state array is at most 256*6 bytes), and a match past it is
	// clipped to it. i and lim are multiples of 6: i+6 <= lim.
	for i := uint(0); i < lim; i += 24 {
		if st[i] == sym {
			return i
		}
		if st[i+6] == sym {
			return i + 6
		}
		if st[i+12] == sym {
			return min(i+12, lim)
		}
		if st[i+18] == sym {
			return min(i+18, lim)
		}
	}
	return lim
}
