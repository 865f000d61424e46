package verify

import (
	"crypto/sha256"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"strconv"
	"testing"
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
				for b.Loop() {
					h.Reset()
					h.Write(p)
					sum = h.Sum(sum[:0])
				}
				if len(sum) != h.Size() {
					b.Fatalf("digest length %d", len(sum))
				}
			})
		}
	}
}

// benchImpls runs f for the assembly path (when present) and the generic one.
func benchImpls(b *testing.B, f func(b *testing.B)) {
	saveAVX2, saveCLMUL := useAVX2, useCLMUL
	defer func() { useAVX2, useCLMUL = saveAVX2, saveCLMUL }()
	if hasAVX2 || hasCLMUL {
		useAVX2, useCLMUL = hasAVX2, hasCLMUL
		b.Run("impl=asm", f)
	}
	useAVX2, useCLMUL = false, false
	b.Run("impl=generic", f)
}

func BenchmarkBLAKE2sp(b *testing.B) {
	benchImpls(b, func(b *testing.B) { benchHash(b, New(BLAKE2sp), benchSizes) })
}

func BenchmarkCRC64(b *testing.B) {
	benchImpls(b, func(b *testing.B) { benchHash(b, New(CRC64), benchSizes) })
}

func BenchmarkXXH64(b *testing.B) { benchHash(b, New(XXH64), benchSizes) }
func BenchmarkXXH32(b *testing.B) { benchHash(b, New(XXH32), benchSizes) }

// The standard library's hashes, for comparison in the same run.

func BenchmarkStdCRC64(b *testing.B) {
	benchHash(b, crc64.New(crc64.MakeTable(crc64.ECMA)), benchSizes)
}
func BenchmarkStdCRC32(b *testing.B)  { benchHash(b, crc32.NewIEEE(), benchSizes) }
func BenchmarkStdSHA256(b *testing.B) { benchHash(b, sha256.New(), benchSizes) }
