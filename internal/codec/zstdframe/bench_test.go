package zstdframe

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// BenchmarkReader decodes the multi-block text fixture with one Reader
// reused through Reset.
func BenchmarkReader(b *testing.B) {
	data := fixtureData(b, "text-check")
	for _, threads := range []int{1, 2} {
		b.Run("threads="+strconv.Itoa(threads), func(b *testing.B) {
			z, err := NewReader(bytes.NewReader(data), Config{Threads: threads})
			if err != nil {
				b.Fatal(err)
			}
			defer z.Close()
			src := bytes.NewReader(data)
			buf := make([]byte, 32<<10)
			size := int64(0)
			b.ReportAllocs()
			for b.Loop() {
				src.Reset(data)
				if err := z.Reset(src); err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{z}, buf)
				if err != nil {
					b.Fatal(err)
				}
				size = n
			}
			b.SetBytes(size)
		})
	}
}

// BenchmarkStreams compares, on the .zst files named in $ZSTDFRAME_BENCH
// (comma-separated; skipped when unset), klauspost's decoder checking its
// own XXH64 against this package (klauspost with the check off, XXH64 by
// internal/verify), both with the same options and 2 decoder goroutines,
// as streams.go opens them. cpu-ms/op is the process's user+system time
// per decode, which load on a shared machine disturbs less than ns/op.
func BenchmarkStreams(b *testing.B) {
	files := os.Getenv("ZSTDFRAME_BENCH")
	if files == "" {
		b.Skip("set ZSTDFRAME_BENCH to a comma-separated list of .zst files")
	}
	for _, path := range strings.Split(files, ",") {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".zst")
		b.Run(name+"/impl=klauspost", func(b *testing.B) {
			d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(2), zstd.WithDecoderLowmem(false),
				zstd.WithDecoderMaxMemory(1<<62), zstd.WithDecoderMaxWindow(1<<30))
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			benchStream(b, data, func(r io.Reader) (io.Reader, error) { return d, d.Reset(r) })
		})
		b.Run(name+"/impl=zstdframe", func(b *testing.B) {
			z, err := NewReader(bytes.NewReader(fuzzSeedFrame), Config{Threads: 2, MaxWindow: 1 << 30})
			if err != nil {
				b.Fatal(err)
			}
			defer z.Close()
			benchStream(b, data, func(r io.Reader) (io.Reader, error) { return z, z.Reset(r) })
		})
	}
}

func benchStream(b *testing.B, data []byte, reset func(io.Reader) (io.Reader, error)) {
	buf := make([]byte, 256<<10)
	src := bytes.NewReader(data)
	var size int64
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		src.Reset(data)
		r, err := reset(src)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
		if err != nil {
			b.Fatal(err)
		}
		size = n
	}
	b.SetBytes(size)
	if d := cpuTime() - c0; d > 0 && c0 > 0 {
		b.ReportMetric(float64(d.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	}
}
