package queue

import "testing"

// TestQueue pushes and drops across chunk bounds and checks every element
// kept, in order, and that the dropped ones are zeroed.
func TestQueue(t *testing.T) {
	var q Queue[*int]
	vals := make([]int, 20000)
	first, next := 0, 0
	for round, k := range []int{1, 3000, 1023, 1025, 5000, 0, 1} {
		for range 2500 + round {
			q.Push(&vals[next])
			next++
		}
		if k > q.Len() || k == 0 {
			k = q.Len() // the queue empties
		}
		front := q.At(0)
		q.Drop(k)
		if k > 0 && *front != nil {
			t.Fatalf("round %d: a dropped element kept", round)
		}
		first += k
		if q.Len() != next-first {
			t.Fatalf("round %d: %d held, want %d", round, q.Len(), next-first)
		}
		for i := range q.Len() {
			if *q.At(i) != &vals[first+i] {
				t.Fatalf("round %d: element %d is not the %d-th pushed", round, i, first+i)
			}
		}
	}
}

func BenchmarkQueue(b *testing.B) {
	var q Queue[[2]uint64]
	b.SetBytes(16)
	b.ReportAllocs()
	for i := range b.N {
		q.Push([2]uint64{uint64(i), 0})
		if q.Len() == 3*chunk/2 {
			q.Drop(chunk / 2)
		}
	}
}
