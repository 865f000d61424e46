package lz4

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkDecodeBlock decodes one block of each test input (compressed by
// encodeBlock) into a reused buffer.
func BenchmarkDecodeBlock(b *testing.B) {
	in := testInputs()
	for _, name := range []string{"text", "mixed", "zeros", "periodd"} {
		p := in[name]
		src := encodeBlock(nil, p)
		dst := make([]byte, len(p))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				n, err := decodeBlock(dst, 0, src)
				if err != nil || n != len(p) {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// BenchmarkReader decodes frames of the 6 MiB workload, read 1 MiB at a
// time as the CLI's sinks read: 4 MiB independent blocks with a content
// checksum (lz4's default), linked blocks, block checksums, and 64 KiB
// blocks.
func BenchmarkReader(b *testing.B) {
	raw := workload()
	split := func(n int) [][]byte {
		var bs [][]byte
		for p := raw; len(p) > 0; p = p[min(n, len(p)):] {
			bs = append(bs, p[:min(n, len(p))])
		}
		return bs
	}
	for _, tc := range []struct {
		name    string
		flg, bd byte
		block   int
	}{
		{"B7-indep-contentsum", 0x64, 0x70, 4 << 20},
		{"B7-linked-contentsum", 0x44, 0x70, 4 << 20},
		{"B7-indep-blocksum", 0x70, 0x70, 4 << 20},
		{"B4-linked", 0x40, 0x40, 64 << 10},
	} {
		frame := makeFrame(tc.flg, tc.bd, split(tc.block)...)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			z := new(Reader)
			buf := make([]byte, 1<<20)
			br := bytes.NewReader(frame)
			// Hide WriteTo and ReadFrom, as the CLI's sinks do.
			var w io.Writer = struct{ io.Writer }{io.Discard}
			var r io.Reader = struct{ io.Reader }{z}
			decode := func() {
				br.Reset(frame)
				if err := z.Reset(br); err != nil {
					b.Fatal(err)
				}
				n, err := io.CopyBuffer(w, r, buf)
				if err != nil || n != int64(len(raw)) {
					b.Fatal(n, err)
				}
			}
			decode() // sizes the buffers
			for b.Loop() {
				decode()
			}
		})
		b.Run(tc.name+"/writeto", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			z := new(Reader)
			br := bytes.NewReader(frame)
			decode := func() {
				br.Reset(frame)
				if err := z.Reset(br); err != nil {
					b.Fatal(err)
				}
				n, err := z.WriteTo(io.Discard)
				if err != nil || n != int64(len(raw)) {
					b.Fatal(n, err)
				}
			}
			decode() // sizes the buffers
			for b.Loop() {
				decode()
			}
		})
	}
}
