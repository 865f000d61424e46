package lzip

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// FuzzLzip decodes .lz streams: any error must be of an archive category.
func FuzzLzip(f *testing.F) {
	files, _ := filepath.Glob("testdata/small-*.lz")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), 16<<20)
		if err == nil {
			_, err = io.Copy(io.Discard, io.LimitReader(r, 8<<20))
		}
		if err != nil && !isCorrupt(err) && !errors.Is(err, archive.ErrLimit) &&
			!errors.Is(err, archive.ErrUnsupported) {
			t.Fatalf("error of no category: %v", err)
		}
	})
}
