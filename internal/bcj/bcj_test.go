package bcj

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// arch names a converter constructor for table-driven tests.
type arch struct {
	name  string
	align uint32
	new   func(start uint32) Converter
}

var arches = []arch{
	{"x86", 1, func(s uint32) Converter { return NewX86(s) }},
	{"x86generic", 1, func(s uint32) Converter { return genericX86{NewX86(s)} }},
	{"arm", 4, func(s uint32) Converter { return NewARM(s) }},
	{"armthumb", 2, func(s uint32) Converter { return NewARMThumb(s) }},
	{"arm64", 4, func(s uint32) Converter { return NewARM64(s) }},
	{"ppc", 4, func(s uint32) Converter { return NewPPC(s) }},
	{"sparc", 4, func(s uint32) Converter { return NewSPARC(s) }},
	{"ia64", 16, func(s uint32) Converter { return NewIA64(s) }},
	{"riscv", 2, func(s uint32) Converter { return NewRISCV(s) }},
	{"delta1", 1, func(uint32) Converter { return NewDelta(1) }},
	{"delta7", 1, func(uint32) Converter { return NewDelta(7) }},
	{"delta256", 1, func(uint32) Converter { return NewDelta(256) }},
}

// genericX86 forces the pure-Go opcode search.
type genericX86 struct{ *X86 }

func (g genericX86) Convert(b []byte) int { return g.convertGeneric(b) }

// codeLike returns n bytes rich in the opcodes every converter looks for.
func codeLike(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	hot := []byte{0xE8, 0xE9, 0x00, 0xFF, 0xEB, 0xF0, 0xF8, 0x48, 0x01, 0x40, 0x7F, 0xC0,
		0x94, 0x90, 0xEF, 0x17, 0x97, 0x0F, 0x05, 0x13, 0x03, 0x67, 0x10, 0x11}
	b := make([]byte, n)
	for i := range b {
		if r.IntN(3) == 0 {
			b[i] = byte(r.Uint32())
		} else {
			b[i] = hot[r.IntN(len(hot))]
		}
	}
	return b
}

// convertAll decodes all of b in one call, passing the tail unchanged.
func convertAll(c Converter, b []byte) []byte {
	out := append([]byte(nil), b...)
	c.Convert(out)
	return out
}

