package brotli

import (
	"bytes"
	"io"
	"testing"

	ab "github.com/andybalholm/brotli"
)

// benchInputs are the benchmark workloads, compressed by andybalholm's
// encoder at quality 5 and 9 (make bench's) with a 4 MiB window: text built from a
// vocabulary (literal context modeling, dictionary words) and
// binary-like data (distance codes, long copies).
func benchInputs(b *testing.B) map[string][]byte {
	text := bytes.Buffer{}
	words := []string{"the", "brotli", "window", "of", "decoder", "literal", "and", "context", "prefix", "code", "distance", "copy", "a", "stream"}
	seed := uint32(1)
	next := func() uint32 { seed = seed*1664525 + 1013904223; return seed >> 8 }
	for text.Len() < 2<<20 {
		text.WriteString(words[next()%uint32(len(words))])
		if next()%9 == 0 {
			text.WriteString(".\n")
		} else {
			text.WriteByte(' ')
		}
	}
	bin := make([]byte, 0, 2<<20)
	for len(bin) < 2<<20 {
		if len(bin) > 1000 && next()%3 != 0 {
			d := 1 + int(next())%min(len(bin)-1, 1<<20)
			n := min(d, 4+int(next()%60))
			bin = append(bin, bin[len(bin)-d:len(bin)-d+n]...)
		} else {
			for range 1 + next()%16 {
				bin = append(bin, byte(next()%64))
			}
		}
	}
	out := map[string][]byte{}
	for name, src := range map[string][]byte{"text": text.Bytes(), "binary": bin} {
		for _, q := range []int{5, 9} {
			var buf bytes.Buffer
			w := ab.NewWriterOptions(&buf, ab.WriterOptions{Quality: q, LGWin: 22})
			w.Write(src)
			w.Close()
			out[name+"-q"+string(rune('0'+q))] = buf.Bytes()
		}
	}
	return out
}

// BenchmarkDecode decodes each workload through WriteTo (as io.Copy
// does) and through Read with a 1 MiB buffer, reusing the Reader.
func BenchmarkDecode(b *testing.B) {
	in := benchInputs(b)
	for _, name := range []string{"text-q5", "text-q9", "binary-q5", "binary-q9"} {
		data := in[name]
		z := new(Reader)
		br := bytes.NewReader(data)
		z.Reset(br)
		size, _ := io.Copy(io.Discard, z)
		for _, how := range []string{"WriteTo", "Read"} {
			b.Run(name+"/"+how, func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				buf := make([]byte, 1<<20)
				// Hide WriteTo and ReadFrom, as the CLI's sinks do.
				var w io.Writer = struct{ io.Writer }{io.Discard}
				var r io.Reader = struct{ io.Reader }{z}
				for b.Loop() {
					br.Reset(data)
					if err := z.Reset(br); err != nil {
						b.Fatal(err)
					}
					var n int64
					var err error
					if how == "WriteTo" {
						n, err = z.WriteTo(io.Discard)
					} else {
						n, err = io.CopyBuffer(w, r, buf)
					}
					if err != nil || n != size {
						b.Fatal(n, err)
					}
				}
			})
		}
	}
}

// BenchmarkAndybalholm is the same decode with andybalholm/brotli, for
// comparison.
func BenchmarkAndybalholm(b *testing.B) {
	in := benchInputs(b)
	for _, name := range []string{"text-q5", "text-q9", "binary-q5", "binary-q9"} {
		data := in[name]
		br := bytes.NewReader(data)
		z := ab.NewReader(br)
		size, _ := io.Copy(io.Discard, z)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				br.Reset(data)
				z.Reset(br)
				if n, err := io.Copy(io.Discard, z); err != nil || n != size {
					b.Fatal(n, err)
				}
			}
		})
	}
}
