package zstdframe

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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

// BenchmarkWriteTo decodes through WriteTo with one Reader reused through
// Reset: the multi-block text fixture, and 12 MiB of generated text in one
// frame with an 8 MiB window (the ring WriteTo advises; warm after the
// first iteration, so its page faults are not in the figure).
func BenchmarkWriteTo(b *testing.B) {
	enc, err := zstd.NewWriter(nil, zstd.WithWindowSize(8<<20), zstd.WithEncoderConcurrency(1))
	if err != nil {
		b.Fatal(err)
	}
	window8M := enc.EncodeAll(ringContent(12<<20), nil)
	enc.Close()
	for _, in := range []struct {
		name string
		data []byte
	}{{"text-check", fixtureData(b, "text-check")}, {"window8M", window8M}} {
		b.Run(in.name, func(b *testing.B) {
			z, err := NewReader(bytes.NewReader(in.data), Config{Threads: 2})
			if err != nil {
				b.Fatal(err)
			}
			defer z.Close()
			src := bytes.NewReader(in.data)
			size := int64(0)
			b.ReportAllocs()
			for b.Loop() {
				src.Reset(in.data)
				if err := z.Reset(src); err != nil {
					b.Fatal(err)
				}
				n, err := z.WriteTo(io.Discard)
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
// (comma-separated; skipped when unset), three ways of decoding with the
// options and the 2 decoder goroutines streams.go uses: klauspost checking
// its own XXH64 ("check"), klauspost with the check off ("nocheck"), and
// this package (klauspost with the check off, XXH64 by internal/verify). The
// three alternate within each iteration, in a rotating order, so that load
// on a shared machine falls on all alike; each reports its process CPU time (user+system) per
// decode as NAME-cpu-ms, and cost-% is this package's CPU time over
// klauspost's checking decode, minus 100.
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
		b.Run(strings.TrimSuffix(filepath.Base(path), ".zst"), func(b *testing.B) {
			benchStreams(b, data)
		})
	}
}

func benchStreams(b *testing.B, data []byte) {
	newKlauspost := func(check bool) *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(2), zstd.WithDecoderLowmem(false),
			zstd.WithDecoderMaxMemory(1<<62), zstd.WithDecoderMaxWindow(1<<30), zstd.IgnoreChecksum(!check))
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	check, nocheck := newKlauspost(true), newKlauspost(false)
	defer check.Close()
	defer nocheck.Close()
	z, err := NewReader(bytes.NewReader(fuzzSeedFrame), Config{Threads: 2, MaxWindow: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer z.Close()
	impls := []struct {
		name  string
		reset func(io.Reader) (io.Reader, error)
		cpu   time.Duration
	}{
		{"check", func(r io.Reader) (io.Reader, error) { return check, check.Reset(r) }, 0},
		{"nocheck", func(r io.Reader) (io.Reader, error) { return nocheck, nocheck.Reset(r) }, 0},
		{"zstdframe", func(r io.Reader) (io.Reader, error) { return z, z.Reset(r) }, 0},
	}
	buf := make([]byte, 256<<10)
	src := bytes.NewReader(data)
	var size int64
	b.ReportAllocs()
	for iter := 0; b.Loop(); iter++ {
		for k := range impls {
			i := (k + iter) % len(impls) // rotate the order: no impl always runs first
			c0 := cpuTime()
			src.Reset(data)
			r, err := impls[i].reset(src)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
			if err != nil {
				b.Fatal(err)
			}
			impls[i].cpu += cpuTime() - c0
			size = n
		}
	}
	b.SetBytes(size * int64(len(impls)))
	for _, im := range impls {
		b.ReportMetric(float64(im.cpu.Microseconds())/1e3/float64(b.N), im.name+"-cpu-ms")
	}
	if impls[0].cpu > 0 {
		b.ReportMetric((float64(impls[2].cpu)/float64(impls[0].cpu)-1)*100, "cost-%")
	}
}

// ringContent returns n bytes of compressible, deterministic text whose
// matches reach far back, so that the decoder's window fills.
func ringContent(n int) []byte {
	var b bytes.Buffer
	x := uint32(1)
	for b.Len() < n {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		fmt.Fprintf(&b, "line %d of %d\n", x%100000, x>>20)
	}
	return b.Bytes()[:n]
}
