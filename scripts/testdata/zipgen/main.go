// Command zipgen writes the zip fixtures that need Go's archive/zip writer:
// entries with data descriptors (deflate and stored) and an archive behind
// a prefix (as a self-extractor stub would be). Used by scripts/testdata/zip.sh.
package main

import (
	"archive/zip"
	"bytes"
	"log"
	"os"
	"path/filepath"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: zipgen SRC_DIR OUT_DIR")
	}
	src, out := os.Args[1], os.Args[2]
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			log.Fatal(err)
		}
		return b
	}
	mtime := time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC)
	build := func(prefix []byte) []byte {
		var buf bytes.Buffer
		buf.Write(prefix)
		w := zip.NewWriter(&buf)
		w.SetOffset(int64(len(prefix)))
		for _, f := range []struct {
			name   string
			method uint16
		}{{"hello.txt", zip.Deflate}, {"lorem.txt", zip.Deflate}, {"random.bin", zip.Store}, {"empty.txt", zip.Store}, {"dir/nested.txt", zip.Store}} {
			fw, err := w.CreateHeader(&zip.FileHeader{Name: f.name, Method: f.method, Modified: mtime})
			if err != nil {
				log.Fatal(err)
			}
			fw.Write(read(f.name))
		}
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
		return buf.Bytes()
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write("go-dd.zip", build(nil))
	write("go-prefix.zip", build(bytes.Repeat([]byte("#!/bin/sh\necho stub\nexit 0\n"), 40)))
}
