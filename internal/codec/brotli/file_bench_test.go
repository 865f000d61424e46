package brotli

import (
	"bytes"
	"io"
	"os"
	"testing"
)

func BenchmarkFileTmp(b *testing.B) {
	data, err := os.ReadFile(os.Getenv("BRFILE"))
	if err != nil {
		b.Skip()
	}
	z := new(Reader)
	br := bytes.NewReader(data)
	b.ReportAllocs()
	for b.Loop() {
		br.Reset(data)
		z.Reset(br)
		n, err := z.WriteTo(io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}
