package lzms

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"github.com/unpack-dev/unpack/internal/archive"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

type chunk struct {
	name string
	src  []byte
	size int
	sum  string
}

// chunks are blocks wimlib-imagex wrote (scripts/testdata/wim.sh), named
// NAME-SIZE-SHA1.lzms.
func chunks(t testing.TB) []chunk {
	names, _ := filepath.Glob("testdata/*.lzms")
	if len(names) < 3 {
		t.Fatalf("%d chunks", len(names))
	}
	var cs []chunk
	for _, name := range names {
		f := strings.Split(strings.TrimSuffix(filepath.Base(name), ".lzms"), "-")
		size, _ := strconv.Atoi(f[1])
		src, _ := os.ReadFile(name)
		cs = append(cs, chunk{name, src, size, f[2]})
	}
	return cs
}

func TestChunks(t *testing.T) {
	var d Decoder
	for _, c := range chunks(t) {
		dst := make([]byte, c.size)
		if err := d.Decode(dst, c.src); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s := sha1.Sum(dst); hex.EncodeToString(s[:]) != c.sum {
			t.Fatalf("%s: SHA-1 %x", c.name, s)
		}
	}
}

// TestX86 checks that the x86 pass is needed: the code chunk decodes to
// other bytes without it.
func TestX86(t *testing.T) {
	var d Decoder
	seen := false
	for _, c := range chunks(t) {
		dst := make([]byte, c.size)
		d.reset(c.src, c.size)
		if err := d.items(dst, len(dst)); err != nil {
			t.Fatal(err)
		}
		if s := sha1.Sum(dst); hex.EncodeToString(s[:]) != c.sum {
			seen = true
		}
	}
	if !seen {
		t.Fatal("no chunk needed the x86 pass")
	}
}

func TestCorrupt(t *testing.T) {
	var d Decoder
	cs := chunks(t)
	for _, src := range [][]byte{nil, {1, 2}, {1, 2, 3, 4, 5}} {
		if err := d.Decode(make([]byte, 10), src); !errors.Is(err, ErrShort) {
			t.Errorf("%d bytes: %v", len(src), err)
		}
	}
	if err := d.Decode(nil, []byte{1, 2, 3, 4}); err != nil {
		t.Errorf("empty output: %v", err)
	}
	// Every truncation and bit flip of a real block fails as corrupt or
	// decodes to other bytes (the container's SHA-1 catches those), and
	// never panics.
	for _, c := range cs[:2] {
		dst := make([]byte, c.size)
		step := max(1, len(c.src)/300)
		for i := 0; i < len(c.src); i += step {
			for _, src := range [][]byte{c.src[:i&^1], flip(c.src, i)} {
				err := d.Decode(dst, src)
				if err != nil && !errors.Is(err, archive.ErrCorrupt) {
					t.Fatalf("%s at %d: %v", c.name, i, err)
				}
			}
		}
	}
	// A block claiming more output than it holds runs into bad matches.
	c := cs[1]
	if err := d.Decode(make([]byte, c.size*3), c.src); err == nil {
		t.Log("a longer output decoded without error (zeros past the end)")
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte{}, b...)
	c[i] ^= 1 << (i % 8)
	return c
}

