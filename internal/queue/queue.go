// Package queue is a first-in first-out queue in fixed chunks, for the
// records a one-frame stream holds of every entry to its end: a slice
// grown by append copies what it holds at each step, keeps up to a
// quarter (or, doubled, half) of its capacity unused, and leaves each
// smaller array behind as garbage; chunks are never copied and only the
// last one has room to spare.
package queue

// chunk is the number of elements in each chunk.
const chunk = 1024

// Queue holds elements pushed at its end and dropped from its front. The
// zero value is an empty queue.
type Queue[T any] struct {
	chunks [][]T // each of chunk elements
	head   int   // the first element's place in chunks[0]
	n      int   // the elements held
	spare  []T   // a chunk dropped, for the next push that needs one
}

// Len returns the number of elements held.
func (q *Queue[T]) Len() int { return q.n }

// At returns the i-th element from the front, i < Len.
func (q *Queue[T]) At(i int) *T {
	j := uint(q.head + i)
	return &q.chunks[j/chunk][j%chunk]
}

// Push appends x.
func (q *Queue[T]) Push(x T) {
	j := uint(q.head + q.n)
	if j/chunk == uint(len(q.chunks)) {
		c := q.spare
		if c == nil {
			c = make([]T, chunk)
		}
		q.spare = nil
		q.chunks = append(q.chunks, c)
	}
	q.chunks[j/chunk][j%chunk] = x
	q.n++
}

// Drop removes the first k elements (k <= Len), zeroing them.
func (q *Queue[T]) Drop(k int) {
	for k > 0 {
		c := q.chunks[0]
		m := min(k, chunk-q.head) // those in the first chunk
		var zero T
		for i := range c[q.head : q.head+m] {
			c[q.head+i] = zero
		}
		q.head += m
		q.n -= m
		k -= m
		if q.head == chunk || q.n == 0 { // the first chunk is done with
			q.spare = c
			q.chunks[0] = nil
			q.chunks = q.chunks[1:]
			q.head = 0
		}
	}
}
