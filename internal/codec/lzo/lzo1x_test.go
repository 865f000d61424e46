package lzo

import (
	"bytes"
	"math/rand"
	"testing"
)

// Blocks written by hand from the instruction format: a run of four
// literals (first byte 17+4), an M2 match of 4 bytes 4 back (0x6C, 0x00),
// the end marker (0x11, 0, 0).
var (
	literalsOnly = []byte{21, 'a', 'b', 'c', 'd', 0x11, 0, 0}
	withMatch    = []byte{21, 'a', 'b', 'c', 'd', 0x6C, 0x00, 0x11, 0, 0}
)

func TestDecompress1X(t *testing.T) {
	for _, c := range []struct {
		name string
		src  []byte
		cap  int
		want string
	}{
		{"literals exact", literalsOnly, 4, "abcd"},
		{"literals, room to spare", literalsOnly, 64, "abcd"},
		{"match exact", withMatch, 8, "abcdabcd"},
		{"match, room to spare", withMatch, 1 << 17, "abcdabcd"},
	} {
		dst := make([]byte, c.cap)
		n, ok := Decompress1X(dst, c.src)
		if !ok || string(dst[:n]) != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, dst[:n], ok, c.want)
		}
	}
}

func TestDecompress1XRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		src  []byte
		cap  int
	}{
		{"empty", nil, 16},
		{"output too small", withMatch, 7},
		{"data after the end marker", append(bytes.Clone(withMatch), 0), 16},
		{"no end marker", withMatch[:len(withMatch)-3], 16},
		{"cut in the end marker", withMatch[:len(withMatch)-1], 16},
		{"match before any output", []byte{0x6C, 0x00, 0x11, 0, 0}, 16},
		{"match further back than the output", []byte{21, 'a', 'b', 'c', 'd', 0x7C, 0x00, 0x11, 0, 0}, 16},
	} {
		if n, ok := Decompress1X(make([]byte, c.cap), c.src); ok {
			t.Errorf("%s: decoded %d bytes, want a refusal", c.name, n)
		}
	}
}

// FuzzLZO1X runs the decoder on any input into outputs of a few sizes:
// it must never panic, never claim more than the room it was given, agree
// with its Go twin (decompress1XGeneric; on amd64 Decompress1X is in
// assembly), and a block that decodes must decode the same into a larger
// buffer.
func FuzzLZO1X(f *testing.F) {
	f.Add(literalsOnly, 4)
	f.Add(withMatch, 8)
	f.Add([]byte{0x11, 0, 0}, 0)
	r := rand.New(rand.NewSource(2))
	for _, size := range []int{100, 3000, 40000} {
		block, want := genBlock(r, size)
		f.Add(block, len(want))
	}
	f.Fuzz(func(t *testing.T, src []byte, n int) {
		if n < 0 || n > 1<<20 {
			return
		}
		dst := make([]byte, n)
		m, ok := Decompress1X(dst, src)
		ref := make([]byte, n)
		if rm := decompress1XGeneric(ref, src); rm >= 0 != ok || ok && (rm != m || !bytes.Equal(ref[:rm], dst[:m])) {
			t.Fatalf("decoded %d bytes, %v; the Go twin %d", m, ok, rm)
		}
		if !ok {
			return
		}
		if m > n {
			t.Fatalf("%d bytes decoded into %d", m, n)
		}
		big := make([]byte, n+64)
		m2, ok2 := Decompress1X(big, src)
		if !ok2 || !bytes.Equal(big[:m2], dst[:m]) {
			t.Fatalf("decodes differently with more room: %d/%v vs %d", m2, ok2, m)
		}
	})
}
