package brotli

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// bitWriter writes a bit stream as RFC 7932 reads it, for hand-made
// streams.
type bitWriter struct {
	buf   []byte
	nbits uint
}

func (w *bitWriter) put(v uint32, n uint) {
	for i := range n {
		if w.nbits%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		w.buf[len(w.buf)-1] |= byte(v>>i&1) << (w.nbits % 8)
		w.nbits++
	}
}

// simple1 writes a simple prefix code of one symbol.
func (w *bitWriter) simple1(sym uint32, abits uint) {
	w.put(1, 2) // HSKIP 1: simple
	w.put(0, 2) // NSYM 1
	w.put(sym, abits)
}

// TestContextMapIMTF decodes a hand-made stream with 256 literal trees
// whose context map is 64 times the value 255 under the inverse
// move-to-front transform: 255, 254, …, 192.
func TestContextMapIMTF(t *testing.T) {
	var w bitWriter
	w.put(0, 1)       // WBITS 16
	w.put(1, 1)       // ISLAST
	w.put(0, 1)       // ISLASTEMPTY
	w.put(0, 2)       // MNIBBLES 4
	w.put(0, 16)      // MLEN 1
	w.put(0, 3)       // NBLTYPESL, I, D: 1
	w.put(0, 6)       // NPOSTFIX, NDIRECT
	w.put(0, 2)       // context mode LSB6
	w.put(1, 1)       // NTREESL: 1<<7 + 127 + 1 = 256
	w.put(7, 3)       //
	w.put(127, 7)     //
	w.put(0, 1)       // no RLEMAX
	w.simple1(255, 8) // every context: tree 255
	w.put(1, 1)       // IMTF
	w.put(0, 1)       // NTREESD 1
	for range 256 {
		w.simple1('A', 8)
	}
	w.simple1(136, 10) // insert 1, copy 2
	w.simple1(0, 6)    // distance code 0
	z, err := NewReader(bytes.NewReader(w.buf), Config{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(z)
	if err != nil || string(got) != "A" {
		t.Fatalf("got %q, %v", got, err)
	}
	for i, v := range z.cmapL {
		if int(v) != 255-i {
			t.Fatalf("context map[%d] = %d, want %d", i, v, 255-i)
		}
	}
}

// metaBlock writes the stream header (WBITS 16) and the header of a last
// compressed meta-block of mlen bytes, one block type per category, no
// distance postfix or direct codes, and one prefix code per category:
// lit and cmd as simple codes of one symbol, dist as given.
func metaBlock(w *bitWriter, mlen int, lit, cmd uint32, dist func(*bitWriter)) {
	w.put(0, 1) // WBITS 16
	w.put(1, 1) // ISLAST
	w.put(0, 1) // ISLASTEMPTY
	w.put(0, 2) // MNIBBLES 4
	w.put(uint32(mlen-1), 16)
	w.put(0, 3) // NBLTYPESL, I, D: 1
	w.put(0, 6) // NPOSTFIX, NDIRECT
	w.put(0, 2) // context mode LSB6
	w.put(0, 1) // NTREESL 1
	w.put(0, 1) // NTREESD 1
	w.simple1(lit, 8)
	w.simple1(cmd, 10)
	dist(w)
}

// TestInvalid decodes hand-made invalid streams: each fails with its
// named error, which is an archive.ErrCorrupt.
func TestInvalid(t *testing.T) {
	dist0 := func(w *bitWriter) { w.simple1(0, 6) }
	for _, tc := range []struct {
		name  string
		build func(w *bitWriter)
		want  error
	}{
		{"metadata reserved bit", func(w *bitWriter) {
			w.put(0, 1) // WBITS 16
			w.put(0, 1) // ISLAST 0
			w.put(3, 2) // MNIBBLES 0: metadata
			w.put(1, 1) // reserved
		}, ErrMetaBlockHeader},
		{"zero last nibble", func(w *bitWriter) {
			w.put(0, 1)
			w.put(1, 2) // ISLAST, not empty
			w.put(1, 2) // MNIBBLES 5
			w.put(0, 20)
		}, ErrMetaBlockHeader},
		{"symbol outside the alphabet", func(w *bitWriter) {
			metaBlock(w, 1, 'a', 1000, dist0)
		}, ErrPrefixCode},
		{"symbol named twice", func(w *bitWriter) {
			w.put(0, 1)
			w.put(1, 2)
			w.put(0, 2)
			w.put(0, 16)
			w.put(0, 3)
			w.put(0, 6)
			w.put(0, 2)
			w.put(0, 2)
			w.put(1, 2) // literal code: simple,
			w.put(1, 2) // two symbols,
			w.put('a', 8)
			w.put('a', 8) // the same
		}, ErrPrefixCode},
		{"incomplete complex code", func(w *bitWriter) {
			w.put(0, 1)
			w.put(1, 2)
			w.put(0, 2)
			w.put(0, 16)
			w.put(0, 3)
			w.put(0, 6)
			w.put(0, 2)
			w.put(0, 2)
			w.put(0, 2) // literal code: complex, HSKIP 0
			// Code length code lengths, in the order 1, 2, 3, 4, 0, 5,
			// 17, 6, 16, 7, …: 3 for code lengths 1 and 2 ("10"), then
			// zeros ("00"): two codes of 3 bits are not complete.
			w.put(2, 2)
			w.put(2, 2)
			for range 16 {
				w.put(0, 2)
			}
		}, ErrPrefixCode},
		{"insert past the meta-block", func(w *bitWriter) {
			metaBlock(w, 1, 'a', 130, dist0) // insert 2, copy 2
		}, ErrBlockLength},
		{"copy past the meta-block", func(w *bitWriter) {
			metaBlock(w, 4, 'a', 138, dist0) // insert 1, copy 4, distance 4 > 1: dictionary
		}, ErrBlockLength},
		{"dictionary copy length 3", func(w *bitWriter) {
			metaBlock(w, 8, 'a', 1, dist0) // insert 0, copy 3, last distance 4 > 0
		}, ErrDictionary},
		{"distance 0", func(w *bitWriter) {
			metaBlock(w, 6, 'a', 136, func(w *bitWriter) {
				w.put(1, 2) // simple code,
				w.put(1, 2) // two symbols: 4 (code 0) and 16 (code 1)
				w.put(16, 6)
				w.put(4, 6)
			})
			// Command 1: "a", then distance code 16 with extra bit 0:
			// distance 1. Command 2: "a", then distance code 4: the
			// last distance minus 1.
			w.put(1, 1)
			w.put(0, 1)
			w.put(0, 1)
		}, ErrDistance},
		{"context map run past its end", func(w *bitWriter) {
			w.put(0, 1)
			w.put(1, 2)
			w.put(0, 2)
			w.put(0, 16)
			w.put(0, 3)
			w.put(0, 6)
			w.put(0, 2)
			w.put(1, 1) // NTREESL 2
			w.put(0, 3)
			w.put(1, 1)     // RLEMAX
			w.put(5, 4)     // 6
			w.simple1(6, 3) // every symbol: a run of 64 + 6 bits of zeros
			w.put(63, 6)    // 127 zeros
		}, ErrContextMap},
		{"non-zero padding", func(w *bitWriter) {
			w.put(0, 1) // WBITS 16
			w.put(1, 1) // ISLAST
			w.put(1, 1) // ISLASTEMPTY
			w.put(1, 5) // fill bits not zero
		}, ErrPadding},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bitWriter
			tc.build(&w)
			z := new(Reader)
			err := z.Reset(bytes.NewReader(w.buf))
			if err == nil {
				_, err = io.ReadAll(z)
			}
			if err != tc.want || !errors.Is(err, archive.ErrCorrupt) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
