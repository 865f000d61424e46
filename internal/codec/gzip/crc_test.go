package gzip

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestCRCCombine checks crcCombine against the CRC of the concatenation,
// for lengths around the powers of two the combination is built from.
func TestCRCCombine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 70000)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	for _, split := range []int{0, 1, 2, 7, 8, 9, 255, 256, 4095, 4096, 32768, 65535, 69999, 70000} {
		for _, end := range []int{split, split + 1, split + 3, 70000} {
			if end > len(data) || end < split {
				continue
			}
			a, b := data[:split], data[split:end]
			want := crc32.ChecksumIEEE(data[:end])
			got := crcCombine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), int64(len(b)))
			if got != want {
				t.Errorf("split %d end %d: %08x, want %08x", split, end, got, want)
			}
		}
	}
}

// TestCRCCombineLong checks the combination over lengths past 2^32, whose
// shifts use the upper powers: the CRC of n zero bytes follows from
// doubling.
func TestCRCCombineLong(t *testing.T) {
	zeros := make([]byte, 1<<16)
	z16 := crc32.ChecksumIEEE(zeros)
	// CRC of 2^k zero bytes, k from 16, by combining two halves.
	c := z16
	for k := 16; k < 40; k++ {
		n := int64(1) << k
		c = crcCombine(c, c, n)
	}
	// 2^39 zero bytes by doubling too, then doubled once more.
	c2 := z16
	for k := 16; k < 39; k++ {
		c2 = crcCombine(c2, c2, int64(1)<<k)
	}
	// c2 is the CRC of 2^39 zero bytes; c of 2^40.
	if got := crcCombine(c2, c2, int64(1)<<39); got != c {
		t.Errorf("2^39+2^39 zero bytes: %08x, want %08x", got, c)
	}
	if crcCombine(0x12345678, 0, 0) != 0x12345678 {
		t.Error("combining an empty part changed the CRC")
	}
}