func readAll(t *testing.T, r io.Reader) []byte {
	t.Helper()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// nextAll reads br to the end through Next, alternating with small Reads.
func nextAll(t *testing.T, br *Reader) []byte {
	t.Helper()
	var got []byte
	for i := 0; ; i++ {
		if i%3 == 2 {
			var small [7]byte
			n, err := br.Read(small[:])
			got = append(got, small[:n]...)
			if err == io.EOF {
				return got
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := br.Next()
		got = append(got, b...)
		if err == io.EOF {
			return got
		}
		if err != nil || len(b) == 0 {
			t.Fatalf("Next: %d bytes, %v", len(b), err)
		}
	}
}

// chunkReader returns the data in chunks of random sizes.
type chunkReader struct {
	data []byte
	r    *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), 1+c.r.IntN(70))
	n = copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// TestSplitInvariance checks that the Reader, fed in any chunking, gives
// what one Convert over the whole buffer gives.
func TestSplitInvariance(t *testing.T) {
	for _, a := range arches {
		for _, n := range []int{0, 1, 4, 5, 7, 8, 15, 16, 17, 100, 4096, bufSize - 3, bufSize + 5, 3*bufSize + 11} {
			data := codeLike(n, uint64(n)+7)
			start := uint32(n*16) &^ (a.align - 1)
			want := convertAll(a.new(start), data)
			readers := map[string]func() io.Reader{
				"whole":   func() io.Reader { return bytes.NewReader(data) },
				"onebyte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
				"half":    func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
				"chunks":  func() io.Reader { return &chunkReader{data, rand.New(rand.NewPCG(uint64(n), 3))} },
			}
			for rn, mk := range readers {
				t.Run(fmt.Sprintf("%s/n=%d/%s", a.name, n, rn), func(t *testing.T) {
					br := NewReader(mk(), a.new(start))
					got := readAll(t, iotest.OneByteReader(br))
					br.Close()
					if !bytes.Equal(got, want) {
						t.Fatalf("differs from one-shot decoding (first at %d)", firstDiff(got, want))
					}
					br = NewReader(mk(), a.new(start))
					got = nextAll(t, br)
					br.Close()
					if !bytes.Equal(got, want) {
						t.Fatalf("Next: differs from one-shot decoding (first at %d)", firstDiff(got, want))
					}
				})
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRoundTrip decodes what the test encoders (written from the xz
// specification) produce.
func TestRoundTrip(t *testing.T) {
	for _, e := range encoders {
		for _, start := range []uint32{0, 16, 0xFFFFF000, 1 << 30} {
			data := codeLike(50000, uint64(start)+11)
			enc := append([]byte(nil), data...)
			e.enc(start, enc)
			if bytes.Equal(enc, data) {
				t.Fatalf("%s: encoder changed nothing; test data misses the opcodes", e.name)
			}
			dec := NewReader(bytes.NewReader(enc), e.dec(start))
			got := readAll(t, dec)
			if !bytes.Equal(got, data) {
				t.Errorf("%s start=%#x: round trip differs at %d", e.name, start, firstDiff(got, data))
			}
		}
	}
}

func TestReaderReuseAndClose(t *testing.T) {
	data := codeLike(100000, 1)
	want := convertAll(NewX86(0), data)
	br := NewReader(bytes.NewReader(data), NewX86(0))
	for i := 0; i < 3; i++ {
		if got := readAll(t, br); !bytes.Equal(got, want) {
			t.Fatalf("pass %d differs", i)
		}
		br.Reset(bytes.NewReader(data), NewX86(0))
	}
	br.Close()
	if _, err := br.Read(make([]byte, 1)); err != ErrClosed {
		t.Fatalf("read after close: %v", err)
	}
	br.Reset(bytes.NewReader(data), NewX86(0))
	if got := readAll(t, br); !bytes.Equal(got, want) {
		t.Fatal("after Close and Reset differs")
	}
}

func TestReaderErrors(t *testing.T) {
	boom := fmt.Errorf("boom")
	data := codeLike(1000, 2)
	br := NewReader(iotest.DataErrReader(io.MultiReader(bytes.NewReader(data), iotest.ErrReader(boom))), NewX86(0))
	got, err := io.ReadAll(br)
	if err != boom {
		t.Fatalf("err = %v, want boom", err)
	}
	want := convertAll(NewX86(0), data)
	// Bytes the converter had not finished are not delivered on error.
	if !bytes.Equal(got, want[:len(got)]) || len(want)-len(got) > MaxTail {
		t.Fatalf("got %d bytes before the error, want about %d", len(got), len(want))
	}
	empty := NewReader(iotest.ErrReader(nil), NewARM(0))
	if _, err := empty.Read(make([]byte, 8)); err != io.ErrNoProgress {
		t.Fatalf("endless empty reads: %v", err)
	}
}

func TestDeltaAgainstNaive(t *testing.T) {
	for _, dist := range []int{1, 2, 3, 100, 255, 256} {
		data := codeLike(3000, uint64(dist))
		want := append([]byte(nil), data...)
		for i := range want {
			if i >= dist {
				want[i] += want[i-dist]
			}
		}
		c := NewDelta(dist)
		got := append([]byte(nil), data...)
		for off := 0; off < len(got); {
			n := min(len(got)-off, 1+off%300)
			c.Convert(got[off : off+n])
			off += n
		}
		if !bytes.Equal(got, want) {
			t.Errorf("dist %d differs at %d", dist, firstDiff(got, want))
		}
	}
}
