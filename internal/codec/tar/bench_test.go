package tar

import (
	gotar "archive/tar"
	"bufio"
	"bytes"
	"io"
	"testing"
)

// benchArchive is a tar of one 32 MiB file and 1000 small ones.
func benchArchive(b *testing.B) []byte {
	var buf bytes.Buffer
	w := gotar.NewWriter(&buf)
	big := bytes.Repeat([]byte("0123456789abcdef"), 2<<20)
	w.WriteHeader(&gotar.Header{Name: "big", Size: int64(len(big)), Mode: 0o644})
	w.Write(big)
	for i := range 1000 {
		w.WriteHeader(&gotar.Header{Name: "small/" + string(rune('a'+i%26)), Size: 1000, Mode: 0o644})
		w.Write(big[:1000])
	}
	w.Close()
	return buf.Bytes()
}

// BenchmarkRead reads every entry as the CLI does, through a 1 MiB
// bufio.Reader: this reader by WriteTo, and archive/tar (the reader this
// one replaced) by a copy through a 256 KiB buffer.
func BenchmarkRead(b *testing.B) {
	data := benchArchive(b)
	b.Run("impl=ours", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			r := NewReader(bufio.NewReaderSize(bytes.NewReader(data), 1<<20), nil)
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if _, err := r.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("impl=archive-tar", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		buf := make([]byte, 256<<10)
		for b.Loop() {
			r := gotar.NewReader(bufio.NewReaderSize(bytes.NewReader(data), 1<<20))
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
