package cli

import (
	"math"

	"github.com/unpack-dev/unpack/internal/queue"
)

// The held list and its names grow in fixed chunks: a one-frame stream
// holds every entry to its end, and a list grown by doubling (or by
// append's quarter) copies what it holds at each step and touches twice
// the fresh pages it keeps.

// heldList is a queue of heldEntry, pushed at its end, dropped from its
// head as the entries there are reported.
type heldList struct {
	queue.Queue[heldEntry]
	first uint64 // how many were dropped: the first entry's seq
}

// seq returns the i-th entry's number in the order pushed, from 0.
func (l *heldList) seq(i int) uint64 { return l.first + uint64(i) }

// drop removes the first k entries.
func (l *heldList) drop(k int) {
	l.Drop(k)
	l.first += uint64(k)
}

// nameChunk is the size of each chunk of a nameArena (a longer name has
// a chunk of its own).
const nameChunk = 64 << 10

// nameArena keeps the names of the held entries, appended one after
// another, until it is reset (when the list is empty).
type nameArena struct {
	chunks [][]byte
}

// nameRef is a name's place in a nameArena.
type nameRef struct {
	chunk, off, n int32
}

// maxArenaName is the longest name a nameArena keeps.
const maxArenaName = math.MaxInt32

// add appends name, of at most maxArenaName bytes, and returns its place.
func (a *nameArena) add(name string) nameRef {
	k := len(a.chunks) - 1
	if k < 0 || len(a.chunks[k])+len(name) > cap(a.chunks[k]) {
		a.chunks = append(a.chunks, make([]byte, 0, max(nameChunk, len(name))))
		k++
	}
	c := a.chunks[k]
	a.chunks[k] = append(c, name...)
	return nameRef{chunk: int32(k), off: int32(len(c)), n: int32(len(name))}
}

// str returns the name at r.
func (a *nameArena) str(r nameRef) string {
	return string(a.chunks[r.chunk][int(r.off) : int(r.off)+int(r.n)])
}

// reset empties the arena, keeping its first chunk for the next names.
func (a *nameArena) reset() {
	if len(a.chunks) == 0 {
		return
	}
	clear(a.chunks[1:])
	a.chunks = a.chunks[:1]
	a.chunks[0] = a.chunks[0][:0]
}
