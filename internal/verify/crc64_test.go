package verify

import (
	"hash/crc64"
	"math/rand/v2"
	"testing"
)

// crcLengths are lengths around the cut-offs of the CRC64 paths: the 8-byte
// slices of the tables, the 16-byte and 64-byte folds of crc64CLMUL and its
// 64-byte minimum.
var crcLengths = func() []int {
	var ls []int
	for n := range 300 {
		ls = append(ls, n)
	}
	for _, base := range []int{511, 1023, 4095, 65535} {
		for d := range 20 {
			ls = append(ls, base-8+d)
		}
	}
	return ls
}()

// TestCRC64CrossCheck compares every CRC64 implementation with hash/crc64
// at every cut-off length, misalignment 0..63 and random initial CRC.
func TestCRC64CrossCheck(t *testing.T) {
	tab := crc64.MakeTable(crc64.ECMA)
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 65535+64+64)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	forEachImpl(t, func(t *testing.T) {
		for _, n := range crcLengths {
			for align := range 64 {
				if n > 4096 && align%13 != 0 {
					continue
				}
				p := buf[align : align+n]
				init := rng.Uint64()
				if got, want := crc64Update(init, p), crc64.Update(init, tab, p); got != want {
					t.Fatalf("len %d align %d init %x: got %016x, want %016x", n, align, init, got, want)
				}
			}
		}
	})
}

// TestCRC64Streaming checks random split points of streaming writes.
func TestCRC64Streaming(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := pattern(100003)
	want := crc64.Checksum(data, crc64.MakeTable(crc64.ECMA))
	forEachImpl(t, func(t *testing.T) {
		for range 50 {
			h := New(CRC64).(interface{ Sum64() uint64 })
			writeSplit(h.(interface{ Write([]byte) (int, error) }), data, rng)
			if got := h.Sum64(); got != want {
				t.Fatalf("got %016x, want %016x", got, want)
			}
		}
	})
}

// TestCRC64Check is the CRC-64/XZ check value of "123456789".
func TestCRC64Check(t *testing.T) {
	if got := UpdateCRC64(0, []byte("123456789")); got != 0x995dc9bbdf1939fa {
		t.Errorf("got %016x", got)
	}
}
