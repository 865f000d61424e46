package xpress

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// encoder writes XPRESS with every symbol coded in 9 bits (a complete
// code: 512 symbols), greedy matches found by brute force over a short
// window: enough to test every path of the decoder.
type encoder struct {
	out   []byte
	slots []int // where the words being filled go, in order
	words int   // words started
	bits  uint32
	n     int // bits in the current word
}

func encode(p []byte, window int) []byte {
	e := &encoder{out: bytes.Repeat([]byte{0x99}, 256)} // 9 | 9<<4
	e.out = append(e.out, 0, 0, 0, 0)
	e.slots = []int{256, 258}
	for i := 0; i < len(p); {
		bestLen, bestOff := 0, 0
		for off := 1; off <= min(i, window); off++ {
			l := 0
			for i+l < len(p) && p[i+l] == p[i+l-off] && l < 65000 {
				l++
			}
			if l > bestLen {
				bestLen, bestOff = l, off
			}
		}
		if bestLen < 3 {
			e.put(uint32(p[i]), 9)
			i++
			continue
		}
		obits := 0
		for 1<<(obits+1) <= bestOff {
			obits++
		}
		l := bestLen - 3
		h := min(l, 15)
		e.put(uint32(256+obits<<4+h), 9)
		if h == 15 {
			if l-15 < 255 {
				e.out = append(e.out, byte(l-15))
			} else {
				e.out = append(e.out, 255)
				e.out = binary.LittleEndian.AppendUint16(e.out, uint16(l))
			}
		}
		e.put(uint32(bestOff-1<<obits), obits)
		i += bestLen
	}
	e.flush()
	return e.out
}

// put appends n bits. The decoder loads word k+1 when it takes the
// first bit of word k (k >= 1), so that is when its place among the
// length bytes is taken.
func (e *encoder) put(v uint32, n int) {
	for k := n - 1; k >= 0; k-- {
		if e.n == 0 {
			if e.words >= 1 {
				e.slots = append(e.slots, len(e.out))
				e.out = append(e.out, 0, 0)
			}
			e.words++
		}
		e.bits = e.bits<<1 | v>>k&1
		e.n++
		if e.n == 16 {
			binary.LittleEndian.PutUint16(e.out[e.slots[0]:], uint16(e.bits))
			e.slots = e.slots[1:]
			e.bits, e.n = 0, 0
		}
	}
}

func (e *encoder) flush() {
	if e.n > 0 {
		e.put(0, 16-e.n)
	}
}

func inputs() map[string][]byte {
	r := rand.New(rand.NewSource(1))
	rnd := make([]byte, 5000)
	r.Read(rnd)
	var text []byte
	for i := 0; len(text) < 40000; i++ {
		text = append(text, "line "+strconv.Itoa(i%97)+" of an xpress test\n"...)
	}
	return map[string][]byte{
		"empty":  {},
		"one":    {'x'},
		"random": rnd,
		"text":   text,
		"zeros":  make([]byte, MaxBlock),
		"run":    append(bytes.Repeat([]byte("ab"), 200), rnd[:300]...),
	}
}

func TestRoundTrip(t *testing.T) {
	var d Decoder
	for name, p := range inputs() {
		for _, w := range []int{1, 64, 70000} {
			if w == 70000 && len(p) > 6000 && name != "zeros" {
				w = 4096
			}
			c := encode(p, w)
			got := make([]byte, len(p))
			if err := d.Decode(got, c); err != nil {
				t.Fatalf("%s/%d: %v", name, w, err)
			}
			if !bytes.Equal(got, p) {
				t.Fatalf("%s/%d: output differs", name, w)
			}
		}
	}
}

// TestChunks decodes chunks that wimlib-imagex wrote (scripts/testdata/
// wim.sh): NAME-SIZE-SHA1.xpress.
func TestChunks(t *testing.T) {
	names, _ := filepath.Glob("testdata/*.xpress")
	if len(names) < 2 {
		t.Fatalf("%d chunks", len(names))
	}
	var d Decoder
	for _, name := range names {
		f := strings.Split(strings.TrimSuffix(filepath.Base(name), ".xpress"), "-")
		size, _ := strconv.Atoi(f[1])
		src, _ := os.ReadFile(name)
		dst := make([]byte, size)
		if err := d.Decode(dst, src); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s := sha1.Sum(dst); hex.EncodeToString(s[:]) != f[2] {
			t.Fatalf("%s: SHA-1 %x", name, s)
		}
	}
}

func TestCorrupt(t *testing.T) {
	var d Decoder
	p := inputs()["text"]
	c := encode(p, 4096)
	dst := make([]byte, len(p))
	for _, tc := range []struct {
		name string
		src  []byte
		dst  []byte
		want error
	}{
		{"short table", c[:100], dst, ErrShort},
		{"too large", c, make([]byte, MaxBlock+1), ErrTooLarge},
		{"oversubscribed", append(bytes.Repeat([]byte{0x11}, 256), c[256:]...), dst, ErrTable},
		// Only symbol 256 (a match of offset 1) and 257 have codes: the
		// first item copies from before the start.
		{"offset", append(append([]byte{}, make([]byte, 128)...), append([]byte{0x11}, make([]byte, 131)...)...), dst, ErrOffset},
		// Only literal 0 has a code (length 1): code word 1 has no symbol.
		{"no symbol", append(append([]byte{0x01}, make([]byte, 255)...), 0xff, 0xff, 0xff, 0xff), dst, ErrCode},
		{"overrun", c, dst[:len(dst)-1], ErrLength},
	} {
		err := d.Decode(tc.dst, tc.src)
		if !errors.Is(err, tc.want) || !errors.Is(err, archive.ErrCorrupt) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// A long length whose bytes are missing.
	long := encode(bytes.Repeat([]byte{'a'}, 400), 1)
	if err := d.Decode(make([]byte, 400), long[:len(long)-4]); !errors.Is(err, archive.ErrCorrupt) {
		t.Errorf("cut long length: %v", err)
	}
	// Truncations and bit flips never panic.
	for i := 256; i < len(c); i += 7 {
		d.Decode(dst, c[:i])
		b := append([]byte{}, c...)
		b[i] ^= 1 << (i % 8)
		d.Decode(dst, b)
	}
}

func BenchmarkDecode(b *testing.B) {
	p := inputs()["text"][:32<<10]
	c := encode(p, 4096)
	var d Decoder
	dst := make([]byte, len(p))
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Decode(dst, c); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzXpress(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.xpress")
	for _, n := range names {
		b, _ := os.ReadFile(n)
		f.Add(b, uint16(32<<10))
	}
	f.Add(encode(inputs()["run"], 64), uint16(700))
	var d Decoder
	f.Fuzz(func(t *testing.T, src []byte, size uint16) {
		dst := make([]byte, size)
		if err := d.Decode(dst, src); err != nil && !errors.Is(err, archive.ErrCorrupt) {
			t.Fatal(err)
		}
	})
}
