package lz4

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
)

// refDecode is the block format decoded one byte at a time, as the
// specification reads: the reference decodeBlock is checked against.
func refDecode(dst []byte, di int, src []byte) (int, error) {
	si := 0
	length := func(n int) (int, error) {
		if n != 15 {
			return n, nil
		}
		for {
			if si >= len(src) {
				return 0, ErrShortBlock
			}
			b := src[si]
			si++
			n += int(b)
			if b != 255 {
				return n, nil
			}
		}
	}
	for si < len(src) {
		token := src[si]
		si++
		ll, err := length(int(token >> 4))
		if err != nil {
			return di, err
		}
		if ll > len(src)-si {
			return di, ErrShortBlock
		}
		for range ll {
			if di >= len(dst) {
				return di, ErrOverflow
			}
			dst[di] = src[si]
			di++
			si++
		}
		if si == len(src) {
			return di, nil
		}
		if si+2 > len(src) {
			return di, ErrShortBlock
		}
		off := int(src[si]) | int(src[si+1])<<8
		si += 2
		if off == 0 || off > di {
			return di, ErrOffset
		}
		ml, err := length(int(token & 15))
		if err != nil {
			return di, err
		}
		for range ml + minMatch {
			if di >= len(dst) {
				return di, ErrOverflow
			}
			dst[di] = dst[di-off]
			di++
		}
	}
	return di, ErrShortBlock
}

// encodeBlock is a small greedy LZ4 block compressor for tests: it finds
// matches through a hash of 4-byte sequences and follows the format's end
// rules (the last 5 bytes are literals, no match starts in the last 12).
// dict is history the matches may reach into.
func encodeBlock(dict, p []byte) []byte {
	buf := append(append([]byte(nil), dict...), p...)
	var table [1 << 14]int32
	for i := range table {
		table[i] = -1
	}
	hash := func(i int) int { return int(binary.LittleEndian.Uint32(buf[i:]) * 2654435761 >> 18) }
	for i := max(0, len(dict)-window); i+4 <= len(dict); i++ {
		table[hash(i)] = int32(i)
	}
	var out []byte
	putLen := func(n int) {
		for ; n >= 255; n -= 255 {
			out = append(out, 255)
		}
		out = append(out, byte(n))
	}
	emit := func(lit []byte, off, ml int) {
		tok := byte(min(len(lit), 15)) << 4
		if off > 0 {
			tok |= byte(min(ml-minMatch, 15))
		}
		out = append(out, tok)
		if len(lit) >= 15 {
			putLen(len(lit) - 15)
		}
		out = append(out, lit...)
		if off > 0 {
			out = append(out, byte(off), byte(off>>8))
			if ml-minMatch >= 15 {
				putLen(ml - minMatch - 15)
			}
		}
	}
	anchor, i, end := len(dict), len(dict), len(buf)
	for i+12 <= end {
		h := hash(i)
		c := int(table[h])
		table[h] = int32(i)
		if c < 0 || i-c >= window || binary.LittleEndian.Uint32(buf[c:]) != binary.LittleEndian.Uint32(buf[i:]) {
			i++
			continue
		}
		ml := 4
		for i+ml < end-5 && buf[c+ml] == buf[i+ml] {
			ml++
		}
		emit(buf[anchor:i], i-c, ml)
		i += ml
		anchor = i
	}
	emit(buf[anchor:], 0, 0)
	return out
}

// testInputs are inputs that exercise every copy path: runs (offset 1),
// short periods (offsets 2..7), text-like data (long offsets, long
// literals), long matches and incompressible stretches.
func testInputs() map[string][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	m := map[string][]byte{
		"empty": nil,
		"one":   {'x'},
		"zeros": make([]byte, 100_000),
	}
	for p := 1; p <= 20; p++ {
		pat := make([]byte, p)
		for i := range pat {
			pat[i] = byte(r.IntN(256))
		}
		b := bytes.Repeat(pat, 3000/p+7)
		m["period"+string(rune('a'+p))] = b[:r.IntN(len(b))]
	}
	words := []string{"the ", "lz4 ", "block ", "format ", "is ", "fast ", "and ", "simple, ", "x", "\n"}
	var text []byte
	for len(text) < 300_000 {
		text = append(text, words[r.IntN(len(words))]...)
	}
	m["text"] = text
	var mixed []byte
	for len(mixed) < 300_000 {
		switch r.IntN(4) {
		case 0:
			for range r.IntN(3000) {
				mixed = append(mixed, byte(r.IntN(256)))
			}
		case 1:
			mixed = append(mixed, bytes.Repeat([]byte{byte(r.IntN(256))}, r.IntN(5000))...)
		case 2:
			if len(mixed) > 100 {
				o := r.IntN(min(len(mixed), 65535)) + 1
				n := r.IntN(400)
				for range n {
					mixed = append(mixed, mixed[len(mixed)-o])
				}
			}
		default:
			mixed = append(mixed, text[r.IntN(1000):][:r.IntN(2000)]...)
		}
	}
	m["mixed"] = mixed
	return m
}

