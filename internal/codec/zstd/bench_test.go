package zstd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kzstd "github.com/klauspost/compress/zstd"
)

// BenchmarkDecoder decodes the .zst files named by ZSTD_BENCH (a glob;
// generated samples when unset) with ours and klauspost's, both on one
// goroutine into io.Discard through WriteTo.
func BenchmarkDecoder(b *testing.B) {
	type file struct {
		name string
		comp []byte
		size int64
	}
	var files []file
	if g := os.Getenv("ZSTD_BENCH"); g != "" {
		names, _ := filepath.Glob(g)
		for _, n := range names {
			c, err := os.ReadFile(n)
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, file{name: filepath.Base(n), comp: c})
		}
	} else {
		e, _ := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.SpeedBestCompression), kzstd.WithWindowSize(8<<20))
		for _, k := range []string{"text", "binary", "mix"} {
			files = append(files, file{name: k, comp: e.EncodeAll(sample(k, 16<<20, 5), nil)})
		}
	}
	k, _ := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1), kzstd.IgnoreChecksum(true), kzstd.WithDecoderMaxMemory(1<<62))
	defer k.Close()
	for i := range files {
		n, err := k.DecodeAll(files[i].comp, nil)
		if err != nil {
			b.Fatal(err)
		}
		files[i].size = int64(len(n))
	}
	d := NewDecoder(Options{IgnoreChecksum: true})
	for _, f := range files {
		name := strings.TrimSuffix(f.name, ".zst")
		b.Run("impl=ours/"+name, func(b *testing.B) {
			b.SetBytes(f.size)
			b.ReportAllocs()
			for b.Loop() {
				d.Reset(bytes.NewReader(f.comp))
				if n, err := d.WriteTo(io.Discard); err != nil || n != f.size {
					b.Fatal(n, err)
				}
			}
		})
		b.Run("impl=klauspost/"+name, func(b *testing.B) {
			b.SetBytes(f.size)
			b.ReportAllocs()
			for b.Loop() {
				k.Reset(bytes.NewReader(f.comp))
				if n, err := k.WriteTo(io.Discard); err != nil || n != f.size {
					b.Fatal(n, err)
				}
			}
		})
	}
}
