package zip

import (
	stdzip "archive/zip"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// benchText returns n bytes of source-code-like text.
func benchText(rng *rand.Rand, n int) []byte {
	words := []string{"func", "return", "err", "nil", "if", "for", "range", "buf", "len", "int", "byte", "case", "switch", "x", "y", ":=", "{", "}", "(", ")"}
	var b bytes.Buffer
	for b.Len() < n {
		for range rng.IntN(4) {
			b.WriteByte('\t')
		}
		for range 3 + rng.IntN(8) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d\n", rng.IntN(1000))
	}
	return b.Bytes()[:n]
}

// benchZip builds an archive of count deflated entries of size bytes each.
func benchZip(b *testing.B, count, size int) ([]byte, int64) {
	rng := rand.New(rand.NewPCG(uint64(count), uint64(size)))
	var buf bytes.Buffer
	w := stdzip.NewWriter(&buf)
	var total int64
	for i := range count {
		fw, err := w.Create(fmt.Sprintf("dir%d/file%05d.txt", i%16, i))
		if err != nil {
			b.Fatal(err)
		}
		fw.Write(benchText(rng, size))
		total += int64(size)
	}
	w.Close()
	return buf.Bytes(), total
}

func BenchmarkRead(b *testing.B) {
	for _, tc := range []struct {
		name        string
		count, size int
	}{{"many", 2000, 8 << 10}, {"large", 2, 8 << 20}} {
		data, total := benchZip(b, tc.count, tc.size)
		b.Run(tc.name+"/sequential", func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			buf := make([]byte, 32<<10)
			for b.Loop() {
				r, err := openBytes(data, nil)
				if err != nil {
					b.Fatal(err)
				}
				var n int64
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					m, err := io.CopyBuffer(io.Discard, r, buf)
					if err != nil {
						b.Fatal(err)
					}
					n += m
				}
				if n != total {
					b.Fatalf("read %d bytes, want %d", n, total)
				}
			}
		})
		b.Run(tc.name+"/parallel2", func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				r, err := openBytes(data, nil)
				if err != nil {
					b.Fatal(err)
				}
				ra := r.(archive.RandomAccess)
				entries, _ := ra.Entries()
				var next, n atomic.Int64
				var wg sync.WaitGroup
				for range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						buf := make([]byte, 32<<10)
						for {
							i := int(next.Add(1) - 1)
							if i >= len(entries) {
								return
							}
							rc, err := ra.Open(i)
							if err != nil {
								b.Error(err)
								return
							}
							m, err := io.CopyBuffer(io.Discard, rc, buf)
							rc.Close()
							if err != nil {
								b.Error(err)
								return
							}
							n.Add(m)
						}
					}()
				}
				wg.Wait()
				if n.Load() != total {
					b.Fatalf("read %d bytes, want %d", n.Load(), total)
				}
			}
		})
	}
}
