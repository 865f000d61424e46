package xz

import "testing"

// TestJobBuffersKept: a reused job keeps buffers of about the size the
// next block needs and drops much larger ones.
func TestJobBuffersKept(t *testing.T) {
	var p parallel
	p.init(2, 1<<30)
	big := blockHeader{compSize: 40 << 20, uncompSize: 64 << 20}
	j := p.job(&big, 1, 1, 4, 0)
	j.raw, j.out = make([]byte, 0, 40<<20), make([]byte, 0, 64<<20)
	p.release(j)
	small := blockHeader{compSize: 1 << 20, uncompSize: 4 << 20}
	if j := p.job(&small, 2, 1, 4, 0); cap(j.raw) != 0 || cap(j.out) != 0 {
		t.Fatalf("kept %d and %d bytes for a small block", cap(j.raw), cap(j.out))
	} else {
		j.raw, j.out = make([]byte, 0, 2<<20), make([]byte, 0, 8<<20)
		p.release(j)
	}
	if j := p.job(&small, 3, 1, 4, 0); cap(j.raw) != 2<<20 || cap(j.out) != 8<<20 {
		t.Fatalf("dropped buffers of about the right size: %d and %d", cap(j.raw), cap(j.out))
	}
}
