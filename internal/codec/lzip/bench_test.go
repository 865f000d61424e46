package lzip

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLzip decodes the committed .lz fixtures with one reused Reader.
func BenchmarkLzip(b *testing.B) {
	sums := readSums(b)
	for _, f := range fixtures {
		data, err := os.ReadFile(filepath.Join("testdata", f.file))
		if err != nil {
			b.Fatal(err)
		}
		size := sums[f.want].size
		b.Run(f.file, func(b *testing.B) {
			var z Reader
			buf := make([]byte, 64<<10)
			br := bytes.NewReader(data)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				br.Reset(data)
				if err := z.Reset(br, 0); err != nil {
					b.Fatal(err)
				}
				var n int64
				for {
					k, err := z.Read(buf)
					n += int64(k)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if n != size {
					b.Fatalf("decoded %d bytes, want %d", n, size)
				}
			}
		})
	}
}
