package gzip

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
)

// benchInputs are 8 MiB workloads like scripts/bench.sh's, compressed at
// level 6.
func benchInputs(b *testing.B) map[string][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 8 << 20
	words := make([]string, 3000)
	for i := range words {
		w := make([]byte, 2+r.IntN(8))
		for j := range w {
			w[j] = "etaoinshrdlucmfwypvbgkjqxz"[r.IntN(26)]
		}
		words[i] = string(w)
	}
	var text bytes.Buffer
	for text.Len() < n {
		for k := 4 + r.IntN(12); k > 0; k-- {
			if r.IntN(10) < 7 {
				text.WriteString(words[r.IntN(200)])
			} else {
				text.WriteString(words[r.IntN(len(words))])
			}
			text.WriteByte(' ')
		}
		text.WriteByte('\n')
	}
	bin := make([]byte, 0, n)
	for len(bin) < n {
		bin = append(bin, byte(r.IntN(256)), byte(r.IntN(4)), 0xef, 0xbe, byte(len(bin)>>8), 0, 0, byte(r.IntN(3)))
	}
	out := map[string][]byte{}
	for name, raw := range map[string][]byte{"text": text.Bytes()[:n], "binary": bin} {
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, 6)
		w.Write(raw)
		w.Close()
		out[name] = buf.Bytes()
	}
	return out
}

func BenchmarkReader(b *testing.B) {
	in := benchInputs(b)
	buf := make([]byte, 1<<20)
	for _, name := range []string{"text", "binary"} {
		gz := in[name]
		size := int64(len(oracle(b, gz)))
		b.Run(name+"/unpack", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			z := new(Reader)
			src := bytes.NewReader(gz)
			c0 := cpuTime()
			for b.Loop() {
				src.Reset(gz)
				if err := z.Reset(src); err != nil {
					b.Fatal(err)
				}
				if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{z}, buf); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0, size)
		})
		b.Run(name+"/klauspost", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			z := new(kgzip.Reader)
			src := bytes.NewReader(gz)
			c0 := cpuTime()
			for b.Loop() {
				src.Reset(gz)
				if err := z.Reset(src); err != nil {
					b.Fatal(err)
				}
				if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{z}, buf); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0, size)
		})
	}
}

// reportCPU adds the cpu-MB/s metric: bytes of output per CPU-second since
// c0 (all goroutines, GC included).
func reportCPU(b *testing.B, c0 time.Duration, size int64) {
	if d := cpuTime() - c0; d > 0 && c0 > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "cpu-MB/s")
	}
}
