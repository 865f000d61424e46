package arj

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// FuzzARJ reads arbitrary archives: no panic, no hang, never more data
// than an entry's size.
func FuzzARJ(f *testing.F) {
	for _, name := range append(fixtures, "vol.arj", "garbled.arj") {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), nil)
		if err != nil {
			return
		}
		for range 1000 {
			e, err := r.Next()
			if err != nil {
				return
			}
			n, _ := io.Copy(io.Discard, io.LimitReader(r, 1<<22))
			if e.Type == archive.TypeFile && e.Size >= 0 && n > e.Size {
				t.Fatalf("%s: %d bytes from an entry of %d", e.Name, n, e.Size)
			}
		}
	})
}
