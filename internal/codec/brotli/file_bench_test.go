package brotli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkFiles decodes the .br files listed (space-separated) in
// $BROTLI_BENCH_FILES, such as make bench's inputs:
//
//	BROTLI_BENCH_FILES="$(echo /tmp/unpack-bench32/*.br)" go test -run '^$' -bench Files ./internal/codec/brotli/
func BenchmarkFiles(b *testing.B) {
	names := strings.Fields(os.Getenv("BROTLI_BENCH_FILES"))
	if len(names) == 0 {
		b.Skip("BROTLI_BENCH_FILES not set")
	}
	z := new(Reader)
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		br := bytes.NewReader(data)
		if err := z.Reset(br); err != nil {
			b.Fatal(err)
		}
		size, err := z.WriteTo(io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(name), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				br.Reset(data)
				z.Reset(br)
				if n, err := z.WriteTo(io.Discard); err != nil || n != size {
					b.Fatal(n, err)
				}
			}
		})
	}
}
