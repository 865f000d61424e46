package wim

import (
	"io"
	"os"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// BenchmarkReader reads every file of the WIM named by $WIM_BENCH (as
// scripts/bench.sh makes them), or of the LZMS fixture.
func BenchmarkReader(b *testing.B) {
	name := os.Getenv("WIM_BENCH")
	if name == "" {
		name = "testdata/lzms.wim"
	}
	buf := make([]byte, 1<<20)
	b.ReportAllocs()
	for b.Loop() {
		r, err := openFile(b, name, nil)
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if e.Type == archive.TypeFile {
				m, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
				if err != nil {
					b.Fatal(err)
				}
				n += m
			}
		}
		b.SetBytes(n)
		r.Close()
	}
}
