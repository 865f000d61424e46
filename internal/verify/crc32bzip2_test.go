package verify

import (
	"math/rand/v2"
	"testing"
)

// bzip2Generic is the bit-at-a-time definition of bzip2's CRC register
// update, the reference bzip2Raw is checked against.
func bzip2Generic(crc uint32, p []byte) uint32 {
	for _, b := range p {
		crc ^= uint32(b) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ bzip2Poly
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

func TestCRC32BZIP2Known(t *testing.T) {
	// CRC-32/BZIP2 check value: "123456789" -> 0xFC891918.
	if got := UpdateCRC32BZIP2(0, []byte("123456789")); got != 0xFC891918 {
		t.Fatalf("crc(123456789) = %#x, want 0xfc891918", got)
	}
}

func TestCRC32BZIP2CrossCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 4200)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	lengths := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 256, 1000, 4095, 4096}
	for _, n := range lengths {
		for align := range 8 {
			p := buf[align : align+n]
			start := r.Uint32()
			if got, want := bzip2Raw(start, p), bzip2Generic(start, p); got != want {
				t.Fatalf("len %d align %d: bzip2Raw %#x, generic %#x", n, align, got, want)
			}
			cut := min(n, int(start%9))
			if got, want := UpdateCRC32BZIP2(UpdateCRC32BZIP2(0, p[:cut]), p[cut:]), ^bzip2Generic(0xFFFFFFFF, p); got != want {
				t.Fatalf("len %d align %d split %d: UpdateCRC32BZIP2 %#x, generic %#x", n, align, cut, got, want)
			}
		}
	}
}
