package bzip2

import (
	"math/rand/v2"
	"testing"
)

// crcGeneric is the bit-at-a-time definition of bzip2's CRC register
// update, the reference crcUpdate is checked against.
func crcGeneric(crc uint32, p []byte) uint32 {
	for _, b := range p {
		crc ^= uint32(b) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ crcPoly
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

func TestCRCKnown(t *testing.T) {
	// CRC-32/BZIP2 check value: "123456789" -> 0xFC891918.
	if got := ^crcUpdate(0xFFFFFFFF, []byte("123456789")); got != 0xFC891918 {
		t.Fatalf("crc(123456789) = %#x, want 0xfc891918", got)
	}
}

func TestCRCCrossCheck(t *testing.T) {
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
			if got, want := crcUpdate(start, p), crcGeneric(start, p); got != want {
				t.Fatalf("len %d align %d: crcUpdate %#x, generic %#x", n, align, got, want)
			}
		}
	}
}
