package lzh

import (
	"bytes"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// FuzzLZH reads arbitrary archives: no panic, no hang, no allocation
// beyond the limits.
func FuzzLZH(f *testing.F) {
	for _, name := range append(jlhaFixtures, "lh1-64k.lzh", "initial.lzs", "lz5-64k.lzs", "h3_subdir.lzh", "symlink1.lzh", "l1_full_subdir.lzh") {
		data, err := testdataFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), &archive.Options{MemLimit: 1 << 20})
		if err != nil {
			return
		}
		for range 1000 {
			e, err := r.Next()
			if err != nil {
				return
			}
			n, _ := io.Copy(io.Discard, io.LimitReader(r, 1<<22))
			if e.Type == archive.TypeFile && n > e.Size {
				t.Fatalf("%s: %d bytes from an entry of %d", e.Name, n, e.Size)
			}
		}
	})
}
