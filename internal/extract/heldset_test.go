package extract

import (
	"math/rand"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// TestHeldSet drives heldSet and a plain map with the same random
// operations (Holds mostly increasing, some out of order, some entries by
// pointer, puts over earlier ones, takes in and out of order) and compares
// them after each.
func TestHeldSet(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	ents := make([]*archive.Entry, 8)
	for i := range ents {
		ents[i] = &archive.Entry{}
	}
	for round := range 40 {
		var s heldSet
		want := map[heldKey]*hold{}
		var keys []heldKey
		next := uint64(1)
		for op := range 3000 {
			var k heldKey
			switch x := r.Intn(20); {
			case x < 9: // a new Hold, above the others
				next += uint64(1 + r.Intn(3))
				k = heldKey{hold: next}
			case x < 11 && next > 1: // a Hold not above the last
				k = heldKey{hold: 1 + uint64(r.Int63n(int64(next)))}
			case x < 12:
				k = heldKey{e: ents[r.Intn(len(ents))]}
			case len(keys) > 0 && x < 16: // the oldest, as a stream settles
				k = keys[0]
			case len(keys) > 0:
				k = keys[r.Intn(len(keys))]
			default:
				continue
			}
			if r.Intn(2) == 0 {
				h := &hold{name: "x"}
				s.put(k, h)
				if _, ok := want[k]; !ok {
					keys = append(keys, k)
				}
				want[k] = h
			} else {
				got := s.take(k)
				if got != want[k] {
					t.Fatalf("round %d op %d: take %v = %p, want %p", round, op, k, got, want[k])
				}
				delete(want, k)
				for i, q := range keys {
					if q == k {
						keys = append(keys[:i], keys[i+1:]...)
						break
					}
				}
			}
			n := 0
			s.each(func(k heldKey, h *hold) {
				n++
				if want[k] != h {
					t.Fatalf("round %d op %d: each %v = %p, want %p", round, op, k, h, want[k])
				}
			})
			if n != len(want) {
				t.Fatalf("round %d op %d: each saw %d, want %d", round, op, n, len(want))
			}
			for _, q := range keys {
				if s.get(q) != want[q] {
					t.Fatalf("round %d op %d: get %v = %p, want %p", round, op, q, s.get(q), want[q])
				}
			}
		}
	}
}
