package inflate

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
)

func TestInflaterFar7zip(t *testing.T) {
	raw, want := farStream(t)
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
	} {
		h := sha256.New()
		if _, err := io.Copy(h, wrap(NewInflater(wrap(bytes.NewReader(raw)), true))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			t.Errorf("%s: sha256 %s, want %s", name, got, want)
		}
	}
}

// testData returns inputs of several shapes: runs (long matches of length
// 258), text, a small alphabet and random bytes.
func testData(rng *rand.Rand, size int) [][]byte {
	runs := bytes.Repeat([]byte{'a'}, size)
	text := make([]byte, size)
	small := make([]byte, size)
	random := make([]byte, size)
	words := []string{"alpha ", "beta ", "gamma ", "delta\n", "epsilon ", "zeta "}
	for i := 0; i < size; {
		w := words[rng.IntN(len(words))]
		i += copy(text[i:], w)
	}
	for i := range small {
		small[i] = "abcd"[rng.IntN(4)]
		random[i] = byte(rng.Uint32())
	}
	return [][]byte{runs, text, small, random}
}

// TestInflaterDeflate cross-checks the deflate mode against compress/flate
// output at every level, through one-byte and half reads.
func TestInflaterDeflate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f := NewInflater(nil, false)
	for _, size := range []int{0, 1, 7, 100, 5000, 40000, 70000, 300000} {
		for k, data := range testData(rng, size) {
			for _, level := range []int{flate.NoCompression, flate.BestSpeed, 5, flate.BestCompression, flate.HuffmanOnly} {
				var buf bytes.Buffer
				w, _ := flate.NewWriter(&buf, level)
				w.Write(data)
				w.Close()
				for _, wrap := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader} {
					f.Reset(wrap(bytes.NewReader(buf.Bytes())))
					got, err := io.ReadAll(f)
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("size %d data %d level %d: err %v, equal %v", size, k, level, err, bytes.Equal(got, data))
					}
				}
			}
		}
	}
}

// TestInflaterMatchesReader compares the two Deflate64 decoders on damaged
// streams: same output, and an error from both or from neither.
func TestInflaterMatchesReader(t *testing.T) {
	raw, _ := farStream(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 300; i++ {
		b := bytes.Clone(raw)
		for k := 0; k < 1+rng.IntN(3); k++ {
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		}
		if rng.IntN(4) == 0 {
			b = b[:rng.IntN(len(b))]
		}
		want, werr := io.ReadAll(NewReader(bytes.NewReader(b), true))
		got, gerr := io.ReadAll(NewInflater(bytes.NewReader(b), true))
		if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
			t.Fatalf("case %d: Reader %d bytes, %v; Inflater %d bytes, %v", i, len(want), werr, len(got), gerr)
		}
	}
}

func FuzzInflater(f *testing.F) {
	raw, _ := farStream(f)
	f.Add(raw[:4096], true)
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.DefaultCompression)
	w.Write(bytes.Repeat([]byte("fuzzing the inflater "), 100))
	w.Close()
	f.Add(buf.Bytes(), false)
	for _, name := range []string{"zlib-fixed", "zlib-rle", "zlib-stored", "zopfli"} {
		b, err := os.ReadFile("testdata/" + name + ".deflate")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 4096)], false)
	}
	f.Fuzz(func(t *testing.T, b []byte, d64 bool) {
		got, gerr := io.ReadAll(io.LimitReader(NewInflater(bytes.NewReader(b), d64), 1<<24))
		if gerr != nil && gerr != io.ErrUnexpectedEOF && !errors.Is(gerr, archive.ErrCorrupt) {
			t.Fatalf("error of the wrong category: %v", gerr)
		}
		want, werr := io.ReadAll(io.LimitReader(NewReader(bytes.NewReader(b), d64), 1<<24))
		if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
			t.Fatalf("Reader %d bytes, %v; Inflater %d bytes, %v", len(want), werr, len(got), gerr)
		}
		if d64 {
			return
		}
		// A stream compress/flate accepts is valid: the output must be
		// the same. (The Inflater also accepts incomplete codes, which
		// compress/flate rejects.)
		want, werr = io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(b)), 1<<24))
		if werr == nil && (gerr != nil || !bytes.Equal(got, want)) {
			t.Fatalf("compress/flate %d bytes; Inflater %d bytes, %v", len(want), len(got), gerr)
		}
	})
}

// BenchmarkInflaterDeflate64 decodes the 7-Zip Deflate64 fixture.
func BenchmarkInflaterDeflate64(b *testing.B) {
	raw, _ := farStream(b)
	f := NewInflater(nil, true)
	in := bytes.NewReader(raw)
	f.Reset(in)
	size, err := io.Copy(io.Discard, f)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		in.Reset(raw)
		f.Reset(in)
		if n, err := io.Copy(io.Discard, f); err != nil || n != size {
			b.Fatal(n, err)
		}
	}
}

