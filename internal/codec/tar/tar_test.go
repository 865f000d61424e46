package tar

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
)

func fixtures(t testing.TB) []string {
	m, _ := filepath.Glob("testdata/*.tar")
	if len(m) == 0 {
		t.Skip("no fixtures")
	}
	return m
}

// TestFixtures reads every fixture made by GNU tar and bsdtar through a
// one-byte reader and checks the kinds of entries they hold.
func TestFixtures(t *testing.T) {
	for _, p := range fixtures(t) {
		data, _ := os.ReadFile(p)
		r := NewReader(iotest.OneByteReader(bytes.NewReader(data)), nil)
		var n, sparse int
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if e.Sparse != nil {
				sparse++
			}
			body, err := io.ReadAll(r)
			if err != nil || e.Type == archive.TypeFile && int64(len(body)) != e.Size {
				t.Fatalf("%s: %s: %d bytes of %d, %v", p, e.Name, len(body), e.Size, err)
			}
			n++
		}
		if n == 0 {
			t.Errorf("%s: no entries", p)
		}
		if filepath.Base(p) == "sparse-gnutar.tar" && sparse == 0 {
			t.Errorf("%s: sparse entry not marked", p)
		}
	}
}

func TestTruncated(t *testing.T) {
	for _, p := range fixtures(t) {
		data, _ := os.ReadFile(p)
		for _, cut := range []int{100, 511, 512, 700, len(data) / 2} {
			if cut >= len(data) {
				continue
			}
			r := NewReader(bytes.NewReader(data[:cut]), nil)
			var err error
			for err == nil {
				if _, err = r.Next(); err == nil {
					_, err = io.Copy(io.Discard, r)
				}
			}
			if err == io.EOF && cut%512 == 0 {
				continue // a cut at a block boundary may look like an end
			}
			if !errors.Is(err, archive.ErrCorrupt) && err != io.EOF {
				t.Errorf("%s cut at %d: %v", p, cut, err)
			}
		}
	}
}

func FuzzTar(f *testing.F) {
	for _, p := range fixtures(f) {
		data, _ := os.ReadFile(p)
		if len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), nil)
		for i := 0; i < 1000; i++ {
			e, err := r.Next()
			if err != nil {
				return
			}
			if e.Size > 1<<20 {
				return
			}
			io.Copy(io.Discard, r)
		}
	})
}
