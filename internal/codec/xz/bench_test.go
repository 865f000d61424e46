package xz

import (
	"bytes"
	"fmt"
	"github.com/unpack-dev/unpack/internal/testutil"
	"io"
	"os"
	"testing"
)

// BenchmarkReader decodes fixtures single- and multi-threaded. Set
// UNPACK_XZ_BENCH to an .xz file to benchmark it as well (scripts/bench-xz.sh
// makes big ones and compares with xz).
func BenchmarkReader(b *testing.B) {
	type input struct {
		name string
		data []byte
		size int64
	}
	var inputs []input
	for _, fx := range fixtures(b) {
		switch fx.name {
		case "x86big.xz", "blocks-sized.xz", "x86-lzma2.xz", "check-sha256.xz":
			inputs = append(inputs, input{fx.name, testutil.Fixture(b, fx.name), fx.size})
		}
	}
	if path := os.Getenv("UNPACK_XZ_BENCH"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		z, err := NewReader(bytes.NewReader(data), Config{})
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, z)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, input{"env", data, n})
	}
	buf := make([]byte, 128<<10)
	for _, in := range inputs {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("file=%s/threads=%d", in.name, threads), func(b *testing.B) {
				z, err := NewReader(bytes.NewReader(in.data), Config{Threads: threads})
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(in.size)
				b.ReportAllocs()
				for b.Loop() {
					if err := z.Reset(bytes.NewReader(in.data), Config{Threads: threads}); err != nil {
						b.Fatal(err)
					}
					n, err := io.CopyBuffer(io.Discard, onlyReader{z}, buf)
					if err != nil || n != in.size {
						b.Fatalf("%d bytes, %v", n, err)
					}
				}
			})
		}
	}
}
