package gzip

import (
	"bytes"
	stdgzip "compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
)

// setSizes makes the parallel decoder's pieces small for a test: part
// compressed bytes each, the switch after sw bytes, caps of output.
func setSizes(t testing.TB, part int, sw int64, soft, hard int) {
	t.Helper()
	p, o, s, sc, hc := partSize, overrun, switchAt, softCap, hardCap
	partSize, overrun, switchAt, softCap, hardCap = part, max(part/4, 1), sw, soft, hard
	t.Cleanup(func() { partSize, overrun, switchAt, softCap, hardCap = p, o, s, sc, hc })
}

// testData returns inputs of several kinds: text that matches far back,
// random bytes (stored blocks), short-period runs, and a mix.
func testData(n int) map[string][]byte {
	r := rand.New(rand.NewPCG(7, 8))
	words := make([]string, 800)
	for i := range words {
		w := make([]byte, 2+r.IntN(8))
		for j := range w {
			w[j] = "etaoinshrdlucmfwyp"[r.IntN(18)]
		}
		words[i] = string(w)
	}
	var text bytes.Buffer
	for text.Len() < n {
		text.WriteString(words[r.IntN(len(words))])
		if r.IntN(9) == 0 {
			text.WriteByte('\n')
		} else {
			text.WriteByte(' ')
		}
	}
	random := make([]byte, n)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	var mixed bytes.Buffer
	for mixed.Len() < n {
		switch r.IntN(4) {
		case 0:
			mixed.Write(random[:r.IntN(5000)])
		case 1:
			mixed.Write(bytes.Repeat([]byte{byte(r.IntN(256))}, r.IntN(3000)))
		default:
			k := r.IntN(n - 20000)
			mixed.Write(text.Bytes()[k : k+r.IntN(20000)])
		}
	}
	return map[string][]byte{
		"text":   text.Bytes()[:n],
		"random": random,
		"runs":   bytes.Repeat([]byte("abcabcabd"), n/9),
		"mixed":  mixed.Bytes()[:n],
	}
}

// compressors are encoders of different block layouts.
var compressors = map[string]func(w io.Writer) io.WriteCloser{
	"std1":  func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, 1); return z },
	"std6":  func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, 6); return z },
	"std9":  func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, 9); return z },
	"huff":  func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, stdgzip.HuffmanOnly); return z },
	"store": func(w io.Writer) io.WriteCloser { z, _ := stdgzip.NewWriterLevel(w, 0); return z },
	"k1":    func(w io.Writer) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, 1); return z },
	"k5":    func(w io.Writer) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, 5); return z },
	"k9":    func(w io.Writer) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, 9); return z },
}

func compress(t testing.TB, c func(io.Writer) io.WriteCloser, raw []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := c(&b)
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// decodeWith decodes gz with a Config, and returns what the parallel
// decoder did.
func decodeWith(gz []byte, cfg Config) ([]byte, parStats, error) {
	z, err := NewReaderConfig(bytes.NewReader(gz), cfg)
	if err != nil {
		return nil, parStats{}, err
	}
	defer z.Close()
	b, err := io.ReadAll(z)
	return b, z.stats, err
}

// TestParallelDifferential decodes inputs of every kind and encoder in
// parallel with pieces of many sizes against the sequential decode.
func TestParallelDifferential(t *testing.T) {
	n := 600 << 10
	if testing.Short() {
		n = 200 << 10
	}
	data := testData(n)
	for dname, raw := range data {
		for cname, c := range compressors {
			gz := compress(t, c, raw)
			for _, part := range []int{97, 1000, 4 << 10, 33 << 10, 200 << 10} {
				for _, threads := range []int{2, 3} {
					t.Run(fmt.Sprintf("%s/%s/%d/%d", dname, cname, part, threads), func(t *testing.T) {
						setSizes(t, part, int64(part/3), 256<<10, 300<<10)
						got, st, err := decodeWith(gz, Config{Threads: threads})
						if err != nil {
							t.Fatal(err)
						}
						t.Logf("%+v", st)
						if !bytes.Equal(got, raw) {
							t.Fatalf("output differs: %d bytes, want %d", len(got), len(raw))
						}
					})
				}
			}
		}
	}
}
