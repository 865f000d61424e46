package inflate

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
)

// readers are the ways tests hand input to a decoder.
var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"plain", func(r io.Reader) io.Reader { return r }},
	{"onebyte", iotest.OneByteReader},
	{"half", iotest.HalfReader},
}

// inflate decodes b with f in deflate mode through wrap, with reads of
// the wrapped sizes too.
func inflate(f *Inflater, b []byte, wrap func(io.Reader) io.Reader) ([]byte, error) {
	f.Reset(wrap(bytes.NewReader(b)))
	return io.ReadAll(wrap(f))
}

// flateOracle decodes b with compress/flate.
func flateOracle(b []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(b)))
}

// TestInflaterFixtures decodes the streams of zlib (every strategy), zopfli
// and 7-Zip made by scripts/testdata/inflate.sh, against compress/flate.
func TestInflaterFixtures(t *testing.T) {
	names, err := filepath.Glob("testdata/*.deflate")
	if err != nil || len(names) == 0 {
		t.Fatal("no fixtures", err)
	}
	streams := map[string][]byte{}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		streams[filepath.Base(name)] = b
	}
	zr, err := zip.OpenReader("testdata/deflate-7zip.zip")
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	rc, err := zr.File[0].OpenRaw()
	if err != nil {
		t.Fatal(err)
	}
	if streams["deflate-7zip.zip"], err = io.ReadAll(rc); err != nil {
		t.Fatal(err)
	}
	f := NewInflater(nil, false)
	for name, b := range streams {
		want, err := flateOracle(b)
		if err != nil {
			t.Fatalf("%s: oracle: %v", name, err)
		}
		for _, rd := range readers {
			got, err := inflate(f, b, rd.wrap)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s %s: %d bytes, %v; want %d bytes", name, rd.name, len(got), err, len(want))
			}
		}
	}
}

// shapes returns inputs that exercise each path of the fast loop: long
// runs (distance 1, length 258), short periods 2-15, text (literals and
// short matches), random bytes (literals, stored blocks), matches at the
// largest distances, and a mix.
func shapes(rng *rand.Rand, size int) map[string][]byte {
	m := map[string][]byte{}
	m["runs"] = bytes.Repeat([]byte{'a'}, size)
	for _, p := range []int{2, 3, 5, 7, 9, 15} {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(i%p) + 'A'
		}
		m["period"+string(rune('a'+p))] = b
	}
	pool := max(size, 1024) // the mix takes pieces of up to 600 bytes
	text := make([]byte, 0, pool+10)
	words := []string{"alpha ", "beta ", "gamma ", "delta\n", "epsilon ", "zeta ", "eta, "}
	for len(text) < pool {
		text = append(text, words[rng.IntN(len(words))]...)
	}
	m["text"] = text[:size]
	random := make([]byte, pool)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	m["random"] = random[:size]
	far := make([]byte, size)
	copy(far, random[:min(size, 32768)])
	for i := 32768; i < size; i++ {
		far[i] = far[i-32768]
	}
	m["far"] = far
	mixed := make([]byte, 0, size)
	for len(mixed) < size {
		switch n := 1 + rng.IntN(600); rng.IntN(4) {
		case 0:
			mixed = append(mixed, random[:n]...)
		case 1:
			mixed = append(mixed, bytes.Repeat([]byte{byte(n)}, n)...)
		case 2:
			if len(mixed) > n {
				mixed = append(mixed, mixed[rng.IntN(len(mixed)-n):][:n]...)
			}
		default:
			mixed = append(mixed, text[:n]...)
		}
	}
	m["mixed"] = mixed[:size]
	return m
}

// TestInflaterLevels cross-checks the Inflater against compress/flate on
// streams from every level (stored, Huffman only, fixed and dynamic
// blocks), sizes from empty to several MiB, through short reads.
func TestInflaterLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	f := NewInflater(nil, false)
	sizes := []int{0, 1, 2, 17, 258, 259, 1000, 32768, 32769, 70000, 300000}
	if !testing.Short() {
		sizes = append(sizes, 3<<20)
	}
	var writers [12]*flate.Writer // by level+2, reused
	for _, size := range sizes {
		for shape, data := range shapes(rng, size) {
			for level := flate.HuffmanOnly; level <= flate.BestCompression; level++ {
				if size >= 300000 && level > flate.BestSpeed && level != flate.DefaultCompression && level != flate.BestCompression ||
					size > 1<<20 && level == flate.BestCompression {
					continue // the writer's time, not the decoder's
				}
				var buf bytes.Buffer
				w := writers[level+2]
				if w == nil {
					w, _ = flate.NewWriter(&buf, level)
					writers[level+2] = w
				} else {
					w.Reset(&buf)
				}
				w.Write(data)
				w.Close()
				for _, rd := range readers {
					if size > 70000 && rd.name == "onebyte" {
						continue
					}
					got, err := inflate(f, buf.Bytes(), rd.wrap)
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("size %d %s level %d %s: %v, equal %v", size, shape, level, rd.name, err, bytes.Equal(got, data))
					}
				}
			}
		}
	}
}

