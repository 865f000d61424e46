package verify

import (
	"hash/crc32"
	"hash/crc64"
	"testing"
)

// TestSliceHelpers checks SumCRC32, UpdateCRC32, UpdateCRC32Byte, NewCRC32 and SumCRC64
// against the standard library, whole and split at every point.
func TestSliceHelpers(t *testing.T) {
	ecma := crc64.MakeTable(crc64.ECMA)
	for _, n := range []int{0, 1, 7, 16, 63, 64, 65, 200, 1000} {
		p := pattern(n)
		want32 := crc32.ChecksumIEEE(p)
		if got := SumCRC32(p); got != want32 {
			t.Errorf("SumCRC32(len %d) = %08x, want %08x", n, got, want32)
		}
		h := NewCRC32()
		h.Write(p)
		if got := h.Sum32(); got != want32 {
			t.Errorf("NewCRC32 over len %d = %08x, want %08x", n, got, want32)
		}
		want64 := crc64.Checksum(p, ecma)
		if got := SumCRC64(p); got != want64 {
			t.Errorf("SumCRC64(len %d) = %016x, want %016x", n, got, want64)
		}
		byByte := uint32(0)
		for _, c := range p {
			byByte = UpdateCRC32Byte(byByte, c)
		}
		if byByte != want32 {
			t.Errorf("UpdateCRC32Byte over len %d = %08x, want %08x", n, byByte, want32)
		}
		for cut := 0; cut <= n; cut += 1 + n/13 {
			if got := UpdateCRC32(UpdateCRC32(0, p[:cut]), p[cut:]); got != want32 {
				t.Errorf("UpdateCRC32 split %d/%d = %08x, want %08x", cut, n, got, want32)
			}
			if got := UpdateCRC64(UpdateCRC64(0, p[:cut]), p[cut:]); got != want64 {
				t.Errorf("UpdateCRC64 split %d/%d = %016x, want %016x", cut, n, got, want64)
			}
		}
	}
}
