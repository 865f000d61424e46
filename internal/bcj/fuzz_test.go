package bcj

import (
	"bytes"
	"testing"
)

// fuzzConverter checks that decoding never panics, that the Reader's result
// does not depend on the chunking, and that one Convert leaves at most
// MaxTail bytes.
func fuzzConverter(f *testing.F, mk func(start uint32) Converter) {
	for i, n := range []int{0, 5, 17, 64, 300, 2000} {
		f.Add(codeLike(n, uint64(i)), uint32(i*16), uint8(i*13))
	}
	f.Fuzz(func(t *testing.T, data []byte, start uint32, cut uint8) {
		whole := append([]byte(nil), data...)
		if n := mk(start).Convert(whole); n < len(data)-MaxTail || n > len(data) {
			t.Fatalf("Convert returned %d of %d", n, len(data))
		}
		// Chunks of 1+cut bytes through Convert, as the Reader does.
		c := mk(start)
		got := append([]byte(nil), data...)
		off, end := 0, 0
		for end < len(got) {
			end = min(len(got), end+1+int(cut))
			off += c.Convert(got[off:end])
		}
		if !bytes.Equal(got, whole) {
			t.Fatalf("chunked decoding differs at %d", firstDiff(got, whole))
		}
	})
}

func FuzzBCJX86(f *testing.F) {
	fuzzConverter(f, func(s uint32) Converter { return NewX86(s) })
}

// FuzzBCJX86Generic compares the vectorised x86 decoder with the pure-Go one.
func FuzzBCJX86Generic(f *testing.F) {
	for i, n := range []int{0, 5, 17, 64, 300, 2000} {
		f.Add(codeLike(n, uint64(i)), uint32(i*16), uint8(i*13))
	}
	f.Fuzz(func(t *testing.T, data []byte, start uint32, cut uint8) {
		for name, sel := range findE8Impls() {
			restore := sel()
			fast, slow := NewX86(start), NewX86(start)
			a, b := append([]byte(nil), data...), append([]byte(nil), data...)
			off, end := 0, 0
			for end < len(a) {
				end = min(len(a), end+1+int(cut))
				n1, n2 := fast.Convert(a[off:end]), slow.convertGeneric(b[off:end])
				if n1 != n2 || *fast != *slow {
					t.Fatalf("%s: at %d..%d fast %d generic %d", name, off, end, n1, n2)
				}
				off += n1
			}
			restore()
			if got := findE8(data); got != findE8Generic(data) {
				t.Fatalf("%s: findE8 %d, generic %d", name, got, findE8Generic(data))
			}
			if !bytes.Equal(a, b) {
				t.Fatalf("%s: output differs at %d", name, firstDiff(a, b))
			}
		}
	})
}

func FuzzBCJARM(f *testing.F) {
	fuzzConverter(f, func(s uint32) Converter { return NewARM(s) })
}

func FuzzBCJARMThumb(f *testing.F) {
	fuzzConverter(f, func(s uint32) Converter { return NewARMThumb(s) })
}

func FuzzBCJARM64(f *testing.F) {
	fuzzConverter(f, func(s uint32) Converter { return NewARM64(s) })
}

// FuzzBCJARM64Generic compares the ARM64 decoder under every implementation
// (NEON on arm64) with convertARM64Generic, in chunks of 1+cut bytes.
func FuzzBCJARM64Generic(f *testing.F) {
	for i, n := range []int{0, 5, 17, 64, 300, 2000} {
		f.Add(codeLike(n, uint64(i)), uint32(i*16), uint8(i*13))
	}
	f.Fuzz(func(t *testing.T, data []byte, start uint32, cut uint8) {
		want := append([]byte(nil), data...)
		convertARM64Generic(want[:len(want)&^3], start)
		for name, sel := range findE8Impls() {
			restore := sel()
			c := NewARM64(start)
			got := append([]byte(nil), data...)
			off, end := 0, 0
			for end < len(got) {
				end = min(len(got), end+1+int(cut))
				off += c.Convert(got[off:end])
			}
			restore()
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: output differs at %d", name, firstDiff(got, want))
			}
		}
	})
}

func FuzzBCJPPC(f *testing.F) {
	fuzzConverter(f, func(s uint32) Converter { return NewPPC(s) })
}

func FuzzBCJSPARC(f *testing.F) {
	fuzzConverter(f, func(s uint32) Converter { return NewSPARC(s) })
}

func FuzzBCJIA64(f *testing.F) {
	fuzzConverter(f, func(s uint32) Converter { return NewIA64(s) })
}

func FuzzBCJRISCV(f *testing.F) {
	fuzzConverter(f, func(s uint32) Converter { return NewRISCV(s) })
}

func FuzzBCJDelta(f *testing.F) {
	fuzzConverter(f, func(s uint32) Converter { return NewDelta(int(s%256) + 1) })
}
