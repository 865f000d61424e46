package hugemem

import (
	"testing"
)

func TestBytes(t *testing.T) {
	for _, n := range []int{0, 1, 4095, Min - 1, Min, Min + 1, 3*Min + 12345} {
		b := Bytes(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("Bytes(%d): len %d cap %d", n, len(b), cap(b))
		}
		for i, c := range b {
			if c != 0 {
				t.Fatalf("Bytes(%d)[%d] = %d, want zero", n, i, c)
			}
		}
		for i := range b {
			b[i] = byte(i)
		}
	}
}

func BenchmarkBytesTouch(b *testing.B) {
	const n = 16 << 20
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		buf := Bytes(n)
		for i := 0; i < n; i += 4096 {
			buf[i] = 1
		}
	}
}
