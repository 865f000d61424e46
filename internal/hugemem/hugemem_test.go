package hugemem

import (
	"testing"
)

func TestBytes(t *testing.T) {
	testAlloc(t, "Bytes", Bytes)
	testAlloc(t, "Aligned", Aligned)
	var unmaps []func()
	testAlloc(t, "Mapped", func(n int) []byte {
		b, unmap := Mapped(n)
		unmaps = append(unmaps, unmap)
		return b
	})
	for _, unmap := range unmaps {
		unmap()
		unmap()
	}
}

func testAlloc(t *testing.T, name string, alloc func(int) []byte) {
	for _, n := range []int{0, 1, 4095, Min - 1, Min, Min + 1, 3*Min + 12345} {
		b := alloc(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("%s(%d): len %d cap %d", name, n, len(b), cap(b))
		}
		for i, c := range b {
			if c != 0 {
				t.Fatalf("%s(%d)[%d] = %d, want zero", name, n, i, c)
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
