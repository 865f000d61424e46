package iso9660

import (
	"os"
	"testing"
)

// benchImage opens the image named by UNPACK_BENCH_ISO (scripts/bench.sh's
// image.iso: ~1,300 small files), or skips.
func benchImage(b *testing.B) (*os.File, int64) {
	p := os.Getenv("UNPACK_BENCH_ISO")
	if p == "" {
		b.Skip("UNPACK_BENCH_ISO not set")
	}
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	return f, st.Size()
}

// BenchmarkOpen measures reading the directory tree.
func BenchmarkOpen(b *testing.B) {
	f, size := benchImage(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewReader(f, size, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEntries measures opening every file's data (none read).
func BenchmarkEntries(b *testing.B) {
	f, size := benchImage(b)
	r, err := NewReader(f, size, nil)
	if err != nil {
		b.Fatal(err)
	}
	entries, _ := r.Entries()
	b.ReportAllocs()
	for b.Loop() {
		for i := range entries {
			rc, err := r.Open(i)
			if err != nil {
				b.Fatal(err)
			}
			rc.Close()
		}
	}
}
