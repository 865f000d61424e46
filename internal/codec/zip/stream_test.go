package zip

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// TestStreamUnknownSizes streams an archive whose deflate entries have no
// sizes in their local headers (Go's writer puts them in data
// descriptors), large enough that the inflater reads far past each entry's
// end: what it read ahead must come back for the descriptor and the next
// entries, whether the entries are read, half read or skipped, and however
// the input splits its reads.
func TestStreamUnknownSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var sizes = []int{0, 1, 700, 40000, 300000, 5, 100000}
	var contents [][]byte
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i, size := range sizes {
		data := make([]byte, size)
		for j := range data {
			data[j] = "abcdefgh"[rng.IntN(8)] + byte(j/4096%3)
		}
		if i == 5 {
			for j := range data {
				data[j] = byte(rng.Uint32())
			}
		}
		contents = append(contents, data)
		method := zip.Deflate
		if i == 4 {
			method = zip.Store // a stored entry with a descriptor between deflate ones
		}
		fw, err := w.CreateHeader(&zip.FileHeader{Name: string(rune('a' + i)), Method: method})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	w.Close()
	arch := buf.Bytes()
	wraps := map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
	}
	for name, wrap := range wraps {
		// read: 0 skip the entry, 1 read half of it, 2 read it all.
		for read := range 3 {
			r := NewStreamReader(wrap(bytes.NewReader(arch)), nil)
			for i := 0; ; i++ {
				e, err := r.Next()
				if err == io.EOF {
					if i != len(sizes) {
						t.Fatalf("%s read %d: %d entries, want %d", name, read, i, len(sizes))
					}
					break
				}
				if err != nil {
					t.Fatalf("%s read %d: entry %d: %v", name, read, i, err)
				}
				if e.Name != string(rune('a'+i)) {
					t.Fatalf("%s read %d: entry %d is %q", name, read, i, e.Name)
				}
				want := contents[i]
				switch read {
				case 1:
					got := make([]byte, len(want)/2)
					if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, want[:len(got)]) {
						t.Fatalf("%s read %d: %q: first half differs (%v)", name, read, e.Name, err)
					}
				case 2:
					got, err := io.ReadAll(r)
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("%s read %d: %q: %d of %d bytes, %v", name, read, e.Name, len(got), len(want), err)
					}
					if e.Size != int64(len(want)) {
						t.Fatalf("%s read %d: %q: size %d after reading, want %d", name, read, e.Name, e.Size, len(want))
					}
				}
			}
		}
	}
}

// TestStreamUnknownSizeCorrupt damages one deflate entry of unknown size:
// its error is corruption, and the stream cannot go on past it.
func TestStreamUnknownSizeCorrupt(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	w.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) { return flate.NewWriter(out, 1) })
	for _, name := range []string{"a", "b"} {
		fw, _ := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		fw.Write(bytes.Repeat([]byte("some text "+name), 5000))
	}
	w.Close()
	b := buf.Bytes()
	b[30+1+40] ^= 0xff // inside a's compressed data
	r := NewStreamReader(bytes.NewReader(b), nil)
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, r); err == nil {
		t.Fatal("damaged entry read without error")
	}
	if _, err := r.Next(); err == nil {
		t.Fatal("Next after a damaged entry of unknown size succeeded")
	}
}
