package sevenzip

import (
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// extractSeq reads every entry in order and returns the bytes read.
func extractSeq(b *testing.B, r *Reader, buf []byte) int64 {
	var n int64
	for {
		_, err := r.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		for {
			k, err := r.Read(buf)
			n += int64(k)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// extractParallel hands whole folders to workers, as the CLI would.
func extractParallel(b *testing.B, r *Reader, workers int) int64 {
	folders := r.Folders()
	var total int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan []int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 256<<10)
			var n int64
			for idx := range next {
				for _, i := range idx {
					rc, err := r.Open(i)
					if err != nil {
						b.Error(err)
						return
					}
					k, err := io.CopyBuffer(io.Discard, rc, buf)
					rc.Close()
					if err != nil {
						b.Error(err)
						return
					}
					n += k
				}
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	for _, f := range folders {
		next <- f
	}
	close(next)
	wg.Wait()
	return total
}

// BenchmarkFile decodes the archive named by $SEVENZIP_BENCH_FILE with
// $SEVENZIP_BENCH_THREADS workers (default 1: sequential Next/Read); see
// scripts/bench-7z.sh.
func BenchmarkFile(b *testing.B) {
	path := os.Getenv("SEVENZIP_BENCH_FILE")
	if path == "" {
		b.Skip("SEVENZIP_BENCH_FILE not set")
	}
	threads, _ := strconv.Atoi(os.Getenv("SEVENZIP_BENCH_THREADS"))
	if threads <= 0 {
		threads = 1
	}
	benchPath(b, path, threads)
}

func benchPath(b *testing.B, path string, threads int) {
	buf := make([]byte, 256<<10)
	b.ReportAllocs()
	var size int64
	for i := 0; i < b.N; i++ {
		r, err := openFile(b, path, "Secret")
		if err != nil {
			b.Fatal(err)
		}
		if threads == 1 {
			size = extractSeq(b, r, buf)
		} else {
			size = extractParallel(b, r, threads)
		}
		r.Close()
		if i == 0 {
			b.SetBytes(size)
		}
	}
}

// BenchmarkFixtures decodes the small committed fixtures.
func BenchmarkFixtures(b *testing.B) {
	for _, name := range []string{"copy.7z", "lzma.7z", "lzma2.7z", "bcj2.7z", "aes.7z", "nonsolid.7z"} {
		b.Run(name, func(b *testing.B) { benchPath(b, "testdata/"+name, 1) })
	}
	b.Run("nonsolid.7z/parallel", func(b *testing.B) { benchPath(b, "testdata/nonsolid.7z", runtime.GOMAXPROCS(0)) })
}

// BenchmarkKey measures the AES key derivation (2^19 rounds, 7-Zip's
// default), which the key cache pays once per archive.
func BenchmarkKey(b *testing.B) {
	salt := []byte{}
	for i := 0; i < b.N; i++ {
		deriveKey(19, salt, "password")
	}
}

var _ = archive.ErrCorrupt
