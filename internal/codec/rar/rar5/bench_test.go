package rar5

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// benchArchive reads every entry of the corpus archive rel, b.N times,
// from memory.
func benchArchive(b *testing.B, rel, password string) {
	path := filepath.Join(testutil.CorpusDir(b), rel)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	opt := &archive.Options{}
	if password != "" {
		opt.Passwords = []string{password}
	}
	var total int64
	buf := make([]byte, 32<<10)
	// The caller's buffered input, as the CLI gives it (its buffer is the
	// CLI's, reused here).
	br := bufio.NewReaderSize(nil, 1<<20)
	run := func() {
		br.Reset(bytes.NewReader(data))
		in := &archive.Input{R: br, Size: int64(len(data)), Name: rel}
		r, err := Open(in, opt, 0)
		if err != nil {
			b.Fatal(err)
		}
		total = 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
			if err != nil {
				b.Fatal(err)
			}
			total += n
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
	run()
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
}

func BenchmarkDecode(b *testing.B) {
	b.Run("issue1050", func(b *testing.B) {
		benchArchive(b, "files/sharpcompress/tests/TestArchives/Archives/Rar.issue1050.rar", "")
	})
	b.Run("solid", func(b *testing.B) {
		benchArchive(b, "files/sharpcompress/tests/TestArchives/Archives/Rar5.solid.rar", "")
	})
	b.Run("large", func(b *testing.B) { // 64 MiB of long matches from 3 KB
		benchArchive(b, "files/sharpcompress/tests/TestArchives/Archives/Large/Large.rar", "")
	})
}

// BenchmarkEncrypted reads the corpus's encrypted archives; each
// iteration derives the key anew (2^15 PBKDF2 rounds).
func BenchmarkEncrypted(b *testing.B) {
	b.Run("files", func(b *testing.B) {
		benchArchive(b, "files/sharpcompress/tests/TestArchives/Archives/Rar5.encrypted_filesOnly.rar", "test")
	})
	b.Run("headers", func(b *testing.B) {
		benchArchive(b, "files/sharpcompress/tests/TestArchives/Archives/Rar5.encrypted_filesAndHeader.rar", "test")
	})
}

// BenchmarkDecrypt reads a 4 MiB stored, encrypted entry (a cheap key
// derivation, so AES-CBC and the CRC dominate).
func BenchmarkDecrypt(b *testing.B) {
	data := patternData(4<<20, 1)
	arc := vols(b, writerOpts{}, testEntry{name: "a", data: data, password: "pw"})
	opt := &archive.Options{Passwords: []string{"pw"}}
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := openBytes(arc, opt, nil)
		if err != nil {
			b.Fatal(err)
		}
		r.Next()
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
		if err != nil || n != int64(len(data)) {
			b.Fatal(n, err)
		}
	}
}