func TestMakeLengths(t *testing.T) {
	// Equal weights: a complete code of 5 and 6 bits over 40 symbols
	// (24 of 5 bits, 16 of 6), the longer ones on the first symbols.
	freqs := make([]uint32, 40)
	for i := range freqs {
		freqs[i] = 1
	}
	lens := make([]uint8, 40)
	makeLengths(freqs, lens, new(scratch))
	kraft := 0
	for i, l := range lens {
		kraft += 1 << (maxCodeLen - l)
		if want := uint8(6 - i/16); i < 16 && l != want || i >= 16 && l != 5 {
			t.Fatalf("lens %v", lens)
		}
	}
	if kraft != 1<<maxCodeLen {
		t.Fatalf("lens %v not complete", lens)
	}
	// Fibonacci-like weights would pass 15 bits: the lengths are capped.
	f := []uint32{1, 1}
	for len(f) < 25 {
		f = append(f, f[len(f)-1]+f[len(f)-2])
	}
	lens = make([]uint8, len(f))
	makeLengths(f, lens, new(scratch))
	for _, l := range lens {
		if l > maxCodeLen || l == 0 {
			t.Fatalf("lens %v", lens)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	c := chunks(b)[2]
	var d Decoder
	dst := make([]byte, c.size)
	b.SetBytes(int64(c.size))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Decode(dst, c.src); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzLZMS(f *testing.F) {
	for _, c := range chunks(f) {
		f.Add(c.src, uint32(c.size))
	}
	var d Decoder
	var x X86
	f.Fuzz(func(t *testing.T, src []byte, size uint32) {
		dst := make([]byte, size%(1<<18))
		err := d.Decode(dst, src)
		if err != nil && !errors.Is(err, archive.ErrCorrupt) {
			t.Fatal(err)
		}
		// DecodeRaw with the x86 pass on copies: the same bytes.
		raw := make([]byte, len(dst))
		got := make([]byte, 0, len(dst))
		x.Reset(len(raw))
		rerr := d.DecodeRaw(raw, src, 1000, func(n int) {
			for {
				done := x.Advance(raw, n, len(got)+700)
				if done <= len(got) {
					return
				}
				k := min(done, len(got)+700)
				out := make([]byte, k-len(got))
				x.Copy(out, raw, len(got))
				got = append(got, out...)
			}
		})
		if (err == nil) != (rerr == nil) {
			t.Fatalf("Decode: %v, DecodeRaw: %v", err, rerr)
		}
		if err == nil && len(dst) > 0 && !bytes.Equal(got, dst) {
			t.Fatalf("DecodeRaw and X86 gave %d other bytes", len(got))
		}
	})
}

// TestX86Reuse decodes the chunks twice over with one decoder, the second
// time from an x86 base near its overflow: what an earlier block left in
// the usage table never counts, and the reset gives the same bytes.
func TestX86Reuse(t *testing.T) {
	var d Decoder
	cs := chunks(t)
	for round := range 3 {
		if round == 2 {
			d.x86Base = math.MaxInt32 - 70000
		}
		for i := len(cs) - 1; i >= 0; i-- {
			c := cs[i]
			dst := make([]byte, c.size)
			if err := d.Decode(dst, c.src); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if s := sha1.Sum(dst); hex.EncodeToString(s[:]) != c.sum {
				t.Fatalf("round %d, %s: SHA-1 %x", round, c.name, s)
			}
		}
	}
	if d.x86Base <= 0 || d.x86Base > math.MaxInt32-1<<20 {
		t.Fatalf("x86 base %d after the reset", d.x86Base)
	}
}

// TestDecodeRaw decodes the chunks without the x86 pass and undoes it on
// copies taken as the progress calls allow, in pieces of every size: the
// same bytes as Decode.
func TestDecodeRaw(t *testing.T) {
	var d Decoder
	var x X86
	for _, c := range chunks(t) {
		for _, piece := range []int{1, 5, 4096, 1 << 20} {
			step := piece * 3
			dst := make([]byte, c.size)
			got := make([]byte, 0, c.size)
			x.Reset(c.size)
			calls, last := 0, 0
			err := d.DecodeRaw(dst, c.src, step, func(n int) {
				calls++
				if n <= last || n-last > step+1<<16 {
					t.Fatalf("%s: progress %d after %d", c.name, n, last)
				}
				last = n
				for len(got) < n {
					done := x.Advance(dst, n, len(got)+piece)
					if done <= len(got) {
						break
					}
					k := min(done, len(got)+piece)
					out := make([]byte, k-len(got))
					x.Copy(out, dst, len(got))
					got = append(got, out...)
				}
			})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if last != c.size || calls < min(c.size/(step+1<<16), 1) || calls > 1+c.size/step {
				t.Fatalf("%s: %d calls, last at %d", c.name, calls, last)
			}
			if len(got) != c.size {
				t.Fatalf("%s, pieces of %d: %d bytes final of %d", c.name, piece, len(got), c.size)
			}
			if s := sha1.Sum(got); hex.EncodeToString(s[:]) != c.sum {
				t.Fatalf("%s, pieces of %d: SHA-1 %x", c.name, piece, s)
			}
		}
	}
}

// TestX86Stream undoes the translation of dense x86-like bytes in place
// and on copies, decoded bytes told in random steps, copies of random
// sizes: the same result.
func TestX86Stream(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	leads := []byte{0xE8, 0xE9, 0xFF, 0x15, 0xF0, 0x83, 0x05, 0x48, 0x4C, 0x8D, 0x8B, 0x00}
	for _, size := range []int{0, 5, 17, 18, 40, 1000, 300000} {
		data := make([]byte, size)
		for i := range data {
			if r.IntN(3) == 0 {
				data[i] = byte(r.IntN(256))
			} else {
				data[i] = leads[r.IntN(len(leads))]
			}
		}
		want := append([]byte(nil), data...)
		undoX86(want, make([]int32, 65536), 0)
		var x X86
		x.Reset(size)
		var got []byte
		n := 0
		for len(got) < size {
			n = min(size, n+r.IntN(5000))
			for {
				done := x.Advance(data, n, len(got)+1+r.IntN(3000))
				if done <= len(got) {
					break
				}
				k := min(done, len(got)+1+r.IntN(3000))
				out := make([]byte, k-len(got))
				x.Copy(out, data, len(got))
				got = append(got, out...)
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("size %d: streamed bytes differ", size)
		}
		if size > 1000 && bytes.Equal(data, want) {
			t.Fatalf("size %d: nothing translated", size)
		}
	}
}
