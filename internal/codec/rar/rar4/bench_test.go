package rar4

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// BenchmarkReader reads whole corpus archives (decoding and verifying every
// entry). Run with UNPACK_CORPUS set.
func BenchmarkReader(b *testing.B) {
	dir := testutil.CorpusDir(b)
	for _, c := range []struct{ name, rel, pass string }{
		{"lz29-audio", "files/sharpcompress/tests/TestArchives/Archives/Rar.Audio_program.rar", ""},
		{"lz29-delta-sfx", "files/rarfile/test/files/rar3-seektest.sfx", ""},
		{"lz29-e8", "files/sharpcompress/tests/TestArchives/Archives/Rar.rar", ""},
		{"lz29-solid", "files/sharpcompress/tests/TestArchives/Archives/Rar.solid.rar", ""},
		{"lz29-aes", "files/sharpcompress/tests/TestArchives/Archives/Rar.encrypted_filesOnly.rar", "test"},
		{"lz20", "files/sharpcompress/tests/TestArchives/Archives/Rar2.rar", ""},
		{"stored", "files/sharpcompress/tests/TestArchives/Archives/Rar.none.rar", ""},
	} {
		data, err := os.ReadFile(filepath.Join(dir, c.rel))
		if err != nil {
			b.Fatal(err)
		}
		off := int64(bytes.Index(data, marker))
		opt := &archive.Options{}
		if c.pass != "" {
			opt.Passwords = []string{c.pass}
		}
		run := func() int64 {
			r, err := Open(&archive.Input{R: bytes.NewReader(data[off:]), Size: int64(len(data))}, opt, off)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			var n int64
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				m, err := io.Copy(io.Discard, r)
				if err != nil {
					b.Fatal(err)
				}
				n += m
			}
			return n
		}
		size := run()
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if run() != size {
					b.Fatal("size changed")
				}
			}
		})
	}
}
