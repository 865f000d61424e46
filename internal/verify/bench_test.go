package verify

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"strconv"
	"testing"
	"time"
)

var benchSizes = []int{64, 1 << 10, 64 << 10, 1 << 20}

// benchHash measures h over buffers of benchSizes at offset align.
func benchHash(b *testing.B, h hash.Hash, sizes []int) {
	buf := make([]byte, sizes[len(sizes)-1]+64)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	var sum []byte
	for _, n := range sizes {
		for _, align := range []int{0, 1} {
			b.Run("size="+strconv.Itoa(n)+"/align="+strconv.Itoa(align), func(b *testing.B) {
				p := buf[align : align+n]
				b.SetBytes(int64(n))
				b.ReportAllocs()
				c0 := cpuTime()
				for b.Loop() {
					h.Reset()
					h.Write(p)
					sum = h.Sum(sum[:0])
				}
				reportCPU(b, c0, n)
				if len(sum) != h.Size() {
					b.Fatalf("digest length %d", len(sum))
				}
			})
		}
	}
}

// reportCPU reports the throughput per CPU-second since c0 (single-threaded
// benchmarks only), as metric cpu-GB/s.
func reportCPU(b *testing.B, c0 time.Duration, n int) {
	if c0 == 0 {
		return
	}
	if d := cpuTime() - c0; d > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/d.Seconds()/1e9, "cpu-GB/s")
	}
}

// benchImpls runs f for every implementation this machine has.
func benchImpls(b *testing.B, f func(b *testing.B)) {
	for _, i := range impls() {
		restore := i.set()
		b.Run("impl="+i.name, f)
		restore()
	}
}

// BenchmarkBLAKE2sp runs every BLAKE2sp implementation.
func BenchmarkBLAKE2sp(b *testing.B) {
	benchImpls(b, func(b *testing.B) { benchHash(b, New(BLAKE2sp), benchSizes) })
}

// BenchmarkCRC64 runs the CLMUL path (when present) and the generic one;
// the BLAKE2sp switches do not touch CRC64.
func BenchmarkCRC64(b *testing.B) {
	defer func(s bool) { useCLMUL = s }(useCLMUL)
	for _, clmul := range []bool{true, false} {
		name := "impl=generic"
		if clmul {
			if !hasCLMUL {
				continue
			}
			name = "impl=clmul"
		}
		useCLMUL = clmul
		b.Run(name, func(b *testing.B) { benchHash(b, New(CRC64), benchSizes) })
	}
}

func BenchmarkXXH64(b *testing.B) { benchHash(b, New(XXH64), benchSizes) }
func BenchmarkXXH32(b *testing.B) { benchHash(b, New(XXH32), benchSizes) }

// The standard library's hashes, for comparison in the same run.

func BenchmarkStdCRC64(b *testing.B) {
	benchHash(b, crc64.New(crc64.MakeTable(crc64.ECMA)), benchSizes)
}
func BenchmarkStdCRC32(b *testing.B)  { benchHash(b, crc32.NewIEEE(), benchSizes) }
func BenchmarkStdSHA256(b *testing.B) { benchHash(b, sha256.New(), benchSizes) }

// BenchmarkReader measures the Reader stage reused across streams with
// Reset: it must not allocate per Read or per stream when the data match.
func BenchmarkReader(b *testing.B) {
	data := pattern(1 << 20)
	for _, k := range []Kind{CRC32, CRC64, BLAKE2sp} {
		b.Run("kind="+k.String(), func(b *testing.B) {
			h := New(k)
			h.Write(data)
			want := h.Sum(nil)
			src := bytes.NewReader(data)
			v := NewReader(src, k, want)
			buf := make([]byte, 32<<10)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				src.Reset(data)
				v.Reset(src, k, want)
				n := 0
				for {
					m, err := v.Read(buf)
					n += m
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if n != len(data) {
					b.Fatalf("read %d bytes", n)
				}
			}
		})
	}
}
