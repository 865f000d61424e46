package bcj

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// The assembly works in steps of 16 (SSE2), 32 (NEON, AVX2) and 64 (AVX2)
// bytes: test the lengths and hits around those cut-offs.
var findLengths = []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65,
	95, 96, 97, 127, 128, 129, 191, 192, 193, 255, 256, 257, 1000, 4095, 4096, 4097}

func TestFindE8CrossCheck(t *testing.T) {
	for name, sel := range findE8Impls() {
		t.Run(name, func(t *testing.T) {
			defer sel()()
			backing := make([]byte, 4200+8)
			for _, n := range findLengths {
				for align := 0; align < 8; align++ {
					b := backing[align : align+n]
					for i := range b {
						b[i] = byte(0xE0 + i%8) // everything but E8/E9 nearby
						if b[i]&0xFE == 0xE8 {
							b[i] = 0xEA
						}
					}
					if got := findE8(b); got != n {
						t.Fatalf("n=%d align=%d none: got %d", n, align, got)
					}
					for _, hit := range []int{0, 1, 15, 16, 31, 32, 33, 63, 64, n / 2, n - 33, n - 32, n - 2, n - 1} {
						if hit < 0 || hit >= n {
							continue
						}
						for _, v := range []byte{0xE8, 0xE9} {
							b[hit] = v
							if got, want := findE8(b), findE8Generic(b); got != hit || want != hit {
								t.Fatalf("n=%d align=%d hit=%d: asm %d generic %d", n, align, hit, got, want)
							}
							// A second hit later must not change the answer.
							if hit+1 < n {
								b[n-1] = 0xE9
								if got := findE8(b); got != hit {
									t.Fatalf("n=%d align=%d hit=%d with later hit: %d", n, align, hit, got)
								}
								b[n-1] = 0xEA
							}
							b[hit] = 0xEA
						}
					}
				}
			}
			r := rand.New(rand.NewPCG(1, 2))
			for range 2000 {
				n := r.IntN(300)
				b := make([]byte, n)
				for i := range b {
					b[i] = byte(r.IntN(256))
					if r.IntN(40) != 0 && b[i]&0xFE == 0xE8 {
						b[i] = 0
					}
				}
				if got, want := findE8(b), findE8Generic(b); got != want {
					t.Fatalf("random n=%d: asm %d generic %d", n, got, want)
				}
			}
		})
	}
}

// TestX86CrossCheck runs the fast and generic x86 decoders over the same
// data with the same random cut-offs and start offsets.
func TestX86CrossCheck(t *testing.T) {
	for name, sel := range findE8Impls() {
		t.Run(name, func(t *testing.T) {
			defer sel()()
			r := rand.New(rand.NewPCG(3, 4))
			for iter := range 300 {
				data := codeLike(r.IntN(5000), uint64(iter))
				if iter%2 == 0 { // sparse opcodes: long vector scans
					for i := range data {
						if data[i]&0xFE == 0xE8 && r.IntN(8) != 0 {
							data[i] = 0x55
						}
					}
				}
				start := r.Uint32()
				fast, slow := NewX86(start), NewX86(start)
				a, b := append([]byte(nil), data...), append([]byte(nil), data...)
				for off := 0; off < len(data); {
					end := min(len(data), off+1+r.IntN(200))
					n1 := fast.Convert(a[off:end])
					n2 := slow.convertGeneric(b[off:end])
					if n1 != n2 || *fast != *slow {
						t.Fatalf("iter %d: at %d..%d: fast %d %+v, generic %d %+v", iter, off, end, n1, *fast, n2, *slow)
					}
					if n1 == 0 && end == len(data) {
						break
					}
					off += n1
				}
				if !bytes.Equal(a, b) {
					t.Fatalf("iter %d: output differs at %d", iter, firstDiff(a, b))
				}
			}
		})
	}
}

func BenchmarkFindE8(b *testing.B) {
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i*7) | 1
		if data[i]&0xFE == 0xE8 {
			data[i] = 0x11
		}
	}
	for name, sel := range findE8Impls() {
		b.Run("impl="+name, func(b *testing.B) {
			defer sel()()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if findE8(data) != len(data) {
					b.Fatal("found")
				}
			}
		})
	}
	b.Run("impl=generic", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if findE8Generic(data) != len(data) {
				b.Fatal("found")
			}
		}
	})
}

// BenchmarkConvert measures every decoder over 1 MiB of code-like data.
func BenchmarkConvert(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		src := codeLike(size, 9)
		buf := make([]byte, size)
		for _, a := range arches {
			b.Run(fmt.Sprintf("arch=%s/size=%d", a.name, size), func(b *testing.B) {
				c := a.new(0)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					copy(buf, src)
					if c.Convert(buf) < size-MaxTail {
						b.Fatal("short")
					}
				}
			})
		}
	}
}

// BenchmarkX86 compares the vectorised and generic x86 decoders on dense
// (code-like) and sparse (data-like: one E8 per 512 bytes) input.
func BenchmarkX86(b *testing.B) {
	const size = 1 << 20
	sparse := make([]byte, size)
	for i := range sparse {
		sparse[i] = byte(i*131) | 1
		if sparse[i]&0xFE == 0xE8 || i%512 == 0 {
			sparse[i] = 0xE8
		}
	}
	inputs := map[string][]byte{"dense": codeLike(size, 5), "sparse": sparse}
	buf := make([]byte, size)
	for dn, data := range inputs {
		for _, impl := range []string{"fast", "generic"} {
			b.Run("data="+dn+"/impl="+impl, func(b *testing.B) {
				c := NewX86(0)
				b.SetBytes(size)
				b.ReportAllocs()
				for b.Loop() {
					copy(buf, data)
					var n int
					if impl == "fast" {
						n = c.Convert(buf)
					} else {
						n = c.convertGeneric(buf)
					}
					if n < size-MaxTail {
						b.Fatal("short")
					}
				}
			})
		}
	}
}
