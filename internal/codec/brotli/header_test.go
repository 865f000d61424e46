package brotli

import (
	"bytes"
	"io"
	"testing"
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
