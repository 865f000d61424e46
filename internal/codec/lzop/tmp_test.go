package lzop

import (
	"bytes"
	"io"
	"os"
	"testing"
)

func BenchmarkTmpBig(b *testing.B) {
	data, err := os.ReadFile("/tmp/bench17/binary.lzo")
	if err != nil {
		b.Skip()
	}
	for _, t := range []int{1, 2} {
		b.Run(string(rune('0'+t)), func(b *testing.B) {
			var z Reader
			br := bytes.NewReader(data)
			b.SetBytes(32 << 20)
			b.ReportAllocs()
			for b.Loop() {
				br.Reset(data)
				z.SetThreads(t)
				if err := z.Reset(br, 0); err != nil {
					b.Fatal(err)
				}
				if _, err := z.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestTmpCount(t *testing.T) {
	data, want := multiBlock(t)
	t.Logf("%d bytes, %d blocks, %d out", len(data), len(blocks(t, data)), len(want))
}