// TestDecodeBlock round-trips every test input through encodeBlock, with
// and without history, and checks decodeBlock against refDecode, with an
// output buffer of exactly the content's size and with slack.
func TestDecodeBlock(t *testing.T) {
	for name, p := range testInputs() {
		for _, histLen := range []int{0, 1000, 70_000} {
			hist := testInputs()["mixed"][:histLen]
			src := encodeBlock(hist, p)
			for _, slack := range []int{0, 1, 100} {
				dst := make([]byte, len(hist)+len(p)+slack)
				copy(dst, hist)
				n, err := decodeBlock(dst, len(hist), src)
				if err != nil {
					t.Fatalf("%s/hist=%d/slack=%d: %v", name, histLen, slack, err)
				}
				if !bytes.Equal(dst[len(hist):n], p) {
					t.Fatalf("%s/hist=%d/slack=%d: wrong output", name, histLen, slack)
				}
			}
		}
	}
}

// TestDecodeBlockErrors checks the error of each kind of malformed block.
func TestDecodeBlockErrors(t *testing.T) {
	long := append([]byte{0xF0, 0}, bytes.Repeat([]byte{'a'}, 15)...)
	for _, tc := range []struct {
		name string
		src  []byte
		hist int
		size int
		want error
	}{
		{"empty", nil, 0, 10, ErrShortBlock},
		{"literals only", []byte{0x30, 'a', 'b', 'c'}, 0, 10, nil},
		{"zero offset", []byte{0x10, 'a', 0, 0, 0x00}, 0, 10, ErrOffset},
		{"offset before start", []byte{0x10, 'a', 2, 0, 0x00}, 0, 10, ErrOffset},
		{"offset into history", []byte{0x10, 'a', 2, 0, 0x00}, 1, 10, nil},
		{"ends after match", []byte{0x10, 'a', 1, 0}, 0, 10, ErrShortBlock},
		{"offset cut", []byte{0x10, 'a', 1}, 0, 10, ErrShortBlock},
		{"literals cut", []byte{0x50, 'a', 'b'}, 0, 10, ErrShortBlock},
		{"literal length cut", []byte{0xF0, 255}, 0, 10, ErrShortBlock},
		{"match length cut", []byte{0x1F, 'a', 1, 0, 255}, 0, 100, ErrShortBlock},
		{"literals overflow", []byte{0x30, 'a', 'b', 'c'}, 0, 2, ErrOverflow},
		{"match overflow", []byte{0x1F, 'a', 1, 0, 200, 0x00}, 0, 100, ErrOverflow},
		{"long literals", long, 0, 15, nil},
		{"long literals overflow", long, 0, 14, ErrOverflow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := make([]byte, tc.hist+tc.size)
			_, err := decodeBlock(dst, tc.hist, tc.src)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			_, rerr := refDecode(make([]byte, tc.hist+tc.size), tc.hist, tc.src)
			if !errors.Is(rerr, tc.want) {
				t.Fatalf("refDecode: got %v, want %v", rerr, tc.want)
			}
		})
	}
}

// FuzzLZ4Block decodes arbitrary blocks with decodeBlock, with
// decodeSteps a few bytes at a time, and with refDecode, after some
// history and into an output of some size: all must agree on success and
// output, and fail with the same sentinel.
func FuzzLZ4Block(f *testing.F) {
	in := testInputs()
	for _, name := range []string{"text", "mixed", "periodc", "periodh", "zeros"} {
		p := in[name]
		f.Add(encodeBlock(nil, p[:min(len(p), 3000)]), uint16(0), uint16(3000), uint8(100))
	}
	f.Add(encodeBlock(in["text"][:500], in["text"][500:1500]), uint16(500), uint16(1000), uint8(7))
	f.Add([]byte{0x1F, 'a', 1, 0, 200, 0x00}, uint16(0), uint16(300), uint8(0))
	f.Fuzz(func(t *testing.T, src []byte, hist, size uint16, step uint8) {
		dst := make([]byte, int(hist)+int(size))
		ref := make([]byte, len(dst))
		for i := range int(hist) {
			dst[i] = byte(i * 7)
			ref[i] = byte(i * 7)
		}
		n, err := decodeBlock(dst, int(hist), src)
		rn, rerr := refDecode(ref, int(hist), src)
		if err != rerr {
			t.Fatalf("decodeBlock: %v, refDecode: %v", err, rerr)
		}
		if err == nil && (n != rn || !bytes.Equal(dst[:n], ref[:rn])) {
			t.Fatalf("outputs differ: %d and %d bytes", n, rn)
		}
		si, di := 0, int(hist)
		for {
			si, di, err = decodeSteps(dst, di, src, si, di+int(step)+1)
			if err != nil || si == len(src) {
				break
			}
		}
		if err == errRoom {
			err = ErrOverflow // dst ends where the block must
		}
		if err != rerr {
			t.Fatalf("decodeSteps: %v, refDecode: %v", err, rerr)
		}
		if err == nil && (di != rn || !bytes.Equal(dst[:di], ref[:rn])) {
			t.Fatalf("decodeSteps and refDecode outputs differ: %d and %d bytes", di, rn)
		}
	})
}
