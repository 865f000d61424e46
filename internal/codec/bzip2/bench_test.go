package bzip2

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"github.com/unpack-dev/unpack/internal/testutil"
	"io"
	"os"
	"testing"
)

// The decode harness for scripts/bench-bzip2.sh: with -bzip2.file set,
// TestDecodeFile decompresses that file to standard output (or -bzip2.out), so the
// compiled test binary can be timed against bzip2, lbzip2 and 7zz.
var (
	decodeFile    = flag.String("bzip2.file", "", "decompress this file to stdout (TestDecodeFile)")
	decodeThreads = flag.Int("bzip2.threads", 0, "Config.Threads for -bzip2.file")
	decodeOut     = flag.String("bzip2.out", "", "write -bzip2.file's output here instead of stdout")
)

func TestDecodeFile(t *testing.T) {
	if *decodeFile == "" {
		t.Skip("no -bzip2.file")
	}
	f, err := os.Open(*decodeFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := NewReader(bufio.NewReaderSize(f, 1<<20), Config{Threads: *decodeThreads})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	out := os.Stdout
	if *decodeOut != "" {
		if out, err = os.Create(*decodeOut); err != nil {
			t.Fatal(err)
		}
		defer out.Close()
	}
	if _, err := io.Copy(out, z); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkDecode(b *testing.B) {
	sums := fixtures(b)
	for _, name := range []string{"text-bzip2-9.bz2", "binary-bzip2.bz2", "bitmap-bzip2.bz2", "runs-bzip2.bz2"} {
		data := testutil.Fixture(b, name)
		if _, ok := sums[name]; !ok {
			b.Fatalf("no fixture %s", name)
		}
		size, err := io.Copy(io.Discard, mustReader(b, data, 1))
		if err != nil {
			b.Fatal(err)
		}
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", name, threads), func(b *testing.B) {
				z := mustReader(b, data, threads)
				defer z.Close()
				buf := make([]byte, 1<<16)
				in := bytes.NewReader(data)
				decode := func() {
					in.Reset(data)
					if err := z.Reset(in); err != nil {
						b.Fatal(err)
					}
					n := int64(0)
					for {
						k, err := z.Read(buf)
						n += int64(k)
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					if n != size {
						b.Fatalf("decoded %d bytes, want %d", n, size)
					}
				}
				decode() // warm up: the buffers are allocated once
				b.SetBytes(size)
				b.ReportAllocs()
				for b.Loop() {
					decode()
				}
			})
		}
	}
}

func mustReader(b *testing.B, data []byte, threads int) *Reader {
	z, err := NewReader(bytes.NewReader(data), Config{Threads: threads})
	if err != nil {
		b.Fatal(err)
	}
	return z
}

// BenchmarkStages times the stages of one block's decode separately:
// Huffman/MTF/RLE2 decoding (symbols) and the inverse BWT (bwt), on the
// first block of each fixture. Bytes are the block's symbols.
func BenchmarkStages(b *testing.B) {
	for _, name := range []string{"text-bzip2-9.bz2", "binary-bzip2.bz2", "bitmap-bzip2.bz2"} {
		data := testutil.Fixture(b, name)
		j := newJob()
		j.in, j.shift, j.limitBits, j.maxBlock = data[4:], 0, int64(len(data)-4)*8, int(data[3]-'0')*100000
		j.final, j.atEOF = true, true
		d := new(blockDecoder)
		if !d.decodeSymbols(j) {
			b.Fatalf("%s: %v", name, j.err)
		}
		b.Run(name+"/symbols", func(b *testing.B) {
			b.SetBytes(int64(len(j.pre)))
			b.ReportAllocs()
			for b.Loop() {
				d.decodeSymbols(j)
			}
		})
		// The walk uses the last column's buffer as scratch: each round
		// restores it first (a copy of 1/4 the bytes the walk reads).
		last := bytes.Clone(d.last[:len(j.pre)])
		b.Run(name+"/bwt", func(b *testing.B) {
			b.SetBytes(int64(len(j.pre)))
			b.ReportAllocs()
			for b.Loop() {
				copy(d.last, last)
				d.inverseBWT(j.pre, j.origPtr)
			}
		})
	}
}