// bitWriter writes deflate bit fields, least significant bit first.
type bitWriter struct {
	b    []byte
	acc  uint64
	nacc uint
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// code writes a Huffman code, most significant bit first.
func (w *bitWriter) code(c uint64, n uint) {
	for i := int(n) - 1; i >= 0; i-- {
		w.bits(c>>uint(i)&1, 1)
	}
}

func (w *bitWriter) bytes() []byte {
	if w.nacc > 0 {
		w.bits(0, 8-w.nacc)
	}
	return w.b
}

// stored writes a non-final stored block of p.
func (w *bitWriter) stored(p []byte) {
	w.bits(0, 3)
	w.bytes()
	w.bits(uint64(len(p)), 16)
	w.bits(uint64(^uint16(len(p))), 16)
	w.b = append(w.b, p...)
}

// fixedLen writes length symbol sym (257-287) of the fixed code.
func (w *bitWriter) fixedLen(sym int) {
	if sym < 280 {
		w.code(uint64(sym-256), 7)
	} else {
		w.code(uint64(sym-280+0xc0), 8)
	}
}

// TestInflaterCrafted decodes hand-made streams at the format's edges:
// the largest distance with the longest length, Deflate64's 64 KiB
// distance and 65538-byte length, and the symbols each mode rejects.
func TestInflaterCrafted(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	prefix := make([]byte, 65536)
	for i := range prefix {
		prefix[i] = byte(rng.Uint32())
	}
	// A stored block, a fixed block with one match, the end.
	stream := func(stored []byte, match func(w *bitWriter)) []byte {
		w := new(bitWriter)
		for p := stored; len(p) > 0; p = p[min(len(p), 65535):] {
			w.stored(p[:min(len(p), 65535)])
		}
		w.bits(1|1<<1, 3) // final, fixed
		match(w)
		w.code(0, 7) // end of block
		return w.bytes()
	}
	rep := func(src []byte, dist, length int) []byte {
		out := bytes.Clone(src)
		for range length {
			out = append(out, out[len(out)-dist])
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		d64    bool
		stored []byte
		match  func(w *bitWriter)
		want   []byte
		err    error
	}{
		{"deflate 258 at 32768", false, prefix[:32768], func(w *bitWriter) {
			w.fixedLen(285)
			w.code(29, 5)
			w.bits(8191, 13)
		}, rep(prefix[:32768], 32768, 258), nil},
		{"deflate 3 at 1", false, prefix[:1], func(w *bitWriter) {
			w.fixedLen(257)
			w.code(0, 5)
		}, rep(prefix[:1], 1, 3), nil},
		{"deflate 227 at 16385", false, prefix[:40000], func(w *bitWriter) {
			w.fixedLen(284)
			w.bits(0, 5)
			w.code(28, 5)
			w.bits(0, 13)
		}, rep(prefix[:40000], 16385, 227), nil},
		{"deflate distance code 30", false, prefix[:100], func(w *bitWriter) {
			w.fixedLen(257)
			w.code(30, 5)
			w.bits(0, 14)
		}, nil, ErrSymbol},
		{"deflate length code 286", false, prefix[:100], func(w *bitWriter) {
			w.fixedLen(286)
			w.code(0, 5)
		}, nil, ErrSymbol},
		{"deflate distance past the start", false, prefix[:100], func(w *bitWriter) {
			w.fixedLen(257)
			w.code(13, 5) // 97 + 5 bits
			w.bits(10, 5)
		}, nil, ErrDistance},
		{"deflate64 65538 at 65536", true, prefix, func(w *bitWriter) {
			w.fixedLen(285)
			w.bits(0xffff, 16)
			w.code(31, 5)
			w.bits(1<<14-1, 14)
		}, rep(prefix, 65536, 65538), nil},
		{"deflate64 3 at 49153", true, prefix, func(w *bitWriter) {
			w.fixedLen(285)
			w.bits(0, 16)
			w.code(31, 5)
			w.bits(0, 14)
		}, rep(prefix, 49153, 3), nil},
		{"deflate64 length code 286", true, prefix[:100], func(w *bitWriter) {
			w.fixedLen(286)
			w.code(0, 5)
		}, nil, ErrSymbol},
	} {
		b := stream(tc.stored, tc.match)
		if !tc.d64 {
			want, err := flateOracle(b)
			if (err == nil) != (tc.err == nil) || err == nil && !bytes.Equal(want, tc.want) {
				t.Fatalf("%s: the oracle disagrees: %v", tc.name, err)
			}
		}
		for _, rd := range readers {
			f := NewInflater(nil, tc.d64)
			f.Reset(rd.wrap(bytes.NewReader(b)))
			got, err := io.ReadAll(f)
			if !errors.Is(err, tc.err) || tc.err == nil && !bytes.Equal(got, tc.want) {
				t.Errorf("%s %s: %d bytes, %v; want %d bytes, %v", tc.name, rd.name, len(got), err, len(tc.want), tc.err)
			}
			got, err = io.ReadAll(NewReader(rd.wrap(bytes.NewReader(b)), tc.d64))
			if !errors.Is(err, tc.err) || tc.err == nil && !bytes.Equal(got, tc.want) {
				t.Errorf("%s %s: Reader: %d bytes, %v", tc.name, rd.name, len(got), err)
			}
		}
	}
}

// TestInflaterDamaged truncates and flips bits in deflate streams: every
// error is an archive.ErrCorrupt or io.ErrUnexpectedEOF, and wherever
// compress/flate accepts the damaged stream the output is the same.
func TestInflaterDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	f := NewInflater(nil, false)
	var streams [][]byte
	for _, data := range shapes(rng, 20000) {
		for _, level := range []int{flate.BestSpeed, flate.BestCompression, flate.HuffmanOnly} {
			var buf bytes.Buffer
			w, _ := flate.NewWriter(&buf, level)
			w.Write(data)
			w.Close()
			streams = append(streams, buf.Bytes())
		}
	}
	check := func(b []byte) {
		t.Helper()
		got, err := inflate(f, b, func(r io.Reader) io.Reader { return r })
		if err != nil && err != io.ErrUnexpectedEOF && !errors.Is(err, archive.ErrCorrupt) {
			t.Fatalf("error of the wrong category: %v", err)
		}
		if want, ferr := flateOracle(b); ferr == nil && (err != nil || !bytes.Equal(got, want)) {
			t.Fatalf("compress/flate accepts the stream (%d bytes); got %d bytes, %v", len(want), len(got), err)
		}
	}
	for _, s := range streams {
		for n := 0; n < len(s); n += 1 + len(s)/40 {
			if _, err := inflate(f, s[:n], func(r io.Reader) io.Reader { return r }); err == nil {
				t.Fatalf("truncated to %d of %d bytes: no error", n, len(s))
			}
			check(s[:n])
		}
		for range 40 {
			b := bytes.Clone(s)
			for k := 0; k < 1+rng.IntN(3); k++ {
				b[rng.IntN(len(b))] ^= 1 << rng.IntN(8)
			}
			check(b)
		}
	}
}

// TestInflaterAllocs checks that decoding with a warm Inflater allocates
// nothing, whatever the block types.
func TestInflaterAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var buf bytes.Buffer
	for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.BestCompression} {
		w, _ := flate.NewWriter(&buf, level)
		w.Write(shapes(rng, 100000)["mixed"])
		w.Flush()
	}
	w, _ := flate.NewWriter(&buf, flate.DefaultCompression)
	w.Close()
	b := buf.Bytes()
	f := NewInflater(nil, false)
	in := bytes.NewReader(b)
	p := make([]byte, 4096)
	allocs := testing.AllocsPerRun(10, func() {
		in.Reset(b)
		f.Reset(in)
		for {
			if _, err := f.Read(p); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per stream", allocs)
	}
}

// FuzzInflaterFlate cross-checks the Inflater against compress/flate on
// valid streams made by compress/flate from the fuzzed data at the fuzzed
// level, with the fuzzed data also written in the fuzzed split sizes.
func FuzzInflaterFlate(f *testing.F) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, data := range shapes(rng, 3000) {
		f.Add(data, int8(6), uint16(0))
	}
	f.Add([]byte("a"), int8(-2), uint16(1))
	f.Add(bytes.Repeat([]byte("xy"), 400), int8(0), uint16(100))
	inf := NewInflater(nil, false)
	var writers [12]*flate.Writer // by level+2, reused
	var buf bytes.Buffer
	f.Fuzz(func(t *testing.T, data []byte, level int8, split uint16) {
		lvl := (int(level)%12+12)%12 - 2 // -2 … 9
		buf.Reset()
		w := writers[lvl+2]
		if w == nil {
			w, _ = flate.NewWriter(&buf, lvl)
			writers[lvl+2] = w
		} else {
			w.Reset(&buf)
		}
		// Writing in pieces with flushes adds empty stored blocks and
		// block boundaries inside matches' reach (at most 64 pieces: a
		// flush costs the writer much more than the decoding).
		for p := data; len(p) > 0; {
			n := len(p)
			if split > 0 {
				n = min(n, max(int(split), len(data)/64))
				w.Write(p[:n])
				w.Flush()
			} else {
				w.Write(p)
			}
			p = p[n:]
		}
		w.Close()
		got, err := inflate(inf, buf.Bytes(), iotest.HalfReader)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("level %d split %d: %d of %d bytes, %v", lvl, split, len(got), len(data), err)
		}
	})
}
