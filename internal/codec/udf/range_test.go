package udf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"testing"

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

func openFile(t *testing.T, img []byte) *Reader {
	t.Helper()
	r, err := NewReader(fileSource{testutil.TempFile(t, "image.iso", img)}, int64(len(img)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rangeTree is tree reading each file through WriteTo.
func rangeTree(r *Reader) (map[string]string, int, error) {
	t, ranges := map[string]string{}, 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			return t, ranges, nil
		}
		if err != nil {
			return t, ranges, err
		}
		switch e.Type {
		case archive.TypeFile:
			h := sha256.New()
			w := &rangeHash{h: h}
			n, err := r.WriteTo(w)
			ranges += w.ranges
			if err != nil {
				return t, ranges, &archive.EntryError{Entry: e.Name, Err: err}
			}
			if n != e.Size {
				return t, ranges, errors.New(e.Name + ": wrong size")
			}
			t[e.Name] = hex.EncodeToString(h.Sum(nil))[:12]
		case archive.TypeDir:
			t[e.Name] = "dir"
		case archive.TypeSymlink:
			t[e.Name] = "-> " + e.Linkname
		case archive.TypeHardlink:
			t[e.Name] = "link " + e.Linkname
		}
	}
}

// TestRanges: recorded spans reach a RangeWriter as byte ranges of the
// image, unrecorded ones as zeros, with the bytes Read gives; data past
// the image's end fail as cut short.
func TestRanges(t *testing.T) {
	for _, meta := range []bool{false, true} {
		b, want := sample(meta)
		// z.bin: a recorded block, an unrecorded one, the start of another.
		z := append(bytes.Repeat([]byte("z"), blockSize), make([]byte, blockSize)...)
		z = append(z, bytes.Repeat([]byte("y"), 100)...)
		b.data(100, z[:blockSize])
		b.data(101, bytes.Repeat([]byte("y"), blockSize))
		if meta {
			// Data from the metadata partition: long_ads naming the
			// physical one.
			ads := make([]byte, 48)
			putLongAd(ads, blockSize, 100, 0)
			putLongAd(ads[16:], blockSize|1<<30, 0, 0) // not recorded
			putLongAd(ads[32:], blockSize, 101, 0)
			b.fileEntry(b.part(), 7, ftFile, adLong, len(z), ads)
		} else {
			ads := append(append(shortAds(100, blockSize), shortAds(0, blockSize|1<<30)...), shortAds(101, blockSize)...)
			b.fileEntry(b.part(), 7, ftFile, adShort, len(z), ads)
		}
		b.dir(4, 1, fid{name: "b.txt", block: 5}, fid{name: "link", block: 6}, fid{name: "z.bin", block: 7})
		want["sub/z.bin"] = sum(z)
		got, ranges, err := rangeTree(openFile(t, b.img))
		if err != nil {
			t.Fatalf("meta=%v: %v", meta, err)
		}
		if show(got) != show(want) {
			t.Errorf("meta=%v: got\n%s\nwant\n%s", meta, show(got), show(want))
		}
		if ranges < 3 {
			t.Errorf("meta=%v: %d ranges", meta, ranges)
		}
	}
	b, _ := sample(false)
	b.file(5, 190, 50*blockSize) // past the image
	var ee *archive.EntryError
	if _, _, err := rangeTree(openFile(t, b.img)); !errors.Is(err, errTruncated) || !errors.As(err, &ee) || ee.Entry != "sub/b.txt" {
		t.Errorf("data past the end: %v", err)
	}
}
