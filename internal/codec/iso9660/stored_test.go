package iso9660

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// TestStoredSpans: the spans are the stored files' extents, sorted and
// apart, each naming its file; zisofs files and boot images are left out;
// OpenSpan reads a span as the file's own reader does.
func TestStoredSpans(t *testing.T) {
	for _, name := range []string{"rr-joliet.iso", "zisofs.iso", "boot.iso"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			t.Fatal(err)
		}
		spans := r.StoredSpans()
		want := map[int]int64{} // entry → bytes of data expected in spans
		for i, f := range r.files {
			if f.entry.Type == archive.TypeFile && f.zf == nil && !f.boot && f.entry.Size > 0 {
				want[i] = f.entry.Size
			}
		}
		got := map[int]int64{}
		var end int64
		for k, sp := range spans {
			if sp.Len <= 0 || k > 0 && sp.Off < end {
				t.Fatalf("%s: span %d %+v after end %d", name, k, sp, end)
			}
			end = sp.Off + sp.Len
			got[sp.Entry] += sp.Len
			rc := r.OpenSpan(sp.Off, sp.Len)
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(data, b[sp.Off:sp.Off+sp.Len]) {
				t.Fatalf("%s: span %+v: %d bytes, %v", name, sp, len(data), err)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: spans of %d files, want %d", name, len(got), len(want))
		}
		for i, n := range want {
			if got[i] != n {
				t.Errorf("%s: %s: %d bytes in spans, want %d", name, r.files[i].entry.Name, got[i], n)
			}
		}
		if name == "zisofs.iso" {
			for _, sp := range spans {
				if r.files[sp.Entry].zf != nil {
					t.Errorf("zisofs file %s in the spans", r.files[sp.Entry].entry.Name)
				}
			}
		}
	}
}

// TestOpenSpanPastEnd: a span reaching past the image's end is cut short,
// through a buffer and through the range path.
func TestOpenSpanPastEnd(t *testing.T) {
	b, err := os.ReadFile("testdata/plain.iso")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(fileSource{testutil.TempFile(t, "image.iso", b)}, int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	off := int64(len(b)) - 100
	rc := r.OpenSpan(off, 300)
	data, err := io.ReadAll(rc)
	rc.Close()
	if !errors.Is(err, archive.ErrCorrupt) || !bytes.Equal(data, b[off:]) {
		t.Errorf("read past the end: %d bytes, %v", len(data), err)
	}
	rc = r.OpenSpan(off, 300)
	var buf bytes.Buffer
	n, err := rc.(io.WriterTo).WriteTo(&rangeHash{h: &buf})
	rc.Close()
	if !errors.Is(err, archive.ErrCorrupt) || n != 100 || !bytes.Equal(buf.Bytes(), b[off:]) {
		t.Errorf("range past the end: %d bytes, %v", n, err)
	}
}
