package iso9660

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"testing"
	"unicode/utf16"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// fileSource is an image file as formats gives it: a ReaderAt that hands
// byte ranges of the file to a RangeWriter.
type fileSource struct{ f *os.File }

func (s fileSource) ReadAt(p []byte, off int64) (int, error) { return s.f.ReadAt(p, off) }
func (s fileSource) SendRange(w archive.RangeWriter, off, n int64) (int64, error) {
	return w.WriteRange(s.f, off, n)
}

// rangeHash hashes what it is given and counts the ranges.
type rangeHash struct {
	h      io.Writer
	ranges int
}

func (w *rangeHash) Write(p []byte) (int, error) { return w.h.Write(p) }
func (w *rangeHash) WriteRange(f *os.File, off, n int64) (int64, error) {
	w.ranges++
	return archive.CopyRange(w.h, f, off, n)
}

// TestRanges: stored files reach a RangeWriter as byte ranges of the
// image, one per extent, with the bytes the buffered path gives; zisofs
// files are decoded as before.
func TestRanges(t *testing.T) {
	for _, name := range []string{"testdata/rr-joliet.iso", "testdata/zisofs.iso", "testdata/plain.iso"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(fileSource{testutil.TempFile(t, "image.iso", b)}, int64(len(b)), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, ranges := tree{}, 0
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			switch e.Type {
			case archive.TypeFile:
				h := sha256.New()
				w := &rangeHash{h: h}
				n, err := r.WriteTo(w)
				if err != nil || n != e.Size {
					t.Fatalf("%s: %s: %d bytes of %d, %v", name, e.Name, n, e.Size, err)
				}
				ranges += w.ranges
				got[e.Name] = hex.EncodeToString(h.Sum(nil))
			case archive.TypeHardlink:
				got[e.Name] = got[e.Linkname]
			case archive.TypeSymlink:
				got["link "+e.Name] = e.Linkname
			}
		}
		if want := expected(t, name); got.String() != want.String() {
			t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
		}
		if name != "testdata/zisofs.iso" && ranges == 0 {
			t.Errorf("%s: no file went as a range", name)
		}
	}
}

// TestRangeTruncated: an image cut inside a file's extent fails that file
// as cut short through the range path too, after the bytes it has.
func TestRangeTruncated(t *testing.T) {
	b, err := os.ReadFile("testdata/plain.iso")
	if err != nil {
		t.Fatal(err)
	}
	full, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Cut the image in the middle of its last file's data.
	var last *file
	for _, f := range full.files {
		if f.entry.Type == archive.TypeFile && f.entry.Size > 1 && (last == nil || f.extents[0].start > last.extents[0].start) {
			last = f
		}
	}
	cut := last.extents[0].start + last.extents[0].size/2
	r, err := NewReader(fileSource{testutil.TempFile(t, "image.iso", b[:cut])}, int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range r.files {
		if f.entry.Name != last.entry.Name {
			continue
		}
		rc, err := r.Open(i)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := rc.(io.WriterTo).WriteTo(&rangeHash{h: &buf})
		if !errors.Is(err, archive.ErrCorrupt) || n != last.extents[0].size/2 || !bytes.Equal(buf.Bytes(), b[last.extents[0].start:cut]) {
			t.Fatalf("cut file: %d bytes, %v", n, err)
		}
		return
	}
	t.Fatal("file not found")
}

// TestAppendUCS2: Joliet names decode as utf16.Decode reads them, unpaired
// and reversed surrogates and odd lengths included.
func TestAppendUCS2(t *testing.T) {
	cases := [][]uint16{
		{'a', 0xE9, 0x4E2D}, {0xD83D, 0xDE00}, {0xD83D}, {0xDE00, 0xD83D}, {0xD83D, 'x'},
		{'x', 0xD83D, 0xD83D, 0xDE00}, {},
	}
	for _, u := range cases {
		b := make([]byte, 2*len(u), 2*len(u)+1)
		for i, c := range u {
			binary.BigEndian.PutUint16(b[2*i:], c)
		}
		want := string(utf16.Decode(u))
		if got := string(appendUCS2([]byte("p/"), b)); got != "p/"+want {
			t.Errorf("%x: %q, want %q", u, got, want)
		}
		if got := string(appendUCS2(nil, append(b, 0x41))); got != want {
			t.Errorf("%x and an odd byte: %q, want %q", u, got, want)
		}
	}
}
