package udf

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// checkSpans checks r's stored spans against image img: sorted and apart,
// each of a regular file and read by OpenSpan as the image's bytes, and
// returns the bytes of spans by entry name.
func checkSpans(t *testing.T, r *Reader, img []byte) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	var end int64
	for k, sp := range r.StoredSpans() {
		e := r.files[sp.Entry].entry
		if sp.Len <= 0 || k > 0 && sp.Off < end || e.Type != archive.TypeFile {
			t.Fatalf("span %d %+v (%s, type %v) after end %d", k, sp, e.Name, e.Type, end)
		}
		end = sp.Off + sp.Len
		got[e.Name] += sp.Len
		rc := r.OpenSpan(sp.Off, sp.Len)
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(data, img[sp.Off:sp.Off+sp.Len]) {
			t.Fatalf("span %+v: %d bytes, %v", sp, len(data), err)
		}
	}
	return got
}

// TestStoredSpans: the recorded extents of the regular files, with and
// without a metadata partition; an unrecorded extent has no span, nor do
// embedded files, hard links, links and directories.
func TestStoredSpans(t *testing.T) {
	for _, meta := range []bool{false, true} {
		b, _ := sample(meta)
		z := bytes.Repeat([]byte("z"), blockSize)
		b.data(100, z)
		b.data(101, z)
		if meta {
			ads := make([]byte, 48)
			putLongAd(ads, blockSize, 100, 0)
			putLongAd(ads[16:], blockSize|1<<30, 0, 0) // not recorded
			putLongAd(ads[32:], 100, 101, 0)
			b.fileEntry(b.part(), 7, ftFile, adLong, 2*blockSize+100, ads)
		} else {
			ads := append(append(shortAds(100, blockSize), shortAds(0, blockSize|1<<30)...), shortAds(101, 100)...)
			b.fileEntry(b.part(), 7, ftFile, adShort, 2*blockSize+100, ads)
		}
		b.dir(4, 1, fid{name: "b.txt", block: 5}, fid{name: "link", block: 6}, fid{name: "z.bin", block: 7})
		r, err := b.open()
		if err != nil {
			t.Fatalf("meta=%v: %v", meta, err)
		}
		got := checkSpans(t, r, b.img)
		want := map[string]int64{"a.txt": 6000, "sub/b.txt": 5, "sub/z.bin": blockSize + 100}
		if len(got) != len(want) {
			t.Errorf("meta=%v: spans of %v, want %v", meta, got, want)
		}
		for name, n := range want {
			if got[name] != n {
				t.Errorf("meta=%v: %s: %d bytes in spans, want %d", meta, name, got[name], n)
			}
		}
	}
}

// TestStoredSpansLeftOut: a file whose own extents overlap (allowed: only
// two files sharing bytes are refused) is left to be read file by file;
// the other files' spans stay.
func TestStoredSpansLeftOut(t *testing.T) {
	b, _ := sample(false)
	b.data(100, bytes.Repeat([]byte("w"), 2*blockSize))
	ads := append(shortAds(100, 2*blockSize), shortAds(101, blockSize)...) // block 101 twice
	b.fileEntry(b.part(), 7, ftFile, adShort, 3*blockSize, ads)
	b.dir(4, 1, fid{name: "b.txt", block: 5}, fid{name: "link", block: 6}, fid{name: "w.bin", block: 7})
	r, err := b.open()
	if err != nil {
		t.Fatal(err)
	}
	got := checkSpans(t, r, b.img)
	if _, ok := got["sub/w.bin"]; ok || got["a.txt"] != 6000 || got["sub/b.txt"] != 5 {
		t.Errorf("spans: %v", got)
	}
}

// TestOpenSpanPastEnd: a span reaching past the image's end is cut short,
// through Read and through the range path.
func TestOpenSpanPastEnd(t *testing.T) {
	b, _ := sample(false)
	off := int64(len(b.img)) - 100
	rc := b.openSpan(t, off, 300)
	if data, err := io.ReadAll(rc); !errors.Is(err, errTruncated) || len(data) != 100 {
		t.Errorf("Read: %d bytes, %v", len(data), err)
	}
	r := openFile(t, b.img)
	w := &rangeHash{h: io.Discard}
	if n, err := r.OpenSpan(off, 300).(io.WriterTo).WriteTo(w); !errors.Is(err, errTruncated) || n != 100 || w.ranges != 1 {
		t.Errorf("WriteTo: %d bytes, %v, %d ranges", n, err, w.ranges)
	}
}

func (b *builder) openSpan(t *testing.T, off, n int64) io.ReadCloser {
	t.Helper()
	r, err := b.open()
	if err != nil {
		t.Fatal(err)
	}
	return r.OpenSpan(off, n)
}