func BenchmarkInflater(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for k, name := range []string{"runs", "text", "small", "random"} {
		data := testData(rng, 4<<20)[k]
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, flate.DefaultCompression)
		w.Write(data)
		w.Close()
		comp := buf.Bytes()
		b.Run(name, func(b *testing.B) {
			f := NewInflater(nil, false)
			in := bytes.NewReader(comp)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				in.Reset(comp)
				f.Reset(in)
				n, err := io.Copy(io.Discard, f)
				if err != nil || n != int64(len(data)) {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// TestInflaterRest checks that what follows a deflate stream comes back
// from Rest, whatever the read sizes and the stream's last block type.
func TestInflaterRest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tail := []byte("TRAILER-and-the-next-member")
	f := NewInflater(nil, false)
	for k, data := range testData(rng, 50000) {
		for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.BestCompression} {
			var buf bytes.Buffer
			w, _ := flate.NewWriter(&buf, level)
			w.Write(data)
			w.Close()
			stream := buf.Len()
			buf.Write(tail)
			for name, wrap := range map[string]func(io.Reader) io.Reader{
				"plain":   func(r io.Reader) io.Reader { return r },
				"onebyte": iotest.OneByteReader,
			} {
				src := bytes.NewReader(buf.Bytes())
				f.Reset(wrap(src))
				if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("data %d level %d %s: %v", k, level, name, err)
				}
				rest := append(f.Rest(), buf.Bytes()[buf.Len()-src.Len():]...)
				if !bytes.Equal(rest, tail) {
					t.Fatalf("data %d level %d %s: rest %q (stream %d bytes)", k, level, name, rest, stream)
				}
			}
		}
	}
}

func TestResetDict(t *testing.T) {
	dict := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	var buf bytes.Buffer
	w, _ := flate.NewWriterDict(&buf, 9, dict[len(dict)-32<<10:])
	msg := append(append([]byte(nil), dict[40000:40100]...), "tail"...)
	w.Write(msg)
	w.Close()
	f := NewInflater(nil, false)
	f.ResetDict(bytes.NewReader(buf.Bytes()), dict)
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("with the dictionary: %q, %v", got, err)
	}
	// Without it the stream's matches reach before its start.
	f.Reset(bytes.NewReader(buf.Bytes()))
	if _, err := io.ReadAll(f); !errors.Is(err, ErrDistance) {
		t.Fatalf("without the dictionary: %v", err)
	}
}

// TestInflaterTail cuts streams at every length near their end (short ones
// everywhere), where the fast loop and the reading of a dynamic header run
// over zero padding once the source has ended: output and
// error must be those of the byte-at-a-time Reader, whatever the read
// sizes, and the bytes after a whole stream come back from Rest.
func TestInflaterTail(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var streams [][]byte
	for _, size := range []int{500, 3000} {
		for _, data := range shapes(rng, size) {
			for _, level := range []int{flate.BestSpeed, flate.DefaultCompression, flate.HuffmanOnly} {
				var buf bytes.Buffer
				w, _ := flate.NewWriter(&buf, level)
				w.Write(data)
				w.Close()
				streams = append(streams, buf.Bytes())
			}
		}
	}
	raw, _ := farStream(t)
	f := [2]*Inflater{NewInflater(nil, false), NewInflater(nil, true)}
	check := func(b []byte, d64 bool, wrap func(io.Reader) io.Reader) {
		t.Helper()
		want, werr := io.ReadAll(NewReader(bytes.NewReader(b), d64))
		g := f[0]
		if d64 {
			g = f[1]
		}
		g.Reset(wrap(bytes.NewReader(b)))
		got, gerr := io.ReadAll(g)
		if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) || gerr != nil && errors.Is(gerr, archive.ErrCorrupt) != errors.Is(werr, archive.ErrCorrupt) {
			t.Fatalf("%d bytes: Reader %d bytes, %v; Inflater %d bytes, %v", len(b), len(want), werr, len(got), gerr)
		}
	}
	for _, s := range streams {
		// Short streams are cut everywhere, headers included (read
		// over zero padding too).
		from := max(0, len(s)-120)
		if len(s) <= 1000 {
			from = 0
		}
		for n := from; n <= len(s); n++ {
			for _, rd := range readers {
				check(s[:n], false, rd.wrap)
			}
		}
		// Trailing bytes after the stream: Rest gives them back.
		tail := []byte("after the stream, more than the padding: 0123456789")
		for k := 0; k <= len(tail); k += 7 {
			b := append(bytes.Clone(s), tail[:k]...)
			f[0].Reset(bytes.NewReader(b))
			got, err := io.ReadAll(f[0])
			want, _ := flateOracle(s)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("with %d bytes after: %d bytes, %v", k, len(got), err)
			}
			if r := f[0].Rest(); !bytes.Equal(r, tail[:k]) {
				t.Fatalf("with %d bytes after: Rest %q", k, r)
			}
		}
	}
	for n := len(raw) - 200; n <= len(raw); n++ {
		check(raw[:n], true, readers[0].wrap)
	}
}
