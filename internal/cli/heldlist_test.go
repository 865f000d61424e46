package cli

import (
	"strconv"
	"strings"
	"testing"
)

// TestHeldListChunks pushes and drops across chunk bounds and checks
// every entry and name kept, in order.
func TestHeldListChunks(t *testing.T) {
	var l heldList
	var a nameArena
	long := strings.Repeat("x", nameChunk+1)
	name := func(i uint64) string {
		if i%997 == 5 {
			return long + strconv.FormatUint(i, 10)
		}
		return "dir/" + strconv.FormatUint(i, 10)
	}
	first, next := uint64(0), uint64(0)
	for round, k := range []int{1, 3000, 1023, 1025, 5000, 0} {
		if l.Len() == 0 {
			a.reset()
		}
		for range 2500 + round {
			l.Push(heldEntry{hold: next, name: a.add(name(next))})
			next++
		}
		if k > l.Len() {
			k = l.Len()
		}
		if k == 0 {
			k = l.Len() // the list emptied
		}
		l.drop(k)
		first += uint64(k)
		if uint64(l.Len()) != next-first {
			t.Fatalf("round %d: %d held, want %d", round, l.Len(), next-first)
		}
		for i := range l.Len() {
			x := l.At(i)
			if x.hold != first+uint64(i) || l.seq(i) != x.hold || a.str(x.name) != name(x.hold) {
				t.Fatalf("round %d: entry %d is %d (seq %d) %.20q, want %d", round, i, x.hold, l.seq(i), a.str(x.name), first+uint64(i))
			}
		}
	}
}
