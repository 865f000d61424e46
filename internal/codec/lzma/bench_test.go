package lzma

import (
	"bytes"
	"github.com/unpack-dev/unpack/internal/hugemem"
	"github.com/unpack-dev/unpack/internal/testutil"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// benchInput is one compressed stream to decode in a benchmark.
type benchInput struct {
	name string
	data []byte
	size int64 // decompressed bytes
}

// benchInputs returns the streams under $LZMA_BENCH_DIR made by
// scripts/bench-lzma.sh (NAME.lzma and NAME.lzma2 with NAME.size holding
// the decompressed size), or else the committed fixtures.
func benchInputs(b *testing.B, ext string) []benchInput {
	b.Helper()
	var ins []benchInput
	if dir := os.Getenv("LZMA_BENCH_DIR"); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			s, err := os.ReadFile(strings.TrimSuffix(f, ext) + ".size")
			if err != nil {
				b.Fatal(err)
			}
			n, _ := strconv.ParseInt(strings.TrimSpace(string(s)), 10, 64)
			ins = append(ins, benchInput{strings.TrimSuffix(filepath.Base(f), ext), data, n})
		}
		return ins
	}
	sums := readSums(b)
	for _, f := range fixtures {
		if filepath.Ext(f.file) == ext {
			ins = append(ins, benchInput{f.file, testutil.Fixture(b, f.file), sums[f.want].size})
		}
	}
	return ins
}

// drain reads r to the end through buf and returns the byte count.
func drain(b *testing.B, r io.Reader, buf []byte) int64 {
	var n int64
	for {
		k, err := r.Read(buf)
		n += int64(k)
		if err == io.EOF {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAlone decodes .lzma streams with one reused AloneReader.
func BenchmarkAlone(b *testing.B) {
	for _, in := range benchInputs(b, ".lzma") {
		b.Run(in.name, func(b *testing.B) {
			var z AloneReader
			buf := make([]byte, 64<<10)
			br := bytes.NewReader(in.data)
			b.SetBytes(in.size)
			b.ReportAllocs()
			for b.Loop() {
				br.Reset(in.data)
				if err := z.Reset(br, 0); err != nil {
					b.Fatal(err)
				}
				if n := drain(b, &z, buf); n != in.size {
					b.Fatalf("decoded %d bytes, want %d", n, in.size)
				}
			}
		})
	}
}

// BenchmarkReader2 decodes raw LZMA2 streams with one reused Reader2.
func BenchmarkReader2(b *testing.B) {
	for _, in := range benchInputs(b, ".lzma2") {
		b.Run(in.name, func(b *testing.B) {
			var z Reader2
			buf := make([]byte, 64<<10)
			br := bytes.NewReader(in.data)
			b.SetBytes(in.size)
			b.ReportAllocs()
			for b.Loop() {
				br.Reset(in.data)
				if err := z.Reset(br, 8<<20); err != nil {
					b.Fatal(err)
				}
				if n := drain(b, &z, buf); n != in.size {
					b.Fatalf("decoded %d bytes, want %d", n, in.size)
				}
			}
		})
	}
}

// BenchmarkDecodeAll decodes raw LZMA2 streams into a flat buffer (the
// buffer as the dictionary) with one reused Reader2, and through Next.
func BenchmarkDecodeAll(b *testing.B) {
	for _, in := range benchInputs(b, ".lzma2") {
		b.Run(in.name+"/flat", func(b *testing.B) {
			var z Reader2
			dst := hugemem.Bytes(int(in.size))
			br := bytes.NewReader(in.data)
			b.SetBytes(in.size)
			b.ReportAllocs()
			for b.Loop() {
				br.Reset(in.data)
				if n, err := z.DecodeAll(dst, br, 8<<20); err != nil || int64(n) != in.size {
					b.Fatalf("decoded %d bytes, %v; want %d", n, err, in.size)
				}
			}
		})
		b.Run(in.name+"/next", func(b *testing.B) {
			var z Reader2
			br := bytes.NewReader(in.data)
			b.SetBytes(in.size)
			b.ReportAllocs()
			for b.Loop() {
				br.Reset(in.data)
				if err := z.Reset(br, 8<<20); err != nil {
					b.Fatal(err)
				}
				var n int64
				for {
					p, err := z.Next()
					n += int64(len(p))
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if n != in.size {
					b.Fatalf("decoded %d bytes, want %d", n, in.size)
				}
			}
		})
	}
}
